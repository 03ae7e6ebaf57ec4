/* The compiled reader of the well-formed Go coverage profile (docs/parsing.md#compiled-readers).
 *
 * read(block, max_line): the blocks of one chunk of whole lines, each "name:l1.c1,l2.c2 stmts count",
 * as runs of consecutive lines of one file: (spanned, [(name, packed), ...]) where packed holds five
 * native uint32 per block (start line, start column, end line, end column, count) and spanned is the
 * sum of (end line - start line + 1). None when any line is not such a block or needs a rule of the
 * Python reader (a mode line, a blank, a line to skip, a number with a leading zero, too many digits,
 * a line past max_line, a count above 2**32 - 1, trailing blanks, ...).
 *
 * lines(packed): one file's blocks expanded to (lines, hits, states) bytes with go.py's _lines rule:
 * a block listed twice counts once with its larger count; a block covers its start line to its end
 * line, the end line only if it ends after its second column; per line the largest count, HIT (0) if
 * all its blocks counted, MISS (1) if none, PARTIAL (2) if some. Lines sorted and unique.
 */
#include "common.h"

#include <stdlib.h>

#define FIELDS 5
#define COLUMN_DIGITS 9 /* go.py _BLOCK: columns and statements of at most 9 digits */

typedef struct {
    Py_ssize_t name_at, name_size, first_value, values;
} Run;

static PyObject *
go_read(PyObject *module, PyObject *args)
{
    PyObject *block, *runs_list = NULL, *result = NULL;
    long long max_line;
    const char *text, *p, *end;
    Py_ssize_t size, run_count = 0, k;
    Run *runs = NULL;
    Buffer run_buffer = {NULL, 0, 0}, column = {NULL, 0, 0};
    unsigned long long spanned = 0;
    (void)module;

    if (!PyArg_ParseTuple(args, "UL:read", &block, &max_line)) {
        return NULL;
    }
    text = PyUnicode_AsUTF8AndSize(block, &size);
    if (text == NULL) {
        PyErr_Clear(); /* not encodable: the Python reader reads it */
        Py_RETURN_NONE;
    }
    p = text;
    end = text + size;
    while (p < end) {
        const char *colon, *q;
        unsigned long long first, start, last, stop, statements, count;
        Py_ssize_t name_size;
        if (run_count && end - p > runs[run_count - 1].name_size &&
            memcmp(p, text + runs[run_count - 1].name_at, (size_t)runs[run_count - 1].name_size) == 0 &&
            p[runs[run_count - 1].name_size] == ':') {
            /* the file of the line before: its colon is the last one if the numbers follow it */
            colon = p + runs[run_count - 1].name_size;
        }
        else {
            const char *line_end = memchr(p, '\n', (size_t)(end - p));
            if (line_end == NULL || line_end - p < 5 || memcmp(p, "mode:", 5) == 0) {
                goto odd;
            }
            colon = line_end - 1;
            while (colon > p && *colon != ':') {
                colon--;
            }
            if (colon <= p) {
                goto odd; /* no colon, or an empty name */
            }
        }
        /* the numbers, up to the line end (no colon among them, so the name ends at the last colon) */
        q = read_digits(colon + 1, end, LINE_DIGITS, 0, &first);
        if (q == NULL || q >= end || *q != '.') {
            goto odd;
        }
        q = read_digits(q + 1, end, COLUMN_DIGITS, 0, &start);
        if (q == NULL || q >= end || *q != ',') {
            goto odd;
        }
        q = read_digits(q + 1, end, LINE_DIGITS, 0, &last);
        if (q == NULL || q >= end || *q != '.') {
            goto odd;
        }
        q = read_digits(q + 1, end, COLUMN_DIGITS, 0, &stop);
        if (q == NULL || q >= end || *q != ' ') {
            goto odd;
        }
        q = read_digits(q + 1, end, COLUMN_DIGITS, 0, &statements);
        if (q == NULL || q >= end || *q != ' ') {
            goto odd;
        }
        q = read_digits(q + 1, end, NUMBER_DIGITS, 0, &count);
        if (q == NULL || q >= end || *q != '\n') {
            goto odd;
        }
        (void)statements;
        if (first < 1 || last < first || (long long)last > max_line || count > MAX_HITS) {
            goto odd;
        }
        spanned += last - first + 1;
        name_size = colon - p;
        if (run_count == 0 || runs[run_count - 1].name_size != name_size ||
            memcmp(text + runs[run_count - 1].name_at, p, (size_t)name_size) != 0) {
            Run run = {p - text, name_size, column.used / (Py_ssize_t)sizeof(uint32_t), 0};
            if (buffer_put(&run_buffer, &run, (Py_ssize_t)sizeof(Run)) < 0) {
                goto done;
            }
            run_count++;
        }
        runs = (Run *)run_buffer.data;
        {
            uint32_t values[FIELDS] = {(uint32_t)first, (uint32_t)start, (uint32_t)last, (uint32_t)stop, (uint32_t)count};
            if (buffer_put(&column, values, (Py_ssize_t)sizeof(values)) < 0) {
                goto done;
            }
        }
        runs[run_count - 1].values += FIELDS;
        p = q + 1;
    }
    runs_list = PyList_New(run_count);
    if (runs_list == NULL) {
        goto done;
    }
    for (k = 0; k < run_count; k++) {
        PyObject *item = Py_BuildValue(
            "(s#y#)", text + runs[k].name_at, runs[k].name_size, (const char *)((uint32_t *)column.data + runs[k].first_value),
            runs[k].values * (Py_ssize_t)sizeof(uint32_t));
        if (item == NULL) {
            if (PyErr_ExceptionMatches(PyExc_MemoryError)) {
                goto done;
            }
            PyErr_Clear(); /* a name not decodable: the Python reader reads it */
            Py_CLEAR(runs_list);
            goto odd;
        }
        PyList_SET_ITEM(runs_list, k, item);
    }
    result = Py_BuildValue("(KO)", spanned, runs_list);
    goto done;
odd:
    result = Py_None;
    Py_INCREF(result);
    goto done;
done:
    Py_XDECREF(runs_list);
    buffer_free(&run_buffer);
    buffer_free(&column);
    return result;
}

