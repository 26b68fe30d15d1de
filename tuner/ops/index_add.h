/* index_add.h: what the index_add family's harness (index_add.c) exports besides its
 * op_family: the problem's shape rules, the index draw and the tolerance rule, for the unit test. */
#pragma once
#include <stdint.h>
#include <gsl/gsl_rng.h>
#include "core/problem.h"
#include "tunekit.h"

/* The alpha every harness problem uses (scripts/peers.py passes the same to PyTorch). */
#define INDEX_ADD_ALPHA 0.75

/* A problem's self shape and the collapsed sizes. */
typedef struct index_add_shape {
    int ndim, dim;
    int64_t shape[TK_INDEX_ADD_MAX_DIMS];
    int64_t outer, dim_size, inner, n_index, index_range;
    int64_t self_elements, source_elements;
} index_add_shape;

/* Reads self0..self7 (the leading non-zero ones), dim, n_index and index_range (0: the whole
 * dimension) from p. 0, or -1 with err when the sizes leave a gap, dim is beyond them, the
 * index range exceeds the dimension or the element counts exceed 2^34. */
int index_add_shape_of(const problem *p, index_add_shape *s, char *err, size_t len);

/* The harness's indices for a problem: idx[0 .. n_index) uniform in [0, index_range), drawn
 * with r (any GSL generator type the caller allocated; the harness uses taus2) seeded from the
 * problem's input seed (harness_seed). Self and source are harness_fill_uniform streams 0 and 1
 * in [-1, 1): with this, a tuner run's inputs can be rebuilt on the CPU (the unit test does). */
void index_add_draw_indices(gsl_rng *r, uint64_t input_seed, const index_add_shape *s, int64_t *idx);

/* The tolerance of every self element after index_add with at most `dups` contributions to one
 * element, |self| <= 1 and |source| <= 1 at the start (the harness's uniform [-1, 1) inputs):
 * |got - ref| <= atol + rtol |ref|. Each element's error is the sum of its roundings: one per
 * add, at most u |s_k| on running sum s_k, and (atomic paths) one per alpha * source, at most
 * u |alpha|; plus, near zero, half a subnormal step per rounding. Two bounds:
 *   worst case (rigorous): Higham's recursive-summation bound gamma_c (1 + c |alpha|) plus the
 *     products' roundings; atol only (rtol 0). Used when it is below the statistical atol (few
 *     contributions).
 *   statistical: roundings independent, each uniform within half an ulp (variance <= u^2 s_k^2
 *     / 3); 6 sigma of their sum. sqrt(sum s_k^2) is bounded per element through the result F
 *     (Minkowski): the straight line from self to F gives sqrt(c/3 + 1) |F| + sqrt(c) (rtol
 *     and part of atol); the walk's wander about that line (a random walk pinned at both ends,
 *     mean square alpha^2 c^2 / 18) is taken at 3 times its root-mean-square.
 * The old rule used the mean running sum of all elements (not this element's F) and failed the
 * few elements whose sums ran large: 1 in 32768 per run with 541 duplicates (H100 run 8). */
void index_add_tolerance(tk_dtype dtype, int64_t dups, double alpha, double *rtol, double *atol);
