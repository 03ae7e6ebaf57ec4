/* The compiled reader of the well-formed LCOV tracefile (docs/parsing.md#compiled-readers).
 *
 * read(block, file_open): one chunk of whole lines as a list of items, in order: a str for an
 * "SF:name" line (the name, for the parser to open), None for an "end_of_record" line, and for the
 * records between them a tuple of five bytes (DA lines, DA hits, DA states, BRDA lines, BRDA taken):
 * lines and hits native uint32, a state one byte (HIT 0 for a counted line, MISS 1), taken one byte
 * (0 for "-" or "0", else 1). file_open tells whether a file is open before the block. Other records
 * ("TN:", "FN:", "LF:", any upper-case key and a colon) and blank lines are passed over. None when any
 * line needs a rule of the Python reader: a DA or BRDA outside a file, a number that is not plain
 * ASCII digits, too long or out of range, a BRDA line number with a leading zero, a stray line, an
 * "end_of_record" with anything after it, a str that is not UTF-8 encodable.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#define MAX_LINE_NUMBER 10000000ULL
#define MAX_HITS 4294967295ULL

typedef struct {
    char *data;
    Py_ssize_t used, size;
} Buffer;

static int
put(Buffer *buffer, const void *value, Py_ssize_t size)
{
    if (buffer->used + size > buffer->size) {
        Py_ssize_t grown = buffer->size ? buffer->size * 2 : 4096;
        char *data;
        while (grown < buffer->used + size) {
            grown *= 2;
        }
        data = PyMem_Realloc(buffer->data, (size_t)grown);
        if (data == NULL) {
            return -1;
        }
        buffer->data = data;
        buffer->size = grown;
    }
    memcpy(buffer->data + buffer->used, value, (size_t)size);
    buffer->used += size;
    return 0;
}

/* 1..most ASCII digits at p < end (leading zeros allowed only if zeros is set). Returns the position
 * after them, or NULL. */
static const char *
digits(const char *p, const char *end, int most, int zeros, unsigned long long *value)
{
    unsigned long long v = 0;
    int n = 0;
    if (p >= end || *p < '0' || *p > '9') {
        return NULL;
    }
    if (!zeros && *p == '0' && p + 1 < end && p[1] >= '0' && p[1] <= '9') {
        return NULL;
    }
    while (p < end && *p >= '0' && *p <= '9') {
        if (n == most) {
            return NULL;
        }
        v = v * 10 + (unsigned long long)(*p - '0');
        n++;
        p++;
    }
    *value = v;
    return p;
}

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
        PyMem_Free(buffers[i].data);
        buffers[i].data = NULL;
        buffers[i].used = buffers[i].size = 0;
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

static PyObject *
lcov_read(PyObject *module, PyObject *args)
{
    PyObject *block, *items;
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
            q = digits(p + 3, eol, 8, 1, &line);
            if (q == NULL || q >= eol || *q != ',' || line < 1 || line > MAX_LINE_NUMBER) {
                goto refuse;
            }
            q = digits(q + 1, eol, 9, 1, &count);
            if (q == NULL || (q < eol && *q != ',') || count > MAX_HITS) {
                goto refuse;
            }
            value = (uint32_t)line;
            state = count ? 0 : 1;
            if (put(&buffers[0], &value, 4) < 0) {
                goto memory;
            }
            value = (uint32_t)count;
            if (put(&buffers[1], &value, 4) < 0 || put(&buffers[2], &state, 1) < 0) {
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
            q = digits(p + 5, eol, 8, 0, &line);
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
            if (put(&buffers[3], &value, 4) < 0 || put(&buffers[4], &taken, 1) < 0) {
                goto memory;
            }
        }
        else if (eol - p >= 3 && p[0] == 'S' && p[1] == 'F' && p[2] == ':') {
            PyObject *name;
            if (flush(buffers, items) < 0) {
                goto memory;
            }
            name = PyUnicode_DecodeUTF8(p + 3, eol - p - 3, NULL);
            if (name == NULL) {
                goto error;
            }
            if (PyList_Append(items, name) < 0) {
                Py_DECREF(name);
                goto error;
            }
            Py_DECREF(name);
            file_open = 1;
        }
        else if (eol - p == 13 && memcmp(p, "end_of_record", 13) == 0) {
            if (eol == end || flush(buffers, items) < 0 || PyList_Append(items, Py_None) < 0) {
                if (eol == end) {
                    goto refuse; /* no line end: not a boundary for the Python reader */
                }
                goto error;
            }
            file_open = 0;
        }
        else if (eol != p && !other_record(p, eol)) {
            goto refuse;
        }
        p = eol + 1;
    }
    if (flush(buffers, items) < 0) {
        goto error;
    }
    buffers_free(buffers);
    return items;

refuse:
    buffers_free(buffers);
    Py_DECREF(items);
    Py_RETURN_NONE;
memory:
    if (!PyErr_Occurred()) {
        PyErr_NoMemory();
    }
error:
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
