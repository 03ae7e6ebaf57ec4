/* The compiled reader of the well-formed LCOV tracefile (docs/parsing.md#compiled-readers).
 *
 * read(block, file_open): one chunk of whole lines as a list of items, in order: a str for an
 * "SF:name" line (the name, for the parser to open), None for an "end_of_record" line, and for the
 * records between them a tuple of five bytes (DA lines, DA hits, DA states, BRDA lines, BRDA taken):
 * lines and hits native uint32, a state one byte (HIT 0 for a counted line, MISS 1), taken one byte
 * (0 for "-" or "0", else 1). A file whose SF, records and end_of_record are all in the block, with
 * DA lines strictly increasing and every BRDA line among them, is one item (name, lines, hits,
 * states) instead, with lcov.py's branch rule applied (a line with branches: HIT if all were taken,
 * MISS if none, else PARTIAL; its hits those of its DA record). file_open tells whether a file is open before the block. Other records
 * ("TN:", "FN:", "LF:", any upper-case key and a colon) and blank lines are passed over. None when any
 * line needs a rule of the Python reader: a DA or BRDA outside a file, a number that is not plain
 * ASCII digits, too long or out of range, a BRDA line number with a leading zero, a stray line, an
 * "end_of_record" with anything after it, a str that is not UTF-8 encodable.
 */
#include "common.h"

/* Whether [p, end) is a record other than DA and BRDA: an upper-case key ([A-Z_], one letter at
 * least) and a colon. */
static int
other_record(const char *p, const char *end)
{
    int letters = 0;
    while (p < end && ((*p >= 'A' && *p <= 'Z') || *p == '_')) {
        letters += *p != '_';
        p++;
    }
    return letters > 0 && p < end && *p == ':';
}

static void
buffers_free(Buffer *buffers)
{
    int i;
    for (i = 0; i < 5; i++) {
        buffer_free(&buffers[i]);
    }
}

/* Appends the pending records as a tuple of five bytes to items, if there are any. */
static int
flush(Buffer *buffers, PyObject *items)
{
    PyObject *tuple;
    int i;
    if (buffers[0].used == 0 && buffers[3].used == 0) {
        return 0;
    }
    tuple = PyTuple_New(5);
    if (tuple == NULL) {
        return -1;
    }
    for (i = 0; i < 5; i++) {
        PyObject *bytes = PyBytes_FromStringAndSize(buffers[i].data ? buffers[i].data : "", buffers[i].used);
        if (bytes == NULL) {
            Py_DECREF(tuple);
            return -1;
        }
        PyTuple_SET_ITEM(tuple, i, bytes);
        buffers[i].used = 0;
    }
    if (PyList_Append(items, tuple) < 0) {
        Py_DECREF(tuple);
        return -1;
    }
    Py_DECREF(tuple);
    return 0;
}

/* The file whose name is pending and whose records are all in the buffers, as (name, lines, hits,
 * states) with the branch rule applied, appended to items: 1 when done, 0 when the file is not that
 * simple (DA lines not strictly increasing, a BRDA line without a DA line), -1 on error. */
