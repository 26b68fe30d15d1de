/* selftest_kernels.cu: the kernels of the test-only "selftest" family: a float copy that is
 * correct, wrong at one element, writes far out of bounds, or never finishes. They exist to prove
 * that the worker maps every kind of bad variant to its status and that the run goes on.
 * Variants: kind (selftest_kernel_kind) x block_size (any; the tuner uses 64, 128, 256). */
#include "selftest_kernels.h"

__global__ void selftest_copy(selftest_kernel_kind kind, int64_t n, const float *x, float *y,
                              const int *flag)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    int64_t first = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (kind == SELFTEST_KERNEL_HANG && first == 0)
        while (*(volatile const int *)flag == 0) {}
    for (int64_t i = first; i < n; i += stride)
        y[i] = (kind == SELFTEST_KERNEL_WRONG && i == n / 2) ? x[i] + 1.0f : x[i];
    if (kind == SELFTEST_KERNEL_OOB && first == 0)
        y[(int64_t)1 << 40] = 1.0f;
}

extern "C" cudaError_t selftest_copy_launch(selftest_kernel_kind kind, int block_size, int64_t n,
                                            const float *x, float *y, const int *flag,
                                            cudaStream_t stream)
{
    int64_t blocks = (n + block_size - 1) / block_size;
    if (blocks > 65536) blocks = 65536;
    if (blocks < 1) blocks = 1;
    selftest_copy<<<(unsigned)blocks, block_size, 0, stream>>>(kind, n, x, y, flag);
    return cudaGetLastError();
}
