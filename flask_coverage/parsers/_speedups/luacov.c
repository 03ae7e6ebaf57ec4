/* The compiled reader of luacov's text report (flask_coverage/parsers/luacov.py, docs/parsing.md).
 *
 * read(block, at) reads the whole files of a block of whole lines (text_blocks) from the character
 * index at, where the Python reader stands just after a rule (its "name" state). Each file is a name
 * line, its rows (a leading rule skipped) and the rule that ends it; a row is code when it starts with
 * spaces, a count (digits, or stars and a 0) and a blank, and its count ends where the file's counts end
 * (the narrowest). The result is (files, at, stop): files a list of (name, lines, hits, states) for the
 * files read (lines and hits native uint32 bytes, states a bytearray: 0 HIT, 1 MISS), then the part
 * block[at:stop] the Python reader must read with its exact rules before this reader can go on at stop:
 * a file it does not take whole (a name that is blank or "Summary", a count of more than 10 significant
 * digits, a line past the limit) or the file the block ends in (stop is then the block's end). The block is
 * read as the str it is (one, two or four bytes a character), so every index is a character index.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#define MAX_LINE_NUMBER 10000000
#define MAX_HITS 4294967295ULL
#define MAX_DIGITS 20 /* the Python reader's count: [0-9]{1,20} */
#define HIT 0
#define MISS 1

typedef struct {
    uint32_t *lines;
    uint32_t *hits;
    Py_ssize_t *ends;
    Py_ssize_t size;
    Py_ssize_t capacity;
} Rows;

static void
rows_free(Rows *rows)
{
    PyMem_Free(rows->lines);
    PyMem_Free(rows->hits);
    PyMem_Free(rows->ends);
}

