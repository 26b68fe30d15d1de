/* selftest_kernels.h: the launcher of the test-only "selftest" family's kernels
 * (tuner/ops/selftest_kernels.cu), called by its harness (tuner/ops/selftest.c). Compiled into
 * the tuner only, never into libtunekit. */
#pragma once
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The behaviours a selftest variant can have that need a kernel. */
typedef enum selftest_kernel_kind {
    SELFTEST_KERNEL_CORRECT = 0,   /* y = x */
    SELFTEST_KERNEL_WRONG,         /* y = x, except y[n/2] = x[n/2] + 1 */
    SELFTEST_KERNEL_OOB,           /* y = x, and one store 4 TiB past y: an illegal address */
    SELFTEST_KERNEL_HANG,          /* spins while *flag == 0 (flag is kept 0): never finishes */
} selftest_kernel_kind;

/* Launches the kind's copy kernel over n floats with block_size threads per block on stream.
 * Returns the launch's error (cudaGetLastError), without synchronising. */
cudaError_t selftest_copy_launch(selftest_kernel_kind kind, int block_size, int64_t n,
                                 const float *x, float *y, const int *flag, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
