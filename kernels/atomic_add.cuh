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
 *   atomic_add_pack  a whole aligned Pack<T, N> (pack.cuh) in one vector reduction on sm_90
 *                    (red.global.add.v2/v4.f32, red.global.add.noftz{.v2,.v4}.f16x2/.bf16x2:
 *                    up to 16 bytes in one instruction), as N float or N/2 paired atomics on
 *                    earlier architectures.
 * For float every single-element strategy is the plain float atomicAdd. No helper returns the
 * old value. Users: the atomic family (kernels/atomic.cu),
 * index_add and upsample's generic backward. */
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstdint>
#include <type_traits>
#include "dtype.cuh"
#include "pack.cuh"

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

/* fast_atomic_add's choice for base[index] in a buffer of `length` elements (0 <= index <
 * length): the index of the first element of the pair its paired atomic covers (index when the
 * element starts a 4-byte-aligned pair and base[index + 1] exists, index - 1 when it ends one and
 * base[index - 1] exists), or -1 for the plain 16-bit atomic. Pure, host and device, so the
 * bounds rule is testable anywhere (tests/gpu/atomic_bounds_test.cu). */
template <typename T>
__host__ __device__ __forceinline__ int64_t fast_atomic_pair_start(const T *base, int64_t index,
                                                                  int64_t length)
{
    const bool starts_pair =
        (reinterpret_cast<uintptr_t>(base + index) & (2 * sizeof(T) - 1)) == 0;
    if (starts_pair) return index + 1 < length ? index : -1;
    return index > 0 ? index - 1 : -1;
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
        const int64_t pair = fast_atomic_pair_start(base, index, length);
        if (pair == index) atomic_add_pair(base + index, make_pair(v, negative_zero<T>()));
        else if (pair >= 0) atomic_add_pair(base + pair, make_pair(negative_zero<T>(), v));
        else atomic_add(base + index, v);
    } else {
        atomic_add(base + index, v);
    }
}

/* The 32-bit word holding a pair (its bits, for the inline reductions). */
__device__ __forceinline__ unsigned pair_bits(__half2 v)
{
    return *reinterpret_cast<const unsigned *>(&v);
}
__device__ __forceinline__ unsigned pair_bits(__nv_bfloat162 v)
{
    return *reinterpret_cast<const unsigned *>(&v);
}

/* p[k] += v.elem[k] for k < N, p aligned to the pack (N * sizeof(T) bytes, tk::is_aligned).
 * Every element is added exactly once; the pack is one reduction on sm_90 (no ordering between
 * its elements is promised, as between any two atomics). 16-bit types with N == 1 use the plain
 * 16-bit atomic (bounds-aware widening is fast_atomic_add's job). */
template <typename T, int N>
__device__ __forceinline__ void atomic_add_pack(T *p, const Pack<T, N> &v)
{
    static_assert(kPackFits<T, N>, "atomic_add_pack: N * sizeof(T) must be a power of two <= 16");
    if constexpr (N == 1) {
        atomic_add(p, v.elem[0]);
    } else if constexpr (kIs16BitFloat<T>) {
        unsigned w[N / 2];
#pragma unroll
        for (int k = 0; k < N / 2; k++) w[k] = pair_bits(make_pair(v.elem[2 * k], v.elem[2 * k + 1]));
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
        const size_t g = __cvta_generic_to_global(p);
        if constexpr (N == 2) {
            atomic_add_pair(p, make_pair(v.elem[0], v.elem[1]));
        } else if constexpr (N == 4 && std::is_same<T, __half>::value) {
            asm volatile("red.global.add.noftz.v2.f16x2 [%0], {%1, %2};" ::"l"(g), "r"(w[0]),
                         "r"(w[1])
                         : "memory");
        } else if constexpr (N == 4) {
            asm volatile("red.global.add.noftz.v2.bf16x2 [%0], {%1, %2};" ::"l"(g), "r"(w[0]),
                         "r"(w[1])
                         : "memory");
        } else if constexpr (std::is_same<T, __half>::value) {
            asm volatile("red.global.add.noftz.v4.f16x2 [%0], {%1, %2, %3, %4};" ::"l"(g),
                         "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3])
                         : "memory");
        } else {
            asm volatile("red.global.add.noftz.v4.bf16x2 [%0], {%1, %2, %3, %4};" ::"l"(g),
                         "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3])
                         : "memory");
        }
#else
#pragma unroll
        for (int k = 0; k < N / 2; k++)
            atomic_add_pair(p + 2 * k, make_pair(v.elem[2 * k], v.elem[2 * k + 1]));
        (void)w;
#endif
    } else {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
        const size_t g = __cvta_generic_to_global(p);
        if constexpr (N == 2) {
            asm volatile("red.global.add.v2.f32 [%0], {%1, %2};" ::"l"(g), "f"(v.elem[0]),
                         "f"(v.elem[1])
                         : "memory");
        } else {
            asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(g),
                         "f"(v.elem[0]), "f"(v.elem[1]), "f"(v.elem[2]), "f"(v.elem[3])
                         : "memory");
        }
#else
#pragma unroll
        for (int k = 0; k < N; k++) atomic_add(p + k, v.elem[k]);
#endif
    }
}

} // namespace tk
