// user_every_key.cu: the kernel of tests/cases/valid/user_every_key.yaml, a user-kernel space that
// uses every key of the format (it is only loaded, never run, in the CPU tests).
#include <cuda_fp16.h>
#include "user_helpers.cuh"

template <typename T, int BLOCK>
__global__ void every_key(T *y, const T *x, const int *idx, double s, unsigned int n)
{
    extern __shared__ char stage[];
    unsigned int i = blockIdx.x * BLOCK + threadIdx.x;
    stage[threadIdx.x] = 0;
    if (i < n) y[i] = twice((T)((float)x[idx[i] % n] * (float)s));
}

template <typename T>
__global__ void every_key_reference(T *y, const T *x, const int *idx, double s, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = twice((T)((float)x[idx[i] % n] * (float)s));
}
