/* reduce.h: the CPU parts of the reduce harness (tuner/ops/reduce.c) that its unit test
 * (tests/unit/test_reduce.c) checks without a GPU: the sum's validation tolerance, and the
 * double-precision reference on the CPU (the harness computes it on the GPU, gpu_ref_sums in
 * gpu_fill.h; this is the plain definition the tests hold that to). The harness itself is reached through the op registry
 * (op_family_find("reduce")). */
#pragma once
#include <stdint.h>
#include "tunekit.h"

/* The harness generates inputs uniform in [REDUCE_INPUT_LO, REDUCE_INPUT_HI), never 0: both signs,
 * mean 0.5, so a sum does not cancel (its condition number sum |x| / |sum x| is about 5/3 for
 * any n, instead of growing like sqrt(n) for zero-mean data) and a relative error bound on the
 * sum stays meaningful. */
#define REDUCE_INPUT_LO (-1.0)
#define REDUCE_INPUT_HI 2.0

typedef struct reduce_ref {
    double sum;       /* sum x_i */
    double sum_abs;   /* sum |x_i| */
    double max, min;  /* NaN when any x_i is NaN (as the library's max/min) */
} reduce_ref;

/* The reference of x[0 .. n) (dtype storage on the host), in double on all cores. n == 0 gives
 * the identities (0, 0, -inf, +inf). */
void reduce_reference(tk_dtype dtype, const void *x, int64_t n, reduce_ref *out);

/* The absolute tolerance of a float sum of exact inputs whose every element passes through at
 * most `depth` float additions (tk_reduce_plan.error_depth):
 *     |s - sum x_i| <= gamma(depth) * sum |x_i| + depth * FLT_MIN
 *     gamma(k) = k u / (1 - k u),  u = 2^-24
 * The first term is the classic bound for any summation tree of that height (each addition
 * rounds to nearest, relative error <= u; an element's value is multiplied by at most `depth`
 * factors (1 + d), |d| <= u); the second covers a flush of a subnormal result to zero by a float
 * atomicAdd (PTX atom.add.f32 flushes subnormals), at most FLT_MIN per operation. Relative to the
 * sum it is gamma(depth) * cond, cond = sum|x| / |sum x|: with the harness's inputs (cond ~ 5/3)
 * and version 9 at n = 256 Mi (depth ~ 100) that is ~1e-5 of the sum, while one block's partial
 * left out or added twice is ~1e-3. Returns +inf when depth * u >= 1 (no bound). */
double reduce_sum_atol(int64_t depth, double sum_abs);
