/* atomic_add.cuh: THE atomic-add helpers of the kernel library, for float, __half and
 * __nv_bfloat16 (sm_80 and later). Three strategies:
 *   atomic_add       plain atomicAdd on one element (for 16-bit types: the slow 16-bit atomic);
 *   atomic_add_pair  one 32-bit paired atomic (__half2 / __nv_bfloat162) on an aligned pair
 *                    of elements, adding both lanes at once;
 *   fast_atomic_add  PyTorch's fastAtomicAdd (ATen KernelUtils.cuh): one element of a buffer
 *                    [base, base + length) widened to a paired atomic with an identity partner
 *                    lane, the partner chosen by the element's address alignment (the pair that
 *                    holds the element must be 4-byte aligned) and by the buffer bounds: the
 *                    partner is base[index + 1] for an element on a 4-byte boundary, base[index - 1]
 *                    otherwise; when that partner lies outside [base, base + length) the plain
 *                    16-bit atomic is used, so memory outside the buffer is never touched.
 * The partner lane adds -0, not +0: -0 is the exact additive identity (x + -0 == x for every x,
 * -0 and +0 included; +0 would turn a -0 partner into +0), so the partner element keeps its
 * bits (NaN payloads aside). Other threads may update the partner concurrently: the paired
 * atomic is one read-modify-write of both lanes, so their updates are never lost.
 * For float every strategy is the plain float atomicAdd. No helper returns the old value. Users: the atomic family (kernels/atomic.cu),
 * index_add and upsample's generic backward. */
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstdint>
#include <type_traits>
#include "dtype.cuh"

namespace tk {

/* The additive identity -0 of each element type (sign bit only). */
template <typename T>
__device__ __forceinline__ T negative_zero();
template <>
__device__ __forceinline__ float negative_zero<float>() { return -0.0f; }
template <>
__device__ __forceinline__ __half negative_zero<__half>() { return __ushort_as_half(0x8000u); }
template <>
__device__ __forceinline__ __nv_bfloat16 negative_zero<__nv_bfloat16>()
{
    return __ushort_as_bfloat16(0x8000u);
}

/* *addr += v as one plain atomic on that element. */
__device__ __forceinline__ void atomic_add(float *addr, float v) { atomicAdd(addr, v); }
__device__ __forceinline__ void atomic_add(__half *addr, __half v) { atomicAdd(addr, v); }
__device__ __forceinline__ void atomic_add(__nv_bfloat16 *addr, __nv_bfloat16 v)
{
    atomicAdd(addr, v);
}

/* pair[0] += low(v), pair[1] += high(v) as one 32-bit paired atomic. pair must be aligned to
 * 2 * sizeof(T) (tk::is_aligned(pair, 4)). */
__device__ __forceinline__ void atomic_add_pair(__half *pair, __half2 v)
{
    atomicAdd(reinterpret_cast<__half2 *>(pair), v);
}
__device__ __forceinline__ void atomic_add_pair(__nv_bfloat16 *pair, __nv_bfloat162 v)
{
    atomicAdd(reinterpret_cast<__nv_bfloat162 *>(pair), v);
}

/* base[index] += v for a buffer of `length` elements starting at base (0 <= index < length;
 * base aligned to sizeof(T) as any T pointer). 16-bit types: one paired atomic with a -0
 * partner when the partner is inside the buffer, else the plain 16-bit atomic; the only memory
 * touched is base[index] and possibly base[index - 1] or base[index + 1], always inside
 * [base, base + length). float: the plain atomic. */
template <typename T>
__device__ __forceinline__ void fast_atomic_add(T *base, int64_t index, int64_t length, T v)
{
    if constexpr (kIs16BitFloat<T>) {
        T *const target = base + index;
        const bool starts_pair = (reinterpret_cast<uintptr_t>(target) & (2 * sizeof(T) - 1)) == 0;
        if (starts_pair && index + 1 < length) {
            atomic_add_pair(target, make_pair(v, negative_zero<T>()));
        } else if (!starts_pair && index > 0) {
            atomic_add_pair(target - 1, make_pair(negative_zero<T>(), v));
        } else {
            atomic_add(target, v);
        }
    } else {
        atomic_add(base + index, v);
    }
}

} // namespace tk
