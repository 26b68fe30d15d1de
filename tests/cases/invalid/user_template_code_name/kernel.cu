// kernel.cu: the kernel of a malformed user-kernel space (tests/cases/invalid).
extern "C" __global__ void scale(float *y, const float *x, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}
