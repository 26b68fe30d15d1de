/* index_add.cu: the index_add family: self.index_add_(dim, index, source, alpha) in place
 * (f32, f16, bf16 self; int32 or int64 indices; contiguous tensors of up to 8 dimensions,
 * collapsed to (outer, D = shape[dim], inner) before launch, as PyTorch's CollapseDims does).
 *
 * Kernels (PyTorch's split by index count, at the tuned `threshold`):
 *   small-index  n_index <= threshold. Every block first copies all indices into shared memory
 *                (cp.async: all in flight at once, at any block size)
 *                and checks them (__syncthreads_or: when one is out of range every block
 *                returns before writing, block 0 reports the first bad position), so an index
 *                is read once per block and the check costs no launch. Two decompositions:
 *                owner  (threads over the outer x inner/pack slice positions, each walking all
 *                       indices in order with plain read-add-writes: no atomics, duplicates
 *                       handled by program order, deterministic);
 *                spread (threads over all (index, position) pairs, adding with atomics).
 *   large-index  n_index > threshold: the status word is set to -1 (memset), a validation kernel
 *                lowers it to the first bad position (atomicMin), then threads over all source
 *                packs read their index from global memory and add with atomics, unless the
 *                status says an index was bad. Where a warp's units can reach one element twice
 *                (fewer than 32 packs per row), lanes with the same destination are summed
 *                first and one atomic per distinct destination per warp is issued.
 * Atomics: f32 atomicAdd, f16/bf16 tk::fast_atomic_add for single elements, packs of 2..8 with
 * tk::atomic_add_pack (paired atomics, one vector reduction on sm_90).
 * Parameters (tk_index_add_config_space):
 *   threshold   0..4096 (launch time; default 16, PyTorch's)
 *   block_size  32..1024, multiple of 32 (launch time; default 128)
 *   grid_cap    1..1024 blocks per SM (launch time; default 8): grid = min(units / block,
 *               grid_cap * sm_count), through launch.cuh's rule with grid_cap blocks resident
 *   pack_size   1, 2, 4, 8 with pack * sizeof(T) <= 16 (compile time; default 1): elements per
 *               access along inner; 1 when inner % pack != 0 or a pointer is misaligned
 *   small_mode  owner | spread (compile time; default owner)
 * Index arithmetic is 32-bit (multiply-shift division by the sizes) when self and source have
 * fewer than 2^31 elements, 64-bit otherwise.
 *
 * Order: device helpers, kernels, launchers, config space, public entry points. */
#include <climits>
#include <cstdint>
#include <type_traits>
#include <cuda_runtime_api.h>
#include "atomic_add.cuh"
#include "dtype.cuh"
#include "launch.cuh"
#include "pack.cuh"
#include "tunekit.h"
#include "tuned_lookup.h"

