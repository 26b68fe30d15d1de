/* cache.h: the compile cache of cubins, shared by the tuner's compile pool (pool.c and the compile
 * process, compile_main.c) and libtunekit's run-time API (kernels/runtime.c): where it is, the key
 * of a compilation (the SHA-256 of everything that changes the cubin), and the files of an entry:
 * <dir>/<key>.cubin and <key>.meta (module_meta.h; the meta file, written last, marks a complete
 * entry), or <key>.fail with the log of a compilation the compiler refused. A variant the tuner
 * compiled is found by the library, and the other way round. */
#pragma once
#include <stddef.h>
#include "compiler.h"
#include "core/module_meta.h"

/* One compilation. Strings borrowed. */
typedef struct cache_compile {
    const char *compiler;    /* "nvrtc", "nvcc" */
    const char *version;     /* compiler_info.version: in the key */
    const char *tool;        /* compiler_info.tool: the compile process runs it */
    const char *arch;        /* "sm_90" */
    const char *source;
    const char *digest;      /* SHA-256 of the source and the local files it includes, each followed
                                by a NUL (cache_digest) */
    int n_options;
    char *const *options;
    int n_kernels;
    char *const *kernels;
    int n_symbols;
    char *const *symbols;
} cache_compile;

/* The cache folder: $TUNEKIT_CACHE, else $XDG_CACHE_HOME/tunekit/cubin, else
 * $HOME/.cache/tunekit/cubin. */
void cache_dir(char *out, size_t len);
/* mkdir -p. 0, or -1 with err. */
int cache_make_dir(const char *path, char *err, size_t len);

/* The key of c (64 hex digits into key[65]): the files' digest, the name expressions and
 * variables, every option (an include directory as an absolute path, resolved when it exists),
 * the architecture, the compiler's kind and version. 0 or -1 (out of memory). */
int cache_key(const cache_compile *c, char key[65]);

/* The digest of files given by their contents: SHA-256 over each followed by a NUL, as hex. */
typedef struct cache_text {
    const char *text;
    size_t len;
} cache_text;
void cache_digest(const cache_text *files, int n, char hex[65]);

/* Writes an entry at prefix (<dir>/<key>): the cubin and the meta file for a compilation the
 * compiler made (refused = 0), the log for one it refused. Each file is written to a temporary
 * name and renamed, so a reader never sees half of one. 0, or -1 with err. */
int cache_store(const char *prefix, int refused, const cc_output *o, char *err, size_t len);

/* Reads the entry at prefix: 0 with the cubin (*cubin malloc'd, *n its size) and *meta
 * (module_meta_clear), 1 when the compiler refused it (*log malloc'd), -1 when there is none. */
int cache_load(const char *prefix, void **cubin, size_t *n, module_meta *meta, char **log);
