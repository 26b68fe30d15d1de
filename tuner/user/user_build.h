/* user_build.h: compiling a user kernel's variants in the parent process, ahead of the GPU.
 *
 * A pool of compiler processes (`tuner __compile`, one NVRTC compilation each, so that a compiler
 * crash costs one variant and never the run or the worker) works through the variants in the
 * order the search will ask for them (uk_build_prefetch), while the run loop measures; the one
 * the run loop waits for goes first. Cubins land in a cache keyed by the SHA-256 of the source,
 * every file it includes, the name expression, the options, the architecture and the NVRTC
 * version: a second run of the same space compiles nothing. A variant that does not compile is
 * cached too, with its log. */
#pragma once
#include <stddef.h>
#include <stdint.h>
#include "core/device.h"
#include "space/space.h"
#include "space/space_user.h"

typedef struct uk_build uk_build;

typedef struct uk_build_stats {
    int64_t compiled;        /* compilations run */
    int64_t failed;          /* of which the compiler refused */
    int64_t cached;          /* variants found in the cache */
    double cpu_s;            /* the compiler processes' CPU time (user + system) */
    int jobs;                /* processes at most at once */
} uk_build_stats;

/* The compile cache folder: $TUNEKIT_CACHE, else $XDG_CACHE_HOME/tunekit, else
 * $HOME/.cache/tunekit (with /cubin appended). */
void uk_cache_dir(char *out, size_t len);

/* Starts compiling for sp's user kernel on dev (architecture sm_<cc>). cache_dir NULL: the
 * default; jobs <= 0: one per core; self_exe NULL: /proc/self/exe. Loads NVRTC (a clear error
 * when it is missing or cannot target the device). 0, or -1 with err. */
int uk_build_open(const space *sp, const device_info *dev, const char *cache_dir, int jobs,
                  const char *self_exe, uk_build **out, char *err, size_t len);
/* Stops the pool (waits for the compilations under way) and frees everything. */
void uk_build_close(uk_build *b);

/* Queues every variant of a binding the constraints allow, in enumeration order (the first
 * `most` of them; most <= 0: all). */
int uk_build_prefetch(uk_build *b, const space_binding *bind, char *err, size_t len);
int uk_build_prefetch_some(uk_build *b, const space_binding *bind, int64_t most, char *err,
                           size_t len);

/* The cubin of a variant of kernel k (the user kernel, or the reference kernel with choice
 * NULL), compiling it now if needed (ahead of everything queued). Returns 0 with *cubin (valid
 * until uk_build_close), 1 when the compiler refused it (log: the first lines of its log), -1 on
 * an error of the tuner's own (err). */
int uk_build_variant(uk_build *b, const space_binding *bind, const int *choice,
                     const su_kernel *k, const char **cubin, char *log, size_t loglen, char *err,
                     size_t len);

/* Before anything is measured: compiles the variants of the first problem until one compiles
 * (every one failing is an error with the first one's log), checks the argument list against
 * that kernel's parameters (count and sizes, from its PTX), and compiles the reference kernel
 * when there is one. 0, or -1 with err ("path:line:col: error: ..."). */
int uk_build_precheck(uk_build *b, char *err, size_t len);

void uk_build_get_stats(const uk_build *b, uk_build_stats *out);

/* The compiler process: `tuner __compile` reads one request on stdin, compiles, writes the cache
 * files and answers on stdout. Returns the exit status. */
int uk_compile_main(void);