namespace {

using tk::Pack;

/* ---- device helpers ------------------------------------------------------------------------ */

/* n / d for 32-bit n < 2^31 by one multiply-high, add and shift (the round-up method PyTorch's
 * IntDivider uses: shift = ceil(log2 d), magic = floor(2^32 (2^shift - d) / d) + 1). */
struct Div32 {
    uint32_t d, magic, shift;
    __host__ void init(uint32_t divisor)
    {
        d = divisor;
        shift = 0;
        while ((uint64_t{1} << shift) < divisor) shift++;
        magic = static_cast<uint32_t>(((uint64_t{1} << 32) * ((uint64_t{1} << shift) - divisor)) /
                                          divisor +
                                      1);
    }
    __device__ __forceinline__ uint32_t div(uint32_t n) const
    {
        return (__umulhi(n, magic) + n) >> shift;
    }
};

struct Div64 {
    uint64_t d;
    __host__ void init(uint64_t divisor) { d = divisor; }
    __device__ __forceinline__ uint64_t div(uint64_t n) const { return n / d; }
};

template <typename I>
using Div = typename std::conditional<std::is_same<I, uint32_t>::value, Div32, Div64>::type;

/* The collapsed problem in units of N-element packs along inner. */
template <typename I>
struct Geometry {
    I outer, dim_size, inner, n_index, inner_packs;
    I units;                 /* work items of the kernel: pairs (spread, large) or positions */
    Div<I> by_inner_packs, by_n_index;
    int64_t self_elements;   /* bounds of the fast atomic add */
};

template <typename T, typename Idx, typename I>
struct Args {
    T *self;
    const T *source;
    const Idx *index;
    int64_t *status;
    float alpha;
    Geometry<I> g;
};

template <typename T, int N>
__device__ __forceinline__ Pack<T, N> scaled(const Pack<T, N> &v, float alpha)
{
    Pack<T, N> r;
#pragma unroll
    for (int k = 0; k < N; k++) r.elem[k] = tk::from_float<T>(alpha * tk::to_float(v.elem[k]));
    return r;
}

/* self[off .. off + N) += v with atomics (off is pack-aligned when N > 1). */
template <typename T, int N>
__device__ __forceinline__ void atomic_add_at(T *self, int64_t off, int64_t self_elements,
                                              const Pack<T, N> &v)
{
    if constexpr (N == 1) tk::fast_atomic_add(self, off, self_elements, v.elem[0]);
    else tk::atomic_add_pack<T, N>(self + off, v);
}

/* Indices a thread of the validation kernel loads before it checks any (loads in flight). */
constexpr int kIndexUnroll = 8;

/* s_idx[j] = index[j] for j < n_index, copied by the block's threads without passing through
 * registers (cp.async on sm_80 and later: every copy of a thread is in flight at once, whatever
 * the block size, and no register holds them), then waited for. Each thread copies, and later
 * checks, the positions threadIdx.x + k * blockDim.x. */
template <typename Idx, typename I>
__device__ __forceinline__ void stage_indices(const Idx *index, I n_index, Idx *s_idx)
{
#if __CUDA_ARCH__ >= 800
    for (I j = threadIdx.x; j < n_index; j += blockDim.x) {
        const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(s_idx + j));
        if constexpr (sizeof(Idx) == 8)
            asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(dst), "l"(index + j) : "memory");
        else
            asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(dst), "l"(index + j) : "memory");
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
#else
    for (I j = threadIdx.x; j < n_index; j += blockDim.x) s_idx[j] = index[j];
#endif
}

/* Stages every index in s_idx (stage_indices) and checks it against [0, dim_size). Returns false
 * in every thread of every block when one is out of range (block 0 then stores the first bad
 * position to *status); else true, block 0 having stored -1. Readers take s_idx[j] as I: in
 * range, it fits. */
template <typename Idx, typename I>
__device__ __forceinline__ bool load_indices(const Idx *index, I n_index, I dim_size,
                                             int64_t *status, Idx *s_idx)
{
    __shared__ unsigned long long first_bad;
    if (threadIdx.x == 0) first_bad = ULLONG_MAX;
    stage_indices(index, n_index, s_idx);
    __syncthreads(); /* first_bad set */
    int bad = 0;
    for (I j = threadIdx.x; j < n_index; j += blockDim.x) { /* the thread's own copies */
        const int64_t v = static_cast<int64_t>(s_idx[j]);
        if (v < 0 || v >= static_cast<int64_t>(dim_size)) {
            bad = 1;
            atomicMin(&first_bad, static_cast<unsigned long long>(j));
        }
    }
    const int any_bad = __syncthreads_or(bad);
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *status = any_bad ? static_cast<int64_t>(first_bad) : -1;
    return !any_bad;
}

/* *d += alpha * v element by element, in float, rounded once. */
template <typename T, int N>
__device__ __forceinline__ Pack<T, N> add_scaled(const Pack<T, N> &d, const Pack<T, N> &v, float alpha)
{
    Pack<T, N> r;
#pragma unroll
    for (int k = 0; k < N; k++)
        r.elem[k] = tk::from_float<T>(tk::to_float(d.elem[k]) + alpha * tk::to_float(v.elem[k]));
    return r;
}

/* ---- kernels ------------------------------------------------------------------------------- */

/* Rows of self an owner thread reads before it writes any, when they are distinct. */
constexpr int kOwnerChunk = 4;

/* owner: unit = slice position (o, q); walks every index in order with plain read-add-writes.
 * Indices go in chunks of kOwnerChunk: when a chunk's rows are distinct (the same test in every
 * thread: a uniform branch), its rows are read together, then written; a chunk with a repeated
 * row goes one index at a time, so every duplicate sees the previous add. */
