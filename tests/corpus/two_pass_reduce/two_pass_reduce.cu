// two_pass_reduce.cu: the classic two-kernel sum.
//   pass 1: partial_sum<BLOCK><<<ceil(n / (BLOCK * ITEMS)), BLOCK>>>(x, partial, n)
//           each block sums BLOCK * ITEMS consecutive elements (ITEMS per thread, strided by
//           BLOCK so that loads coalesce), warp shuffles then shared memory, one partial each;
//   pass 2: final_sum<<<1, FINAL, FINAL * sizeof(float)>>>(partial, out, num_partials)
//           one block adds up the partials.
#ifndef ITEMS
#define ITEMS 4
#endif

#define FULL_MASK 0xffffffffu

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

template <int BLOCK>
__global__ void partial_sum(const float *__restrict__ x, float *__restrict__ partial, long long n)
{
    static_assert(BLOCK % 32 == 0 && BLOCK <= 1024, "whole warps");
    __shared__ float warp_sums[BLOCK / 32];

    const long long base = (long long)blockIdx.x * (BLOCK * ITEMS) + threadIdx.x;
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        long long i = base + (long long)k * BLOCK;
        if (i < n)
            sum += x[i];
    }

    sum = warp_sum(sum);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0)
        warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        sum = lane < BLOCK / 32 ? warp_sums[lane] : 0.0f;
        sum = warp_sum(sum);
        if (lane == 0)
            partial[blockIdx.x] = sum;
    }
}

__global__ void final_sum(const float *__restrict__ partial, float *__restrict__ out, int num_partials)
{
    extern __shared__ float sdata[];
    float sum = 0.0f;
    for (int i = threadIdx.x; i < num_partials; i += blockDim.x)
        sum += partial[i];
    sdata[threadIdx.x] = sum;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            sdata[threadIdx.x] += sdata[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *out = sdata[0];
}