typedef struct {
    uint32_t first, start, last, stop, count;
} Block;

static int
by_region(const void *a, const void *b)
{
    const Block *x = a, *y = b;
    if (x->first != y->first) {
        return x->first < y->first ? -1 : 1;
    }
    if (x->start != y->start) {
        return x->start < y->start ? -1 : 1;
    }
    if (x->last != y->last) {
        return x->last < y->last ? -1 : 1;
    }
    if (x->stop != y->stop) {
        return x->stop < y->stop ? -1 : 1;
    }
    if (x->count != y->count) {
        return x->count < y->count ? -1 : 1;
    }
    return 0;
}

typedef struct {
    uint32_t line, count;
} Entry;

static int
by_line(const void *a, const void *b)
{
    const Entry *x = a, *y = b;
    if (x->line != y->line) {
        return x->line < y->line ? -1 : 1;
    }
    if (x->count != y->count) {
        return x->count < y->count ? -1 : 1;
    }
    return 0;
}

static PyObject *
go_lines(PyObject *module, PyObject *arg)
{
    Py_buffer view;
    Block *blocks = NULL;
    Entry *entries = NULL;
    Py_ssize_t n, k, kept, total_size, out = 0, unique = 0;
    unsigned long long total = 0;
    int ordered = 1;
    PyObject *lines = NULL, *hits = NULL, *states = NULL, *result = NULL;
    uint32_t *line_out, *hit_out;
    char *state_out;
    (void)module;

    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    if (view.len % (Py_ssize_t)sizeof(Block) != 0 || view.len == 0) {
        PyErr_SetString(PyExc_TypeError, "lines() takes five uint32 per block, at least one block");
        goto done;
    }
    n = view.len / (Py_ssize_t)sizeof(Block);
    blocks = PyMem_Malloc((size_t)view.len);
    if (blocks == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(blocks, view.buf, (size_t)view.len);
    for (k = 0; k < n; k++) {
        if (blocks[k].first < 1 || blocks[k].last < blocks[k].first) {
            PyErr_SetString(PyExc_TypeError, "lines() takes blocks starting on line 1 or later, in order");
            goto done;
        }
        if (k && (blocks[k].first < blocks[k - 1].first ||
                  (blocks[k].first == blocks[k - 1].first && blocks[k].start <= blocks[k - 1].start))) {
            ordered = 0;
        }
    }
    kept = n;
    if (!ordered) {
        /* a region listed twice counts once, with its largest count (the last once sorted) */
        qsort(blocks, (size_t)n, sizeof(Block), by_region);
        kept = 0;
        for (k = 0; k < n; k++) {
            if (kept && blocks[kept - 1].first == blocks[k].first && blocks[kept - 1].start == blocks[k].start &&
                blocks[kept - 1].last == blocks[k].last && blocks[kept - 1].stop == blocks[k].stop) {
                blocks[kept - 1].count = blocks[k].count;
            }
            else {
                blocks[kept++] = blocks[k];
            }
        }
    }
    for (k = 0; k < kept; k++) {
        /* the end line drops out when the block ends at its first or second column */
        if (blocks[k].last > blocks[k].first && blocks[k].stop <= 2) {
            blocks[k].last--;
        }
        total += (unsigned long long)(blocks[k].last - blocks[k].first) + 1;
    }
    if (total > (unsigned long long)(PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(Entry))) {
        PyErr_NoMemory();
        goto done;
    }
    total_size = (Py_ssize_t)total;
    entries = PyMem_Malloc((size_t)total_size * sizeof(Entry));
    if (entries == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    ordered = 1;
    for (k = 0; k < kept; k++) {
        uint32_t line = blocks[k].first;
        for (;;) {
            if (out && entries[out - 1].line >= line) {
                ordered = 0;
            }
            entries[out].line = line;
            entries[out].count = blocks[k].count;
            out++;
            if (line == blocks[k].last) {
                break;
            }
            line++;
        }
    }
    if (ordered) {
        unique = out;
    }
    else {
        qsort(entries, (size_t)out, sizeof(Entry), by_line);
        for (k = 0; k < out; k++) {
            if (k == 0 || entries[k].line != entries[k - 1].line) {
                unique++;
            }
        }
    }
    lines = PyBytes_FromStringAndSize(NULL, unique * (Py_ssize_t)sizeof(uint32_t));
    hits = PyBytes_FromStringAndSize(NULL, unique * (Py_ssize_t)sizeof(uint32_t));
    states = PyBytes_FromStringAndSize(NULL, unique);
    if (lines == NULL || hits == NULL || states == NULL) {
        goto done;
    }
    line_out = (uint32_t *)PyBytes_AS_STRING(lines);
    hit_out = (uint32_t *)PyBytes_AS_STRING(hits);
    state_out = PyBytes_AS_STRING(states);
    if (ordered) {
        for (k = 0; k < out; k++) {
            line_out[k] = entries[k].line;
            hit_out[k] = entries[k].count;
            state_out[k] = entries[k].count ? 0 : 1;
        }
    }
    else {
        /* per line: the largest count (the last once sorted); HIT if all counted, MISS if none, else PARTIAL */
        Py_ssize_t at = 0, j;
        for (k = 0; k < out && at < unique; k = j) {
            int counted = 0, missed = 0;
            for (j = k; j < out && entries[j].line == entries[k].line; j++) {
                if (entries[j].count) {
                    counted = 1;
                }
                else {
                    missed = 1;
                }
            }
            line_out[at] = entries[k].line;
            hit_out[at] = entries[j - 1].count;
            state_out[at] = (char)(missed ? (counted ? 2 : 1) : 0);
            at++;
        }
    }
    result = PyTuple_Pack(3, lines, hits, states);
done:
    Py_XDECREF(lines);
    Py_XDECREF(hits);
    Py_XDECREF(states);
    PyMem_Free(entries);
    PyMem_Free(blocks);
    PyBuffer_Release(&view);
    return result;
}

static PyMethodDef go_methods[] = {
    {"read", go_read, METH_VARARGS,
     "read(block, max_line) -> (spanned, [(name, packed blocks), ...]) or None: the runs of one chunk."},
    {"lines", go_lines, METH_O, "lines(packed blocks) -> (lines, hits, states) bytes of one file."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef go_module = {
    PyModuleDef_HEAD_INIT,
    "go",
    "Compiled reader of well-formed Go coverage profiles; anything else is left to parsers/go.py.",
    -1,
    go_methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC
PyInit_go(void)
{
    return PyModule_Create(&go_module);
}
