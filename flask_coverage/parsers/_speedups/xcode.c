/* The compiled reader of llvm-cov show text (parsers/xcode.py, docs/parsing.md#compiled-readers). */
#include "common.h"

#define COUNT_DIGITS 18 /* a longer plain count is left to xcode.py */

PyDoc_STRVAR(module_doc,
             "The well-formed rows of llvm-cov show text (``line|count|source``), read in C.\n\n"
             "read(block, open, last) reads one block of whole lines (parsers/_text.py text_blocks) and\n"
             "returns a list of (path, lines, hits, states): path is the text of a file's path line\n"
             "(stripped, without its colon), or None for the rows of the file already open before the\n"
             "block; lines and hits are native uint32 bytes, states one byte a line (HIT 0, MISS 1).\n"
             "``open`` says whether a file is open, ``last`` is its last line number (rows must follow\n"
             "it, increasing). It returns None for a block holding anything it does not read exactly as\n"
             "parsers/xcode.py does: colour codes, a count with an E mark, a number out of range or not\n"
             "plain, rows before the first path, rows out of order, non-ASCII text where stripping\n"
             "could see Unicode spaces; the Python reader then reads that block.");

static int
is_space(unsigned char c)
{
    /* The ASCII characters str.strip() removes. */
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

/* Strips [*a, *b) of ASCII spaces; 0 if a byte of it is not ASCII (Unicode spaces are Python's). */
static int
strip_ascii(const unsigned char *text, Py_ssize_t *a, Py_ssize_t *b)
{
    Py_ssize_t i;
    for (i = *a; i < *b; i++) {
        if (text[i] >= 0x80) {
            return 0;
        }
    }
    while (*a < *b && is_space(text[*a])) {
        (*a)++;
    }
    while (*b > *a && is_space(text[*b - 1])) {
        (*b)--;
    }
    return 1;
}

static const double POWERS[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

/* The count [a, b) (stripped, not empty) as xcode.py reads it, saturated at MAX_HITS; 0 if it is
   not one this reader takes (the Python reader then decides). */
static int
read_count(const unsigned char *text, Py_ssize_t a, Py_ssize_t b, uint32_t *hits)
{
    Py_ssize_t i, dot = -1, digits = 0;
    uint64_t value = 0;
    double scale = 1.0, number;
    unsigned char last;

    /* Plain digits: int(), as xcode.py reads them by the number rule. */
    for (i = a; i < b && is_digit(text[i]); i++) {
    }
    if (i == b) {
        unsigned long long plain;
        if (read_digits((const char *)text + a, (const char *)text + b, COUNT_DIGITS, 1, &plain) == NULL) {
            return 0;
        }
        *hits = plain > MAX_HITS ? MAX_HITS : (uint32_t)plain;
        return 1;
    }
    /* A decimal with a scale (1.2k, 3M, 0.5): float(digits) * scale, rounded down. */
    last = text[b - 1];
    if (last == 'k' || last == 'K') {
        scale = 1e3;
    } else if (last == 'M') {
        scale = 1e6;
    } else if (last == 'G') {
        scale = 1e9;
    } else if (last == 'T') {
        scale = 1e12;
    }
    if (scale > 1.0) {
        b--;
    }
    for (i = a; i < b; i++) {
        if (text[i] == '.' && dot < 0) {
            dot = i;
        } else if (is_digit(text[i])) {
            digits++;
            /* At most 15 digits: the mantissa is exact in a double, so m / 10**k is rounded once,
               as float() rounds the text. */
            if (digits > 15) {
                return 0;
            }
            value = value * 10u + (uint64_t)(text[i] - '0');
        } else {
            return 0;
        }
    }
    if (digits == 0) {
        return 0;
    }
    number = (double)value;
    if (dot >= 0 && b - dot - 1 > 0) {
        number = number / POWERS[b - dot - 1];
    }
    number = number * scale;
    *hits = number >= (double)MAX_HITS ? MAX_HITS : (uint32_t)number;
    return 1;
}

/* The usual row, read in one pass: spaces, a line number of at most 8 digits, spaces, "|", spaces, a
   count of at most 18 digits or none, spaces, "|", a source without "}" where counted. 1 read (*number,
   *hits, *counted and *next set), 0 not the usual row (the general rules below read it). */
static int
usual_row(const unsigned char *text, Py_ssize_t p, Py_ssize_t size, uint32_t *number, uint32_t *hits, int *counted,
          Py_ssize_t *next)
{
    Py_ssize_t q = p, d;
    unsigned long long n = 0, c = 0;
    const char *after;
    const unsigned char *end;

    while (q < size && text[q] == ' ') {
        q++;
    }
    after = read_digits((const char *)text + q, (const char *)text + size, LINE_DIGITS, 1, &n);
    if (after == NULL) {
        return 0;
    }
    q = after - (const char *)text;
    while (q < size && text[q] == ' ') {
        q++;
    }
    if (q >= size || text[q] != '|') {
        return 0;
    }
    q++;
    while (q < size && text[q] == ' ') {
        q++;
    }
    d = q;
    if (q < size && is_digit(text[q])) {
        after = read_digits((const char *)text + q, (const char *)text + size, COUNT_DIGITS, 1, &c);
        if (after == NULL) {
            return 0;
        }
        q = after - (const char *)text;
    }
    *counted = q > d;
    while (q < size && text[q] == ' ') {
        q++;
    }
    if (q >= size || text[q] != '|') {
        return 0;
    }
    q++;
    end = memchr(text + q, '\n', (size_t)(size - q));
    if (end == NULL || (*counted && memchr(text + q, '}', (size_t)(end - (text + q))) != NULL)) {
        return 0;
    }
    *number = (uint32_t)n;
    *hits = c > MAX_HITS ? MAX_HITS : (uint32_t)c;
    *next = end - text + 1;
    return 1;
}

/* Appends (path, lines[start:end], ...) to out; path is borrowed (None or a new str, stolen). */
static int
append_file(PyObject *out, PyObject *path, const Columns *columns, Py_ssize_t start, Py_ssize_t end)
{
    PyObject *item, *columns_tuple = columns_bytes(columns, start, end);
    int failed;
    if (columns_tuple == NULL) {
        Py_DECREF(path);
        return -1;
    }
    item = Py_BuildValue("(NOOO)", path, PyTuple_GET_ITEM(columns_tuple, 0), PyTuple_GET_ITEM(columns_tuple, 1),
                         PyTuple_GET_ITEM(columns_tuple, 2));
    Py_DECREF(columns_tuple);
    if (item == NULL) {
        return -1;
    }
    failed = PyList_Append(out, item);
    Py_DECREF(item);
    return failed;
}

/* The rows of text[0:size]; 1 read, 0 not taken (None), -1 error. */
static int
read_block(const unsigned char *text, Py_ssize_t size, int open, uint32_t last, Columns *columns,
           PyObject *out)
{
    Py_ssize_t p = 0, rows = 0, start = 0;
    PyObject *path = NULL; /* the open file's path: NULL for the file open before the block */
    int pending = 0;       /* a path line was read: its file is still to be appended */

    if (memchr(text, 0x1b, (size_t)size) != NULL) {
        return 0; /* colour codes: red regions make partial lines */
    }
    while (p < size) {
        const unsigned char *end_ptr;
        const unsigned char *bar_ptr, *bar2_ptr, *brace;
        Py_ssize_t e, bar, a, b, ca, cb, sa, sb, next = 0;
        uint32_t number = 0, hits = 0;
        unsigned long long digits;
        int counted = 0;

        if (open && usual_row(text, p, size, &number, &hits, &counted, &next)) {
            if (counted) {
                if (number < 1 || number > MAX_LINE_NUMBER || number <= last || rows >= columns->capacity) {
                    Py_XDECREF(path);
                    return 0;
                }
                columns_push(columns, number, hits, hits ? HIT : MISS);
                rows++;
                last = number;
            }
            p = next; /* else no code */
            continue;
        }
        end_ptr = memchr(text + p, '\n', (size_t)(size - p));
        if (end_ptr == NULL) {
            Py_XDECREF(path);
            return 0; /* blocks are whole lines */
        }
        e = end_ptr - text;
        bar_ptr = memchr(text + p, '|', (size_t)(e - p));
        bar = bar_ptr == NULL ? e : bar_ptr - text;
        a = p;
        b = bar;
        if (bar_ptr == NULL) {
            /* Only the ends matter to str.strip(): a path may hold any character. */
            while (a < b && is_space(text[a])) {
                a++;
            }
            while (b > a && is_space(text[b - 1])) {
                b--;
            }
            if (a < b && (text[a] >= 0x80 || text[b - 1] >= 0x80)) {
                Py_XDECREF(path);
                return 0;
            }
        } else if (!strip_ascii(text, &a, &b)) {
            Py_XDECREF(path);
            return 0;
        }
        if (a == b || text[a] == '-' || text[a] == 'w') {
            p = e + 1; /* blank, a separator, a warning, an instantiation's sub-view */
            continue;
        }
        if (bar_ptr == NULL) {
            if (text[b - 1] != ':') {
                p = e + 1;
                continue;
            }
            /* A path line: the file before it is complete. */
            if (pending || rows > start) {
                if (!pending) {
                    Py_INCREF(Py_None);
                    path = Py_None;
                }
                if (append_file(out, path, columns, start, rows) < 0) {
                    return -1;
                }
            }
            path = PyUnicode_DecodeUTF8((const char *)text + a, b - 1 - a, "strict");
            if (path == NULL) {
                return -1;
            }
            pending = 1;
            open = 1;
            last = 0;
            start = rows;
            p = e + 1;
            continue;
        }
        if (!open) {
            Py_XDECREF(path);
            return 0; /* rows before the first path: a skip to count */
        }
        bar2_ptr = memchr(bar_ptr + 1, '|', (size_t)(e - bar - 1));
        ca = bar + 1;
        cb = bar2_ptr == NULL ? e : bar2_ptr - text;
        sa = bar2_ptr == NULL ? e : cb + 1;
        sb = e;
        if (!strip_ascii(text, &ca, &cb) || memchr(text + ca, 'E', (size_t)(cb - ca)) != NULL) {
            Py_XDECREF(path);
            return 0;
        }
        if (ca == cb) {
            p = e + 1; /* no code */
            continue;
        }
        brace = memchr(text + sa, '}', (size_t)(sb - sa));
        if (brace != NULL) {
            if (!strip_ascii(text, &sa, &sb)) {
                Py_XDECREF(path);
                return 0;
            }
            if (sb - sa == 1) {
                p = e + 1; /* a lone "}": not tracked */
                continue;
            }
        }
        if (read_digits((const char *)text + a, (const char *)text + b, LINE_DIGITS, 1, &digits) !=
            (const char *)text + b) {
            Py_XDECREF(path);
            return 0;
        }
        number = (uint32_t)digits;
        if (number < 1 || number > MAX_LINE_NUMBER || number <= last || rows >= columns->capacity ||
            !read_count(text, ca, cb, &hits)) {
            Py_XDECREF(path);
            return 0;
        }
        columns_push(columns, number, hits, hits ? HIT : MISS);
        rows++;
        last = number;
        p = e + 1;
    }
    if (pending || rows > start) {
        if (!pending) {
            Py_INCREF(Py_None);
            path = Py_None;
        }
        if (append_file(out, path, columns, start, rows) < 0) {
            return -1;
        }
    }
    return 1;
}

static PyObject *
xcode_read(PyObject *module, PyObject *args)
{
    PyObject *block, *out;
    int open, status;
    unsigned long last;
    const char *text;
    Py_ssize_t size;
    Columns columns;

    (void)module;
    if (!PyArg_ParseTuple(args, "Upk:read", &block, &open, &last)) {
        return NULL;
    }
    text = PyUnicode_AsUTF8AndSize(block, &size);
    if (text == NULL) {
        if (PyErr_ExceptionMatches(PyExc_UnicodeError)) {
            PyErr_Clear(); /* lone surrogates: not a report's text, the Python reader says so */
            Py_RETURN_NONE;
        }
        return NULL;
    }
    if (last > MAX_LINE_NUMBER) {
        Py_RETURN_NONE;
    }
    /* A row holds at least "1|1\n". */
    if (columns_alloc(&columns, size / 4 + 1) < 0) {
        return NULL;
    }
    out = PyList_New(0);
    if (out == NULL) {
        columns_free(&columns);
        return NULL;
    }
    status = read_block((const unsigned char *)text, size, open, (uint32_t)last, &columns, out);
    columns_free(&columns);
    if (status <= 0) {
        Py_DECREF(out);
        if (status < 0) {
            return NULL;
        }
        Py_RETURN_NONE;
    }
    return out;
}

static PyMethodDef xcode_methods[] = {
    {"read", xcode_read, METH_VARARGS,
     "read(block, open, last): the block's files as (path, lines, hits, states), or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef xcode_module = {
    PyModuleDef_HEAD_INIT, "xcode", module_doc, 0, xcode_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit_xcode(void)
{
    return PyModule_Create(&xcode_module);
}
