// merge_hist.cu: second stage of check_histogram.cu: merged[b] = sum over the blocks k of
// hist[k * bins + b], one thread per bin, 64-bit totals.
#include <stdint.h>

__global__ void merge_hist(const uint32_t *__restrict__ hist, int bins, int blocks,
                           unsigned long long *__restrict__ merged)
{
    const int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= bins)
        return;
    unsigned long long total = 0;
    for (int k = 0; k < blocks; k++)
        total += hist[(size_t)k * bins + b];
    merged[b] = total;
}
