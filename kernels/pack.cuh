/* pack.cuh: THE aligned pack type of the kernel library and its load/store helpers. A Pack<T, N>
 * is N elements of T aligned to their total size, so one load or store of a pack is one vector
 * memory access (N * sizeof(T) <= 16 bytes: up to 128-bit LDG/STG). Every family that reads or
 * writes contiguous data in vectors (elementwise, reduce, upsample, relu mask, the atomic dot) uses
 * this type, and load_pack_hinted / store_pack_hinted for its cache_hint parameter;
 * callers check pointer alignment with tk::is_aligned first and fall back to N = 1 otherwise. */
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace tk {

/* The widest pack any kernel uses, in bytes (one 128-bit access). */
constexpr int kMaxPackBytes = 16;

template <typename T, int N>
struct alignas(sizeof(T) * N) Pack {
    static_assert(N >= 1 && (N & (N - 1)) == 0, "pack size must be a power of two");
    static_assert(sizeof(T) * N <= kMaxPackBytes, "a pack is at most 16 bytes");
    T elem[N];
};

/* The largest pack size (elements) for T: 16 bytes / sizeof(T). */
template <typename T>
constexpr int kMaxPackSize = kMaxPackBytes / static_cast<int>(sizeof(T));

/* Whether N elements of T form a supported pack (power of two, at most 16 bytes). */
template <typename T, int N>
constexpr bool kPackFits =
    N >= 1 && (N & (N - 1)) == 0 && sizeof(T) * N <= static_cast<size_t>(kMaxPackBytes);

/* True when p is aligned to `bytes` (a power of two). NULL counts as aligned. */
__host__ __device__ inline bool is_aligned(const void *p, size_t bytes)
{
    return (reinterpret_cast<uintptr_t>(p) & (bytes - 1)) == 0;
}

/* Loads the pack starting at p (p must be aligned to the pack: see is_aligned). */
template <typename T, int N>
__device__ __forceinline__ Pack<T, N> load_pack(const T *p)
{
    return *reinterpret_cast<const Pack<T, N> *>(p);
}

/* Stores v to the pack starting at p (p must be aligned to the pack). */
template <typename T, int N>
__device__ __forceinline__ void store_pack(T *p, const Pack<T, N> &v)
{
    *reinterpret_cast<Pack<T, N> *>(p) = v;
}

/* The same pair with the evict-first cache hint (ld.global.cs / st.global.cs): lines of data
 * used once are the first the caches give up, so a streaming kernel does not push out what other
 * kernels left in L2 (dirty lines whose write-back would otherwise land in its own time). */
template <typename Bits, typename T, int N>
__device__ __forceinline__ Pack<T, N> load_pack_bits_cs(const T *p)
{
    static_assert(sizeof(Bits) == sizeof(Pack<T, N>), "pack and bit type differ in size");
    const Bits r = __ldcs(reinterpret_cast<const Bits *>(p));
    Pack<T, N> v;
    memcpy(&v, &r, sizeof v);
    return v;
}

template <typename T, int N>
__device__ __forceinline__ Pack<T, N> load_pack_evict_first(const T *p)
{
    constexpr size_t kBytes = sizeof(T) * N;
    if constexpr (kBytes == 16) return load_pack_bits_cs<uint4, T, N>(p);
    else if constexpr (kBytes == 8) return load_pack_bits_cs<uint2, T, N>(p);
    else if constexpr (kBytes == 4) return load_pack_bits_cs<unsigned int, T, N>(p);
    else return load_pack_bits_cs<unsigned short, T, N>(p);
}

template <typename T, int N>
__device__ __forceinline__ void store_pack_evict_first(T *p, const Pack<T, N> &v)
{
    constexpr size_t kBytes = sizeof(T) * N;
    if constexpr (kBytes == 16) { uint4 r; memcpy(&r, &v, 16); __stcs(reinterpret_cast<uint4 *>(p), r); }
    else if constexpr (kBytes == 8) { uint2 r; memcpy(&r, &v, 8); __stcs(reinterpret_cast<uint2 *>(p), r); }
    else if constexpr (kBytes == 4) { unsigned int r; memcpy(&r, &v, 4); __stcs(reinterpret_cast<unsigned int *>(p), r); }
    else { unsigned short r; memcpy(&r, &v, 2); __stcs(reinterpret_cast<unsigned short *>(p), r); }
}

/* load_pack / store_pack, or their evict-first forms when kEvictFirst: what a family's
 * cache_hint parameter selects at compile time. */
template <bool kEvictFirst, typename T, int N>
__device__ __forceinline__ Pack<T, N> load_pack_hinted(const T *p)
{
    if constexpr (kEvictFirst) return load_pack_evict_first<T, N>(p);
    else return load_pack<T, N>(p);
}

template <bool kEvictFirst, typename T, int N>
__device__ __forceinline__ void store_pack_hinted(T *p, const Pack<T, N> &v)
{
    if constexpr (kEvictFirst) store_pack_evict_first<T, N>(p, v);
    else store_pack<T, N>(p, v);
}

} // namespace tk
