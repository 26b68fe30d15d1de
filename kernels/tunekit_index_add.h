/* tunekit_index_add.h: the public API of the index_add family (kernels/index_add.cu):
 * self.index_add_(dim, index, source, alpha) in place, as PyTorch defines it, with PyTorch's
 * small-index / large-index kernel split at a tuned index count. Included by tunekit.h. */
#ifndef TUNEKIT_INDEX_ADD_H
#define TUNEKIT_INDEX_ADD_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "tunekit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most dimensions of self, and the largest threshold (the small-index kernels keep every
 * index of the call in shared memory). */
#define TK_INDEX_ADD_MAX_DIMS 8
#define TK_INDEX_ADD_MAX_THRESHOLD 4096

typedef enum tk_index_type { TK_INDEX_I32 = 0, TK_INDEX_I64 = 1 } tk_index_type;

/* The small-index kernel's decomposition (n_index <= threshold; each block first loads and
 * checks every index in shared memory):
 *   OWNER   threads over the positions of the slice (outer x inner), each walking all indices
 *           in order with plain read-add-writes: no atomics, deterministic; parallel over the
 *           slice only (one position for a 1-D self);
 *   SPREAD  threads over every (index, slice position) pair with atomic adds: parallel over
 *           the indices too. */
typedef enum tk_index_add_small_mode { TK_INDEX_SMALL_OWNER = 0, TK_INDEX_SMALL_SPREAD = 1 } tk_index_add_small_mode;

typedef struct tk_index_add_config {
    int threshold;           /* n_index <= threshold: small-index kernel, else large-index
                                (0..TK_INDEX_ADD_MAX_THRESHOLD; 0: always large) */
    int block_size;          /* threads per block, 32..1024, multiple of 32 */
    int grid_cap;            /* at most grid_cap blocks per SM (1..1024); grid-stride beyond */
    int pack_size;           /* elements per source load and per (vector) atomic or
                                read-add-write along the contiguous inner dimensions: 1, 2, 4, 8
                                with pack_size * dtype size <= 16; 1 when inner % pack_size != 0
                                or a pointer is not aligned to the pack */
    tk_index_add_small_mode small_mode;
} tk_index_add_config;

const tk_config_space *tk_index_add_config_space(void);
/* The default: PyTorch's rule (threshold 16, 128 threads, 8 blocks per SM), pack 1, owner. */
tk_index_add_config tk_index_add_default_config(void);
tk_status tk_index_add_config_from_text(const char *text, tk_index_add_config *out);

/* self.index_add_(dim, index, source, alpha):
 *     self[.., index[j], ..] += alpha * source[.., j, ..]   along dimension dim, for j < n_index
 * self: contiguous, ndim (1..8) dimensions of sizes shape[0..ndim) (>= 0), dtype f32/f16/bf16;
 * source: contiguous, the same shape with shape[dim] replaced by n_index; index: n_index
 * contiguous int32 or int64 values; dim in [-ndim, ndim). Duplicate indices accumulate. The
 * dimensions before and after dim are collapsed (outer, shape[dim], inner) before launch.
 * alpha is applied in float; 16-bit sums round once per add, f16/bf16 atomics use
 * tk::fast_atomic_add (pack 1) or paired / vector atomics (packs), f32 float atomics.
 * Indices are checked on the GPU before anything is written: when one is outside
 * [0, shape[dim]), self is left unchanged.
 *   status NULL: the call waits for the stream and returns TK_ERR_OUT_OF_RANGE for an index out
 *     of range (after a stream-ordered allocation of 8 bytes, freed before it returns);
 *   status non-NULL (device memory, one int64): nothing waits; in stream order *status becomes
 *     -1 when every index was in range and the add was done, else the position j of the first
 *     out-of-range index (and self is unchanged). This is the path that competes with
 *     PyTorch's (asynchronous) index_add_.
 * config NULL: the tuned config for dtype and the source's element count (its threshold picks
 * the kernel), else the default. TK_ERR_INVALID_ARGUMENT: bad dtype, index_type, ndim, dim,
 * negative sizes or n_index, NULL pointers where elements exist, sizes whose products overflow;
 * TK_ERR_UNSUPPORTED_CONFIG: an explicit config outside the space; TK_ERR_CUDA /
 * TK_ERR_LAUNCH: the runtime failed. */
tk_status tk_index_add(tk_dtype dtype, void *self, int ndim, const int64_t *shape, int dim,
                       const void *index, tk_index_type index_type, int64_t n_index,
                       const void *source, double alpha, int64_t *status,
                       const tk_index_add_config *config, cudaStream_t stream);

/* The config a NULL-config call would use on the current device for a source of
 * source_elements elements (the tuned entry for "index_add.add", else the default). */
tk_status tk_index_add_tuned_config(tk_dtype dtype, int64_t source_elements,
                                    tk_index_add_config *out);

#ifdef __cplusplus
}
#endif
#endif