template <typename T, int N, typename Idx, typename I>
__global__ void __launch_bounds__(tk::kMaxBlockSize) small_owner_kernel(Args<T, Idx, I> a)
{
    extern __shared__ unsigned char smem_raw[];
    Idx *s_idx = reinterpret_cast<Idx *>(smem_raw);
    const Geometry<I> &g = a.g;
    if (!load_indices(a.index, g.n_index, g.dim_size, a.status, s_idx)) return;
    const I stride = static_cast<I>(gridDim.x) * blockDim.x;
    const int64_t row = g.inner;
    for (I u = static_cast<I>(blockIdx.x) * blockDim.x + threadIdx.x; u < g.units; u += stride) {
        const I o = g.by_inner_packs.div(u), q = u - o * g.inner_packs;
        const T *__restrict__ src =
            a.source + (static_cast<int64_t>(o) * g.n_index * g.inner + static_cast<int64_t>(q) * N);
        T *__restrict__ dst =
            a.self + (static_cast<int64_t>(o) * g.dim_size * g.inner + static_cast<int64_t>(q) * N);
        I j = 0;
        for (; j + kOwnerChunk <= g.n_index; j += kOwnerChunk) {
            I r[kOwnerChunk];
            Pack<T, N> v[kOwnerChunk];
#pragma unroll
            for (int k = 0; k < kOwnerChunk; k++) {
                r[k] = static_cast<I>(s_idx[j + k]);
                v[k] = tk::load_pack<T, N>(src + static_cast<int64_t>(j + k) * row);
            }
            bool distinct = true;
#pragma unroll
            for (int k = 0; k < kOwnerChunk; k++)
#pragma unroll
                for (int m = k + 1; m < kOwnerChunk; m++) distinct = distinct && r[k] != r[m];
            if (distinct) {
                Pack<T, N> cur[kOwnerChunk];
#pragma unroll
                for (int k = 0; k < kOwnerChunk; k++)
                    cur[k] = tk::load_pack<T, N>(dst + static_cast<int64_t>(r[k]) * row);
#pragma unroll
                for (int k = 0; k < kOwnerChunk; k++)
                    tk::store_pack<T, N>(dst + static_cast<int64_t>(r[k]) * row,
                                         add_scaled(cur[k], v[k], a.alpha));
            } else {
#pragma unroll
                for (int k = 0; k < kOwnerChunk; k++) {
                    T *d = dst + static_cast<int64_t>(r[k]) * row;
                    tk::store_pack<T, N>(d, add_scaled(tk::load_pack<T, N>(d), v[k], a.alpha));
                }
            }
        }
        for (; j < g.n_index; j++) {
            T *d = dst + static_cast<int64_t>(static_cast<I>(s_idx[j])) * row;
            const Pack<T, N> v = tk::load_pack<T, N>(src + static_cast<int64_t>(j) * row);
            tk::store_pack<T, N>(d, add_scaled(tk::load_pack<T, N>(d), v, a.alpha));
        }
    }
}

/* The self offset of unit u = ((o * n_index + j) * inner_packs + q), with its index value. */
template <typename I>
__device__ __forceinline__ void split_unit(const Geometry<I> &g, I u, I *o, I *j, I *q)
{
    const I r = g.by_inner_packs.div(u);
    *q = u - r * g.inner_packs;
    *o = g.by_n_index.div(r);
    *j = r - *o * g.n_index;
}

/* Adds alpha * v (the source pack of unit u) to self at the unit's row, index from s_idx. */
template <typename T, int N, typename Idx, typename I>
__device__ __forceinline__ void spread_add(const Args<T, Idx, I> &a, const Idx *s_idx, I u,
                                           const Pack<T, N> &v)
{
    I o, j, q;
    split_unit(a.g, u, &o, &j, &q);
    const int64_t off = (static_cast<int64_t>(o) * a.g.dim_size + static_cast<I>(s_idx[j])) * a.g.inner +
                        static_cast<int64_t>(q) * N;
    atomic_add_at<T, N>(a.self, off, a.g.self_elements, scaled(v, a.alpha));
}

/* spread: unit = (o, j, q) over the source packs, index from shared memory, atomic adds. The
 * first unit's source pack is loaded before the indices, so the two loads overlap. */
