/* module_meta.h: the description the compile process writes beside each cubin in the compile
 * cache (<key>.meta) and the worker and the parent read back: each kernel's lowered (mangled)
 * name, its parameters' sizes and, where its __launch_bounds__ give one, the most threads a block
 * may have (its PTX's .maxntid), in the order the compilation named them, each variable's
 * lowered name, and the compiler's messages. A text file, one item per line:
 *     kernel <i> <lowered name>
 *     params <i> <size> <size> ...
 *     maxntid <i> <threads>          (only for a kernel with __launch_bounds__)
 *     symbol <i> <lowered name>
 *     log <the compiler's messages, to the end of the file>
 * The meta file is written last: its presence marks a complete cache entry. A file from before
 * the maxntid line reads as kernels without bounds (the cache key's version, cache.c, changed
 * with it, so the tuner does not find such files any more). */
#pragma once
#include <stddef.h>

typedef struct module_meta {
    int n_kernels;
    char **lowered;          /* n_kernels */
    int *n_params;           /* n_kernels */
    int **params;            /* n_kernels: sizes in bytes */
    int *max_threads;        /* n_kernels: the threads a block its __launch_bounds__ allow (the
                                product of .maxntid); 0: none given */
    int n_symbols;
    char **symbols;          /* n_symbols */
    char *log;               /* the compiler's messages ("" when none; NULL in a file without
                                its log line) */
} module_meta;

/* The meta file of a cubin path ("<key>.cubin" -> "<key>.meta"), into out[len]. -1 when the
 * path does not end in .cubin or out is too small. */
int module_meta_path(const char *cubin, char *out, size_t len);

/* Formats a meta file's text (max_threads may be NULL: no bounds); malloc'd, NULL when memory
 * ran out. */
char *module_meta_format(int n_kernels, char *const *lowered, const int *n_params,
                         int *const *params, const int *max_threads, int n_symbols,
                         char *const *symbols, const char *log);

/* Reads the meta file beside cubin. 0, or -1 with err (missing, malformed). module_meta_clear
 * frees. */
int module_meta_read(const char *cubin, module_meta *m, char *err, size_t len);
void module_meta_clear(module_meta *m);

/* Whether a block of `threads` threads is more than kernel `function`'s __launch_bounds__ allow
 * (max_threads, module_meta.max_threads; 0: no bound): 1 with why ("__launch_bounds__(128) of
 * conv allows 128 threads a block; this config launches 256"), else 0. The one wording of this
 * limit, for the parent (before anything runs) and the worker. */
int module_meta_beyond_bounds(int max_threads, const char *function, long long threads,
                              char *why, size_t len);
