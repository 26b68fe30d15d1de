/* kernel_signature.c: a kernel's parameter types read from its lowered name with the C++
 * runtime's demangler, and a buffer's element type held against a pointer parameter
 * (kernel_signature.h). */
#include "kernel_signature.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libstdc++'s demangler (extern "C"; the tuner links -lstdc++) */
char *__cxa_demangle(const char *mangled, char *buf, size_t *n, int *status);

char *kernel_demangle(const char *name)
{
    if (strncmp(name, "_Z", 2) == 0) {
        int status = 0;
        char *d = __cxa_demangle(name, NULL, NULL, &status);
        if (d && status == 0)
            return d;
        free(d);
    }
    return strdup(name);
}

void kernel_signature_free(char **types, int n)
{
    for (int i = 0; types && i < n; i++)
        free(types[i]);
    free(types);
}

/* s[0..n) without blanks at either end, malloc'd. */
static char *trimmed(const char *s, size_t n)
{
    while (n && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    char *t = malloc(n + 1);
    if (t) {
        memcpy(t, s, n);
        t[n] = 0;
    }
    return t;
}

int kernel_signature_params(const char *lowered, char ***types, int *n)
{
    *types = NULL;
    *n = 0;
    if (strncmp(lowered, "_Z", 2) != 0)
        return 1;
    char *d = kernel_demangle(lowered);
    if (!d)
        return -1;
    /* the parameter list: the last top-level "(...)", which ends the name */
    size_t len = strlen(d);
    while (len && d[len - 1] == ' ')
        len--;
    if (!len || d[len - 1] != ')' || strcmp(d, lowered) == 0) {
        free(d);
        return 1;
    }
    size_t open = len - 1;
    int depth = 0;
    for (size_t i = len; i-- > 0;) {
        if (d[i] == ')')
            depth++;
        else if (d[i] == '(' && --depth == 0) {
            open = i;
            break;
        }
    }
    if (depth != 0) {
        free(d);
        return 1;
    }
    /* split at the commas outside <>, () and [] */
    const char *p = d + open + 1, *end = d + len - 1, *start = p;
    char **v = NULL;
    int k = 0, rc = 0;
    depth = 0;
    for (; p <= end; p++) {
        if (p < end && (*p == '<' || *p == '(' || *p == '['))
            depth++;
        else if (p < end && (*p == '>' || *p == ')' || *p == ']'))
            depth--;
        else if (p == end || (*p == ',' && depth == 0)) {
            char *t = trimmed(start, (size_t)(p - start));
            char **nv = t ? realloc(v, (size_t)(k + 1) * sizeof *v) : NULL;
            if (!nv) {
                free(t);
                rc = -1;
                break;
            }
            v = nv;
            v[k++] = t;
            start = p + 1;
        }
    }
    free(d);
    if (rc != 0) {
        kernel_signature_free(v, k);
        return -1;
    }
    /* f() and f(void) take nothing */
    if (k == 1 && (!v[0][0] || strcmp(v[0], "void") == 0)) {
        kernel_signature_free(v, k);
        v = NULL;
        k = 0;
    }
    *types = v;
    *n = k;
    return 0;
}

/* The scalar floating types a pointer may point to, each the one element type it takes. */
static const struct { const char *name, *elem; } floating[] = {
    {"float", "f32"}, {"double", "f64"}, {"__half", "f16"}, {"__nv_bfloat16", "bf16"},
};

int kernel_pointer_takes(const char *param, const char *elem, char *pointee, size_t len)
{
    size_t n = strlen(param);
    while (n && param[n - 1] == ' ')
        n--;
    if (!n || param[n - 1] != '*')
        return 1;
    /* the pointee without its qualifiers: "float const" -> "float" */
    char base[128];
    size_t b = 0;
    const char *p = param, *stop = param + n - 1;
    while (p < stop) {
        while (p < stop && *p == ' ')
            p++;
        const char *w = p;
        while (p < stop && *p != ' ')
            p++;
        size_t wn = (size_t)(p - w);
        if (!wn || (wn == 5 && strncmp(w, "const", 5) == 0) ||
            (wn == 8 && strncmp(w, "volatile", 8) == 0))
            continue;
        if (b + wn + 2 > sizeof base)
            return 1;
        if (b)
            base[b++] = ' ';
        memcpy(base + b, w, wn);
        b += wn;
    }
    base[b] = 0;
    /* only a scalar of a floating format says what the buffer must hold: kernels read their
     * buffers through integers (uint16_t * over f16, a packed uint32_t * over pairs) and
     * through vectors (float4 *, uint4 *, int4 * for 16-byte loads), reinterpretations a space
     * cannot express otherwise */
    for (size_t i = 0; i < sizeof floating / sizeof floating[0]; i++)
        if (strcmp(base, floating[i].name) == 0) {
            if (strcmp(elem, floating[i].elem) == 0)
                return 1;
            if (pointee && len)
                snprintf(pointee, len, "%s", base);
            return 0;
        }
    return 1;
}
