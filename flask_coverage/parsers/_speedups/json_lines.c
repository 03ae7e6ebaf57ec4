/* The lines of decoded JSON coverage values (SimpleCov, Coveralls, covr, Codecov JSON): the columns of
 * the well-formed case, or None for the parser's Python code to read (docs/parsing.md#compiled-readers). */
#include "common.h"

#define BRANCH_DIGITS 9 /* codecov.py _BRANCHES: "n/m" of at most 9 digits each */

/* (lines, hits, states) as bytes; the columns are freed either way. */
static PyObject *columns_result(Columns *columns)
{
    PyObject *result = columns_bytes(columns, 0, columns->size);
    columns_free(columns);
    return result;
}

/* A JSON count (an exact int): 1 and its hits (saturated at MAX_HITS) when >= 0; 0 for any other value;
 * -1 on an error (none is expected). A negative count is 0: the Python code clamps and counts it. */
static int read_count(PyObject *value, uint32_t *hits)
{
    int overflow = 0;
    long long number;
    if (!PyLong_CheckExact(value))
        return 0;
    number = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (number == -1 && PyErr_Occurred())
        return -1;
    if (overflow > 0) {
        *hits = (uint32_t)MAX_HITS;
        return 1;
    }
    if (overflow < 0 || number < 0)
        return 0;
    *hits = (unsigned long long)number > MAX_HITS ? (uint32_t)MAX_HITS : (uint32_t)number;
    return 1;
}

/* s[0:n] as a number of at most `most` digits (parsers/_common.py's rule) up to MAX_HITS, or -1 for
 * anything else (the Python code reads it). */
static long long digits_of(const char *s, Py_ssize_t n, int most)
{
    unsigned long long value;
    if (read_digits(s, s + n, most, 1, &value) != s + n || value > MAX_HITS)
        return -1;
    return (long long)value;
}

PyDoc_STRVAR(list_lines_doc,
             "list_lines(counts, first) -> (lines, hits, states) or None\n\n"
             "The columns of a list whose element i is line first + i (first is 0 or 1; line 0 is no line):\n"
             "null and \"ignored\" no code, a count >= 0 HIT or (0) MISS. None for any other element or\n"
             "a list longer than the line limit.");

static PyObject *list_lines(PyObject *self, PyObject *args)
{
    PyObject *counts;
    int first;
    Columns columns;
    Py_ssize_t size, i;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!i:list_lines", &PyList_Type, &counts, &first))
        return NULL;
    if (first != 0 && first != 1)
        Py_RETURN_NONE;
    size = PyList_GET_SIZE(counts);
    if (size > (Py_ssize_t)MAX_LINE_NUMBER - first)
        Py_RETURN_NONE;
    if (columns_alloc(&columns, size) < 0)
        return NULL;
    for (i = 0; i < size; i++) {
        PyObject *value = PyList_GET_ITEM(counts, i);
        uint32_t hits = 0;
        int read;
        if (value == Py_None)
            continue;
        if (PyUnicode_CheckExact(value)) {
            if (PyUnicode_CompareWithASCIIString(value, "ignored") == 0)
                continue;
            columns_free(&columns);
            Py_RETURN_NONE;
        }
        read = read_count(value, &hits);
        if (read <= 0) {
            columns_free(&columns);
            if (read < 0)
                return NULL;
            Py_RETURN_NONE;
        }
        if (i + first == 0)
            continue; /* line 0: no line */
        columns_push(&columns, (uint32_t)(i + first), hits, hits ? HIT : MISS);
    }
    return columns_result(&columns);
}

/* A line's coverage in Codecov JSON: 1 and its hits and state; 2 for no line (null, false, -1); 0 for
 * any value left to the Python code; -1 on an error. */
