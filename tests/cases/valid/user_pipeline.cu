// user_pipeline.cu: a two-kernel pipeline with a constant-memory table and a check kernel, for the
// valid space user_pipeline.yaml (every key of a pipeline; loaded, never run by the CPU tests).
#include <stdio.h>
__constant__ float c_scale[4];

__global__ void scale(const float *x, float *y, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = c_scale[i & 3] * x[i];
}

template <int BLOCK>
__global__ void block_sums(const float *y, float *partial, long long n)
{
    __shared__ float s[BLOCK];
    float acc = 0;
    for (long long i = (long long)blockIdx.x * BLOCK + threadIdx.x; i < n; i += (long long)gridDim.x * BLOCK)
        acc += y[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int w = BLOCK / 2; w > 0; w /= 2) {
        if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

__global__ void sum_all(const float *partial, int count, double *total)
{
    double acc = 0;
    for (int i = 0; i < count; i++) acc += partial[i];
    *total = acc;
}
