/* index_add.h: what the index_add family's harness (index_add.c) exports besides its
 * op_family: the problem's shape rules and the tolerance rule, for the unit test. */
#pragma once
#include <stdint.h>
#include "../problem.h"
#include "../../kernels/tunekit.h"

/* The alpha every harness problem uses (reports/peers.py passes the same to PyTorch). */
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

/* The tolerance of every self element after index_add with at most `dups` contributions to one
 * element, |self| <= 1 and |source| <= 1 at the start (the harness's uniform [-1, 1) inputs):
 * rtol is the unit roundoff (the last rounding); atol the smaller of the worst case (each of
 * the dups adds rounds by at most u times the largest running sum, 1 + dups |alpha|, and so
 * may alpha * source before an atomic) and a 6-sigma bound on the same errors taken as
 * independent (variance u^2 s^2 / 3 each, s^2 growing from 1 by alpha^2 / 3 per add), plus
 * one subnormal step of the dtype. */
void index_add_tolerance(tk_dtype dtype, int64_t dups, double alpha, double *rtol, double *atol);
