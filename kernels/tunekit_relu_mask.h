/* tunekit_relu_mask.h: the public API of the relu_mask family (included by tunekit.h): ReLU and
 * Add+ReLU forward passes that can also write a bitmask of where the gradient passes, and the
 * backward passes that read that bitmask instead of y (OneFlow's fused BN-ReLU trick: for f32
 * (16,32,112,112) the backward moves 52 MB instead of 77 MB).
 *
 * What the ops compute (every dtype; all of it exact: one select, and for Add+ReLU one add
 * rounded once in the dtype):
 *   s = x (ReLU) or x + addend (Add+ReLU)
 *   y = s where s passes, else +0            "s passes" means !(s <= 0): s > 0, or s is NaN
 *   dx = dy where s passed, else +0          (NaN propagates forward and passes backward, as
 *                                             torch.relu and threshold_backward(dy, y, 0) do)
 * For y = relu(x + addend) the addend's gradient equals dx: tk_add_relu_bwd writes it to its own
 * buffer only when asked to (d_addend), otherwise dx serves as both.
 *
 * THE MASK LAYOUT (the same bits for every scheme; part of the API):
 *   ceil(n / 32) 32-bit words (tk_relu_mask_words(n)), 4-byte aligned. Bit j of word w, i.e.
 *   (mask[w] >> j) & 1, is 1 exactly when element 32 w + j passes. Bits at and past n in the last
 *   word are 0. Read as bytes (CUDA devices are little-endian): bit i % 8 of byte i / 8 is
 *   element i. The byte8 and ballot32 schemes write and read exactly these bits (they differ only
 *   in how threads map to elements), so a mask written with one can be read with the other.
 *
 * Mask schemes (the config's `mask`):
 *   TK_MASK_NONE      no mask: the forward writes y only; the backward reads y (y passes <=>
 *                     s passes) - what PyTorch does. Calls pass mask == NULL.
 *   TK_MASK_BYTE8     a thread on 8 consecutive elements at a time, writing or reading one mask
 *                     byte.
 *   TK_MASK_BALLOT32  a thread on a pack at a time, a warp on consecutive packs; in the forward
 *                     the warp's ballots give one 32-bit word per 32 elements, in the backward a
 *                     warp loads its words together and shuffles each lane its bits. Calls pass
 *                     a mask.
 *
 * Which kind a call is follows from its pointers: the forward writes a mask when mask != NULL; the
 * backward takes exactly one of mask (masked) and y (scheme none). An explicit config must agree
 * (mask != NULL with TK_MASK_NONE, or mask == NULL with a masking scheme, is
 * TK_ERR_INVALID_ARGUMENT). A NULL config takes the tuned config for the op, dtype and n when its
 * scheme is of the call's kind, else the default of that kind (256 threads, 32 waves, 16-byte
 * packs, grid-stride, unroll 1, no cache hint; ballot32 with a mask, none without). The tuned
 * header has entries for masked calls only (tuning measures the unmasked scheme for comparison,
 * not as header entries).
 *
 * Pointers: x, addend, y, dy, dx and d_addend aligned to their element size; when any of them is
 * not aligned to the pack (pack_size elements) the pack_size 1 variant runs. mask aligned to 4
 * bytes. A call may work in place (y == x, y == addend, dx == dy, dx == y); other overlaps are
 * not allowed. n == 0 does nothing (pointers may then be NULL). Sizes may exceed 2^31. */
#ifndef TUNEKIT_RELU_MASK_H
#define TUNEKIT_RELU_MASK_H

#include <stdint.h>
#include <cuda_runtime_api.h>
#include "tunekit.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tk_mask_scheme {
    TK_MASK_NONE = 0,
    TK_MASK_BYTE8 = 1,
    TK_MASK_BALLOT32 = 2
} tk_mask_scheme;

typedef struct tk_relu_mask_config {
    int block_size;           /* threads per block, 32..1024, multiple of 32 */
    int waves;                /* grid_stride: grid = min(32 * tiles / block_size,
                                 waves * resident blocks) */
    int pack_size;            /* elements per vector access: 1, 2, 4, 8 (at most 16 bytes) */
    tk_mask_scheme mask;
    tk_cache_hint cache_hint; /* evict_first: every global access of the kernel is evict-first */
    tk_loop loop;             /* grid_stride (grid capped at `waves`) or one_shot (a warp per
                                 tile of 32 * unroll items) */
    int unroll;               /* items per thread per warp tile, all loaded before any is
                                 stored: 1, 2 or 4 */
} tk_relu_mask_config;

/* Words of the mask for n elements: ceil(n / 32); 0 when n <= 0. Bytes: 4 * words. */
int64_t tk_relu_mask_words(int64_t n);

/* Parameters: block_size, cache_hint, loop, mask (none, byte8, ballot32), pack_size, unroll,
 * waves. */
const tk_config_space *tk_relu_mask_config_space(void);
/* The classic default with the given scheme: 256 threads, 32 waves, 16-byte packs, grid-stride,
 * unroll 1, no hint. */
tk_relu_mask_config tk_relu_mask_default_config(tk_dtype dtype, tk_mask_scheme scheme);
tk_status tk_relu_mask_config_from_text(const char *text, tk_relu_mask_config *out);

/* y = relu(x); with mask != NULL also the mask. */
tk_status tk_relu_fwd(tk_dtype dtype, int64_t n, const void *x, void *y, uint32_t *mask,
                      const tk_relu_mask_config *config, cudaStream_t stream);
/* y = relu(x + addend); with mask != NULL also the mask (of x + addend). */
tk_status tk_add_relu_fwd(tk_dtype dtype, int64_t n, const void *x, const void *addend, void *y,
                          uint32_t *mask, const tk_relu_mask_config *config,
                          cudaStream_t stream);
/* dx = dy where the mask bit is 1 (mask != NULL, y == NULL) or where y passes (y != NULL,
 * mask == NULL), else +0. */
tk_status tk_relu_bwd(tk_dtype dtype, int64_t n, const void *dy, const uint32_t *mask,
                      const void *y, void *dx, const tk_relu_mask_config *config,
                      cudaStream_t stream);
/* The backward of y = relu(x + addend): dx as tk_relu_bwd computes it, which is also the
 * addend's gradient. d_addend == NULL or d_addend == dx: dx alone is written (the same work as
 * tk_relu_bwd, and a NULL config takes relu_bwd's tuned entry); otherwise the same values are
 * also written to d_addend (its own buffer, not overlapping the others). */
tk_status tk_add_relu_bwd(tk_dtype dtype, int64_t n, const void *dy, const uint32_t *mask,
                          const void *y, void *dx, void *d_addend,
                          const tk_relu_mask_config *config, cudaStream_t stream);

/* The config a NULL-config call would use on the current device for op ("relu_mask.relu_fwd",
 * "relu_mask.add_relu_fwd", "relu_mask.relu_bwd", "relu_mask.add_relu_bwd"), dtype, n and kind
 * (with_mask: 1 for a masked call, 0 for scheme none). TK_ERR_INVALID_ARGUMENT for an unknown op
 * or dtype, n < 0 or out == NULL. */
tk_status tk_relu_mask_tuned_config(const char *op, tk_dtype dtype, int64_t n, int with_mask,
                                    tk_relu_mask_config *out);

#ifdef __cplusplus
}
#endif
#endif