static int
whole_file(PyObject *name, Buffer *buffers, PyObject *items)
{
    Py_ssize_t n = buffers[0].used / 4, b = buffers[3].used / 4, i;
    const uint32_t *lines = (const uint32_t *)buffers[0].data;
    const uint32_t *branch_lines = (const uint32_t *)buffers[3].data;
    uint32_t *counts = NULL;
    PyObject *tuple;
    for (i = 1; i < n; i++) {
        if (lines[i] <= lines[i - 1]) {
            return 0;
        }
    }
    if (b > 0) {
        if (n == 0) {
            return 0;
        }
        counts = PyMem_Calloc((size_t)n * 2, sizeof(uint32_t)); /* branches, taken per DA line */
        if (counts == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        for (i = 0; i < b; i++) {
            Py_ssize_t low = 0, high = n;
            uint32_t line = branch_lines[i];
            while (low < high) {
                Py_ssize_t middle = low + (high - low) / 2;
                if (lines[middle] < line) {
                    low = middle + 1;
                }
                else {
                    high = middle;
                }
            }
            if (low >= n || lines[low] != line) {
                PyMem_Free(counts);
                return 0;
            }
            counts[2 * low]++;
            counts[2 * low + 1] += buffers[4].data[i] ? 1 : 0;
        }
        for (i = 0; i < n; i++) {
            uint32_t branches = counts[2 * i], taken = counts[2 * i + 1];
            if (branches) {
                buffers[2].data[i] = (char)(taken < branches ? (taken > 0 ? 2 : 1) : 0);
            }
        }
        PyMem_Free(counts);
    }
    tuple = Py_BuildValue("(Oy#y#y#)", name, buffers[0].data ? buffers[0].data : "", buffers[0].used,
                          buffers[1].data ? buffers[1].data : "", buffers[1].used,
                          buffers[2].data ? buffers[2].data : "", buffers[2].used);
    if (tuple == NULL) {
        return -1;
    }
    for (i = 0; i < 5; i++) {
        buffers[i].used = 0;
    }
    if (PyList_Append(items, tuple) < 0) {
        Py_DECREF(tuple);
        return -1;
    }
    Py_DECREF(tuple);
    return 1;
}

/* Appends the pending name (if any, the reference is stolen) and then the pending records. */
static int
emit(PyObject **name, Buffer *buffers, PyObject *items)
{
    if (*name != NULL) {
        int failed = PyList_Append(items, *name) < 0;
        Py_CLEAR(*name);
        if (failed) {
            return -1;
        }
    }
    return flush(buffers, items);
}

static PyObject *
lcov_read(PyObject *module, PyObject *args)
{
    PyObject *block, *items, *name = NULL;
    int file_open;
    const char *text, *p, *end;
    Py_ssize_t size;
    Buffer buffers[5];
    (void)module;
    if (!PyArg_ParseTuple(args, "Up:read", &block, &file_open)) {
        return NULL;
    }
    text = PyUnicode_AsUTF8AndSize(block, &size);
    if (text == NULL) {
        PyErr_Clear(); /* not encodable: the Python reader reads it */
        Py_RETURN_NONE;
    }
    memset(buffers, 0, sizeof(buffers));
    items = PyList_New(0);
    if (items == NULL) {
        return NULL;
    }
    p = text;
    end = text + size;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *q;
        unsigned long long line, count;
        if (eol == NULL) {
            eol = end;
        }
        if (eol - p >= 3 && p[0] == 'D' && p[1] == 'A' && p[2] == ':') {
            uint32_t value;
            unsigned char state;
            if (!file_open) {
                goto refuse;
            }
            q = read_digits(p + 3, eol, LINE_DIGITS, 1, &line);
            if (q == NULL || q >= eol || *q != ',' || line < 1 || line > MAX_LINE_NUMBER) {
                goto refuse;
            }
            q = read_digits(q + 1, eol, NUMBER_DIGITS, 1, &count);
            if (q == NULL || (q < eol && *q != ',') || count > MAX_HITS) {
                goto refuse;
            }
            value = (uint32_t)line;
            state = count ? 0 : 1;
            if (buffer_put(&buffers[0], &value, 4) < 0) {
                goto memory;
            }
            value = (uint32_t)count;
            if (buffer_put(&buffers[1], &value, 4) < 0 || buffer_put(&buffers[2], &state, 1) < 0) {
                goto memory;
            }
        }
        else if (eol - p >= 5 && memcmp(p, "BRDA:", 5) == 0) {
            const char *last = eol, *r;
            int commas = 0;
            uint32_t value;
            unsigned char taken;
            if (!file_open) {
                goto refuse;
            }
            for (r = p + 5; r < eol; r++) {
                if (*r == ',') {
                    commas++;
                    last = r;
                }
            }
            if (commas < 3) {
                goto refuse;
            }
            q = read_digits(p + 5, eol, LINE_DIGITS, 0, &line);
            if (q == NULL || *q != ',' || line < 1 || line > MAX_LINE_NUMBER) {
                goto refuse;
            }
            r = last + 1;
            if (r + 1 == eol && (*r == '-' || *r == '0')) {
                taken = 0;
            }
            else {
                if (r >= eol) {
                    goto refuse;
                }
                for (q = r; q < eol; q++) {
                    if (*q < '0' || *q > '9') {
                        goto refuse;
                    }
                }
                taken = 1;
            }
            value = (uint32_t)line;
            if (buffer_put(&buffers[3], &value, 4) < 0 || buffer_put(&buffers[4], &taken, 1) < 0) {
                goto memory;
            }
        }
        else if (eol - p >= 3 && p[0] == 'S' && p[1] == 'F' && p[2] == ':') {
            if (emit(&name, buffers, items) < 0) {
                goto error;
            }
            name = PyUnicode_DecodeUTF8(p + 3, eol - p - 3, NULL);
            if (name == NULL) {
                goto error;
            }
            file_open = 1;
        }
        else if (eol - p == 13 && memcmp(p, "end_of_record", 13) == 0) {
            int done = 0;
            if (eol == end) {
                goto refuse; /* no line end: not a boundary for the Python reader */
            }
            if (name != NULL) {
                done = whole_file(name, buffers, items);
                if (done < 0) {
                    goto error;
                }
                if (done) {
                    Py_CLEAR(name);
                }
            }
            if (!done && (emit(&name, buffers, items) < 0 || PyList_Append(items, Py_None) < 0)) {
                goto error;
            }
            file_open = 0;
        }
        else if (eol != p && !other_record(p, eol)) {
            goto refuse;
        }
        p = eol + 1;
    }
    if (emit(&name, buffers, items) < 0) {
        goto error;
    }
    buffers_free(buffers);
    return items;

refuse:
    Py_XDECREF(name);
    buffers_free(buffers);
    Py_DECREF(items);
    Py_RETURN_NONE;
memory:
    if (!PyErr_Occurred()) {
        PyErr_NoMemory();
    }
error:
    Py_XDECREF(name);
    buffers_free(buffers);
    Py_DECREF(items);
    return NULL;
}

static PyMethodDef lcov_methods[] = {
    {"read", lcov_read, METH_VARARGS, "The well-formed records of one block of whole lines, or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef lcov_module = {
    PyModuleDef_HEAD_INIT,
    "lcov",
    "The compiled reader of the well-formed LCOV tracefile (docs/parsing.md#compiled-readers).",
    -1,
    lcov_methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC
PyInit_lcov(void)
{
    return PyModule_Create(&lcov_module);
}
