/* ptx.c: reading kernels (their parameters, their __launch_bounds__) and variables out of PTX
 * text (ptx.h). */
#include "ptx.h"

#include <stdlib.h>
#include <string.h>

/* Bytes of a PTX parameter type (.u64, .f32, .b8, ...). */
static int ptx_type_size(const char *t)
{
    if (t[0] != '.' || !strchr("usbf", t[1]))
        return 0;
    int bits = atoi(t + 2);
    return bits == 8 || bits == 16 || bits == 32 || bits == 64 ? bits / 8 : 0;
}

/* Where the declaration of the .entry named entry continues after its name, or NULL when the
 * entry is not there. */
static const char *find_entry(const char *ptx, const char *entry)
{
    size_t n = strlen(entry);
    const char *p = ptx;
    while ((p = strstr(p, ".entry")) != NULL) {
        p += 6;
        while (*p == ' ' || *p == '\t')
            p++;
        if (strncmp(p, entry, n) == 0 && (p[n] == '(' || p[n] == ' ' || p[n] == '\n' ||
                                          p[n] == '\r' || p[n] == '\t'))
            return p + n;
    }
    return NULL;
}

int ptx_entry_params(const char *ptx, const char *entry, int *sizes, int max)
{
    const char *p = find_entry(ptx, entry);
    if (!p)
        return -1;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    if (*p != '(')
        return 0;   /* no parameter list */
    const char *end = strchr(p, ')');
    if (!end)
        return -1;
    int count = 0;
    for (const char *q = strstr(p, ".param"); q && q < end && count < max;
         q = strstr(q + 6, ".param")) {
        /* .param [.align N] .TYPE NAME[ [COUNT] ] */
        const char *t = q + 6;
        while (*t == ' ' || *t == '\t')
            t++;
        if (strncmp(t, ".align", 6) == 0) {
            t += 6;
            while (*t == ' ' || *t == '\t' || (*t >= '0' && *t <= '9'))
                t++;
        }
        int size = ptx_type_size(t);
        while (*t && *t != ' ' && *t != '\t')
            t++;
        while (*t == ' ' || *t == '\t')
            t++;
        while (*t && *t != '[' && *t != ',' && *t != '\n' && t < end)
            t++;
        if (*t == '[')
            size *= atoi(t + 1);
        sizes[count++] = size;
    }
    return count;
}

int ptx_entry_max_threads(const char *ptx, const char *entry)
{
    const char *p = find_entry(ptx, entry);
    if (!p)
        return -1;
    /* the performance directives stand between the parameter list and the body's '{':
     * .maxntid 128, 1, 1 / .minnctapersm 4 / .maxnreg 64 / .reqntid ... */
    const char *body = p + strcspn(p, "{");
    const char *close = strchr(p, ')');
    if (close && close < body)
        p = close + 1;
    const char *semi = p + strcspn(p, ";");   /* a declaration without a body ends there */
    if (semi < body)
        body = semi;
    for (const char *q = strstr(p, ".maxntid"); q && q < body; q = strstr(q + 8, ".maxntid")) {
        if (q[8] != ' ' && q[8] != '\t')
            continue;
        /* .maxntid nx[, ny[, nz]]: at most nx * ny * nz threads a block */
        long threads = 1;
        const char *t = q + 8;
        for (int dim = 0; dim < 3; dim++) {
            while (*t == ' ' || *t == '\t')
                t++;
            char *end;
            long v = strtol(t, &end, 10);
            if (end == t || v < 1 || v > 1 << 20)
                return 0;   /* not a form this reader knows: no bound */
            threads *= v;
            if (threads > 1 << 20)
                return 0;
            t = end;
            while (*t == ' ' || *t == '\t')
                t++;
            if (*t != ',')
                break;
            t++;
        }
        return (int)threads;
    }
    return 0;
}

/* Appends a copy of name[0..n) to a NULL-terminated list. 0, or -1 when memory ran out. */
static int push_name(char ***list, size_t *count, const char *name, size_t n)
{
    char **grown = realloc(*list, (*count + 2) * sizeof *grown);
    if (!grown)
        return -1;
    *list = grown;
    if (!(grown[*count] = strndup(name, n)))
        return -1;
    grown[++*count] = NULL;
    return 0;
}

static int is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '$' || c == '.';
}

char **ptx_entries(const char *ptx)
{
    char **list = calloc(1, sizeof *list);
    size_t count = 0;
    if (!list)
        return NULL;
    for (const char *p = strstr(ptx, ".entry"); p; p = strstr(p, ".entry")) {
        int word = p == ptx || p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n';
        p += 6;
        if (!word || (*p != ' ' && *p != '\t'))
            continue;
        while (*p == ' ' || *p == '\t')
            p++;
        const char *e = p;
        while (is_name_char(*e))
            e++;
        if (e > p && push_name(&list, &count, p, (size_t)(e - p)) != 0) {
            ptx_names_free(list);
            return NULL;
        }
    }
    return list;
}

char **ptx_globals(const char *ptx)
{
    char **list = calloc(1, sizeof *list);
    size_t count = 0;
    if (!list)
        return NULL;
    /* a declaration at the start of a line: [.visible|.extern|.weak] (.global|.const) [.align N]
     * .TYPE NAME[...] [= ...]; */
    for (const char *line = ptx; line && *line;
         line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        const char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        while (strncmp(p, ".visible", 8) == 0 || strncmp(p, ".extern", 7) == 0 ||
               strncmp(p, ".weak", 5) == 0) {
            while (*p && *p != ' ' && *p != '\t')
                p++;
            while (*p == ' ' || *p == '\t')
                p++;
        }
        if (strncmp(p, ".global", 7) != 0 && strncmp(p, ".const", 6) != 0)
            continue;
        const char *nl = strchr(p, '\n'), *end = nl ? nl : p + strlen(p);
        const char *semi = memchr(p, ';', (size_t)(end - p));
        if (!semi)
            continue;
        /* the name: the last word before '[', '=' or ';' */
        const char *stop = p;
        while (stop < semi && *stop != '[' && *stop != '=')
            stop++;
        while (stop > p && (stop[-1] == ' ' || stop[-1] == '\t'))
            stop--;
        const char *start = stop;
        while (start > p && is_name_char(start[-1]) && start[-1] != '.')
            start--;
        if (start < stop && start > p && push_name(&list, &count, start, (size_t)(stop - start))) {
            ptx_names_free(list);
            return NULL;
        }
    }
    return list;
}

void ptx_names_free(char **names)
{
    for (size_t i = 0; names && names[i]; i++)
        free(names[i]);
    free(names);
}
