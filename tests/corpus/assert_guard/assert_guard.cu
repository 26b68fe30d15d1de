// assert_guard.cu: y = min(max(x, lo), hi), four floats at a time (float4) over a grid-stride loop,
// the n % 4 tail element by element. The device asserts guard the contract (an assert that
// fires traps the kernel: cudaErrorAssert on the next synchronisation).
#include <assert.h>
#include <stdint.h>

__global__ void clamp4(float *y, const float *x, float lo, float hi, int n)
{
    assert(n > 0);
    assert(lo <= hi);
    assert(((uintptr_t)x & 15) == 0 && ((uintptr_t)y & 15) == 0);   // float4 access

    const int nvec = n / 4;
    const float4 *x4 = reinterpret_cast<const float4 *>(x);
    float4 *y4 = reinterpret_cast<float4 *>(y);
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    for (int v = tid; v < nvec; v += blockDim.x * gridDim.x) {
        float4 a = x4[v];
        a.x = fminf(fmaxf(a.x, lo), hi);
        a.y = fminf(fmaxf(a.y, lo), hi);
        a.z = fminf(fmaxf(a.z, lo), hi);
        a.w = fminf(fmaxf(a.w, lo), hi);
        y4[v] = a;
    }
    const int t = nvec * 4 + tid;
    if (t < n)
        y[t] = fminf(fmaxf(x[t], lo), hi);
}
