/* relu_mask.h: the CPU parts of the relu_mask harness (tuner/ops/relu_mask.c) that its unit test
 * (tests/unit/test_relu_mask.c) checks without a GPU: the mask comparison that formats the first
 * differing words, and the canonical config text (the references are computed on the GPU:
 * gpu_ref_relu_mask and gpu_ref_relu_grad in tuner/ops/gpu_fill.h). The harness
 * itself is reached through the op registry (op_family_find("relu_mask")). Nothing here touches
 * CUDA; nothing allocates except where said. */
#pragma once
#include <stddef.h>
#include <stdint.h>
#include "tunekit.h"

/* Compares the mask words got with want (n_words each). 0 when they are equal bit for bit; else 1
 * with err = "N of M mask words differ; first: [w] got 0x... expected 0x... (element e), ..."
 * naming for each of the first few differing words its lowest differing element. */
int relu_mask_compare_words(const uint32_t *got, const uint32_t *want, int64_t n_words,
                            char *err, size_t len);

/* The canonical text of c ("block_size=256,cache_hint=normal,loop=grid_stride,mask=ballot32,
 * pack_size=4,unroll=1,waves=32" on one line, keys sorted), what tk_relu_mask_config_from_text
 * parses back. 0, or -1 when a value has no name or the text does not fit in len. */
int relu_mask_config_text(const tk_relu_mask_config *c, char *buf, size_t len);
