/* value.h: the one scalar type shared by the expression language, space files, problems and
 * configs. A value is an integer, a float or a string; strings are borrowed pointers whose owner
 * (a space, an expression, a problem) outlives every value that points into it. */
#pragma once
#include <stdint.h>
#include <stddef.h>

typedef enum { VALUE_INT, VALUE_FLOAT, VALUE_STRING } value_kind;

typedef struct value {
    value_kind kind;
    int64_t i;       /* VALUE_INT */
    double f;        /* VALUE_FLOAT */
    const char *s;   /* VALUE_STRING, borrowed */
} value;

static inline value value_int(int64_t i) { value v = {VALUE_INT, i, 0.0, NULL}; return v; }
static inline value value_float(double f) { value v = {VALUE_FLOAT, 0, f, NULL}; return v; }
static inline value value_string(const char *s) { value v = {VALUE_STRING, 0, 0.0, s}; return v; }

/* Writes the value as it appears in a canonical config or problem text: integers in decimal,
 * floats with %.17g, strings bare. Returns what snprintf returns. */
int value_format(value v, char *buf, size_t len);

/* 1 when a and b are the same kind and equal (strings by content). */
int value_equal(value a, value b);
