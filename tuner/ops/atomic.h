/* atomic.h: what the atomic family's harness (atomic.c) exports besides its op_family: the
 * tolerance rule of the dot product's result, so the unit test can check it against simulated
 * half-precision accumulations and planted errors. */
#pragma once
#include <stdint.h>
#include "tunekit.h"

/* The largest |result - exact| accepted for out[out_index] after tk_atomic_dot, in the dtype's
 * units: a 6-sigma bound on the rounding of k16 atomic adds in the dtype (the running sum starts
 * at `start` and random-walks to variance sum_sq = sum of (x_i y_i)^2), of rounding the partials
 * once, of float accumulation (`terms` products per thread, k32 float atomic adds), plus the
 * last rounding of `expected` and one subnormal step. See atomic.c for the derivation. */
double atomic_tolerance(tk_dtype dtype, int64_t k16, int64_t k32, int64_t terms, double start,
                        double sum_sq, double expected);