/* Room for one more row: 0, or -1 with MemoryError set. */
static int
rows_reserve(Rows *rows)
{
    Py_ssize_t capacity;
    void *lines, *hits, *ends;
    if (rows->size < rows->capacity) {
        return 0;
    }
    capacity = rows->capacity ? rows->capacity * 2 : 256;
    if (capacity > PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(Py_ssize_t)) {
        PyErr_NoMemory();
        return -1;
    }
    lines = PyMem_Realloc(rows->lines, (size_t)capacity * sizeof(uint32_t));
    if (lines != NULL) {
        rows->lines = lines;
    }
    hits = PyMem_Realloc(rows->hits, (size_t)capacity * sizeof(uint32_t));
    if (hits != NULL) {
        rows->hits = hits;
    }
    ends = PyMem_Realloc(rows->ends, (size_t)capacity * sizeof(Py_ssize_t));
    if (ends != NULL) {
        rows->ends = ends;
    }
    if (lines == NULL || hits == NULL || ends == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    rows->capacity = capacity;
    return 0;
}

/* A block: the characters of a str, its length, and the size of a character (PyUnicode_KIND). */
typedef struct {
    int kind;
    const void *data;
    Py_ssize_t size;
} Text;

#define CHAR(text, i) PyUnicode_READ((text)->kind, (text)->data, (i))

/* The index of the next line end from at, or -1. */
static Py_ssize_t
line_end(const Text *text, Py_ssize_t at)
{
    const char *found;
    if (text->kind == PyUnicode_1BYTE_KIND) {
        found = memchr((const char *)text->data + at, '\n', (size_t)(text->size - at));
        return found == NULL ? -1 : found - (const char *)text->data;
    }
    for (; at < text->size; at++) {
        if (CHAR(text, at) == '\n') {
            return at;
        }
    }
    return -1;
}

static int
is_rule(const Text *text, Py_ssize_t start, Py_ssize_t end)
{
    Py_ssize_t i;
    if (end - start < 7) {
        return 0;
    }
    for (i = start; i < end; i++) {
        if (CHAR(text, i) != '=') {
            return 0;
        }
    }
    return 1;
}

/* Whether text[start:end] is the ASCII word. */
static int
is_word(const Text *text, Py_ssize_t start, Py_ssize_t end, const char *word)
{
    Py_ssize_t i;
    if (end - start != (Py_ssize_t)strlen(word)) {
        return 0;
    }
    for (i = 0; i < end - start; i++) {
        if (CHAR(text, start + i) != (Py_UCS4)(unsigned char)word[i]) {
            return 0;
        }
    }
    return 1;
}

static int
is_digit(Py_UCS4 c)
{
    return c >= '0' && c <= '9';
}

/* The count at the start of the row text[start:end], as the Python reader's " *([0-9]{1,20}|\*+0) ": 1
 * with *width (where the match ends, from the row's start) and *hits set, 0 for no count, -1 for a
 * count of more than 10 significant digits. */
static int
count_of(const Text *text, Py_ssize_t start, Py_ssize_t end, Py_ssize_t *width, unsigned long long *hits)
{
    Py_ssize_t i = start, j, first;
    unsigned long long value = 0;
    while (i < end && CHAR(text, i) == ' ') {
        i++;
    }
    if (i < end && CHAR(text, i) == '*') {
        j = i;
        while (j < end && CHAR(text, j) == '*') {
            j++;
        }
        if (j + 1 < end && CHAR(text, j) == '0' && CHAR(text, j + 1) == ' ') {
            *width = j + 2 - start;
            *hits = 0;
            return 1;
        }
        return 0;
    }
    j = i;
    while (j < end && j - i <= MAX_DIGITS && is_digit(CHAR(text, j))) {
        j++;
    }
    if (j == i || j - i > MAX_DIGITS || j >= end || CHAR(text, j) != ' ') {
        return 0;
    }
    first = i;
    while (first < j - 1 && CHAR(text, first) == '0') {
        first++;
    }
    if (j - first > 10) {
        return -1;
    }
    for (; first < j; first++) {
        value = value * 10 + (unsigned long long)(CHAR(text, first) - '0');
    }
    *width = j + 1 - start;
    *hits = value > MAX_HITS ? MAX_HITS : value;
    return 1;
}

/* The file (name, lines, hits, states) of the rows that end at the narrowest count, or NULL. */
static PyObject *
file_of(PyObject *block, Py_ssize_t name_start, Py_ssize_t name_end, const Rows *rows)
{
    Py_ssize_t width = PY_SSIZE_T_MAX, k, code = 0;
    PyObject *name = NULL, *lines = NULL, *hits = NULL, *states = NULL, *file = NULL;
    char *line_out, *hit_out, *state_out;
    for (k = 0; k < rows->size; k++) {
        if (rows->ends[k] < width) {
            width = rows->ends[k];
        }
    }
    for (k = 0; k < rows->size; k++) {
        code += rows->ends[k] == width;
    }
    name = PyUnicode_Substring(block, name_start, name_end);
    lines = PyBytes_FromStringAndSize(NULL, code * (Py_ssize_t)sizeof(uint32_t));
    hits = PyBytes_FromStringAndSize(NULL, code * (Py_ssize_t)sizeof(uint32_t));
    states = PyByteArray_FromStringAndSize(NULL, code);
    if (name == NULL || lines == NULL || hits == NULL || states == NULL) {
        goto done;
    }
    line_out = PyBytes_AS_STRING(lines);
    hit_out = PyBytes_AS_STRING(hits);
    state_out = PyByteArray_AS_STRING(states);
    for (k = 0; k < rows->size; k++) {
        if (rows->ends[k] == width) {
            /* memcpy: a bytes object's buffer has no alignment the C standard promises */
            memcpy(line_out, &rows->lines[k], sizeof(uint32_t));
            memcpy(hit_out, &rows->hits[k], sizeof(uint32_t));
            line_out += sizeof(uint32_t);
            hit_out += sizeof(uint32_t);
            *state_out++ = rows->hits[k] ? HIT : MISS;
        }
    }
    file = PyTuple_Pack(4, name, lines, hits, states);
done:
    Py_XDECREF(name);
    Py_XDECREF(lines);
    Py_XDECREF(hits);
    Py_XDECREF(states);
    return file;
}

static PyObject *
luacov_read(PyObject *module, PyObject *args)
{
    PyObject *block, *files, *file;
    Py_ssize_t at, file_start, name_end, pos, row_end, width = 0, number, i;
    unsigned long long hits = 0;
    int blank, odd, closed, found;
    Text text;
    Rows rows = {NULL, NULL, NULL, 0, 0};
    (void)module;
    if (!PyArg_ParseTuple(args, "Un:read", &block, &at)) {
        return NULL;
    }
    text.kind = PyUnicode_KIND(block);
    text.data = PyUnicode_DATA(block);
    text.size = PyUnicode_GET_LENGTH(block);
    files = PyList_New(0);
    if (files == NULL) {
        return NULL;
    }
    if (at < 0 || at > text.size) {
        return Py_BuildValue("(Nnn)", files, (Py_ssize_t)0, text.size);
    }
    while (at < text.size) {
        file_start = at;
        name_end = line_end(&text, at);
        if (name_end < 0) {
            break;
        }
        if (is_word(&text, at, name_end, "Summary")) {
            break;
        }
        blank = 1;
        for (i = at; i < name_end; i++) {
            if (!Py_UNICODE_ISSPACE(CHAR(&text, i))) {
                blank = 0;
                break;
            }
        }
        /* The rows to the rule that ends the file, as the Python reader's "body" or "skip" state. */
        odd = blank;
        closed = 0;
        number = 0;
        rows.size = 0;
        pos = name_end + 1;
        while (pos < text.size) {
            row_end = line_end(&text, pos);
            if (row_end < 0) {
                break;
            }
            if (is_rule(&text, pos, row_end)) {
                pos = row_end + 1;
                if (number == 0) {
                    number = blank; /* the rule under the name */
                    continue;
                }
                closed = 1;
                break;
            }
            found = blank ? 0 : count_of(&text, pos, row_end, &width, &hits);
            pos = row_end + 1;
            if (blank) {
                continue;
            }
            number++;
            if (number > MAX_LINE_NUMBER || found < 0) {
                odd = 1;
            }
            if (found > 0 && !odd) {
                if (rows_reserve(&rows) < 0) {
                    goto error;
                }
                rows.lines[rows.size] = (uint32_t)number;
                rows.hits[rows.size] = (uint32_t)hits;
                rows.ends[rows.size] = width;
                rows.size++;
            }
        }
        if (!closed) {
            break; /* the block ends in this file: the Python reader reads it on */
        }
        if (odd) {
            rows_free(&rows);
            return Py_BuildValue("(Nnn)", files, file_start, pos);
        }
        file = file_of(block, file_start, name_end, &rows);
        if (file == NULL || PyList_Append(files, file) < 0) {
            Py_XDECREF(file);
            goto error;
        }
        Py_DECREF(file);
        at = pos;
    }
    rows_free(&rows);
    return Py_BuildValue("(Nnn)", files, at, text.size);
error:
    rows_free(&rows);
    Py_DECREF(files);
    return NULL;
}

static PyMethodDef methods[] = {
    {"read", luacov_read, METH_VARARGS,
     "read(block, at) -> (files, at, stop): the whole files of block from at, then the part the Python "
     "reader reads."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "luacov",
    "The compiled reader of luacov's report: the well-formed files of a block (parsers/luacov.py).",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC
PyInit_luacov(void)
{
    return PyModule_Create(&module);
}
