// saxpy.cu: y = a * x + y, the smallest user kernel of the examples (docs/user-kernels.md). Each
// thread handles ITEMS consecutive elements; blocks have BLOCK threads. Both are -D macros the
// tuner sets from the space's parameters (saxpy.yaml).
extern "C" __global__ void saxpy(float *y, const float *x, float a, long long n)
{
    long long base = ((long long)blockIdx.x * BLOCK + threadIdx.x) * ITEMS;
#pragma unroll
    for (int k = 0; k < ITEMS; k++)
        if (base + k < n) y[base + k] = a * x[base + k] + y[base + k];
}
