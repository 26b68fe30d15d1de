/* tunekit_upsample.h: the public C API of the upsample family (kernels/upsample.cu): nearest
 * neighbour upsampling of NCHW tensors by integer scales, forward and backward, in f32, f16 and
 * bf16. Included by tunekit.h; see there for the conventions (config pointer or NULL = tuned,
 * stream, tk_status, nothing exits or prints).
 *
 * Forward:  y[n, c, oh, ow] = x[n, c, oh / scale_h, ow / scale_w]   (y is N x C x H*sh x W*sw)
 * Backward: dx[n, c, h, w] = sum over a < scale_h, b < scale_w of dy[n, c, h*sh + a, w*sw + b]
 * (the gradient of the forward; every input element gathers its own contributions, so no
 * atomics are needed for any integer scale). The backward sums in float and rounds once to the
 * dtype; tk_upsample_nearest_bwd_error_bound says how far that can be from the exact sum.
 *
 * Implementations (tk_upsample_config.impl):
 *   generic  any scales: one output element (forward) or one input-gradient element
 *            (backward) per thread, its source index computed from its own index;
 *   pack2x   scale 2 x 2 (OneFlow's kernel): one input element per thread, written as a
 *            2-wide pack to two output rows; the backward reads those two packs and sums four;
 *   vec      scale 2 x 2: pack_size input elements per thread, read (forward) or written
 *            (backward) as one pack, with 16-byte packs on the 2x-wide side (rows whose
 *            width is not a multiple of pack_size use 2-wide packs on that side).
 * pack2x and vec need the 2 x 2 scale and pointers aligned to their packs: a call with other
 * scales runs generic, a call with misaligned pointers runs the widest variant they allow
 * (vec -> pack2x -> generic), always with the config's block size and waves. */
#ifndef TUNEKIT_UPSAMPLE_H
#define TUNEKIT_UPSAMPLE_H

#include "tunekit.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tk_upsample_impl {
    TK_UPSAMPLE_GENERIC = 0,
    TK_UPSAMPLE_PACK2X = 1,
    TK_UPSAMPLE_VEC = 2
} tk_upsample_impl;

typedef struct tk_upsample_config {
    int block_size;          /* threads per block, 32..1024, multiple of 32 */
    tk_upsample_impl impl;
    int pack_size;           /* vec: input elements per thread (1, 2, 4, 8; at most 16 bytes;
                              * 1 is pack2x); generic and pack2x ignore it */
    int waves;               /* grid = min(work / block, waves * resident blocks), grid-stride */
    tk_cache_hint cache_hint; /* evict_first: every load and store carries the evict-first hint */
} tk_upsample_config;

const tk_config_space *tk_upsample_config_space(void);
/* The classic default: vec with 16-byte packs (f32 4, f16/bf16 8), 256 threads, 32 waves, no
 * cache hint. */
tk_upsample_config tk_upsample_default_config(tk_dtype dtype);
tk_status tk_upsample_config_from_text(const char *text, tk_upsample_config *out);

/* y (n x c x h*scale_h x w*scale_w) = nearest upsampling of x (n x c x h x w), both contiguous.
 * Sizes >= 0 (any zero: nothing to do, pointers may be NULL), scales >= 1, the output element
 * count at most 2^62. TK_ERR_INVALID_ARGUMENT otherwise. */
tk_status tk_upsample_nearest_fwd(tk_dtype dtype, int64_t n, int64_t c, int64_t h, int64_t w,
                                  int scale_h, int scale_w, const void *x, void *y,
                                  const tk_upsample_config *config, cudaStream_t stream);
/* dx (n x c x h x w) = the gradient of the forward for dy (n x c x h*scale_h x w*scale_w). */
tk_status tk_upsample_nearest_bwd(tk_dtype dtype, int64_t n, int64_t c, int64_t h, int64_t w,
                                  int scale_h, int scale_w, const void *dy, void *dx,
                                  const tk_upsample_config *config, cudaStream_t stream);

/* The config a NULL-config call would use on the current device for op
 * "upsample.nearest2x_fwd" or "upsample.nearest2x_bwd" and size n*c*h*w (the tuned entry, else
 * the default); calls with scales other than 2 x 2 then run it as generic. */
tk_status tk_upsample_tuned_config(const char *op, tk_dtype dtype, int64_t size,
                                   tk_upsample_config *out);

/* The accuracy of the backward: for dy elements of magnitude at most max_abs_dy, every dx
 * element is within atol + rtol * |exact sum| of the exact sum of its k = scale_h * scale_w
 * terms. Float accumulation of k terms errs by at most gamma(k-1) * k * max_abs_dy (Higham's
 * bound for recursive summation, gamma(m) = m u / (1 - m u), u = 2^-24); rounding to the dtype
 * adds its unit roundoff u_d (f32 2^-24, f16 2^-11, bf16 2^-8) times the computed sum, and f16
 * results below its normal range round on an absolute grid of 2^-24 (half a step: 2^-25). So
 * rtol = u_d, atol = (1 + u_d) gamma(k-1) k max_abs_dy (+ 2^-25 for f16). Returns
 * TK_ERR_INVALID_ARGUMENT for a bad dtype, scales < 1, max_abs_dy < 0 or NULL outputs. */
tk_status tk_upsample_nearest_bwd_error_bound(tk_dtype dtype, int scale_h, int scale_w,
                                              double max_abs_dy, double *rtol, double *atol);

#ifdef __cplusplus
}
#endif
#endif
