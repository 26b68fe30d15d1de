/* pool.h: the compile pool and the cubin cache, parent side (docs/user-kernels.md,
 * "Compilation").
 *
 * A pool of compiler processes (`tuner __compile`, compile_main.c: one compilation each, so that
 * a compiler crash costs one variant and never the run or the worker) works through the
 * compilations queued in the order the search will ask for them, while the run loop measures;
 * the one the run loop waits for goes first. Cubins land in the compile cache (cache.h), keyed by
 * the SHA-256 of everything that changes the result: a second run of the same space compiles
 * nothing. A compilation the compiler refuses is cached too, with its log. The pool does not
 * know which compiler runs, nor what a space is. */
#pragma once
#include <stddef.h>
#include <stdint.h>
#include "cache.h"

typedef struct pool pool;

typedef struct pool_stats {
    int64_t compiled;        /* compilations run */
    int64_t failed;          /* of which the compiler refused */
    int64_t cached;          /* compilations found in the cache */
    double cpu_s;            /* the compiler processes' CPU time (user + system) */
    int jobs;                /* processes at most at once */
} pool_stats;

/* One compilation (cache.h). */
typedef cache_compile pool_compile;

/* Starts a pool writing to dir (NULL: cache.h's cache_dir), jobs processes at most (<= 0: one per
 * core), each `self_exe __compile` (NULL: /proc/self/exe). 0, or -1 with err. */
int pool_open(const char *dir, int jobs, const char *self_exe, pool **out, char *err,
              size_t len);
/* Stops the pool (waits for the compilations under way, drops the queue) and frees it. */
void pool_close(pool *p);

/* Queues c behind what is queued (nothing when it is cached or known already). 0 or -1. */
int pool_prefetch(pool *p, const pool_compile *c, char *err, size_t len);
/* Drops every queued compilation that has not started. */
void pool_drop_queue(pool *p);

/* The cubin of c, compiling it now if needed (ahead of everything queued). 0 with *cubin (a path
 * valid until pool_close), 1 when the compiler refused it (log: its log), -1 on an error of the
 * tuner's own or a compiler that cannot run at all (err). */
int pool_get(pool *p, const pool_compile *c, const char **cubin, char *log, size_t loglen,
             char *err, size_t len);

void pool_get_stats(const pool *p, pool_stats *out);

/* The compile process: `tuner __compile` reads one request per line on stdin, compiles, writes
 * the cache files and answers on stdout. Returns the exit status. */
int pool_compile_main(void);
