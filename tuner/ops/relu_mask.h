/* relu_mask.h: the CPU parts of the relu_mask harness (tuner/ops/relu_mask.c) that its unit test
 * (tests/unit/test_relu_mask.c) checks without a GPU: the reference forward (y and the mask in
 * the documented layout of kernels/tunekit_relu_mask.h), the reference backward, the mask
 * comparison that formats the first differing words, and the canonical config text. The harness
 * itself is reached through the op registry (op_family_find("relu_mask")). Nothing here touches
 * CUDA; nothing allocates except where said. */
#pragma once
#include <stddef.h>
#include <stdint.h>
#include "tunekit.h"

/* The forward of n elements on all cores: s = x[i] (a == NULL) or x[i] + a[i] rounded once to
 * dtype (x and a hold dtype values as doubles, so their double sum is exact and one rounding of it
 * is the dtype's own add); s passes when !(s <= 0). Writes, each when not NULL: y_store (dtype
 * storage, n elements) and y_ref (n doubles) = s where s passes else +0, and mask
 * (tk_relu_mask_words(n) words) with bit i % 32 of word i / 32 set exactly where s passes, the
 * padding bits past n cleared. */
void relu_mask_reference(tk_dtype dtype, int64_t n, const double *x, const double *a,
                         void *y_store, double *y_ref, uint32_t *mask);

/* The backward reference: dx_ref[i] = dy[i] where bit i of mask is set, else 0. */
void relu_mask_grad_reference(int64_t n, const double *dy, const uint32_t *mask, double *dx_ref);

/* Compares the mask words got with want (n_words each). 0 when they are equal bit for bit; else 1
 * with err = "N of M mask words differ; first: [w] got 0x... expected 0x... (element e), ..."
 * naming for each of the first few differing words its lowest differing element. */
int relu_mask_compare_words(const uint32_t *got, const uint32_t *want, int64_t n_words,
                            char *err, size_t len);

/* The canonical text of c ("block_size=256,cache_hint=normal,loop=grid_stride,mask=ballot32,
 * pack_size=4,unroll=1,waves=32" on one line, keys sorted), what tk_relu_mask_config_from_text
 * parses back. 0, or -1 when a value has no name or the text does not fit in len. */
int relu_mask_config_text(const tk_relu_mask_config *c, char *buf, size_t len);
