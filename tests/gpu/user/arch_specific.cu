// arch_specific.cu: a kernel that builds only for sm_90a, the way Hopper code written for
// wgmma guards itself (CUTLASS-style): without the architecture-specific features
// (__CUDA_ARCH_FEAT_SM90_ALL, defined by -arch=sm_90a) the device pass stops with #error. Each
// warpgroup (128 threads) passes wgmma.fence, an sm_90a instruction, before it touches the
// data: y = alpha * x.
//
//   warpgroup_scale<<<ceil(n / (block * items)), block>>>(d_y, d_x, alpha, n);  // -arch=sm_90a
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "warpgroup_scale needs the architecture-specific features of sm_90a (build with -arch=sm_90a)"
#endif

#ifndef ITEMS
#define ITEMS 1
#endif

extern "C" __global__ void warpgroup_scale(float *__restrict__ y, const float *__restrict__ x,
                                           float alpha, long long n)
{
    // every thread of the warpgroup, converged: .sync.aligned
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    long long base = ((long long)blockIdx.x * blockDim.x) * ITEMS + threadIdx.x;
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        long long i = base + (long long)k * blockDim.x;
        if (i < n)
            y[i] = alpha * x[i];
    }
}
