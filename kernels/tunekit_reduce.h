/* tunekit_reduce.h: the reduce family's public API (included by tunekit.h): the sum, maximum or
 * minimum of n elements of f32, f16 or bf16, accumulated in float and written as one float.
 *
 * Versions (tk_reduce_config.version), the write-up's v0..v6 and what a 2026 GPU wants beyond:
 *   0  interleaved addressing, divergent branch (tid % (2s))        one element per thread
 *   1  interleaved addressing, strided index (bank conflicts)        one element per thread
 *   2  sequential addressing (no bank conflicts)                     one element per thread
 *   3  first add during load                                         two elements per thread
 *   4  3 + the last warp unrolled                                    two elements per thread
 *   5  4 completely unrolled for a compile-time block size           two elements per thread
 *   6  5 with several elements per thread over a fixed grid (waves)
 *   7  6 with warp-shuffle reductions instead of the shared-memory tree
 *   8  7 with pack_size-element vector loads (16 bytes at most)
 *   9  8 with `unroll` (2 or 4) packs in flight per thread and independent accumulators
 * Every version handles any n (64-bit indices) and any element-aligned pointer (versions 8 and 9
 * peel a scalar head up to the pack boundary and do the tail in scalars).
 *
 * Finish (how the blocks' partial results become one): two_pass writes one partial per block and
 * a second launch (one block of 1024 threads) reduces them; last_block writes the partials and
 * the block that arrives last (an atomic counter) reduces them in the same launch; atomic combines
 * every block's partial into one accumulator with atomics (float atomicAdd; max/min through the
 * integer order of floats) and the last block to arrive moves it to *out, in the same launch.
 * A grid of one block writes *out directly whatever the finish. two_pass and last_block give the
 * same bits on every call with the same config on the same device; atomic sums do not (the
 * order of the atomics varies).
 *
 * Loads of versions 7..9 (cache_hint x load): cache_hint is the L2 priority of the lines read
 * (normal, or evict_first: the stream's lines are the first L2 gives up, so the dirty lines other
 * kernels left there stay instead of being written back during the reduction); load is how it
 * is asked for: cop, the PTX cache operators (ld.global.nc; ld.global.cs for evict_first), or
 * no_allocate, ld.global.nc.L1::no_allocate (no L1 line; evict_first through an L2::cache_hint
 * policy made by createpolicy). Versions 0..6 load plainly whatever these say.
 *
 * Workspace: last_block and atomic need a counter and partials on the device; the library keeps
 * one workspace per (device, stream), allocated on first use and grown (never shrunk) when a
 * larger grid needs more, and retires outgrown buffers without freeing them, so work still in
 * flight never loses its memory. Calls on different streams never share a workspace; calls on
 * one stream are ordered by it. (cudaStreamPerThread is one handle: several host threads using
 * it at once share its workspace, so give each thread its own stream.) Everything is freed by
 * tk_reduce_release_workspaces().
 *
 * Values: NaN propagates (max and min return NaN when any element is NaN, as torch.amax does);
 * n == 0 writes the identity (sum 0, max -inf, min +inf; torch raises for an empty max). */
#ifndef TUNEKIT_REDUCE_H
#define TUNEKIT_REDUCE_H

#include <stddef.h>
#include <stdint.h>
#include "tunekit.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tk_reduce_op { TK_REDUCE_SUM = 0, TK_REDUCE_MAX = 1, TK_REDUCE_MIN = 2 } tk_reduce_op;

typedef enum tk_reduce_finish {
    TK_FINISH_TWO_PASS = 0,
    TK_FINISH_LAST_BLOCK = 1,
    TK_FINISH_ATOMIC = 2
} tk_reduce_finish;

/* How versions 7..9 load (see above). */
typedef enum tk_reduce_load { TK_REDUCE_LOAD_COP = 0, TK_REDUCE_LOAD_NO_ALLOCATE = 1 } tk_reduce_load;

/* The highest version. */
#define TK_REDUCE_MAX_VERSION 9

typedef struct tk_reduce_config {
    int version;             /* 0..9, see above */
    int block_size;          /* 64, 128, 256, 512 or 1024 threads */
    int waves;               /* versions >= 6: grid = min(work / block, waves * resident blocks)
                                (launch.cuh's rule); versions < 6 size the grid from n: 1 */
    int pack_size;           /* versions 8 and 9: 1, 2, 4, 8 elements, at most 16 bytes; else 1 */
    tk_reduce_finish finish;
    tk_cache_hint cache_hint;  /* versions >= 7: evict_first loads; else normal */
    int unroll;              /* version 9: packs in flight per thread, 2 or 4; else 1, 2 or 4
                                (ignored) */
    tk_reduce_load load;     /* versions >= 7 */
} tk_reduce_config;

