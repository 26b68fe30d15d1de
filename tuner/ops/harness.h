/* harness.h: what every family's worker-side harness shares: a per-problem random stream
 * derived from the run's seed, random inputs drawn on the CPU in double and rounded to the dtype
 * (keeping the exact rounded values for the reference; the families other than elementwise and
 * reduce, which generate on the GPU with gpu_fill.h), device allocation and upload, and the
 * GPU-side comparison with the double reference that formats the first mismatches. One copy of
 * these mechanics; families only say what their op computes. */
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <gsl/gsl_rng.h>
#include "core/problem.h"
#include "tunekit.h"

/* The input seed for (run seed, op, dtype, problem): the same inputs every time for the same run
 * seed, different inputs for different problems. */
uint64_t harness_seed(uint64_t seed, const char *op, const char *dtype, const problem *p);

/* Draws n values uniformly from [lo, hi) (never exactly zero), stores them in dtype storage in
 * host_out (n * tk_dtype_size bytes) and, when exact != NULL, the rounded values as doubles.
 * Input `stream` of a problem (0, 1, 2 for x, y, z) gets its own values. Work is split into
 * fixed chunks, each with its own GSL generator seeded from (seed, stream, chunk), and the chunks
 * run on all cores: the values do not depend on the number of threads. */
void harness_fill_uniform(uint64_t seed, int stream, tk_dtype dtype, int64_t n, double lo,
                          double hi, void *host_out, double *exact);

/* Calls fn(ctx, begin, end) over [0, n) split into chunks, on all cores (pthreads); returns when
 * every chunk is done. For the CPU references of large problems. */
void harness_parallel_for(int64_t n, void (*fn)(void *ctx, int64_t begin, int64_t end),
                          void *ctx);

/* cudaMalloc + cudaMemcpy of bytes from host (host may be NULL: allocation only). On failure
 * err says what and *dev is NULL. The caller frees *dev with cudaFree. */
int harness_upload(void **dev, const void *host, size_t bytes, char *err, size_t len);

/* Compares out (dtype) with ref (double, on the GPU) over n elements. 0 when all are within
 * atol + rtol*|ref|; 1 with err = "N of M elements differ; first: [i] got g expected e, ..."; -1
 * on a CUDA error. */
int harness_compare(tk_dtype dtype, int64_t n, const void *out, const double *ref, double rtol,
                    double atol, char *err, size_t len);

/* The unit roundoff of a dtype, half an ulp of 1: f16 2^-11, bf16 2^-8, f32 2^-24 (the error
 * bounds of the accumulating harnesses scale with it). */
double harness_unit_roundoff(tk_dtype dtype);
