/* problem.h: one problem an op is tuned on, as named fields (n, offset, N, C, H, W, ...).
 * Its canonical text (fields sorted by name, "n=33554432,offset=0") is its identity in the
 * database and on the worker pipe. A problem owns its names and string values. */
#pragma once
#include "value.h"

typedef struct problem {
    int n_fields;
    char **names;            /* sorted by strcmp */
    value *values;           /* VALUE_INT or VALUE_STRING; strings owned */
    char *text;              /* canonical text, owned */
} problem;

/* Builds a problem from parallel arrays (copied; the order does not matter). Returns 0, or -1
 * when a name repeats. The caller frees with problem_clear. */
int problem_init(problem *p, int n, const char *const *names, const value *values);

/* Parses canonical text "a=1,b=x" (integers where the value parses as one). Returns 0 or -1. */
int problem_parse(problem *p, const char *text);

void problem_clear(problem *p);

/* Integer field, or def when absent. */
int64_t problem_int(const problem *p, const char *name, int64_t def);
/* The field's value, or NULL when absent. */
const value *problem_get(const problem *p, const char *name);
