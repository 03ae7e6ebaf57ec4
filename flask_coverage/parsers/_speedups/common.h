/* What every compiled reader shares (docs/parsing.md#compiled-readers): the bounds and line states of
 * the Python side, the one number rule, a growable buffer and the three columns of a file's lines.
 *
 * The number rule is parsers/_common.py's (NUMBER_DIGITS, LINE_DIGITS): decimal digits, at most
 * NUMBER_DIGITS of them; a line number at most LINE_DIGITS (those of MAX_LINE_NUMBER). C reads at most
 * C_DIGITS (an unsigned long long holds them all) and leaves a longer number to the Python reader,
 * which decides by the rule; tests/parsers/test_number_rule.py holds the two sides equal on numbers of
 * every length.
 */
#ifndef FLASK_COVERAGE_SPEEDUPS_COMMON_H
#define FLASK_COVERAGE_SPEEDUPS_COMMON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#define MAX_LINE_NUMBER 10000000ULL /* parsers/_common.py MAX_LINE_NUMBER */
#define MAX_HITS 4294967295ULL      /* lines.py MAX_HITS: counts are stored saturated at it */
#define HIT 0                       /* lines.py HIT, MISS, PARTIAL */
#define MISS 1
#define PARTIAL 2
#define NUMBER_DIGITS 20 /* parsers/_common.py NUMBER_DIGITS */
#define LINE_DIGITS 8    /* parsers/_common.py LINE_DIGITS */
#define C_DIGITS 19

static inline int
is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

/* 1 to `most` (at most C_DIGITS) ASCII digits at p < end, a leading zero before another digit only
 * when `zeros` is set. Returns the position after them with *value set, or NULL (no digit, too many,
 * a leading zero): the Python reader then reads the number by the rule. */
static inline const char *
read_digits(const char *p, const char *end, int most, int zeros, unsigned long long *value)
{
    unsigned long long v = 0;
    int n = 0;
    if (p >= end || !is_digit((unsigned char)*p)) {
        return NULL;
    }
    if (!zeros && *p == '0' && p + 1 < end && is_digit((unsigned char)p[1])) {
        return NULL;
    }
    while (p < end && is_digit((unsigned char)*p)) {
        if (n == most || n == C_DIGITS) {
            return NULL;
        }
        v = v * 10 + (unsigned long long)(*p - '0');
        n++;
        p++;
    }
    *value = v;
    return p;
}

/* Bytes that grow as they are put, doubling from 4 KiB. */
typedef struct {
    char *data;
    Py_ssize_t used, size;
} Buffer;

/* Room for `more` bytes; -1 with MemoryError set when it cannot be had. */
static inline int
buffer_reserve(Buffer *buffer, Py_ssize_t more)
{
    Py_ssize_t grown;
    char *data;
    if (more <= buffer->size - buffer->used) {
        return 0;
    }
    if (more > PY_SSIZE_T_MAX / 2 - buffer->used) {
        PyErr_NoMemory();
        return -1;
    }
    grown = buffer->size ? buffer->size : 4096;
    while (grown < buffer->used + more) {
        grown *= 2;
    }
    data = PyMem_Realloc(buffer->data, (size_t)grown);
    if (data == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    buffer->data = data;
    buffer->size = grown;
    return 0;
}

static inline int
buffer_put(Buffer *buffer, const void *value, Py_ssize_t size)
{
    if (buffer_reserve(buffer, size) < 0) {
        return -1;
    }
    memcpy(buffer->data + buffer->used, value, (size_t)size);
    buffer->used += size;
    return 0;
}

static inline void
buffer_free(Buffer *buffer)
{
    PyMem_Free(buffer->data);
    buffer->data = NULL;
    buffer->used = buffer->size = 0;
}

/* A file's lines as LineCoverage.from_bytes takes them: native uint32 lines and hits, a state byte a
 * line. The capacity is fixed when allocated, from a bound the caller computed on its input. */
typedef struct {
    uint32_t *lines;
    uint32_t *hits;
    unsigned char *states;
    Py_ssize_t size, capacity;
} Columns;

/* -1 with MemoryError set when the columns cannot be had (nothing is left allocated). */
static inline int
columns_alloc(Columns *columns, Py_ssize_t capacity)
{
    if (capacity < 1) {
        capacity = 1;
    }
    columns->size = 0;
    columns->capacity = capacity;
    columns->lines = NULL;
    columns->hits = NULL;
    columns->states = NULL;
    if (capacity <= PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(uint32_t)) {
        columns->lines = PyMem_Malloc((size_t)capacity * sizeof(uint32_t));
        columns->hits = PyMem_Malloc((size_t)capacity * sizeof(uint32_t));
        columns->states = PyMem_Malloc((size_t)capacity);
    }
    if (columns->lines == NULL || columns->hits == NULL || columns->states == NULL) {
        PyMem_Free(columns->lines);
        PyMem_Free(columns->hits);
        PyMem_Free(columns->states);
        columns->lines = columns->hits = NULL;
        columns->states = NULL;
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* Appends a line; the caller checked the capacity (its bound) and the values (line 1 to
 * MAX_LINE_NUMBER, hits at most MAX_HITS, a state). */
static inline void
columns_push(Columns *columns, uint32_t line, uint32_t hits, int state)
{
    columns->lines[columns->size] = line;
    columns->hits[columns->size] = hits;
    columns->states[columns->size] = (unsigned char)state;
    columns->size++;
}

static inline void
columns_free(Columns *columns)
{
    PyMem_Free(columns->lines);
    PyMem_Free(columns->hits);
    PyMem_Free(columns->states);
    columns->lines = columns->hits = NULL;
    columns->states = NULL;
}

/* The columns' entries [start, end) as a tuple of three bytes (lines, hits, states), or NULL with an
 * exception set. */
static inline PyObject *
columns_bytes(const Columns *columns, Py_ssize_t start, Py_ssize_t end)
{
    Py_ssize_t n = end - start;
    return Py_BuildValue("(y#y#y#)", (const char *)(columns->lines + start), n * (Py_ssize_t)sizeof(uint32_t),
                         (const char *)(columns->hits + start), n * (Py_ssize_t)sizeof(uint32_t),
                         (const char *)(columns->states + start), n);
}

#endif
