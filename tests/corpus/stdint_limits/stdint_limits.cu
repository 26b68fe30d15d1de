// stdint_limits.cu: per-block maximum of a float array and minimum of an int32 key array, the
// first stage of a min/max scan (the host, or a second launch, combines the per-block results).
// Identities from the C headers: -FLT_MAX for max, INT_MAX for min. THREADS threads per block,
// ITEMS elements per thread, THREADS a power of two.
#include <stdint.h>
#include <float.h>
#include <limits.h>

#ifndef THREADS
#define THREADS 256
#endif
#ifndef ITEMS
#define ITEMS 4
#endif

__global__ void block_extrema(const float *__restrict__ values, const int32_t *__restrict__ keys,
                              float *__restrict__ block_max, int32_t *__restrict__ block_min, uint32_t n)
{
    __shared__ float s_max[THREADS];
    __shared__ int32_t s_min[THREADS];

    float vmax = -FLT_MAX;
    int32_t kmin = INT_MAX;
    const uint32_t base = blockIdx.x * (uint32_t)(THREADS * ITEMS) + threadIdx.x;
#pragma unroll
    for (uint32_t k = 0; k < ITEMS; k++) {
        const uint32_t i = base + k * THREADS;
        if (i < n) {
            vmax = fmaxf(vmax, values[i]);
            kmin = min(kmin, keys[i]);
        }
    }
    s_max[threadIdx.x] = vmax;
    s_min[threadIdx.x] = kmin;
    __syncthreads();
    for (uint32_t s = THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            s_max[threadIdx.x] = fmaxf(s_max[threadIdx.x], s_max[threadIdx.x + s]);
            s_min[threadIdx.x] = min(s_min[threadIdx.x], s_min[threadIdx.x + s]);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        block_max[blockIdx.x] = s_max[0];
        block_min[blockIdx.x] = s_min[0];
    }
}