template <typename T, int N, typename Idx, typename I>
__global__ void __launch_bounds__(tk::kMaxBlockSize) small_spread_kernel(Args<T, Idx, I> a)
{
    extern __shared__ unsigned char smem_raw[];
    Idx *s_idx = reinterpret_cast<Idx *>(smem_raw);
    const Geometry<I> &g = a.g;
    const I stride = static_cast<I>(gridDim.x) * blockDim.x;
    I u = static_cast<I>(blockIdx.x) * blockDim.x + threadIdx.x;
    Pack<T, N> first;
    if (u < g.units) first = tk::load_pack<T, N>(a.source + static_cast<int64_t>(u) * N);
    if (!load_indices(a.index, g.n_index, g.dim_size, a.status, s_idx)) return;
    if (u < g.units) spread_add<T, N>(a, s_idx, u, first);
    for (u += stride; u < g.units; u += stride)
        spread_add<T, N>(a, s_idx, u, tk::load_pack<T, N>(a.source + static_cast<int64_t>(u) * N));
}

/* Adds alpha * v to self at off (off < 0: nothing), a warp at a time, the 32 lanes together
 * (every lane calls it: a match and a vote). Lanes whose offsets are equal are summed in float
 * first, through the warp's 32 * N floats of `scratch`, and their lowest lane adds the sum with
 * one atomic: a warp whose lanes hit k distinct offsets issues k atomics instead of 32. A warp
 * without a repeated offset (the vote) adds directly, as large_atomic does. */
template <typename T, int N>
__device__ __forceinline__ void warp_aggregated_add(T *self, int64_t self_elements, int64_t off,
                                                    const Pack<T, N> &v, float alpha,
                                                    float *scratch)
{
    const unsigned lane = threadIdx.x & 31u;
    const unsigned peers = __match_any_sync(0xffffffffu, static_cast<unsigned long long>(off));
    if (__all_sync(0xffffffffu, peers == (1u << lane))) {
        if (off >= 0) atomic_add_at<T, N>(self, off, self_elements, scaled(v, alpha));
        return;
    }
    float *mine = scratch + lane * N;
#pragma unroll
    for (int k = 0; k < N; k++) mine[k] = alpha * tk::to_float(v.elem[k]);
    __syncwarp();
    if (off >= 0 && lane == static_cast<unsigned>(__ffs(peers) - 1)) {
        float sum[N];
#pragma unroll
        for (int k = 0; k < N; k++) sum[k] = mine[k];
        for (unsigned m = peers & (peers - 1); m; m &= m - 1) {
            const float *other = scratch + (__ffs(m) - 1) * N;
#pragma unroll
            for (int k = 0; k < N; k++) sum[k] += other[k];
        }
        Pack<T, N> r;
#pragma unroll
        for (int k = 0; k < N; k++) r.elem[k] = tk::from_float<T>(sum[k]);
        atomic_add_at<T, N>(self, off, self_elements, r);
    }
    __syncwarp();
}

/* large: unit = (o, j, q) over the source packs, index from global memory, atomic adds; does
 * nothing when the validation kernel found an index out of range. When a warp's 32 consecutive
 * units can reach one element twice (inner_packs < 32: a warp spans several indices; with 32 or
 * more packs per row its lanes lie on distinct positions of at most two rows, never the same
 * element), the warp goes a tile of 32 units at a time and pre-aggregates repeated destinations
 * (warp_aggregated_add), so a few hot rows (a histogram's shape) take one atomic per distinct
 * row per warp; PyTorch's kernel issues one per element. */
