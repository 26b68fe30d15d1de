/* problem.c: problems as sorted named fields with a canonical text form (tuner/core/problem.h):
 * building one from arrays, parsing the text back, and field lookup. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "problem.h"

typedef struct field_ref {
    const char *name;
    value v;
} field_ref;

static int field_ref_cmp(const void *a, const void *b)
{
    return strcmp(((const field_ref *)a)->name, ((const field_ref *)b)->name);
}

/* Builds p->text from the sorted fields. Returns 0 or -1 (out of memory). */
static int problem_build_text(problem *p)
{
    size_t len = 1;
    for (int k = 0; k < p->n_fields; k++) {
        int w = value_format(p->values[k], NULL, 0);
        if (w < 0)
            return -1;
        len += strlen(p->names[k]) + 2 + (size_t)w;
    }
    p->text = malloc(len);
    if (!p->text)
        return -1;
    size_t at = 0;
    p->text[0] = '\0';
    for (int k = 0; k < p->n_fields; k++) {
        int w = snprintf(p->text + at, len - at, "%s%s=", k ? "," : "", p->names[k]);
        at += (size_t)w;
        w = value_format(p->values[k], p->text + at, len - at);
        at += (size_t)w;
    }
    return 0;
}

int problem_init(problem *p, int n, const char *const *names, const value *values)
{
    memset(p, 0, sizeof *p);
    int rc = -1;
    field_ref *refs = NULL;
    if (n < 0)
        return -1;
    refs = calloc((size_t)n + 1, sizeof *refs);
    p->names = calloc((size_t)n + 1, sizeof *p->names);
    p->values = calloc((size_t)n + 1, sizeof *p->values);
    if (!refs || !p->names || !p->values)
        goto cleanup;
    for (int k = 0; k < n; k++) {
        refs[k].name = names[k];
        refs[k].v = values[k];
    }
    qsort(refs, (size_t)n, sizeof *refs, field_ref_cmp);
    for (int k = 0; k < n; k++) {
        if (k > 0 && strcmp(refs[k - 1].name, refs[k].name) == 0)
            goto cleanup;
        p->names[k] = strdup(refs[k].name);
        if (!p->names[k])
            goto cleanup;
        p->n_fields = k + 1;
        p->values[k] = refs[k].v;
        p->values[k].s = NULL;
        if (refs[k].v.kind == VALUE_STRING) {
            p->values[k].s = strdup(refs[k].v.s ? refs[k].v.s : "");
            if (!p->values[k].s)
                goto cleanup;
        }
    }
    p->n_fields = n;
    if (problem_build_text(p) != 0)
        goto cleanup;
    rc = 0;
cleanup:
    free(refs);
    if (rc != 0)
        problem_clear(p);
    return rc;
}

/* 1 and *out when s (whole) is a decimal int64, else 0. */
static int parse_int64(const char *s, int64_t *out)
{
    if (!*s)
        return 0;
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || (s[0] != '-' && (s[0] < '0' || s[0] > '9')))
        return 0;
    *out = v;
    return 1;
}

int problem_parse(problem *p, const char *text)
{
    memset(p, 0, sizeof *p);
    int rc = -1, n = 0;
    char *copy = strdup(text ? text : "");
    const char **names = NULL;
    value *values = NULL;
    if (!copy)
        return -1;
    size_t cap = 1;
    for (const char *c = copy; *c; c++)
        cap += *c == ',';
    names = calloc(cap, sizeof *names);
    values = calloc(cap, sizeof *values);
    if (!names || !values)
        goto cleanup;
    if (*copy) {
        /* Walked by hand (not strtok) so an empty field, as in "a=1,,b=2", is an error. */
        char *rest = copy;
        for (;;) {
            char *comma = strchr(rest, ',');
            if (comma)
                *comma = '\0';
            char *eq = strchr(rest, '=');
            if (!eq || eq == rest)
                goto cleanup;
            *eq = '\0';
            names[n] = rest;
            int64_t iv;
            values[n] = parse_int64(eq + 1, &iv) ? value_int(iv) : value_string(eq + 1);
            n++;
            if (!comma)
                break;
            rest = comma + 1;
        }
    }
    rc = problem_init(p, n, names, values);
cleanup:
    free(names);
    free(values);
    free(copy);
    return rc;
}

void problem_clear(problem *p)
{
    if (!p)
        return;
    for (int k = 0; k < p->n_fields; k++) {
        if (p->names)
            free(p->names[k]);
        if (p->values && p->values[k].kind == VALUE_STRING)
            free((char *)p->values[k].s);
    }
    free(p->names);
    free(p->values);
    free(p->text);
    memset(p, 0, sizeof *p);
}

const value *problem_get(const problem *p, const char *name)
{
    int lo = 0, hi = p->n_fields - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int c = strcmp(p->names[mid], name);
        if (c == 0)
            return &p->values[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

int64_t problem_int(const problem *p, const char *name, int64_t def)
{
    const value *v = problem_get(p, name);
    return v && v->kind == VALUE_INT ? v->i : def;
}
