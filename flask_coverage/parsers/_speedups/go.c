/* The compiled reader of the well-formed Go coverage profile (docs/parsing.md#compiled-readers).
 *
 * read(block, max_line): the blocks of one chunk of whole lines, each "name:l1.c1,l2.c2 stmts count",
 * as runs of consecutive lines of one file: [(name, packed), ...] where packed holds five native
 * uint32 per block (start line, start column, end line, end column, count). None when any line is not such a block or needs
 * a rule of the Python reader (a mode line, a blank, a line to skip, a number with a leading zero, too
 * many digits, a line past max_line, a count above 2**32 - 1, trailing blanks, ...).
 *
 * lines(packed[, allowance]): one file's blocks as (lines, hits, states) bytes with go.py's _lines rule:
 * a block listed twice counts once with its larger count; a block covers its start line to its end
 * line, the end line only if it ends after its second column; per line the largest count, HIT (0) if
 * all its blocks counted, MISS (1) if none, PARTIAL (2) if some. Lines sorted and unique. None when the
 * blocks cover more than `allowance` distinct lines (by default MAX_LINE_NUMBER, a file's most), found before anything per line is allocated: the
 * memory and time follow the distinct lines, never the lines the blocks span one by one.
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
            "(s#y#)", text + runs[k].name_at, runs[k].name_size,
            (const char *)((uint32_t *)column.data + runs[k].first_value), runs[k].values * (Py_ssize_t)sizeof(uint32_t));
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
    result = runs_list;
    runs_list = NULL;
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

/* A block still open at the sweep's point: its end line and count. */
typedef struct {
    uint32_t last, count;
} Open;

/* Binary heaps of open blocks: the counted ones by largest count, the uncounted ones by earliest end. */
static int
above(const Open *x, const Open *y, int by_count)
{
    return by_count ? x->count > y->count : x->last < y->last;
}

static void
heap_push(Open *heap, Py_ssize_t *size, Open item, int by_count)
{
    Py_ssize_t at = (*size)++;
    while (at > 0 && above(&item, &heap[(at - 1) / 2], by_count)) {
        heap[at] = heap[(at - 1) / 2];
        at = (at - 1) / 2;
    }
    heap[at] = item;
}

static void
heap_pop(Open *heap, Py_ssize_t *size, int by_count)
{
    Open item = heap[--(*size)];
    Py_ssize_t at = 0, child;
    while ((child = 2 * at + 1) < *size) {
        if (child + 1 < *size && above(&heap[child + 1], &heap[child], by_count)) {
            child++;
        }
        if (!above(&heap[child], &item, by_count)) {
            break;
        }
        heap[at] = heap[child];
        at = child;
    }
    if (*size > 0) {
        heap[at] = item;
    }
}