template <typename T, int N, typename Idx, typename I>
__global__ void __launch_bounds__(tk::kMaxBlockSize) large_kernel(Args<T, Idx, I> a)
{
    if (*a.status != -1) return;
    const Geometry<I> &g = a.g;
    const I stride = static_cast<I>(gridDim.x) * blockDim.x;
    if (g.inner_packs >= 32) {
        for (I u = static_cast<I>(blockIdx.x) * blockDim.x + threadIdx.x; u < g.units; u += stride) {
            I o, j, q;
            split_unit(g, u, &o, &j, &q);
            const int64_t idx = static_cast<int64_t>(__ldg(a.index + j));
            const Pack<T, N> v = scaled(tk::load_pack<T, N>(a.source + static_cast<int64_t>(u) * N), a.alpha);
            const int64_t off = (static_cast<int64_t>(o) * g.dim_size + idx) * g.inner +
                                static_cast<int64_t>(q) * N;
            atomic_add_at<T, N>(a.self, off, g.self_elements, v);
        }
        return;
    }
    extern __shared__ float scratch_raw[];
    float *scratch = scratch_raw + (threadIdx.x & ~31u) * N;
    const I lane = threadIdx.x & 31u;
    /* the loop runs per warp tile: its condition is the same in the 32 lanes */
    for (I t = static_cast<I>(blockIdx.x) * blockDim.x + (threadIdx.x & ~31u); t < g.units; t += stride) {
        const I u = t + lane;
        int64_t off = -1;
        Pack<T, N> v;
#pragma unroll
        for (int k = 0; k < N; k++) v.elem[k] = tk::from_float<T>(0.0f);
        if (u < g.units) {
            I o, j, q;
            split_unit(g, u, &o, &j, &q);
            const int64_t idx = static_cast<int64_t>(__ldg(a.index + j));
            v = tk::load_pack<T, N>(a.source + static_cast<int64_t>(u) * N);
            off = (static_cast<int64_t>(o) * g.dim_size + idx) * g.inner + static_cast<int64_t>(q) * N;
        }
        warp_aggregated_add<T, N>(a.self, g.self_elements, off, v, a.alpha, scratch);
    }
}

/* Lowers *status (set to -1, all ones, before) to the first j with index[j] outside
 * [0, dim_size). Each thread loads kIndexUnroll indices before it checks any (one round of
 * memory latency instead of one per index). */
template <typename Idx>
__global__ void validate_kernel(const Idx *index, int64_t n_index, int64_t dim_size, int64_t *status)
{
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t base = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; base < n_index;
         base += kIndexUnroll * stride) {
        int64_t v[kIndexUnroll];
#pragma unroll
        for (int k = 0; k < kIndexUnroll; k++) {
            const int64_t j = base + k * stride;
            v[k] = j < n_index ? static_cast<int64_t>(__ldg(index + j)) : 0;
        }
#pragma unroll
        for (int k = 0; k < kIndexUnroll; k++) {
            const int64_t j = base + k * stride;
            if (j < n_index && (v[k] < 0 || v[k] >= dim_size)) {
                atomicMin(reinterpret_cast<unsigned long long *>(status), static_cast<unsigned long long>(j));
                return;
            }
        }
    }
}

/* ---- launchers ----------------------------------------------------------------------------- */

enum Kernel { K_OWNER, K_SPREAD, K_LARGE };

/* The collapsed call. */
struct Problem {
    int64_t outer, dim_size, inner, n_index;
    int64_t self_elements, source_elements;
};

/* Grid for `units` work items: launch.cuh's rule with grid_cap blocks resident per SM. */
tk_status grid_for(int64_t units, const tk_index_add_config &c, unsigned *grid)
{
    tk::DeviceLimits lim;
    const tk_status st = tk::device_limits(&lim);
    if (st != TK_OK) return st;
    const tk::DeviceLimits capped = {lim.sm_count, c.grid_cap * c.block_size};
    return tk::grid_for_limits(TK_LOOP_GRID_STRIDE, units, c.block_size, 1, capped, grid);
}

