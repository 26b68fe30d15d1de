// const_filter.cu: 1-D convolution out[i] = sum_k c_filter[k] * in[i + k - RADIUS], zero padded,
// with the filter taps in constant memory (every thread of a warp reads the same tap: a
// broadcast) and the input tile plus its halo staged in shared memory.
// The application uploads the taps once with set_filter() below (cudaMemcpyToSymbol), then
// launches conv1d_const<<<ceil(n / BLOCK), BLOCK>>>.
#define MAX_TAPS 64

#ifndef RADIUS
#define RADIUS 4
#endif
#ifndef BLOCK
#define BLOCK 256
#endif

#if 2 * RADIUS + 1 > MAX_TAPS
#error "RADIUS too large for MAX_TAPS"
#endif

__constant__ float c_filter[MAX_TAPS];

__global__ void conv1d_const(const float *__restrict__ in, float *__restrict__ out, int n)
{
    __shared__ float tile[BLOCK + 2 * RADIUS];

    const int gi = blockIdx.x * BLOCK + threadIdx.x;
    const int li = threadIdx.x + RADIUS;

    tile[li] = gi < n ? in[gi] : 0.0f;
    if (threadIdx.x < RADIUS) {
        const int left = gi - RADIUS;
        const int right = gi + BLOCK;
        tile[threadIdx.x] = left >= 0 && left < n ? in[left] : 0.0f;
        tile[li + BLOCK] = right < n ? in[right] : 0.0f;
    }
    __syncthreads();

    if (gi < n) {
        float acc = 0.0f;
#pragma unroll
        for (int k = 0; k <= 2 * RADIUS; k++)
            acc += c_filter[k] * tile[threadIdx.x + k];
        out[gi] = acc;
    }
}

#ifndef __CUDACC_RTC__
#include <cstdio>
#include <cuda_runtime.h>

// Host side, as the application has it: upload the taps before the first launch.
int set_filter(const float *taps, int ntaps)
{
    if (ntaps != 2 * RADIUS + 1) {
        fprintf(stderr, "set_filter: %d taps, the kernel was built for %d\n", ntaps, 2 * RADIUS + 1);
        return -1;
    }
    cudaError_t err = cudaMemcpyToSymbol(c_filter, taps, ntaps * sizeof(float));
    if (err != cudaSuccess) {
        fprintf(stderr, "set_filter: %s\n", cudaGetErrorString(err));
        return -1;
    }
    return 0;
}
#endif
