/* conv1d.h: the CPU parts of the conv1d harness (tuner/ops/conv1d.c) that its unit test
 * (tests/unit/test_conv1d.c) checks without a GPU: the double-precision reference and the
 * validation tolerance. The harness itself is reached through the op registry
 * (op_family_find("conv1d")). */
#pragma once
#include <stdint.h>

/* The inputs the harness draws are uniform in [-CONV1D_INPUT_BOUND, CONV1D_INPUT_BOUND), never 0. */
#define CONV1D_INPUT_BOUND 1.0

/* out[n] = sum_m a[n - m] * b[m] for n in [0, len_a + len_b - 1), in double, each output summed
 * in ascending m, on all cores (harness_parallel_for over a work-scaled index space, so a short
 * output with a long filter still splits across threads). len_a, len_b >= 1. */
void conv1d_reference(const double *a, int64_t len_a, const double *b, int64_t len_b,
                      double *out);

/* The tolerance of a conv1d output against the double reference, for inputs bounded by
 * CONV1D_INPUT_BOUND in magnitude: ok <=> |out - ref| <= atol + rtol * |ref| with
 *     L    = min(len_a, len_b)            the most terms one output sums
 *     u    = 2^-24                        f32 unit roundoff
 *     atol = u * L * min(L + 1, 4 sqrt(L))
 *     rtol = 2u
 * Each output is at most L fmaf steps in f32; its error is at most gamma_L * S with
 * S = sum |a b| <= L (deterministic, about u L S: the L + 1 branch, taken while L <= 13) and,
 * with high probability, at most lambda sqrt(L) u S with lambda = 4 (Higham & Mary's
 * probabilistic bound for independent rounding errors; random-sign data typically errs by about
 * u L / 7, and S is about L / 4, so the margin is large). rtol covers the final rounding. Grows
 * as L^1.5: 7.2e-7 at L = 3, 7.8e-3 at L = 1024, 0.5 at L = 16384, while a misplaced or missing
 * tap changes an output by |a b| (0.25 on average) and a wrong shift by O(sqrt(L) / 3). */
void conv1d_tolerance(int64_t len_a, int64_t len_b, double *rtol, double *atol);
