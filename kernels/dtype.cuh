/* dtype.cuh: the kernel library's element types and the one place that maps tk_dtype to them.
 * float, __half and __nv_bfloat16 convert to and from float with to_float / from_float (round to
 * nearest even); Paired<T> names the two-lane type of the 16-bit types (__half2,
 * __nv_bfloat162) with make_pair / low / high, for the paired arithmetic intrinsics;
 * dispatch_dtype calls a generic host lambda with a value of the element type for a tk_dtype. */
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <type_traits>
#include "tunekit.h"

namespace tk {

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T>
__device__ __forceinline__ T from_float(float v);
template <>
__device__ __forceinline__ float from_float<float>(float v) { return v; }
template <>
__device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v)
{
    return __float2bfloat16_rn(v);
}

/* True for the 16-bit float types, which have a paired (two-lane) type. */
template <typename T>
constexpr bool kIs16BitFloat =
    std::is_same<T, __half>::value || std::is_same<T, __nv_bfloat16>::value;

template <typename T>
struct PairedOf;
template <>
struct PairedOf<__half> {
    using type = __half2;
};
template <>
struct PairedOf<__nv_bfloat16> {
    using type = __nv_bfloat162;
};
template <typename T>
using Paired = typename PairedOf<T>::type;

__device__ __forceinline__ __half2 make_pair(__half a, __half b) { return __halves2half2(a, b); }
__device__ __forceinline__ __nv_bfloat162 make_pair(__nv_bfloat16 a, __nv_bfloat16 b)
{
    return __halves2bfloat162(a, b);
}
__device__ __forceinline__ __half low(__half2 v) { return __low2half(v); }
__device__ __forceinline__ __half high(__half2 v) { return __high2half(v); }
__device__ __forceinline__ __nv_bfloat16 low(__nv_bfloat162 v) { return __low2bfloat16(v); }
__device__ __forceinline__ __nv_bfloat16 high(__nv_bfloat162 v) { return __high2bfloat16(v); }

/* Calls f(T{}) with T the element type of d and returns what f returns (a tk_status);
 * TK_ERR_INVALID_ARGUMENT for an unknown dtype. */
template <typename F>
tk_status dispatch_dtype(tk_dtype d, F &&f)
{
    switch (d) {
    case TK_F32: return f(float{});
    case TK_F16: return f(__half{});
    case TK_BF16: return f(__nv_bfloat16{});
    }
    return TK_ERR_INVALID_ARGUMENT;
}

} // namespace tk