static int read_coverage(PyObject *value, uint32_t *hits, unsigned char *state)
{
    if (value == Py_None || value == Py_False)
        return 2;
    if (value == Py_True) {
        *hits = 1;
        *state = PARTIAL;
        return 1;
    }
    if (PyLong_CheckExact(value)) {
        int overflow = 0;
        long long number = PyLong_AsLongLongAndOverflow(value, &overflow);
        if (number == -1 && !overflow && PyErr_Occurred())
            return -1;
        if (!overflow && number == -1)
            return 2;
        if (read_count(value, hits) != 1)
            return PyErr_Occurred() ? -1 : 0;
        *state = *hits ? HIT : MISS;
        return 1;
    }
    if (PyUnicode_CheckExact(value)) {
        Py_ssize_t n, i;
        const char *s;
        long long covered, total;
        if (!PyUnicode_IS_ASCII(value))
            return 0;
        s = PyUnicode_AsUTF8AndSize(value, &n);
        if (s == NULL)
            return -1;
        for (i = 0; i < n && s[i] != '/'; i++)
            ;
        if (i == n) { /* a decimal count: no sign */
            covered = digits_of(s, n, NUMBER_DIGITS);
            if (covered < 0)
                return 0;
            *hits = (uint32_t)covered;
            *state = covered ? HIT : MISS;
            return 1;
        }
        covered = digits_of(s, i, BRANCH_DIGITS);
        total = digits_of(s + i + 1, n - i - 1, BRANCH_DIGITS);
        if (covered < 0 || total < 0)
            return 0;
        *state = covered == total ? HIT : covered == 0 ? MISS : PARTIAL;
        *hits = *state == MISS ? 0 : (uint32_t)covered;
        return 1;
    }
    return 0;
}

PyDoc_STRVAR(dict_lines_doc,
             "dict_lines(lines) -> (lines, hits, states) or None\n\n"
             "The columns of a Codecov JSON object {\"<line>\": coverage} whose keys are decimal line numbers\n"
             "(1 to the line limit, no leading zero) in increasing order and whose values are counts,\n"
             "\"n/m\", true, or no line (null, false, -1). None for anything else.");

static PyObject *dict_lines(PyObject *self, PyObject *arg)
{
    Columns columns;
    Py_ssize_t at = 0;
    PyObject *key, *value;
    long long last = 0;
    (void)self;
    if (!PyDict_CheckExact(arg)) {
        PyErr_SetString(PyExc_TypeError, "dict_lines() takes a dict");
        return NULL;
    }
    if (columns_alloc(&columns, PyDict_Size(arg)) < 0)
        return NULL;
    while (PyDict_Next(arg, &at, &key, &value)) {
        Py_ssize_t n;
        const char *s;
        long long number;
        uint32_t hits = 0;
        unsigned char state = HIT;
        int read;
        if (!PyUnicode_CheckExact(key) || !PyUnicode_IS_ASCII(key))
            goto fallback;
        s = PyUnicode_AsUTF8AndSize(key, &n);
        if (s == NULL)
            goto error;
        if (n < 1 || s[0] == '0')
            goto fallback;
        number = digits_of(s, n, LINE_DIGITS);
        if (number < 1 || number > (long long)MAX_LINE_NUMBER || number <= last)
            goto fallback;
        last = number;
        read = read_coverage(value, &hits, &state);
        if (read < 0)
            goto error;
        if (read == 0)
            goto fallback;
        if (read == 2)
            continue;
        if (columns.size >= columns.capacity)
            goto fallback; /* the dict changed size: cannot happen, guarded all the same */
        columns_push(&columns, (uint32_t)number, hits, state);
    }
    return columns_result(&columns);
fallback:
    columns_free(&columns);
    Py_RETURN_NONE;
error:
    columns_free(&columns);
    return NULL;
}

static PyMethodDef methods[] = {
    {"list_lines", list_lines, METH_VARARGS, list_lines_doc},
    {"dict_lines", dict_lines, METH_O, dict_lines_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "json_lines",
    "The lines of decoded JSON coverage values (SimpleCov, Coveralls, covr, Codecov JSON) as native\n"
    "uint32 lines and hits and one state byte a line, for the well-formed case; None for anything else,\n"
    "which the parsers read with their Python code (docs/parsing.md#compiled-readers).",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit_json_lines(void)
{
    return PyModule_Create(&module);
}
