// template_scale.cu: y = alpha * x for float, __half and __nv_bfloat16, VEC elements per thread
// moved as one aligned vector (VEC * sizeof(T) bytes, at most 16), arithmetic in float. The
// pointers come from cudaMalloc (256-byte aligned); the last thread handles a partial vector
// element by element.
//
//   scale_vec<T, VEC><<<ceil(n / (threads * VEC)), threads>>>(d_y, d_x, alpha, n);
#include <cuda_fp16.h>
#include <cuda_bf16.h>

template <typename T, int VEC>
struct alignas(sizeof(T) * VEC) packed {
    T v[VEC];
};

__device__ __forceinline__ float to_f32(float v) { return v; }
__device__ __forceinline__ float to_f32(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_f32(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T> __device__ __forceinline__ T from_f32(float v);
template <> __device__ __forceinline__ float from_f32<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_f32<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f32<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

template <typename T, int VEC>
__global__ void scale_vec(T *__restrict__ y, const T *__restrict__ x, float alpha, long long n)
{
    static_assert(sizeof(T) * VEC <= 16, "at most 16-byte vectors");
    const long long first = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * VEC;
    if (first + VEC <= n) {
        packed<T, VEC> in = *reinterpret_cast<const packed<T, VEC> *>(x + first), res;
#pragma unroll
        for (int k = 0; k < VEC; k++)
            res.v[k] = from_f32<T>(alpha * to_f32(in.v[k]));
        *reinterpret_cast<packed<T, VEC> *>(y + first) = res;
    } else {
        for (long long i = first; i < n; i++)
            y[i] = from_f32<T>(alpha * to_f32(x[i]));
    }
}
