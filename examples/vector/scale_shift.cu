// scale_shift.cu: y = x * s + t elementwise, a templated user kernel (docs/user-kernels.md): the
// element type, the block size and the elements per thread are template arguments, which the
// tuner passes through an NVRTC name expression (scale_shift.yaml). Loads and stores VEC
// elements at a time when the pointers allow; the reference is a plain one-element kernel.
#include <cuda_fp16.h>

template <typename T, int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK) scale_shift(T *y, const T *x, float s, float t, long long n)
{
    long long base = ((long long)blockIdx.x * BLOCK * ITEMS) + threadIdx.x;
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        long long i = base + (long long)k * BLOCK;
        if (i < n) y[i] = (T)((float)x[i] * s + t);
    }
}

template <typename T>
__global__ void scale_shift_reference(T *y, const T *x, float s, float t, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = (T)((float)x[i] * s + t);
}
