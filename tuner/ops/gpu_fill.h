/* gpu_fill.h: problem set-up on the GPU for the elementwise and reduce harnesses: a counter-based
 * generator (gpu_fill_value: a splitmix64 hash of (seed, stream, index) made uniform in [lo, hi),
 * never 0) whose values the GPU rounds to the dtype in place, and the double-precision
 * references computed on the GPU from those stored inputs (elementwise results, and the sum,
 * sum of magnitudes, max and min of a reduce input). gpu_fill_value is compiled for the host as
 * well: that host twin gives, after tk_host_from_double, the very bits the GPU stores, so tests
 * check the GPU against it without a GPU-side oracle. The relu_mask family's references (its
 * output in double, its stored output and its bitmask; the backward's gradient) are here too.
 * The kernels are in gpu_fill.cu. The other families still draw inputs and compute references on
 * the CPU (harness_fill_uniform). */
#pragma once
#include <stddef.h>
#include <stdint.h>
#include "tunekit.h"

#ifdef __CUDACC__
#define GPU_FILL_HD __host__ __device__
#else
#define GPU_FILL_HD
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* splitmix64's output function (a bijection of 64-bit words). */
static inline GPU_FILL_HD uint64_t gpu_fill_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Element i of input `stream` (0, 1, 2 for x, y, z) under seed, in double: h = mix(key ^ mix(i))
 * with key = mix(seed ^ mix(stream)) (different streams never share a value sequence: for a
 * given i the map from key to h is a bijection), u = the top 53 bits of h over 2^53, v = lo +
 * (hi - lo) u, rounded once per operation (no fused multiply-add on either side: the device
 * spells the roundings out, the host is built in ISO C mode, where GCC does not contract). A
 * value of exactly 0 or one that rounds up to hi is replaced by the next hash of h, so values lie
 * in [lo, hi) and are never 0. The same on the host and the GPU, bit for bit. */
static inline GPU_FILL_HD double gpu_fill_value(uint64_t seed, int stream, int64_t i, double lo,
                                                double hi)
{
    const uint64_t key = gpu_fill_mix64(seed ^ gpu_fill_mix64((uint64_t)(int64_t)stream));
    uint64_t h = gpu_fill_mix64(key ^ gpu_fill_mix64((uint64_t)i));
    const double width = hi - lo;
    for (;;) {
        const double u = (double)(h >> 11) * 0x1p-53;
#ifdef __CUDA_ARCH__
        const double v = __dadd_rn(lo, __dmul_rn(width, u));
#else
        const double v = lo + width * u;
#endif
        if (v != 0.0 && v < hi) return v;
        h = gpu_fill_mix64(h);
    }
}

/* Writes x[i] = gpu_fill_value(seed, stream, i, lo, hi) rounded to dtype (nearest even, in one
 * step from double) for i in [0, n), on the current device, and waits for it. 0, or -1 with
 * err. */
int gpu_fill_uniform(tk_dtype dtype, void *x, int64_t n, uint64_t seed, int stream, double lo,
                     double hi, char *err, size_t len);

/* The elementwise ops whose reference gpu_ref_elementwise computes (elementwise.c's order). */
typedef enum gpu_ew_op { GPU_EW_RELU, GPU_EW_GELU, GPU_EW_MUL, GPU_EW_ADD, GPU_EW_FMA } gpu_ew_op;

/* ref[i] = op(in[0][i], in[1][i], in[2][i]) in double from the stored dtype inputs (exact
 * widenings), i in [0, n): relu x > 0 ? x : 0, gelu 0.5 x erfc(-x / sqrt 2), mul x y, add x + y,
 * fma x y + z (in[k] unused by the op may be NULL). On the current device; waits. 0 or -1 + err. */
int gpu_ref_elementwise(gpu_ew_op op, tk_dtype dtype, int64_t n, const void *const in[3],
                        double *ref, char *err, size_t len);

/* The double-precision summary of a reduce input x[0 .. n) (dtype storage on the GPU). */
typedef struct gpu_sums {
    double sum, sum_abs;
    double max, min;   /* NaN when any x_i is NaN; n == 0 gives -inf, +inf */
} gpu_sums;

/* Per-block double partials (each thread adds its elements in double, then the block's threads
 * combine in a tree), then one block combines the partials in double; the four results are
 * copied back. On the current device; waits. 0 or -1 + err. */
int gpu_ref_sums(tk_dtype dtype, int64_t n, const void *x, gpu_sums *out, char *err, size_t len);

/* The relu_mask forward of the stored inputs x (and addend a; NULL without) in [0, n): s = x, or
 * x + a rounded once to the dtype; element i passes when !(s <= 0); y = s if it passes, else +0.
 * Writes, each when not NULL: y_ref (double), y_store (dtype storage) and mask (the documented
 * layout of tunekit_relu_mask.h: bit k of word w is element 32 w + k, ceil(n / 32) words, the
 * last word's bits past n zero). On the current device; waits. 0 or -1 + err. */
int gpu_ref_relu_mask(tk_dtype dtype, int64_t n, const void *x, const void *a, double *y_ref,
                      void *y_store, uint32_t *mask, char *err, size_t len);

/* The relu_mask backward's reference: dx[i] = dy[i] (widened to double) where bit i of mask is
 * set, else +0, i in [0, n). On the current device; waits. 0 or -1 + err. */
int gpu_ref_relu_grad(tk_dtype dtype, int64_t n, const void *dy, const uint32_t *mask,
                      double *dx, char *err, size_t len);

#ifdef __cplusplus
}
#endif
