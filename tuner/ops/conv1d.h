/* conv1d.h: the CPU parts of the conv1d harness (tuner/ops/conv1d.c) that its unit test
 * (tests/unit/test_conv1d.c) checks without a GPU: the double-precision reference and the
 * validation tolerance. The harness itself is reached through the op registry
 * (op_family_find("conv1d")). */
#pragma once
#include <stdint.h>

/* The inputs the harness draws are uniform in [-CONV1D_INPUT_BOUND, CONV1D_INPUT_BOUND), never 0. */
#define CONV1D_INPUT_BOUND 1.0

/* out[n] = sum_m a[n - m] * b[m] for n in [0, len_a + len_b - 1), in double (four interleaved
 * partial sums per output), on all cores (harness_parallel_for over a work-scaled index space, so a short
 * output with a long filter still splits across threads). len_a, len_b >= 1. */
void conv1d_reference(const double *a, int64_t len_a, const double *b, int64_t len_b,
                      double *out);

/* The tolerance of a conv1d output against the double reference, for inputs uniform in
 * [-B, B), B = CONV1D_INPUT_BOUND: ok <=> |out - ref| <= atol + rtol * |ref| with
 *     L    = min(len_a, len_b)                  the most terms one output sums
 *     u    = 2^-24                              f32 unit roundoff
 *     S    = B^2 * min(L, L / 4 + 2 sqrt(L))     bounds sum |a b| of one output
 *     atol = u * min(L + 1, 4 sqrt(L)) * S
 *     rtol = 2u                                 the final rounding
 * An output is at most L fmaf steps in f32. Its error is at most gamma_L * sum |a b|, about
 * u L sum |a b| (the deterministic bound, the L + 1 branch, taken while L <= 13), and with high
 * probability at most lambda sqrt(L) u sum |a b| with lambda = 4 (Higham & Mary's probabilistic
 * bound for independent rounding errors). sum |a b| <= L B^2 always; its mean is L B^2 / 4 and
 * its standard deviation below 0.23 sqrt(L) B^2, so S (the exact bound up to L = 7, the mean
 * plus 8 standard deviations beyond) holds for every output in practice. Monotone in L:
 * 7.2e-7 at L = 3, 2.4e-3 at L = 1024, 0.13 at L = 16384, while random-sign data errs by about
 * u L / 7 (1.4e-4 at L = 16384), a wrong shift moves an output by O(sqrt(L) / 3) and a missing
 * tap b_m by |a b_m| (caught wherever that exceeds atol). */
void conv1d_tolerance(int64_t len_a, int64_t len_b, double *rtol, double *atol);
