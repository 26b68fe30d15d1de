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

/* The arithmetic types a pointer may point to, and what kind of element each holds: its
 * scalar's size and whether it is a floating format (named: formats of one size differ). */
typedef struct {
    const char *name;
    int size;
    const char *format;   /* the floating format ("f32"), NULL for an integer */
} c_type;

static const c_type c_types[] = {
    {"float", 4, "f32"}, {"double", 8, "f64"}, {"__half", 2, "f16"}, {"__half2", 2, "f16"},
    {"__nv_bfloat16", 2, "bf16"}, {"__nv_bfloat162", 2, "bf16"},
    {"signed char", 1, NULL}, {"unsigned char", 1, NULL}, {"bool", 1, NULL},
    {"short", 2, NULL}, {"unsigned short", 2, NULL}, {"int", 4, NULL}, {"unsigned int", 4, NULL},
    {"long", 8, NULL}, {"unsigned long", 8, NULL}, {"long long", 8, NULL},
    {"unsigned long long", 8, NULL},
};

/* CUDA's vector types: the name's stem and the scalar it holds */
static const struct { const char *stem, *scalar; } c_vectors[] = {
    {"float", "float"}, {"double", "double"}, {"char", "signed char"}, {"uchar", "unsigned char"},
    {"short", "short"}, {"ushort", "unsigned short"}, {"int", "int"}, {"uint", "unsigned int"},
    {"long", "long"}, {"ulong", "unsigned long"}, {"longlong", "long long"},
    {"ulonglong", "unsigned long long"},
};

static const c_type *c_type_of(const char *name)
{
    for (size_t i = 0; i < sizeof c_types / sizeof *c_types; i++)
        if (strcmp(c_types[i].name, name) == 0)
            return &c_types[i];
    for (size_t i = 0; i < sizeof c_vectors / sizeof *c_vectors; i++) {
        size_t n = strlen(c_vectors[i].stem);
        if (strncmp(name, c_vectors[i].stem, n) == 0 && name[n] >= '1' && name[n] <= '4' &&
            name[n + 1] == 0)
            return c_type_of(c_vectors[i].scalar);
    }
    return NULL;
}

/* The element types a space names, as c_type's kind. */
static const c_type *elem_of(const char *elem)
{
    static const c_type elems[] = {
        {"f64", 8, "f64"}, {"f32", 4, "f32"}, {"f16", 2, "f16"}, {"bf16", 2, "bf16"},
        {"i8", 1, NULL}, {"i16", 2, NULL}, {"i32", 4, NULL}, {"i64", 8, NULL},
        {"u8", 1, NULL}, {"u16", 2, NULL}, {"u32", 4, NULL}, {"u64", 8, NULL},
    };
    for (size_t i = 0; i < sizeof elems / sizeof *elems; i++)
        if (strcmp(elems[i].name, elem) == 0)
            return &elems[i];
    return NULL;
}

int kernel_pointer_takes(const char *param, const char *elem, char *pointee, size_t len)
{
    const c_type *want = elem_of(elem);
    size_t n = strlen(param);
    while (n && param[n - 1] == ' ')
        n--;
    if (!want || !n || param[n - 1] != '*')
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
    const c_type *have = c_type_of(base);
    if (!have)
        return 1;
    int same = have->format ? want->format && strcmp(have->format, want->format) == 0
                            : !want->format && have->size == want->size;
    if (!same && pointee && len)
        snprintf(pointee, len, "%s", base);
    return same;
}