static int
by_value(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Fills the columns from blocks sorted by start line, overlapping: between two consecutive starts or
 * ends every line has the same open blocks, so each such stretch is written at once. -1 on no memory. */
static int
sweep(const Block *blocks, Py_ssize_t n, uint32_t *line_out, uint32_t *hit_out, char *state_out)
{
    uint32_t *points = PyMem_Malloc((size_t)n * 2 * sizeof(uint32_t));
    Open *counted = PyMem_Malloc((size_t)n * sizeof(Open));
    Open *missed = PyMem_Malloc((size_t)n * sizeof(Open));
    Py_ssize_t k, unique = 0, next = 0, counted_size = 0, missed_size = 0, out = 0;
    if (points == NULL || counted == NULL || missed == NULL) {
        PyMem_Free(points);
        PyMem_Free(counted);
        PyMem_Free(missed);
        return -1;
    }
    for (k = 0; k < n; k++) {
        points[2 * k] = blocks[k].first;
        points[2 * k + 1] = blocks[k].last + 1;
    }
    qsort(points, (size_t)n * 2, sizeof(uint32_t), by_value);
    for (k = 0; k < 2 * n; k++) {
        if (unique == 0 || points[unique - 1] != points[k]) {
            points[unique++] = points[k];
        }
    }
    for (k = 0; k + 1 < unique; k++) {
        uint32_t from = points[k], to = points[k + 1], line, count;
        int state;
        while (next < n && blocks[next].first == from) {
            Open item = {blocks[next].last, blocks[next].count};
            if (item.count) {
                heap_push(counted, &counted_size, item, 1);
            } else {
                heap_push(missed, &missed_size, item, 0);
            }
            next++;
        }
        while (counted_size && counted[0].last < from) {
            heap_pop(counted, &counted_size, 1);
        }
        while (missed_size && missed[0].last < from) {
            heap_pop(missed, &missed_size, 0);
        }
        if (!counted_size && !missed_size) {
            continue;
        }
        count = counted_size ? counted[0].count : 0;
        state = counted_size ? (missed_size ? PARTIAL : HIT) : MISS;
        for (line = from; line < to; line++) {
            line_out[out] = line;
            hit_out[out] = count;
            state_out[out] = (char)state;
            out++;
        }
    }
    PyMem_Free(points);
    PyMem_Free(counted);
    PyMem_Free(missed);
    return 0;
}

static PyObject *
go_lines(PyObject *module, PyObject *args)
{
    Py_buffer view;
    Block *blocks = NULL;
    Py_ssize_t n, k, kept, out = 0;
    unsigned long long distinct = 0, reach = 0, allowance = MAX_LINE_NUMBER;
    int ordered = 1, disjoint = 1;
    PyObject *lines = NULL, *hits = NULL, *states = NULL, *result = NULL;
    uint32_t *line_out, *hit_out;
    char *state_out;
    (void)module;

    if (!PyArg_ParseTuple(args, "y*|K:lines", &view, &allowance)) {
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
        if (blocks[k].first < 1 || blocks[k].last < blocks[k].first || blocks[k].last > MAX_LINE_NUMBER) {
            PyErr_SetString(PyExc_TypeError, "lines() takes blocks of lines 1 to MAX_LINE_NUMBER, in order");
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
    /* The blocks are in order of their start lines now: count the distinct lines they cover. */
    for (k = 0; k < kept; k++) {
        /* the end line drops out when the block ends at its first or second column */
        if (blocks[k].last > blocks[k].first && blocks[k].stop <= 2) {
            blocks[k].last--;
        }
        if (blocks[k].first <= reach) {
            disjoint = 0;
        }
        if (blocks[k].last > reach) {
            distinct += blocks[k].last - (blocks[k].first > reach ? blocks[k].first : reach + 1) + 1;
            reach = blocks[k].last;
        }
    }
    if (distinct > allowance) {
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    lines = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)distinct * (Py_ssize_t)sizeof(uint32_t));
    hits = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)distinct * (Py_ssize_t)sizeof(uint32_t));
    states = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)distinct);
    if (lines == NULL || hits == NULL || states == NULL) {
        goto done;
    }
    line_out = (uint32_t *)PyBytes_AS_STRING(lines);
    hit_out = (uint32_t *)PyBytes_AS_STRING(hits);
    state_out = PyBytes_AS_STRING(states);
    if (disjoint) {
        for (k = 0; k < kept; k++) {
            uint32_t line;
            for (line = blocks[k].first; line <= blocks[k].last; line++) {
                line_out[out] = line;
                hit_out[out] = blocks[k].count;
                state_out[out] = blocks[k].count ? HIT : MISS;
                out++;
            }
        }
    }
    else if (sweep(blocks, kept, line_out, hit_out, state_out) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    result = PyTuple_Pack(3, lines, hits, states);
done:
    Py_XDECREF(lines);
    Py_XDECREF(hits);
    Py_XDECREF(states);
    PyMem_Free(blocks);
    PyBuffer_Release(&view);
    return result;
}

static PyMethodDef go_methods[] = {
    {"read", go_read, METH_VARARGS,
     "read(block, max_line) -> [(name, packed blocks), ...] or None: the runs of one chunk."},
    {"lines", go_lines, METH_VARARGS,
     "lines(packed blocks, allowance) -> (lines, hits, states) bytes of one file, or None past the allowance."},
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
