/* The compiled reader of gcov's text output (flask_coverage/parsers/gcov.py, docs/parsing.md).
 *
 * read(block, open, pending) reads one block of whole lines (text_blocks) in the usual shape:
 * "-:    0:Source:<path>" headers, "count:line:source" lines whose count is a number (with gcc 8's
 * '*' suffixes), "#####", "=====", "$$$$$", "%%%%%" or "-", and branch/call/function records. It
 * applies the Python reader's rules that look at the source text (braces, unused inline/static
 * functions, the if/else if/for/while branch rule) and gives up, returning None, on any line where one
 * of them could read differently (a character outside ASCII where Python would look for whitespace),
 * on any line the Python reader would skip and count or refuse, and on lines before the first header
 * (open false). The caller never hands it a block with an LCOV_EXCL marker, nor one read while
 * excluded.
 *
 * pending is the branch line still counting its branch records at the end of the previous block, a list
 * [line, count, taken, total] or None. The result is (head, sections, pending): head the columns
 * (lines, hits, states) of the open file before the first header of the block, sections a list of
 * (source, lines, hits, states, ordered) per header in the block (the last one still open), pending the
 * branch line left counting at the block's end. lines and hits are native uint32 bytes, states a
 * bytearray (0 HIT, 1 MISS, 2 PARTIAL); ordered is True when the lines strictly increase.
 */
#include "common.h"