const tk_config_space *tk_reduce_config_space(void);
/* The default for a device the tuned header does not know: version 9, 256 threads, one wave,
 * 16-byte packs, 4 in flight, last_block finish, evict-first loads through the cache operators
 * (ld.global.cs). */
tk_reduce_config tk_reduce_default_config(tk_dtype dtype);
/* Canonical text "k=v,..." -> config; the errors of tk_config_parse. A parsed config can still
 * be one the library rejects for a dtype or version (see tk_reduce_config_supported). */
tk_status tk_reduce_config_from_text(const char *text, tk_reduce_config *out);
/* Canonical text of a config (keys sorted) into buf; returns the length it needs (snprintf's
 * rule), or -1 when a field is outside the parameter space. */
int tk_reduce_config_to_text(const tk_reduce_config *config, char *buf, size_t len);
/* 1 when the library runs config for elements of dtype, else 0. */
int tk_reduce_config_supported(const tk_reduce_config *config, tk_dtype dtype);

/* *out = op over x[0 .. n) (device pointers; x aligned to its element size, out to a float).
 * config NULL: the tuned config for this device, op, dtype and n. Asynchronous on stream.
 * TK_ERR_INVALID_ARGUMENT: bad op or dtype, n < 0, NULL out, NULL x with n > 0, x not aligned to
 * its element size; TK_ERR_UNSUPPORTED_CONFIG: a config the library has no variant for (also
 * when versions 0..5 would need more than 2^31 - 1 blocks); TK_ERR_CUDA: the workspace could not
 * be allocated; TK_ERR_LAUNCH: a launch failed. */
tk_status tk_reduce(tk_reduce_op op, tk_dtype dtype, int64_t n, const void *x, float *out,
                    const tk_reduce_config *config, cudaStream_t stream);
tk_status tk_reduce_sum(tk_dtype dtype, int64_t n, const void *x, float *out,
                        const tk_reduce_config *config, cudaStream_t stream);
tk_status tk_reduce_max(tk_dtype dtype, int64_t n, const void *x, float *out,
                        const tk_reduce_config *config, cudaStream_t stream);
tk_status tk_reduce_min(tk_dtype dtype, int64_t n, const void *x, float *out,
                        const tk_reduce_config *config, cudaStream_t stream);

/* The config a NULL-config call would use on the current device for op ("reduce.sum",
 * "reduce.max", "reduce.min"), dtype and n. */
tk_status tk_reduce_tuned_config(const char *op, tk_dtype dtype, int64_t n,
                                 tk_reduce_config *out);

/* What a call with these arguments does on the current device (x may be NULL: taken as aligned
 * to every pack). error_depth bounds the float additions on any element's path to the result,
 * so the computed sum s of exact inputs x_i satisfies |s - sum x_i| <= gamma(error_depth) *
 * sum |x_i|, gamma(k) = k u / (1 - k u), u = 2^-24 for round-to-nearest (the bound for any
 * summation tree of that height: Higham, Accuracy and Stability of Numerical Algorithms, 2nd
 * ed., section 4.2); the atomic finish adds at most error_depth * FLT_MIN (atom.add.f32 flushes
 * subnormals). Versions 0..5 need no device for their plan; 6..9 read its SM count. */
typedef struct tk_reduce_plan {
    unsigned grid;             /* blocks of the main launch */
    int launches;              /* 1, or 2 for two_pass over more than one block */
    tk_reduce_finish finish;   /* the finish as configured */
    int direct;                /* 1: one block writes *out itself (no finish) */
    int64_t workspace_bytes;   /* of the stream's workspace this call needs */
    int64_t error_depth;
} tk_reduce_plan;
tk_status tk_reduce_plan_for(tk_dtype dtype, int64_t n, const void *x,
                             const tk_reduce_config *config, tk_reduce_plan *out);

/* Frees every workspace the library holds, on every device. No reduction may be in flight or be
 * started concurrently. Returns TK_ERR_CUDA when a cudaFree failed (the rest are still freed). */
tk_status tk_reduce_release_workspaces(void);

#ifdef __cplusplus
}
#endif
#endif
