/* module_meta.c: writing and reading the description beside a cached cubin, and the wording of
 * the limit its kernels' __launch_bounds__ set (module_meta.h). */
#include "module_meta.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { META_MAX_BYTES = 1 << 20, META_MAX_ITEMS = 256 };

int module_meta_path(const char *cubin, char *out, size_t len)
{
    size_t n = strlen(cubin);
    if (n < 6 || strcmp(cubin + n - 6, ".cubin") != 0 || n + 1 > len)
        return -1;
    snprintf(out, len, "%.*s.meta", (int)(n - 6), cubin);
    return 0;
}

char *module_meta_format(int n_kernels, char *const *lowered, const int *n_params,
                         int *const *params, const int *max_threads, int n_symbols,
                         char *const *symbols, const char *log)
{
    size_t cap = 64 + (log ? strlen(log) : 0);
    for (int i = 0; i < n_kernels; i++)
        cap += strlen(lowered[i]) + 80 + (size_t)n_params[i] * 12;
    for (int i = 0; i < n_symbols; i++)
        cap += strlen(symbols[i]) + 24;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    size_t at = 0;
    for (int i = 0; i < n_kernels; i++) {
        at += (size_t)snprintf(s + at, cap - at, "kernel %d %s\nparams %d", i, lowered[i], i);
        for (int j = 0; j < n_params[i]; j++)
            at += (size_t)snprintf(s + at, cap - at, " %d", params[i][j]);
        at += (size_t)snprintf(s + at, cap - at, "\n");
        if (max_threads && max_threads[i] > 0)
            at += (size_t)snprintf(s + at, cap - at, "maxntid %d %d\n", i, max_threads[i]);
    }
    for (int i = 0; i < n_symbols; i++)
        at += (size_t)snprintf(s + at, cap - at, "symbol %d %s\n", i, symbols[i]);
    snprintf(s + at, cap - at, "log %s\n", log ? log : "");
    return s;
}

void module_meta_clear(module_meta *m)
{
    for (int i = 0; i < m->n_kernels; i++) {
        free(m->lowered[i]);
        free(m->params[i]);
    }
    free(m->max_threads);
    for (int i = 0; i < m->n_symbols; i++)
        free(m->symbols[i]);
    free(m->lowered);
    free(m->n_params);
    free(m->params);
    free(m->symbols);
    free(m->log);
    memset(m, 0, sizeof *m);
}

/* Makes room for item i (< META_MAX_ITEMS) in the kernel or symbol arrays. */
static int grow(module_meta *m, int kernel, int i)
{
    if (i < 0 || i >= META_MAX_ITEMS)
        return -1;
    int *n = kernel ? &m->n_kernels : &m->n_symbols;
    if (i < *n)
        return 0;
    size_t want = (size_t)i + 1;
    if (kernel) {
        char **l = realloc(m->lowered, want * sizeof *l);
        if (l) m->lowered = l;
        int *np = realloc(m->n_params, want * sizeof *np);
        if (np) m->n_params = np;
        int **p = realloc(m->params, want * sizeof *p);
        if (p) m->params = p;
        int *mt = realloc(m->max_threads, want * sizeof *mt);
        if (mt) m->max_threads = mt;
        if (!l || !np || !p || !mt)
            return -1;
        for (int k = *n; k <= i; k++) {
            m->lowered[k] = NULL;
            m->n_params[k] = -1;
            m->params[k] = NULL;
            m->max_threads[k] = 0;
        }
    } else {
        char **s = realloc(m->symbols, want * sizeof *s);
        if (!s)
            return -1;
        m->symbols = s;
        for (int k = *n; k <= i; k++)
            m->symbols[k] = NULL;
    }
    *n = i + 1;
    return 0;
}

int module_meta_read(const char *cubin, module_meta *m, char *err, size_t len)
{
    memset(m, 0, sizeof *m);
    char path[4096];
    if (module_meta_path(cubin, path, sizeof path) != 0) {
        snprintf(err, len, "module %s: not a cubin from the compile cache", cubin);
        return -1;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, len, "module %s: %s", path, strerror(errno));
        return -1;
    }
    char *text = malloc(META_MAX_BYTES + 1);
    size_t n = text ? fread(text, 1, META_MAX_BYTES, f) : 0;
    fclose(f);
    if (!text) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    text[n] = 0;
    int bad = 0;
    for (char *line = text; line && *line && !bad;) {
        char *nl = strchr(line, '\n');
        if (strncmp(line, "log ", 4) == 0) {
            /* the compiler's messages: the rest of the file */
            size_t ln = strlen(line + 4);
            while (ln && line[4 + ln - 1] == '\n')
                ln--;
            bad = !(m->log = strndup(line + 4, ln));
            break;
        }
        if (nl)
            *nl = 0;
        int i = -1, used = 0;
        if (strncmp(line, "kernel ", 7) == 0 && sscanf(line + 7, "%d %n", &i, &used) == 1) {
            const char *name = line + 7 + used;
            bad = grow(m, 1, i) != 0 || !*name || m->lowered[i] ||
                  !(m->lowered[i] = strdup(name));
        } else if (strncmp(line, "params ", 7) == 0 && sscanf(line + 7, "%d%n", &i, &used) == 1) {
            char *p = line + 7 + used;
            bad = grow(m, 1, i) != 0 || m->params[i] ||
                  !(m->params[i] = malloc(META_MAX_ITEMS * sizeof(int)));
            int count = 0;
            while (!bad) {
                char *end;
                long v = strtol(p, &end, 10);
                if (end == p)
                    break;
                if (count == META_MAX_ITEMS || v < 0 || v > 4096) {
                    bad = 1;
                    break;
                }
                m->params[i][count++] = (int)v;
                p = end;
            }
            if (!bad)
                m->n_params[i] = count;
        } else if (strncmp(line, "maxntid ", 8) == 0 && sscanf(line + 8, "%d%n", &i, &used) == 1) {
            char *end;
            long v = strtol(line + 8 + used, &end, 10);
            bad = grow(m, 1, i) != 0 || m->max_threads[i] || v < 1 || v > 1 << 20 ||
                  end == line + 8 + used || *end;
            if (!bad)
                m->max_threads[i] = (int)v;
        } else if (strncmp(line, "symbol ", 7) == 0 && sscanf(line + 7, "%d %n", &i, &used) == 1) {
            const char *name = line + 7 + used;
            bad = grow(m, 0, i) != 0 || !*name || m->symbols[i] ||
                  !(m->symbols[i] = strdup(name));
        } else if (*line) {
            bad = 1;
        }
        line = nl ? nl + 1 : NULL;
    }
    for (int i = 0; !bad && i < m->n_kernels; i++)
        bad = !m->lowered[i] || m->n_params[i] < 0;
    for (int i = 0; !bad && i < m->n_symbols; i++)
        bad = !m->symbols[i];
    free(text);
    if (bad || m->n_kernels == 0) {
        snprintf(err, len, "module %s: malformed (%s)", path,
                 bad ? "an unreadable line" : "no kernel");
        module_meta_clear(m);
        return -1;
    }
    return 0;
}

int module_meta_beyond_bounds(int max_threads, const char *function, long long threads,
                              char *why, size_t len)
{
    if (max_threads <= 0 || threads <= max_threads)
        return 0;
    snprintf(why, len, "__launch_bounds__(%d) of %s allows %d threads a block; this config "
             "launches %lld", max_threads, function, max_threads, threads);
    return 1;
}
