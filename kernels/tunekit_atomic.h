/* tunekit_atomic.h: the public API of the atomic family (kernels/atomic.cu): a dot product of
 * 16-bit vectors whose partial sums reach the result through atomics, with the atomic strategy
 * as a tuned parameter (the half atomicAdd / packed half2 / fast atomic add comparison of the
 * write-up, plus a float accumulator and a block reduction). Included by tunekit.h. */
#ifndef TUNEKIT_ATOMIC_H
#define TUNEKIT_ATOMIC_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "tunekit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the per-thread partial sums (accumulated in float, rounded once to the dtype) reach the
 * result element out[out_index]:
 *   HALF          the plain 16-bit atomicAdd on the element;
 *   HALF2_PACK    one paired (32-bit) atomic on the aligned pair that holds the element, the
 *                 other lane adding -0; the lane is chosen on the host, so the partner element
 *                 must lie inside out[0 .. out_len) (else TK_ERR_UNSUPPORTED_CONFIG);
 *   FAST          PyTorch's fast atomic add (tk::fast_atomic_add): the pair is chosen per
 *                 thread from the address and the bounds, plain atomic when no partner fits;
 *   FLOAT_ACC     float atomicAdd into a float accumulator in the workspace; the last block
 *                 to finish rounds the total once into out[out_index] (plain read-add-write);
 *   BLOCK_REDUCE  each block sums its threads' partials in float (warp shuffles + shared
 *                 memory) and adds the block's sum with one fast atomic add. */
typedef enum tk_atomic_strategy {
    TK_ATOMIC_HALF = 0,
    TK_ATOMIC_HALF2_PACK = 1,
    TK_ATOMIC_FAST = 2,
    TK_ATOMIC_FLOAT_ACC = 3,
    TK_ATOMIC_BLOCK_REDUCE = 4
} tk_atomic_strategy;

typedef struct tk_atomic_config {
    tk_atomic_strategy strategy;
    int block_size;          /* threads per block, 32..1024, multiple of 32 */
    int waves;               /* grid = min(packs / block, waves * resident blocks), >= 1 */
    tk_cache_hint cache_hint;  /* evict_first: x and y are read with ld.global.cs, so the stream
                                  displaces fewer of the lines L2 held before it (under a dirty
                                  L2, fewer write-backs land in its time); default normal */
} tk_atomic_config;

const tk_config_space *tk_atomic_config_space(void);
/* The default: block_reduce, 256 threads, 32 waves (the classic grid with the one strategy
 * whose cost does not grow with the grid), normal loads. */
tk_atomic_config tk_atomic_default_config(void);
tk_status tk_atomic_config_from_text(const char *text, tk_atomic_config *out);

/* Bytes of device workspace tk_atomic_dot needs for float_acc (a float and a counter). */
size_t tk_atomic_dot_workspace_bytes(void);

/* out[out_index] += sum_{i < n} x[i] * y[i], for f16 and bf16 (dtype), into a buffer out of
 * out_len elements of which only out[out_index] changes (the paired atomics add -0 to the
 * partner lane, which leaves its bits as they are) and nothing outside out[0 .. out_len) is
 * touched. x and y may have any element alignment (equal misalignments still use 16-byte
 * loads after a peeled head; different ones fall back to scalar loads); n may exceed 2^31.
 * workspace: device memory of tk_atomic_dot_workspace_bytes(), needed by float_acc (the call
 * zeroes it first, in the stream) and otherwise unused; it may be NULL, then an explicit
 * float_acc config is TK_ERR_INVALID_ARGUMENT and a tuned float_acc (NULL config) runs as
 * block_reduce. A tuned half2_pack whose partner lane is out of bounds runs as fast.
 * The result is rounded once per atomic: see tk_atomic_dot_adds for how many.
 * TK_ERR_INVALID_ARGUMENT: a dtype other than f16/bf16, n < 0, NULL x/y (n > 0) or out,
 * out_len < 1, out_index outside [0, out_len). n == 0 leaves out unchanged. */
tk_status tk_atomic_dot(tk_dtype dtype, int64_t n, const void *x, const void *y, void *out,
                        int64_t out_len, int64_t out_index, void *workspace,
                        const tk_atomic_config *config, cudaStream_t stream);

/* How tk_atomic_dot with these arguments reaches the result, for error bounds: *dtype_adds is
 * the number of atomic adds in the 16-bit dtype into out[out_index] (each rounds once),
 * *float_adds the number of float atomic adds into the accumulator (float_acc; else 0), and
 * *terms_per_thread the most products one thread accumulates in float before its atomic.
 * config NULL: the tuned config for these arguments (ignoring workspace: as if one is given).
 * Asks the device for its SM count (the grid depends on it). */
tk_status tk_atomic_dot_adds(tk_dtype dtype, int64_t n, const void *x, const void *y,
                             const tk_atomic_config *config, int64_t *dtype_adds,
                             int64_t *float_adds, int64_t *terms_per_thread);

/* The config a NULL-config call with these arguments would use on the current device (the
 * tuned entry for "atomic.dot", dtype and n, else the default), before the workspace and
 * partner-lane fallbacks above. */
tk_status tk_atomic_tuned_config(tk_dtype dtype, int64_t n, tk_atomic_config *out);

#ifdef __cplusplus
}
#endif
#endif
