// check_histogram.cu: histogram of keys hashed into `bins` buckets (key % bins), first stage: every
// block builds a private histogram in shared memory (atomics stay on-chip) over a grid-stride
// loop and writes it out whole, block b's counts at hist[b * bins .. b * bins + bins - 1]. A
// second kernel (merge_hist.cu) adds up the gridDim.x sub-histograms.
//
//   hist_blocks<<<blocks, threads, bins * sizeof(uint32_t)>>>(d_keys, d_hist, n, bins);
#include <stdint.h>

__global__ void hist_blocks(const uint32_t *__restrict__ keys, uint32_t *__restrict__ hist, int n, int bins)
{
    extern __shared__ uint32_t s_hist[];
    for (int b = threadIdx.x; b < bins; b += blockDim.x)
        s_hist[b] = 0;
    __syncthreads();

    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&s_hist[keys[i] % (uint32_t)bins], 1u);
    __syncthreads();

    uint32_t *mine = hist + (size_t)blockIdx.x * bins;
    for (int b = threadIdx.x; b < bins; b += blockDim.x)
        mine[b] = s_hist[b];
}
