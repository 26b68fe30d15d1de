// softmax_ref.cu: the reference the tuner validates softmax.cu against: one block of 256
// threads per row, three plain passes over the row in global memory (maximum, sum of
// exp(x - max), output exp(x - max) / sum), float arithmetic for T = float or __half.
// Launch: grid rows, block 256; the same arguments as softmax.

#include <cuda_fp16.h>

__device__ __forceinline__ float ref_float(float v) { return v; }
__device__ __forceinline__ float ref_float(__half v) { return __half2float(v); }
__device__ __forceinline__ void ref_store(float *p, float v) { *p = v; }
__device__ __forceinline__ void ref_store(__half *p, float v) { *p = __float2half(v); }

// tree reduction of one value per thread over the block's 256 threads (op 0: max, 1: sum)
__device__ float block_reduce(float v, float *red, int op)
{
    red[threadIdx.x] = v;
    __syncthreads();
    for (int half = 128; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            float o = red[threadIdx.x + half];
            red[threadIdx.x] = op == 0 ? fmaxf(red[threadIdx.x], o) : red[threadIdx.x] + o;
        }
        __syncthreads();
    }
    float r = red[0];
    __syncthreads();
    return r;
}

template <typename T> __global__ void softmax_ref(T *y, const T *x, int rows, int cols)
{
    __shared__ float red[256];
    const long long row = blockIdx.x;
    if (row >= rows)
        return;
    const T *xr = x + row * cols;
    T *yr = y + row * cols;
    float m = ref_float(xr[0]);
    for (int c = threadIdx.x; c < cols; c += 256)
        m = fmaxf(m, ref_float(xr[c]));
    m = block_reduce(m, red, 0);
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += 256)
        s += expf(ref_float(xr[c]) - m);
    s = block_reduce(s, red, 1);
    for (int c = threadIdx.x; c < cols; c += 256)
        ref_store(yr + c, expf(ref_float(xr[c]) - m) / s);
}
