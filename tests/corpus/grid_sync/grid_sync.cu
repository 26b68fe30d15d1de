// grid_sync.cu: a one-kernel sum of squares as written for a persistent, cooperative launch
// (cudaLaunchCooperativeKernel in the host code): every block reduces a grid-stride slice into
// partials[blockIdx.x], the whole grid synchronises with cooperative groups, then block 0 sums
// the partials into out[0]. The grid is sized from the SM count so that it is resident whole.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif

__device__ __forceinline__ float warp_sum(float v)
{
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

// the block's sum, in thread 0
__device__ float block_sum(float v)
{
    __shared__ float warps[BLOCK_SIZE / 32];
    v = warp_sum(v);
    if ((threadIdx.x & 31) == 0)
        warps[threadIdx.x >> 5] = v;
    __syncthreads();
    v = threadIdx.x < BLOCK_SIZE / 32 ? warps[threadIdx.x] : 0.0f;
    if (threadIdx.x < 32)
        v = warp_sum(v);
    __syncthreads();
    return v;
}

extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
sumsq_persistent(const float *__restrict__ x, float *__restrict__ partials,
                 float *__restrict__ out, long long n)
{
    cg::grid_group grid = cg::this_grid();
    float acc = 0.0f;
    for (long long i = (long long)blockIdx.x * BLOCK_SIZE + threadIdx.x; i < n;
         i += (long long)gridDim.x * BLOCK_SIZE)
        acc += x[i] * x[i];
    acc = block_sum(acc);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = acc;
    grid.sync();
    if (blockIdx.x == 0) {
        float s = 0.0f;
        for (unsigned b = threadIdx.x; b < gridDim.x; b += BLOCK_SIZE)
            s += partials[b];
        s = block_sum(s);
        if (threadIdx.x == 0)
            out[0] = s;
    }
}