template <typename T, int N, typename Idx, typename I>
tk_status launch_typed(Kernel k, const Problem &p, T *self, const T *source, const Idx *index,
                       float alpha, int64_t *status, const tk_index_add_config &c,
                       cudaStream_t stream)
{
    Args<T, Idx, I> a;
    a.self = self;
    a.source = source;
    a.index = index;
    a.status = status;
    a.alpha = alpha;
    Geometry<I> &g = a.g;
    g.outer = static_cast<I>(p.outer);
    g.dim_size = static_cast<I>(p.dim_size);
    g.inner = static_cast<I>(p.inner);
    g.n_index = static_cast<I>(p.n_index);
    g.inner_packs = static_cast<I>(p.inner / N);
    g.by_inner_packs.init(g.inner_packs);
    g.by_n_index.init(g.n_index);
    g.self_elements = p.self_elements;
    const int64_t positions = p.outer * (p.inner / N);
    g.units = static_cast<I>(k == K_OWNER ? positions : positions * p.n_index);
    unsigned grid = 0;
    tk_status st = grid_for(static_cast<int64_t>(g.units), c, &grid);
    if (st != TK_OK) return st;
    /* the indices' bytes rounded up to 16: for the owner kernel's tail (n_index % 4 indices
     * after the last chunk of four) ptxas emits one 16-byte LDS.128 at the next chunk's start
     * (sm_90 SASS of small_owner_kernel<float, 1, int, unsigned>), which read up to 12 bytes
     * past an allocation of exactly n_index * sizeof(Idx) bytes (compute-sanitizer's memcheck,
     * n_index = 37); the padding is never written, and the loaded words past n_index unused */
    const size_t smem = (static_cast<size_t>(p.n_index) * sizeof(Idx) + 15) / 16 * 16;
    switch (k) {
    case K_OWNER: small_owner_kernel<T, N, Idx, I><<<grid, c.block_size, smem, stream>>>(a); break;
    case K_SPREAD: small_spread_kernel<T, N, Idx, I><<<grid, c.block_size, smem, stream>>>(a); break;
    case K_LARGE:
        large_kernel<T, N, Idx, I><<<grid, c.block_size,
                                     g.inner_packs < 32 ? static_cast<size_t>(c.block_size) * N * sizeof(float) : 0,
                                     stream>>>(a);
        break;
    }
    return cudaGetLastError() == cudaSuccess ? TK_OK : TK_ERR_LAUNCH;
}

template <typename T, int N, typename Idx>
tk_status launch_indexed(Kernel k, const Problem &p, T *self, const T *source, const Idx *index,
                         float alpha, int64_t *status, const tk_index_add_config &c,
                         cudaStream_t stream)
{
    const bool small = p.self_elements < INT32_MAX && p.source_elements < INT32_MAX;
    if (small)
        return launch_typed<T, N, Idx, uint32_t>(k, p, self, source, index, alpha, status, c, stream);
    return launch_typed<T, N, Idx, uint64_t>(k, p, self, source, index, alpha, status, c, stream);
}

/* The pack for this call: c.pack_size when inner is a multiple of it and both tensors are
 * aligned to it, else 1. */
template <typename T>
int usable_pack(const Problem &p, const void *self, const void *source, int pack)
{
    const size_t bytes = static_cast<size_t>(pack) * sizeof(T);
    if (pack > 1 && p.inner % pack == 0 && tk::is_aligned(self, bytes) && tk::is_aligned(source, bytes))
        return pack;
    return 1;
}

template <typename T, typename Idx>
tk_status launch_add(Kernel k, const Problem &p, T *self, const T *source, const Idx *index,
                     float alpha, int64_t *status, const tk_index_add_config &c, cudaStream_t stream)
{
    switch (usable_pack<T>(p, self, source, c.pack_size)) {
    case 2: return launch_indexed<T, 2, Idx>(k, p, self, source, index, alpha, status, c, stream);
    case 4: return launch_indexed<T, 4, Idx>(k, p, self, source, index, alpha, status, c, stream);
    case 8:
        if constexpr (tk::kPackFits<T, 8>)
            return launch_indexed<T, 8, Idx>(k, p, self, source, index, alpha, status, c, stream);
        return TK_ERR_UNSUPPORTED_CONFIG;
    default: return launch_indexed<T, 1, Idx>(k, p, self, source, index, alpha, status, c, stream);
    }
}

/* Checks the indices and adds, in stream order, with *status (device) the outcome. */
template <typename T, typename Idx>
tk_status run(const Problem &p, T *self, const T *source, const Idx *index, float alpha,
              int64_t *status, const tk_index_add_config &c, cudaStream_t stream)
{
    if (p.n_index == 0) return cudaMemsetAsync(status, 0xff, sizeof *status, stream) == cudaSuccess ? TK_OK : TK_ERR_CUDA;
    const bool small = p.n_index <= c.threshold && p.source_elements > 0;
    if (small)
        return launch_add<T, Idx>(c.small_mode == TK_INDEX_SMALL_SPREAD ? K_SPREAD : K_OWNER, p,
                                  self, source, index, alpha, status, c, stream);
    if (cudaMemsetAsync(status, 0xff, sizeof *status, stream) != cudaSuccess) return TK_ERR_CUDA;
    tk::DeviceLimits lim;
    tk_status st = tk::device_limits(&lim);
    if (st != TK_OK) return st;
    const int64_t blocks = tk::ceil_div(p.n_index, 256);
    const unsigned vgrid = static_cast<unsigned>(blocks < 4 * lim.sm_count ? blocks : 4 * lim.sm_count);
    validate_kernel<Idx><<<vgrid, 256, 0, stream>>>(index, p.n_index, p.dim_size, status);
    if (cudaGetLastError() != cudaSuccess) return TK_ERR_LAUNCH;
    if (p.source_elements == 0) return TK_OK;
    return launch_add<T, Idx>(K_LARGE, p, self, source, index, alpha, status, c, stream);
}

