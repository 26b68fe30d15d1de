// traits_absmax.cu: the per-row scale of int8 quantization, scale[r] = max |x[r][:]| / 127, for
// float, __half and __nv_bfloat16, written the way templated library code is: <type_traits>
// picks the vector type and the conversion (std::conditional_t, if constexpr, std::is_same_v,
// std::enable_if_t), <limits> gives the int8 range, <cstdint> the types. One block per row;
// each thread takes a strided share of the row, as packed pairs/quads when the row allows it,
// then a warp shuffle and a shared-memory pass combine the threads' maxima.
//
//   row_absmax<T, BLOCK><<<rows, BLOCK>>>(d_x, d_scale, rows, cols, use_vec);
#include <cstdint>
#include <limits>
#include <type_traits>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#ifndef FIRST_WARP_ONLY
#define FIRST_WARP_ONLY 0
#endif

namespace quant {

template <typename T>
using vec_t = std::conditional_t<std::is_same_v<T, float>, float4,
              std::conditional_t<std::is_same_v<T, __half>, __half2, __nv_bfloat162>>;

template <typename T>
constexpr int vec_width = sizeof(vec_t<T>) / sizeof(T);

template <typename T>
__device__ __forceinline__ std::enable_if_t<std::is_floating_point_v<T>, float> to_float(T v)
{
    return static_cast<float>(v);
}

template <typename T>
__device__ __forceinline__ std::enable_if_t<!std::is_floating_point_v<T>, float> to_float(T v)
{
    if constexpr (std::is_same_v<T, __half>)
        return __half2float(v);
    else
        return __bfloat162float(v);
}

template <typename T>
__device__ __forceinline__ float vec_absmax(vec_t<T> v)
{
    if constexpr (std::is_same_v<T, float>) {
        return fmaxf(fmaxf(fabsf(v.x), fabsf(v.y)), fmaxf(fabsf(v.z), fabsf(v.w)));
    } else {
        return fmaxf(fabsf(to_float(v.x)), fabsf(to_float(v.y)));
    }
}

template <typename T, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
row_absmax(const T *__restrict__ x, float *__restrict__ scale, int rows, int cols, int use_vec)
{
    static_assert(BLOCK % 32 == 0 && BLOCK <= 1024, "whole warps");
    constexpr int W = vec_width<T>;
    constexpr float qmax = static_cast<float>(std::numeric_limits<std::int8_t>::max());
    const int row = blockIdx.x;
    if (row >= rows)
        return;
    const T *in = x + static_cast<std::int64_t>(row) * cols;

    float m = 0.0f;
    int done = 0;
    // packed loads only when every row starts on a vector boundary
    if (use_vec && cols % W == 0) {
        const vec_t<T> *v = reinterpret_cast<const vec_t<T> *>(in);
        for (int i = threadIdx.x; i < cols / W; i += BLOCK)
            m = fmaxf(m, vec_absmax<T>(v[i]));
        done = cols;
    }
    for (int i = done + threadIdx.x; i < cols; i += BLOCK)
        m = fmaxf(m, fabsf(to_float(in[i])));

    for (int off = 16; off > 0; off >>= 1)
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));

    __shared__ float warp_max[BLOCK / 32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0)
        warp_max[warp] = m;
    __syncthreads();
    if (warp == 0) {
#if FIRST_WARP_ONLY
        m = warp_max[0];
#else
        m = lane < BLOCK / 32 ? warp_max[lane] : 0.0f;
        for (int off = 16; off > 0; off >>= 1)
            m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
#endif
        if (lane == 0)
            scale[row] = m / qmax;
    }
}

} // namespace quant