/* Whitespace for str.strip() and re's \s among ASCII characters. */
static int
is_space(unsigned char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

static int
contains(const char *text, Py_ssize_t length, const char *word, Py_ssize_t size)
{
    Py_ssize_t i;
    for (i = 0; i + size <= length; i++) {
        if (text[i] == word[0] && memcmp(text + i, word, (size_t)size) == 0) {
            return 1;
        }
    }
    return 0;
}

static int
starts_with(const char *text, Py_ssize_t length, const char *word, Py_ssize_t size)
{
    return length >= size && memcmp(text, word, (size_t)size) == 0;
}

static int
branch_state(long long taken, long long total)
{
    if (total == 0 || taken == total) {
        return HIT;
    }
    return taken == 0 ? MISS : PARTIAL;
}

/* 1 when code[at:] is word, one optional whitespace and "(", 0 when not, -1 when a character outside
 * ASCII (maybe whitespace) stands where the whitespace could. */
static int
keyword(const char *code, Py_ssize_t length, Py_ssize_t at, const char *word, Py_ssize_t size)
{
    if (length - at < size || memcmp(code + at, word, (size_t)size) != 0) {
        return 0;
    }
    at += size;
    if (at >= length) {
        return 0;
    }
    if (code[at] == '(') {
        return 1;
    }
    if (is_space((unsigned char)code[at])) {
        return at + 1 < length && code[at + 1] == '(';
    }
    return (unsigned char)code[at] >= 0x80 ? -1 : 0;
}

/* Whether a hit line's code (with a "(") starts a conditional or a loop (gcov.py's _BRANCHY): 1, 0, or
 * -1 unsure. */
static int
branchy(const char *code, Py_ssize_t length)
{
    Py_ssize_t at = 0;
    int found;
    while (at < length && is_space((unsigned char)code[at])) {
        at++;
    }
    if (at < length && (unsigned char)code[at] >= 0x80) {
        return -1;
    }
    if (at == 0) {
        return 0;
    }
    found = keyword(code, length, at, "if", 2);
    if (found == 0) {
        found = keyword(code, length, at, "} else if", 9);
    }
    if (found == 0) {
        found = keyword(code, length, at, "for", 3);
    }
    if (found == 0) {
        found = keyword(code, length, at, "while", 5);
    }
    return found;
}

/* Appends (source, lines, hits, states, ordered) to sections; -1 with an exception set on failure. */
static int
close_section(PyObject *sections, PyObject *source, const Columns *columns, Py_ssize_t start, int ordered)
{
    PyObject *columns_tuple = columns_bytes(columns, start, columns->size);
    PyObject *section;
    int failed;
    if (columns_tuple == NULL) {
        return -1;
    }
    section = Py_BuildValue("(OOOOO)", source, PyTuple_GET_ITEM(columns_tuple, 0), PyTuple_GET_ITEM(columns_tuple, 1),
                            PyTuple_GET_ITEM(columns_tuple, 2), ordered ? Py_True : Py_False);
    Py_DECREF(columns_tuple);
    if (section == NULL) {
        return -1;
    }
    failed = PyList_Append(sections, section);
    Py_DECREF(section);
    return failed;
}

/* Reads pending ([line, count, taken, total] or None) into values; 1 read, 0 None, -1 error. */
static int
read_pending(PyObject *pending, long long values[4])
{
    Py_ssize_t i;
    if (pending == Py_None) {
        return 0;
    }
    if (!PyList_Check(pending) || PyList_GET_SIZE(pending) != 4) {
        PyErr_SetString(PyExc_TypeError, "pending must be None or a list of 4 integers");
        return -1;
    }
    for (i = 0; i < 4; i++) {
        PyObject *item = PyList_GET_ITEM(pending, i);
        int overflow = 0;
        if (!PyLong_Check(item)) {
            PyErr_SetString(PyExc_TypeError, "pending must be None or a list of 4 integers");
            return -1;
        }
        values[i] = PyLong_AsLongLongAndOverflow(item, &overflow);
        if (overflow || values[i] < 0 || values[i] > ((long long)1 << 62)) {
            PyErr_SetString(PyExc_TypeError, "pending values out of range");
            return -1;
        }
    }
    if (values[0] < 1 || values[0] > (long long)MAX_LINE_NUMBER || values[1] > (long long)MAX_HITS) {
        PyErr_SetString(PyExc_TypeError, "pending values out of range");
        return -1;
    }
    return 1;
}

/* The block's lines in the Python reader's order; 1 read, 0 give up, -1 error. */
static int
read_lines(const char *text, Py_ssize_t length, int open, int *has_pending, long long pending[4], Columns *columns,
           PyObject **head, PyObject *sections)
{
    Py_ssize_t position = 0;
    Py_ssize_t start = 0;      /* where the current segment's entries start in columns */
    PyObject *source = NULL;   /* the current section's source, NULL for the head */
    int ordered = 1, closed;
    long long last = 0;

    while (position < length) {
        const char *line = text + position;
        const char *end = memchr(line, '\n', (size_t)(length - position));
        const char *first_colon, *second_colon, *code;
        Py_ssize_t size, at, code_size;
        Py_ssize_t first_non_space;
        long long count = 0, number = 0;
        int found, brace, paren;
        if (end == NULL) {
            break; /* not a whole line: the Python reader drops it too */
        }
        size = end - line;
        position += size + 1;

        if (starts_with(line, size, "branch", 6)) {
            if (*has_pending) {
                pending[3]++;
                if (!contains(line, size, "taken 0", 7) && !contains(line, size, "never executed", 14)) {
                    pending[2]++;
                }
            }
            continue;
        }
        if (*has_pending) {
            if (open) {
                columns_push(columns, (uint32_t)pending[0], (uint32_t)pending[1], branch_state(pending[2], pending[3]));
                if (pending[0] <= last) {
                    ordered = 0;
                }
                last = pending[0];
            }
            *has_pending = 0;
        }
        if (starts_with(line, size, "call", 4) || starts_with(line, size, "function", 8)) {
            continue;
        }
        first_colon = memchr(line, ':', (size_t)size);
        if (first_colon == NULL) {
            continue; /* blank, or no count and number: not a source line */
        }
        second_colon = memchr(first_colon + 1, ':', (size_t)(size - (first_colon + 1 - line)));
        if (second_colon == NULL) {
            continue;
        }
        at = 0;
        while (at < size && is_space((unsigned char)line[at])) {
            at++;
        }
        first_non_space = at;
        if (line[at] == '-') {
            /* no code, a header of gcov's, or the header of the next file */
            if (contains(line, size, "Source:", 7)) {
                Py_ssize_t rest;
                if (line + at + 1 != first_colon) {
                    goto give_up;
                }
                rest = at + 2;
                while (rest < size && is_space((unsigned char)line[rest])) {
                    rest++;
                }
                if (!starts_with(line + rest, size - rest, "0:Source:", 9)) {
                    goto give_up;
                }
                rest += 9;
                if (source == NULL) {
                    *head = columns_bytes(columns, start, columns->size);
                    if (*head == NULL) {
                        return -1;
                    }
                } else {
                    found = close_section(sections, source, columns, start, ordered);
                    Py_CLEAR(source);
                    if (found < 0) {
                        return -1;
                    }
                }
                source = PyUnicode_DecodeUTF8(line + rest, size - rest, "strict");
                if (source == NULL) {
                    return -1;
                }
                start = columns->size;
                ordered = 1;
                last = 0;
                open = 1;
            }
            continue;
        }
        if (!open) {
            goto give_up; /* a line before the first header: skipped and counted */
        }
        code = second_colon + 1;
        code_size = size - (code - line);
        if (code_size < 0) {
            goto give_up; /* never: the second colon is within the line */
        }
        if (code_size > 0 && (code[0] == '{' || code[0] == '}')) {
            continue;
        }
        brace = paren = 0;
        for (at = 0; at < code_size; at++) {
            brace |= code[at] == '}';
            paren |= code[at] == '(';
        }
        if (brace) {
            Py_ssize_t left = 0, right = code_size;
            while (left < right && is_space((unsigned char)code[left])) {
                left++;
            }
            while (right > left && is_space((unsigned char)code[right - 1])) {
                right--;
            }
            if (right - left == 1 && code[left] == '}') {
                continue;
            }
            if ((unsigned char)code[left] >= 0x80 || (unsigned char)code[right - 1] >= 0x80) {
                goto give_up; /* maybe whitespace around a lone brace */
            }
        }
        /* the count */
        at = first_non_space;
        if (line[at] == '#' || line[at] == '=' || line[at] == '$' || line[at] == '%') {
            Py_ssize_t k;
            char mark = line[at];
            if (first_colon - (line + at) < 5) {
                goto give_up;
            }
            for (k = 1; k < 5; k++) {
                if (line[at + k] != mark) {
                    goto give_up;
                }
            }
            at += 5;
            for (k = at; line + k < first_colon; k++) {
                if (!is_space((unsigned char)line[k])) {
                    goto give_up; /* "#####*" and the like: the Python reader skips and counts them */
                }
            }
            if (mark == '#') {
                Py_ssize_t k2 = 0;
                while (k2 < code_size && is_space((unsigned char)code[k2])) {
                    k2++;
                }
                if (k2 < code_size && (unsigned char)code[k2] >= 0x80) {
                    goto give_up;
                }
                if (starts_with(code + k2, code_size - k2, "inline", 6) ||
                    starts_with(code + k2, code_size - k2, "static", 6)) {
                    continue;
                }
            }
        } else if (line[at] >= '0' && line[at] <= '9') {
            unsigned long long value;
            const char *after = read_digits(line + at, first_colon, NUMBER_DIGITS, 1, &value);
            if (after == NULL || value > MAX_HITS) {
                goto give_up;
            }
            count = (long long)value;
            at = after - line;
            while (line + at < first_colon && line[at] == '*') {
                at++;
            }
        } else {
            goto give_up;
        }
        while (line + at < first_colon && is_space((unsigned char)line[at])) {
            at++;
        }
        if (line + at != first_colon) {
            goto give_up;
        }
        /* the line number */
        at++;
        while (line + at < second_colon && is_space((unsigned char)line[at])) {
            at++;
        }
        if (line + at < second_colon && is_digit((unsigned char)line[at])) {
            unsigned long long value;
            const char *after = read_digits(line + at, second_colon, LINE_DIGITS, 1, &value);
            if (after == NULL) {
                goto give_up;
            }
            number = (long long)value;
            at = after - line;
        }
        while (line + at < second_colon && is_space((unsigned char)line[at])) {
            at++;
        }
        if (line + at != second_colon || number < 1 || number > (long long)MAX_LINE_NUMBER) {
            goto give_up;
        }
        found = count && paren ? branchy(code, code_size) : 0;
        if (found < 0) {
            goto give_up;
        }
        if (found) {
            *has_pending = 1;
            pending[0] = number;
            pending[1] = count;
            pending[2] = pending[3] = 0;
        } else {
            columns_push(columns, (uint32_t)number, (uint32_t)count, count ? HIT : MISS);
            if (number <= last) {
                ordered = 0;
            }
            last = number;
        }
    }
    if (source == NULL) {
        *head = columns_bytes(columns, start, columns->size);
        return *head == NULL ? -1 : 1;
    }
    closed = close_section(sections, source, columns, start, ordered);
    Py_DECREF(source);
    return closed < 0 ? -1 : 1;

give_up:
    Py_XDECREF(source);
    return 0;
}

static PyObject *
gcov_read(PyObject *module, PyObject *args)
{
    PyObject *block, *pending_in, *sections, *head = NULL, *pending_out, *result;
    int open, has_pending, status;
    long long pending[4] = {0, 0, 0, 0};
    const char *text;
    Py_ssize_t length;
    Columns columns;
    (void)module;

    if (!PyArg_ParseTuple(args, "UpO:read", &block, &open, &pending_in)) {
        return NULL;
    }
    has_pending = read_pending(pending_in, pending);
    if (has_pending < 0) {
        return NULL;
    }
    text = PyUnicode_AsUTF8AndSize(block, &length);
    if (text == NULL) {
        return NULL;
    }
    /* An entry takes at least "1:1:\n" (5 bytes), plus the pending line of the previous block. */
    if (columns_alloc(&columns, length / 5 + 2) < 0) {
        return NULL;
    }
    sections = PyList_New(0);
    if (sections == NULL) {
        columns_free(&columns);
        return NULL;
    }
    status = read_lines(text, length, open, &has_pending, pending, &columns, &head, sections);
    columns_free(&columns);
    if (status <= 0) {
        Py_XDECREF(head);
        Py_DECREF(sections);
        if (status < 0) {
            return NULL;
        }
        Py_RETURN_NONE;
    }
    if (has_pending) {
        pending_out = Py_BuildValue("[LLLL]", pending[0], pending[1], pending[2], pending[3]);
        if (pending_out == NULL) {
            Py_XDECREF(head);
            Py_DECREF(sections);
            return NULL;
        }
    } else {
        pending_out = Py_None;
        Py_INCREF(pending_out);
    }
    result = PyTuple_Pack(3, head, sections, pending_out);
    Py_XDECREF(head);
    Py_DECREF(sections);
    Py_DECREF(pending_out);
    return result;
}

static PyMethodDef gcov_methods[] = {
    {"read", gcov_read, METH_VARARGS,
     "read(block, open, pending) -> (head, sections, pending) or None: the usual gcov lines of one block."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef gcov_module = {
    PyModuleDef_HEAD_INIT,
    "gcov",
    "The compiled reader of the well-formed case of gcov's text output (parsers/gcov.py).",
    -1,
    gcov_methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC
PyInit_gcov(void)
{
    return PyModule_Create(&gcov_module);
}