/* ---- config space and resolution ----------------------------------------------------------- */

/* Parameter order of the space (sorted by name), as tk_config_parse fills values[]. */
enum { P_BLOCK_SIZE, P_GRID_CAP, P_PACK_SIZE, P_SMALL_MODE, P_THRESHOLD, P_COUNT };

const int64_t kPackSizes[] = {1, 2, 4, 8};
const char *const kSmallModes[] = {"owner", "spread"};
const tk_param_desc kParams[P_COUNT] = {
    {"block_size", 0, 0, nullptr, nullptr, 32, tk::kMaxBlockSize, 32, 128},
    {"grid_cap", 0, 0, nullptr, nullptr, 1, 1024, 1, 8},
    {"pack_size", 1, 4, kPackSizes, nullptr, 0, 0, 0, 1},
    {"small_mode", 1, 2, nullptr, kSmallModes, 0, 0, 0, TK_INDEX_SMALL_OWNER},
    {"threshold", 0, 0, nullptr, nullptr, 0, TK_INDEX_ADD_MAX_THRESHOLD, 1, 16},
};
const tk_config_space kSpace = {"index_add", P_COUNT, kParams};

/* The op name the tuner and the generated header use (the tk_tuned_values cache key). */
const char kAdd[] = "index_add.add";

tk_index_add_config config_from_values(const int64_t *v)
{
    tk_index_add_config c;
    c.block_size = static_cast<int>(v[P_BLOCK_SIZE]);
    c.grid_cap = static_cast<int>(v[P_GRID_CAP]);
    c.pack_size = static_cast<int>(v[P_PACK_SIZE]);
    c.small_mode = static_cast<tk_index_add_small_mode>(v[P_SMALL_MODE]);
    c.threshold = static_cast<int>(v[P_THRESHOLD]);
    return c;
}

bool config_supported(const tk_index_add_config &c, size_t elem)
{
    return c.threshold >= 0 && c.threshold <= TK_INDEX_ADD_MAX_THRESHOLD && c.block_size >= 32 &&
           c.block_size <= tk::kMaxBlockSize && c.block_size % 32 == 0 && c.grid_cap >= 1 &&
           c.grid_cap <= 1024 &&
           (c.pack_size == 1 || c.pack_size == 2 || c.pack_size == 4 || c.pack_size == 8) &&
           static_cast<size_t>(c.pack_size) * elem <= static_cast<size_t>(tk::kMaxPackBytes) &&
           (c.small_mode == TK_INDEX_SMALL_OWNER || c.small_mode == TK_INDEX_SMALL_SPREAD);
}

bool dtype_valid(tk_dtype d) { return d == TK_F32 || d == TK_F16 || d == TK_BF16; }

tk_index_add_config tuned_config(tk_dtype dtype, int64_t source_elements)
{
    const int64_t *v = tk_tuned_values(&kSpace, kAdd, tk_dtype_name(dtype), source_elements);
    if (v) {
        const tk_index_add_config c = config_from_values(v);
        if (config_supported(c, tk_dtype_size(dtype))) return c;
    }
    return tk_index_add_default_config();
}

/* a * b into *out, false when it would exceed 2^62 (sizes are >= 0). */
bool mul_ok(int64_t a, int64_t b, int64_t *out)
{
    if (a != 0 && b > (int64_t{1} << 62) / a) return false;
    *out = a * b;
    return true;
}

