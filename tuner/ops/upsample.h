/* upsample.h: the CPU references of the upsample harness (tuner/ops/upsample.c), exposed so the
 * unit test (tests/unit/test_upsample.c) can check them against hand-worked cases and against
 * each other (the backward is the adjoint of the forward). Both follow the definition with
 * explicit (nc, h, w) coordinates, not the kernels' flat-index arithmetic, over nc = N*C planes
 * of h x w inputs and integer scales sh x sw, in double. Nothing here allocates or touches CUDA. */
#pragma once
#include <stdint.h>

/* ref[o] = x[nc][oh / sh][ow / sw] for output elements o in [begin, end) (the output is
 * nc x (h sh) x (w sw), row-major). */
void upsample_ref_fwd(const double *x, int64_t nc, int64_t h, int64_t w, int sh, int sw,
                      int64_t begin, int64_t end, double *ref);

/* ref[i] = sum over a < sh, b < sw of dy[nc][hi sh + a][wi sw + b] (row by row) for input
 * elements i = (nc, hi, wi) in [begin, end). */
void upsample_ref_bwd(const double *dy, int64_t nc, int64_t h, int64_t w, int sh, int sw,
                      int64_t begin, int64_t end, double *ref);