/* Collapses the shape around dim; false for bad shapes or overflowing products. */
bool collapse(int ndim, const int64_t *shape, int dim, int64_t n_index, Problem *p)
{
    p->outer = 1;
    p->inner = 1;
    for (int k = 0; k < ndim; k++) {
        if (shape[k] < 0) return false;
        if (k < dim && !mul_ok(p->outer, shape[k], &p->outer)) return false;
        if (k > dim && !mul_ok(p->inner, shape[k], &p->inner)) return false;
    }
    p->dim_size = shape[dim];
    p->n_index = n_index;
    int64_t t = 0;
    return mul_ok(p->outer, p->dim_size, &t) && mul_ok(t, p->inner, &p->self_elements) &&
           mul_ok(p->outer, n_index, &t) && mul_ok(t, p->inner, &p->source_elements);
}

} // namespace

/* ---- public entry points ------------------------------------------------------------------- */

extern "C" {

const tk_config_space *tk_index_add_config_space(void) { return &kSpace; }

tk_index_add_config tk_index_add_default_config(void)
{
    int64_t v[P_COUNT];
    for (int k = 0; k < P_COUNT; k++) v[k] = kParams[k].default_value;
    return config_from_values(v);
}

tk_status tk_index_add_config_from_text(const char *text, tk_index_add_config *out)
{
    if (!text || !out) return TK_ERR_INVALID_ARGUMENT;
    int64_t v[P_COUNT];
    const tk_status st = tk_config_parse(&kSpace, text, v);
    if (st != TK_OK) return st;
    *out = config_from_values(v);
    return TK_OK;
}

tk_status tk_index_add_tuned_config(tk_dtype dtype, int64_t source_elements,
                                    tk_index_add_config *out)
{
    if (!out || !dtype_valid(dtype) || source_elements < 0) return TK_ERR_INVALID_ARGUMENT;
    *out = tuned_config(dtype, source_elements);
    return TK_OK;
}

tk_status tk_index_add(tk_dtype dtype, void *self, int ndim, const int64_t *shape, int dim,
                       const void *index, tk_index_type index_type, int64_t n_index,
                       const void *source, double alpha, int64_t *status,
                       const tk_index_add_config *config, cudaStream_t stream)
{
    if (!dtype_valid(dtype) || (index_type != TK_INDEX_I32 && index_type != TK_INDEX_I64) ||
        ndim < 1 || ndim > TK_INDEX_ADD_MAX_DIMS || !shape || dim < -ndim || dim >= ndim ||
        n_index < 0)
        return TK_ERR_INVALID_ARGUMENT;
    if (dim < 0) dim += ndim;
    Problem p;
    if (!collapse(ndim, shape, dim, n_index, &p) || (p.self_elements > 0 && !self) ||
        (p.source_elements > 0 && !source) || (n_index > 0 && !index))
        return TK_ERR_INVALID_ARGUMENT;
    if (config && !config_supported(*config, tk_dtype_size(dtype))) return TK_ERR_UNSUPPORTED_CONFIG;
    const tk_index_add_config c = config ? *config : tuned_config(dtype, p.source_elements);
    const float a = static_cast<float>(alpha);

    int64_t *word = status;
    if (!word && cudaMallocAsync(reinterpret_cast<void **>(&word), sizeof *word, stream) != cudaSuccess)
        return TK_ERR_CUDA;
    tk_status st = tk::dispatch_dtype(dtype, [&](auto tag) {
        using T = decltype(tag);
        T *s = static_cast<T *>(self);
        const T *src = static_cast<const T *>(source);
        if (index_type == TK_INDEX_I32)
            return run<T, int32_t>(p, s, src, static_cast<const int32_t *>(index), a, word, c, stream);
        return run<T, int64_t>(p, s, src, static_cast<const int64_t *>(index), a, word, c, stream);
    });
    if (status) return st;
    /* synchronous report: read the word back, free it, wait */
    int64_t outcome = 0;
    if (st == TK_OK &&
        cudaMemcpyAsync(&outcome, word, sizeof outcome, cudaMemcpyDeviceToHost, stream) != cudaSuccess)
        st = TK_ERR_CUDA;
    if (cudaFreeAsync(word, stream) != cudaSuccess && st == TK_OK) st = TK_ERR_CUDA;
    if (cudaStreamSynchronize(stream) != cudaSuccess && st == TK_OK) st = TK_ERR_CUDA;
    if (st == TK_OK && outcome != -1) st = TK_ERR_OUT_OF_RANGE;
    return st;
}

} // extern "C"
