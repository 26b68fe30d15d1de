/* relu_mask.cu: the relu_mask family: ReLU and Add+ReLU forward passes that also write a bitmask
 * of where the gradient passes, and backward passes that read it instead of y (OneFlow's fused
 * BN-ReLU / BN-Add-ReLU kernels; the semantics and THE MASK LAYOUT are in tunekit_relu_mask.h).
 *
 * Ops: relu_fwd      s = x             y = s passes ? s : +0, mask bit = s passes
 *      add_relu_fwd  s = x + addend    (the native add of the dtype, rounded once), the same
 *      relu_bwd      dx = bit ? dy : +0 (bit from the mask, or for scheme none: y passes)
 *      add_relu_bwd  the same dx, also stored to d_addend when that is a separate buffer
 * "s passes" is !(s <= 0) (s > 0 or NaN). Dtypes f32, f16 (__half), bf16 (__nv_bfloat16).
 * Parameters (tk_relu_mask_config_space):
 *   mask        (compile time) how threads map to elements; every scheme works in warp tiles of
 *               32 * unroll items (see "warp tiles" below), lane l's u-th item of a tile being
 *               item u * 32 + l of it:
 *               none     items are packs; the forward writes no mask, the backward reads y
 *               byte8    items are 8 consecutive elements (8 / pack_size packs) and their mask
 *                        byte; consecutive lanes are 8 elements apart (the write-up's first
 *                        scheme)
 *               ballot32 items are packs, consecutive lanes on consecutive packs. Forward:
 *                        each 32 packs of a tile (a step, 32 * pack_size elements) give
 *                        pack_size mask words (the write-up's third scheme, with vector
 *                        packs), word m the OR of its 32 / pack_size lanes' pass bits, gathered
 *                        by butterfly shuffles (pack_size 1: one ballot); the tile's
 *                        unroll * pack_size words are stored by that many lanes at once. Backward: those lanes load the tile's words at once, before
 *                        the dy loads, and each lane takes its bits with a shuffle.
 *   unroll      1, 2, 4 (compile time; default 1): items per lane per tile, all loaded (mask
 *               first) before any is stored: more bytes in flight per thread, a longer
 *               contiguous run of mask per warp
 *   block_size  32..1024, multiple of 32 (launch time; default 256)
 *   loop        grid_stride | one_shot (launch time; default grid_stride): launch.cuh's rule
 *               over the tiles' threads (32 per tile): a grid-stride grid capped at `waves`
 *               waves, each warp looping over tiles, or a warp per tile
 *   waves       1..1024 (launch time; default 32): the grid-stride cap
 *   pack_size   1, 2, 4, 8 elements with pack_size * sizeof(T) <= 16 (compile time; default
 *               16 bytes: f32 4, f16/bf16 8)
 *   cache_hint  normal | evict_first (compile time; default normal): every global load and
 *               store of the kernel, mask included, carries the evict-first hint
 * Alignment: when a data pointer is not aligned to the pack, the pack_size 1 instantiation runs
 * (no head is peeled: the mask's words are tied to element indices). The last tile is done item
 * by item, and the last pack or byte of a size that is not a multiple of it with guarded scalar
 * accesses; elements past n give 0 bits, so the mask's padding bits are 0. Indices are 64-bit.
 *
 * Order: device helpers, warp tiles, kernels, launchers, config space and resolution, public
 * entry points. */
#include <cstdint>
#include <cstring>
#include <cuda_runtime_api.h>
#include "dtype.cuh"
#include "launch.cuh"
#include "pack.cuh"
#include "tunekit.h"
#include "tuned_lookup.h"

namespace {

using tk::Pack;

constexpr unsigned kFullWarp = 0xffffffffu;

/* ---- device helpers ------------------------------------------------------------------------ */

template <typename T>
__device__ __forceinline__ bool passes(T s)
{
    return !(tk::to_float(s) <= 0.0f);
}

template <typename T>
__device__ __forceinline__ T zero()
{
    return tk::from_float<T>(0.0f);
}

/* s = x + a with one rounding in T (the 16-bit types add natively, as torch.add does). */
__device__ __forceinline__ float add(float a, float b) { return a + b; }
template <typename T>
__device__ __forceinline__ T add(T a, T b)
{
    return __hadd(a, b);
}

/* Scalar accesses, with or without the evict-first hint (packs: tk::load_pack_hinted). */
template <bool kEF, typename T>
__device__ __forceinline__ T load1(const T *p)
{
    return tk::load_pack_hinted<kEF, T, 1>(p).elem[0];
}

template <bool kEF, typename T>
__device__ __forceinline__ void store1(T *p, T v)
{
    Pack<T, 1> q;
    q.elem[0] = v;
    tk::store_pack_hinted<kEF, T, 1>(p, q);
}

/* Mask words and bytes (the same bits: see the layout in tunekit_relu_mask.h). The loads carry
 * the L2::256B prefetch-size hint: a miss fills the whole 256-byte block of the mask around it
 * into L2, so the mask, which each warp reads in runs of 16 to 128 bytes, comes from DRAM in
 * 256-byte requests instead of a 32-byte sector per warp or two (the hint changes how much L2
 * fetches, never what the load returns). Words as they are, bytes zero-extended. */
template <bool kEF>
__device__ __forceinline__ unsigned load_mask(const uint32_t *p)
{
    unsigned v;
    if constexpr (kEF) asm("ld.global.cs.L2::256B.u32 %0, [%1];" : "=r"(v) : "l"(p));
    else asm("ld.global.L2::256B.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}

template <bool kEF>
__device__ __forceinline__ unsigned load_mask(const uint8_t *p)
{
    unsigned v;
    if constexpr (kEF) asm("ld.global.cs.L2::256B.u8 %0, [%1];" : "=r"(v) : "l"(p));
    else asm("ld.global.L2::256B.u8 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}

template <bool kEF, typename M>
__device__ __forceinline__ void store_mask(M *p, M v)
{
    if constexpr (kEF) __stcs(p, v);
    else *p = v;
}

/* y of one loaded pack (x, and the addend when kAdd) and its pass bits in *bits (bit k: element
 * k). */
template <int N, bool kAdd, typename T>
__device__ __forceinline__ Pack<T, N> relu_values(const Pack<T, N> &xv, const Pack<T, N> &av,
                                                  unsigned *bits)
{
    Pack<T, N> yv;
    unsigned b = 0;
#pragma unroll
    for (int k = 0; k < N; k++) {
        T s = xv.elem[k];
        if constexpr (kAdd) s = add(s, av.elem[k]);
        const bool p = passes(s);
        yv.elem[k] = p ? s : zero<T>();
        b |= static_cast<unsigned>(p) << k;
    }
    *bits = b;
    return yv;
}

/* dx of one loaded dy pack: element k where bit k of bits is set, else +0. */
template <int N, typename T>
__device__ __forceinline__ Pack<T, N> grad_values(const Pack<T, N> &g, unsigned bits)
{
    Pack<T, N> o;
#pragma unroll
    for (int k = 0; k < N; k++)
        o.elem[k] = (bits >> k) & 1u ? g.elem[k] : zero<T>();
    return o;
}

/* The pass bits of one loaded y pack (y passes exactly where s passed). */
template <int N, typename T>
__device__ __forceinline__ unsigned y_bits(const Pack<T, N> &yv)
{
    unsigned b = 0;
#pragma unroll
    for (int k = 0; k < N; k++)
        b |= static_cast<unsigned>(passes(yv.elem[k])) << k;
    return b;
}

/* The forward of elements [e, e + count) one at a time (tails and misaligned pointers): stores
 * y and returns their pass bits (bit k: element e + k). */
template <bool kAdd, bool kEF, typename T>
__device__ __forceinline__ unsigned fwd_scalars(int64_t e, int count, const T *x, const T *a,
                                                T *y)
{
    unsigned bits = 0;
    for (int k = 0; k < count; k++) {
        T s = load1<kEF>(x + e + k);
        if constexpr (kAdd) s = add(s, load1<kEF>(a + e + k));
        const bool p = passes(s);
        store1<kEF>(y + e + k, p ? s : zero<T>());
        bits |= static_cast<unsigned>(p) << k;
    }
    return bits;
}

/* The forward of the N elements from e: stores y and returns their pass bits (bit k: element
 * e + k). A pack wholly below n is one vector access per pointer; otherwise the elements below n
 * are done one at a time and those past n give 0 bits. */
template <int N, bool kAdd, bool kEF, typename T>
__device__ __forceinline__ unsigned fwd_pack(int64_t e, int64_t n, const T *x, const T *a, T *y)
{
    if (e + N > n) return e < n ? fwd_scalars<kAdd, kEF>(e, static_cast<int>(n - e), x, a, y) : 0u;
    const Pack<T, N> xv = tk::load_pack_hinted<kEF, T, N>(x + e);
    Pack<T, N> av = xv;
    if constexpr (kAdd) av = tk::load_pack_hinted<kEF, T, N>(a + e);
    unsigned bits;
    tk::store_pack_hinted<kEF, T, N>(y + e, relu_values<N, kAdd>(xv, av, &bits));
    return bits;
}

/* The backward of elements [e, e + count) one at a time, with pass bits `bits` (bit k: element
 * e + k): dx, and da when not NULL. */
template <bool kEF, typename T>
__device__ __forceinline__ void bwd_scalars(int64_t e, int count, unsigned bits, const T *dy,
                                            T *dx, T *da)
{
    for (int k = 0; k < count; k++) {
        const T v = (bits >> k) & 1u ? load1<kEF>(dy + e + k) : zero<T>();
        store1<kEF>(dx + e + k, v);
        if (da) store1<kEF>(da + e + k, v);
    }
}

/* The backward of the N elements from e with pass bits `bits`, as fwd_pack splits the work. */
template <int N, bool kEF, typename T>
__device__ __forceinline__ void bwd_pack(int64_t e, int64_t n, unsigned bits, const T *dy, T *dx,
                                         T *da)
{
    if (e + N > n) {
        if (e < n) bwd_scalars<kEF>(e, static_cast<int>(n - e), bits, dy, dx, da);
        return;
    }
    const Pack<T, N> o = grad_values<N>(tk::load_pack_hinted<kEF, T, N>(dy + e), bits);
    tk::store_pack_hinted<kEF, T, N>(dx + e, o);
    if (da) tk::store_pack_hinted<kEF, T, N>(da + e, o);
}

/* The pass bits of the N elements from e read from y, guarded as fwd_pack (past n: 0 bits). */
template <int N, bool kEF, typename T>
__device__ __forceinline__ unsigned y_bits_at(int64_t e, int64_t n, const T *y)
{
    if (e + N <= n) return y_bits<N>(tk::load_pack_hinted<kEF, T, N>(y + e));
    unsigned bits = 0;
    for (int k = 0; k < N && e + k < n; k++)
        bits |= static_cast<unsigned>(passes(load1<kEF>(y + e + k))) << k;
    return bits;
}

__device__ __forceinline__ int64_t thread_index()
{
    return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ int64_t thread_count()
{
    return static_cast<int64_t>(gridDim.x) * blockDim.x;
}

/* ---- warp tiles -------------------------------------------------------------------------------
 * Every kernel splits its items (packs of N elements; for byte8, groups of 8 elements with their
 * mask byte) into warp tiles of 32 * U items. Lane l's u-th item of tile t is item
 * t * 32U + u * 32 + l: each of a warp's U accesses to an array covers 32 consecutive items
 * (coalesced), and a tile's mask is one contiguous run (U * N words for ballot32: 64 bytes for
 * f32 with U = 4, a whole 128-byte line for 16-bit types; 32 U bytes for byte8). Warp w of the
 * grid takes tiles w, w + W, w + 2W, ... (W warps in the grid; a one_shot grid has a warp per
 * tile, so it takes one). A tile wholly below n loads all of a lane's U items (mask first) before
 * it stores any; the last tile goes item by item with guards. The loop condition is the same for
 * the 32 lanes of a warp (blocks are whole warps), so ballots and shuffles have the full warp. */

__device__ __forceinline__ int lane_index() { return static_cast<int>(threadIdx.x & 31u); }
__device__ __forceinline__ int64_t first_tile() { return thread_index() / 32; }
__device__ __forceinline__ int64_t tile_stride() { return thread_count() / 32; }

/* The forward of a lane's U packs in a tile, from element e0, 32N elements apart: stores y and
 * leaves pack u's pass bits in bits[u]. full: every pack lies below n. */
template <int N, int U, bool kAdd, bool kEF, typename T>
__device__ __forceinline__ void fwd_tile(bool full, int64_t e0, int64_t n, const T *x,
                                         const T *a, T *y, unsigned (&bits)[U])
{
    constexpr int64_t kStep = 32 * N;
    if (full) {
        Pack<T, N> xv[U], av[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            xv[u] = tk::load_pack_hinted<kEF, T, N>(x + e0 + u * kStep);
            av[u] = xv[u];
            if constexpr (kAdd) av[u] = tk::load_pack_hinted<kEF, T, N>(a + e0 + u * kStep);
        }
#pragma unroll
        for (int u = 0; u < U; u++)
            tk::store_pack_hinted<kEF, T, N>(y + e0 + u * kStep,
                                             relu_values<N, kAdd>(xv[u], av[u], &bits[u]));
    } else {
#pragma unroll
        for (int u = 0; u < U; u++)
            bits[u] = fwd_pack<N, kAdd, kEF>(e0 + u * kStep, n, x, a, y);
    }
}

/* The pass bits of a lane's u-th pack from its tile's mask words, lane L holding word L of the
 * tile: pack u * 32 + lane starts at bit (u * 32 + lane) * N of the tile, i.e. at bit
 * (lane * N) % 32 of word u * N + lane * N / 32. Every lane of the warp calls it (a shuffle). */
template <int N>
__device__ __forceinline__ unsigned tile_bits(uint32_t words, int u, int lane)
{
    const uint32_t w = __shfl_sync(kFullWarp, words, u * N + ((lane * N) >> 5));
    return w >> ((lane * N) & 31);
}

/* ---- kernels ---------------------------------------------------------------------------------- */

/* Scheme none, forward: items are packs, no mask. */
template <int N, int U, bool kAdd, bool kEF, typename T>
__global__ void __launch_bounds__(tk::kMaxBlockSize)
    fwd_none_kernel(int64_t n, int64_t n_tiles, const T *x, const T *a, T *y)
{
    const int lane = lane_index();
    for (int64_t t = first_tile(); t < n_tiles; t += tile_stride()) {
        unsigned bits[U];
        fwd_tile<N, U, kAdd, kEF>((t + 1) * (32 * U * N) <= n, (t * 32 * U + lane) * N, n, x, a,
                                  y, bits);
    }
}

/* Word m of a warp step's N mask words (m < N, step = 32 packs = 32N elements), in the lanes
 * of group m (lanes m * 32/N .. (m + 1) * 32/N - 1): element 32m + j of the step is element j % N
 * of the pack of lane m * 32/N + j / N, so the word is the OR of each group lane's N pass bits
 * shifted to (lane % (32/N)) * N, gathered by log2(32/N) butterfly shuffles (N = 1: the ballot
 * itself). Every lane of the warp calls it. */
template <int N>
__device__ __forceinline__ uint32_t step_word(unsigned bits, int lane)
{
    if constexpr (N == 1) {
        return __ballot_sync(kFullWarp, bits & 1u);
    } else {
        constexpr int kGroup = 32 / N;
        uint32_t x = static_cast<uint32_t>(bits) << ((lane % kGroup) * N);
#pragma unroll
        for (int d = 1; d < kGroup; d <<= 1) x |= __shfl_xor_sync(kFullWarp, x, d);
        return x;
    }
}

/* Scheme ballot32, forward: items are packs. Step u of a tile (its packs u * 32 .. u * 32 + 31,
 * 32N elements) gives N mask words, word m in the lanes of group m (step_word). Lane L < U * N
 * takes word L of the tile (step L / N, word L % N, from lane (L % N) * 32/N) with one shuffle
 * per step, and the warp stores the tile's U * N words with one coalesced store. (The scheme's
 * name is its first implementation's: N ballots per step, each spread to stride N; the words
 * and the lanes' packs are the same, the shuffles issue about a sixth of the instructions.) */
template <int N, int U, bool kAdd, bool kEF, typename T>
__global__ void __launch_bounds__(tk::kMaxBlockSize)
    fwd_ballot32_kernel(int64_t n, int64_t n_tiles, int64_t n_words, const T *x, const T *a,
                        T *y, uint32_t *mask)
{
    const int lane = lane_index();
    for (int64_t t = first_tile(); t < n_tiles; t += tile_stride()) {
        unsigned bits[U];
        fwd_tile<N, U, kAdd, kEF>((t + 1) * (32 * U * N) <= n, (t * 32 * U + lane) * N, n, x, a,
                                  y, bits);
        uint32_t word = 0;
#pragma unroll
        for (int u = 0; u < U; u++) {
            const uint32_t w = step_word<N>(bits[u], lane);
            const uint32_t mine = __shfl_sync(kFullWarp, w, (lane % N) * (32 / N));
            if (lane / N == u) word = mine;
        }
        const int64_t w = t * (U * N) + lane;
        if (lane < U * N && w < n_words) store_mask<kEF>(mask + w, word);
    }
}

/* Scheme byte8, forward: item b is elements [8b, 8b + 8) and mask byte b, for b below the mask's
 * byte count (the bytes past ceil(n / 8) are the last word's zero padding). */
template <int N, int U, bool kAdd, bool kEF, typename T>
__global__ void __launch_bounds__(tk::kMaxBlockSize)
    fwd_byte8_kernel(int64_t n, int64_t n_tiles, int64_t n_bytes, const T *x, const T *a, T *y,
                     uint8_t *mask)
{
    constexpr int kPacks = 8 / N;
    const int lane = lane_index();
    for (int64_t t = first_tile(); t < n_tiles; t += tile_stride()) {
        const int64_t b0 = t * 32 * U + lane;
        if ((t + 1) * (32 * U * 8) <= n) {
            Pack<T, N> xv[U][kPacks], av[U][kPacks];
#pragma unroll
            for (int u = 0; u < U; u++)
#pragma unroll
                for (int p = 0; p < kPacks; p++) {
                    const int64_t e = (b0 + u * 32) * 8 + p * N;
                    xv[u][p] = tk::load_pack_hinted<kEF, T, N>(x + e);
                    av[u][p] = xv[u][p];
                    if constexpr (kAdd) av[u][p] = tk::load_pack_hinted<kEF, T, N>(a + e);
                }
#pragma unroll
            for (int u = 0; u < U; u++) {
                unsigned bits = 0;
#pragma unroll
                for (int p = 0; p < kPacks; p++) {
                    unsigned pb;
                    tk::store_pack_hinted<kEF, T, N>(y + (b0 + u * 32) * 8 + p * N,
                                     relu_values<N, kAdd>(xv[u][p], av[u][p], &pb));
                    bits |= pb << (p * N);
                }
                store_mask<kEF>(mask + b0 + u * 32, static_cast<uint8_t>(bits));
            }
        } else {
#pragma unroll
            for (int u = 0; u < U; u++) {
                const int64_t b = b0 + u * 32;
                if (b >= n_bytes) continue;
                unsigned bits = 0;
#pragma unroll
                for (int p = 0; p < kPacks; p++)
                    bits |= fwd_pack<N, kAdd, kEF>(b * 8 + p * N, n, x, a, y) << (p * N);
                store_mask<kEF>(mask + b, static_cast<uint8_t>(bits));
            }
        }
    }
}

/* Scheme none, backward: items are packs, the bits from y. */
template <int N, int U, bool kEF, typename T>
__global__ void __launch_bounds__(tk::kMaxBlockSize)
    bwd_none_kernel(int64_t n, int64_t n_tiles, const T *dy, const T *y, T *dx, T *da)
{
    constexpr int64_t kStep = 32 * N;
    const int lane = lane_index();
    for (int64_t t = first_tile(); t < n_tiles; t += tile_stride()) {
        const int64_t e0 = (t * 32 * U + lane) * N;
        if ((t + 1) * (32 * U * N) <= n) {
            Pack<T, N> yv[U], g[U];
#pragma unroll
            for (int u = 0; u < U; u++) {
                yv[u] = tk::load_pack_hinted<kEF, T, N>(y + e0 + u * kStep);
                g[u] = tk::load_pack_hinted<kEF, T, N>(dy + e0 + u * kStep);
            }
#pragma unroll
            for (int u = 0; u < U; u++) {
                const Pack<T, N> o = grad_values<N>(g[u], y_bits<N>(yv[u]));
                tk::store_pack_hinted<kEF, T, N>(dx + e0 + u * kStep, o);
                if (da) tk::store_pack_hinted<kEF, T, N>(da + e0 + u * kStep, o);
            }
        } else {
#pragma unroll
            for (int u = 0; u < U; u++) {
                const int64_t e = e0 + u * kStep;
                bwd_pack<N, kEF>(e, n, y_bits_at<N, kEF>(e, n, y), dy, dx, da);
            }
        }
    }
}

/* Scheme ballot32, backward: items are packs. Lane L < U * N loads word L of the tile (one
 * coalesced load, issued before the dy loads); each lane takes its packs' N bits from those
 * words with a shuffle once its dy packs are on their way. */
template <int N, int U, bool kEF, typename T>
__global__ void __launch_bounds__(tk::kMaxBlockSize)
    bwd_ballot32_kernel(int64_t n, int64_t n_tiles, int64_t n_words, const T *dy,
                        const uint32_t *mask, T *dx, T *da)
{
    constexpr int64_t kStep = 32 * N;
    const int lane = lane_index();
    for (int64_t t = first_tile(); t < n_tiles; t += tile_stride()) {
        const int64_t w = t * (U * N) + lane;
        const uint32_t words = lane < U * N && w < n_words ? load_mask<kEF>(mask + w) : 0u;
        const int64_t e0 = (t * 32 * U + lane) * N;
        if ((t + 1) * (32 * U * N) <= n) {
            Pack<T, N> g[U];
#pragma unroll
            for (int u = 0; u < U; u++)
                g[u] = tk::load_pack_hinted<kEF, T, N>(dy + e0 + u * kStep);
#pragma unroll
            for (int u = 0; u < U; u++) {
                const Pack<T, N> o = grad_values<N>(g[u], tile_bits<N>(words, u, lane));
                tk::store_pack_hinted<kEF, T, N>(dx + e0 + u * kStep, o);
                if (da) tk::store_pack_hinted<kEF, T, N>(da + e0 + u * kStep, o);
            }
        } else {
#pragma unroll
            for (int u = 0; u < U; u++)
                bwd_pack<N, kEF>(e0 + u * kStep, n, tile_bits<N>(words, u, lane), dy, dx, da);
        }
    }
}

/* Scheme byte8, backward: item b is elements [8b, 8b + 8) and mask byte b, b < ceil(n / 8). The
 * U mask bytes are loaded before the dy packs. */
template <int N, int U, bool kEF, typename T>
__global__ void __launch_bounds__(tk::kMaxBlockSize)
    bwd_byte8_kernel(int64_t n, int64_t n_tiles, int64_t n_bytes, const T *dy,
                     const uint8_t *mask, T *dx, T *da)
{
    constexpr int kPacks = 8 / N;
    const int lane = lane_index();
    for (int64_t t = first_tile(); t < n_tiles; t += tile_stride()) {
        const int64_t b0 = t * 32 * U + lane;
        unsigned bits[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            bits[u] = b0 + u * 32 < n_bytes ? load_mask<kEF>(mask + b0 + u * 32) : 0u;
        if ((t + 1) * (32 * U * 8) <= n) {
            Pack<T, N> g[U][kPacks];
#pragma unroll
            for (int u = 0; u < U; u++)
#pragma unroll
                for (int p = 0; p < kPacks; p++)
                    g[u][p] = tk::load_pack_hinted<kEF, T, N>(dy + (b0 + u * 32) * 8 + p * N);
#pragma unroll
            for (int u = 0; u < U; u++)
#pragma unroll
                for (int p = 0; p < kPacks; p++) {
                    const int64_t e = (b0 + u * 32) * 8 + p * N;
                    const Pack<T, N> o = grad_values<N>(g[u][p], bits[u] >> (p * N));
                    tk::store_pack_hinted<kEF, T, N>(dx + e, o);
                    if (da) tk::store_pack_hinted<kEF, T, N>(da + e, o);
                }
        } else {
#pragma unroll
            for (int u = 0; u < U; u++)
#pragma unroll
                for (int p = 0; p < kPacks; p++)
                    bwd_pack<N, kEF>((b0 + u * 32) * 8 + p * N, n, bits[u] >> (p * N), dy, dx,
                                     da);
        }
    }
}

/* ---- launchers ------------------------------------------------------------------------------- */

tk_status finish_launch()
{
    return cudaGetLastError() == cudaSuccess ? TK_OK : TK_ERR_LAUNCH;
}

/* The pointers of one forward call, typed. a is NULL for ReLU; mask NULL for scheme none. */
template <typename T>
struct FwdArgs {
    int64_t n;
    const T *x, *a;
    T *y;
    uint32_t *mask;
};

template <typename T>
struct BwdArgs {
    int64_t n;
    const T *dy, *y;
    const uint32_t *mask;
    T *dx, *da;
};

/* The grid for n_tiles warp tiles: launch.cuh's rule over n_tiles * 32 threads (the work items
 * a thread takes one at a time are its tiles), grid-stride or one_shot as c.loop says. */
tk_status tile_grid(const tk_relu_mask_config &c, int64_t n_tiles, unsigned *grid)
{
    return tk::grid_size(c.loop, n_tiles * 32, c.block_size, c.waves, grid);
}

/* Launches the forward instantiation <N, U, kAdd, kEF> of scheme c.mask for g.n > 0 elements. */
template <int N, int U, bool kAdd, bool kEF, typename T>
tk_status launch_variant(const tk_relu_mask_config &c, const FwdArgs<T> &g, cudaStream_t stream)
{
    const int64_t n_words = tk::ceil_div(g.n, 32);
    const int64_t items = c.mask == TK_MASK_BYTE8 ? 4 * n_words : tk::ceil_div(g.n, N);
    const int64_t n_tiles = tk::ceil_div(items, 32 * U);
    unsigned grid = 0;
    const tk_status st = tile_grid(c, n_tiles, &grid);
    if (st != TK_OK) return st;
    switch (c.mask) {
    case TK_MASK_BYTE8:
        fwd_byte8_kernel<N, U, kAdd, kEF, T><<<grid, c.block_size, 0, stream>>>(
            g.n, n_tiles, items, g.x, g.a, g.y, reinterpret_cast<uint8_t *>(g.mask));
        break;
    case TK_MASK_BALLOT32:
        fwd_ballot32_kernel<N, U, kAdd, kEF, T><<<grid, c.block_size, 0, stream>>>(
            g.n, n_tiles, n_words, g.x, g.a, g.y, g.mask);
        break;
    default:
        fwd_none_kernel<N, U, kAdd, kEF, T><<<grid, c.block_size, 0, stream>>>(g.n, n_tiles, g.x,
                                                                               g.a, g.y);
        break;
    }
    return finish_launch();
}

/* Launches the backward instantiation <N, U, kEF> of scheme c.mask for g.n > 0 elements
 * (Add+ReLU's backward is ReLU's: kAdd plays no part; g.da carries its second output). */
template <int N, int U, bool kAdd, bool kEF, typename T>
tk_status launch_variant(const tk_relu_mask_config &c, const BwdArgs<T> &g, cudaStream_t stream)
{
    const int64_t items = c.mask == TK_MASK_BYTE8 ? tk::ceil_div(g.n, 8) : tk::ceil_div(g.n, N);
    const int64_t n_tiles = tk::ceil_div(items, 32 * U);
    unsigned grid = 0;
    const tk_status st = tile_grid(c, n_tiles, &grid);
    if (st != TK_OK) return st;
    switch (c.mask) {
    case TK_MASK_BYTE8:
        bwd_byte8_kernel<N, U, kEF, T><<<grid, c.block_size, 0, stream>>>(
            g.n, n_tiles, items, g.dy, reinterpret_cast<const uint8_t *>(g.mask), g.dx, g.da);
        break;
    case TK_MASK_BALLOT32:
        bwd_ballot32_kernel<N, U, kEF, T><<<grid, c.block_size, 0, stream>>>(
            g.n, n_tiles, tk::ceil_div(g.n, 32), g.dy, g.mask, g.dx, g.da);
        break;
    default:
        bwd_none_kernel<N, U, kEF, T><<<grid, c.block_size, 0, stream>>>(g.n, n_tiles, g.dy, g.y,
                                                                         g.dx, g.da);
        break;
    }
    return finish_launch();
}

/* Picks the instantiation for c.unroll. */
template <int N, bool kAdd, bool kEF, typename T, typename Args>
tk_status launch_unrolled(const tk_relu_mask_config &c, const Args &g, cudaStream_t stream)
{
    switch (c.unroll) {
    case 2: return launch_variant<N, 2, kAdd, kEF, T>(c, g, stream);
    case 4: return launch_variant<N, 4, kAdd, kEF, T>(c, g, stream);
    default: return launch_variant<N, 1, kAdd, kEF, T>(c, g, stream);
    }
}

/* Picks the instantiation for the pack actually used (c.pack_size, or 1 when a data pointer is
 * not aligned to it) and the cache hint. Args is FwdArgs<T> or BwdArgs<T>. */
template <int N, bool kAdd, typename T, typename Args>
tk_status launch_hinted(const tk_relu_mask_config &c, const Args &g, cudaStream_t stream)
{
    if constexpr (!tk::kPackFits<T, N>) {
        return TK_ERR_UNSUPPORTED_CONFIG;
    } else {
        if (c.cache_hint == TK_CACHE_EVICT_FIRST)
            return launch_unrolled<N, kAdd, true, T>(c, g, stream);
        return launch_unrolled<N, kAdd, false, T>(c, g, stream);
    }
}

template <bool kAdd, typename T, typename Args>
tk_status launch_packed(const tk_relu_mask_config &c, int pack, const Args &g,
                        cudaStream_t stream)
{
    switch (pack) {
    case 2: return launch_hinted<2, kAdd, T>(c, g, stream);
    case 4: return launch_hinted<4, kAdd, T>(c, g, stream);
    case 8: return launch_hinted<8, kAdd, T>(c, g, stream);
    default: return launch_hinted<1, kAdd, T>(c, g, stream);
    }
}

/* ---- config space and resolution -------------------------------------------------------------- */

/* Parameter order of the space (canonical: sorted by name); tk_config_parse fills values[] in
 * this order. */
enum { P_BLOCK_SIZE, P_CACHE_HINT, P_LOOP, P_MASK, P_PACK_SIZE, P_UNROLL, P_WAVES, P_COUNT };

const int64_t kPackSizes[] = {1, 2, 4, 8};
const int64_t kUnrolls[] = {1, 2, 4};
const char *const kCacheHints[] = {"normal", "evict_first"};
const char *const kLoops[] = {"grid_stride", "one_shot"};
const char *const kSchemes[] = {"none", "byte8", "ballot32"};
const tk_param_desc kParams[P_COUNT] = {
    {"block_size", 0, 0, nullptr, nullptr, 32, tk::kMaxBlockSize, 32, 256},
    {"cache_hint", 1, 2, nullptr, kCacheHints, 0, 0, 0, TK_CACHE_NORMAL},
    {"loop", 0, 2, nullptr, kLoops, 0, 0, 0, TK_LOOP_GRID_STRIDE},
    {"mask", 1, 3, nullptr, kSchemes, 0, 0, 0, TK_MASK_BALLOT32},
    {"pack_size", 1, 4, kPackSizes, nullptr, 0, 0, 0, 4},
    {"unroll", 1, 3, kUnrolls, nullptr, 0, 0, 0, 1},
    {"waves", 0, 0, nullptr, nullptr, 1, 1024, 1, 32},
};
const tk_config_space kSpace = {"relu_mask", P_COUNT, kParams};

/* The op names the tuner and the generated header use; these literals are the cache keys of
 * tk_tuned_values, so every lookup passes one of them. */
const char kReluFwd[] = "relu_mask.relu_fwd";
const char kAddReluFwd[] = "relu_mask.add_relu_fwd";
const char kReluBwd[] = "relu_mask.relu_bwd";
const char kAddReluBwd[] = "relu_mask.add_relu_bwd";

tk_relu_mask_config config_from_values(const int64_t *v)
{
    tk_relu_mask_config c;
    c.block_size = static_cast<int>(v[P_BLOCK_SIZE]);
    c.cache_hint = static_cast<tk_cache_hint>(v[P_CACHE_HINT]);
    c.loop = static_cast<tk_loop>(v[P_LOOP]);
    c.mask = static_cast<tk_mask_scheme>(v[P_MASK]);
    c.pack_size = static_cast<int>(v[P_PACK_SIZE]);
    c.unroll = static_cast<int>(v[P_UNROLL]);
    c.waves = static_cast<int>(v[P_WAVES]);
    return c;
}

/* Whether the library has a variant for c with elements of elem_size bytes. */
bool config_supported(const tk_relu_mask_config &c, size_t elem_size)
{
    const bool pack_ok = (c.pack_size == 1 || c.pack_size == 2 || c.pack_size == 4 ||
                          c.pack_size == 8) &&
                         static_cast<size_t>(c.pack_size) * elem_size <=
                             static_cast<size_t>(tk::kMaxPackBytes);
    return pack_ok && c.block_size >= 32 && c.block_size <= tk::kMaxBlockSize &&
           c.block_size % 32 == 0 && c.waves >= 1 &&
           (c.mask == TK_MASK_NONE || c.mask == TK_MASK_BYTE8 || c.mask == TK_MASK_BALLOT32) &&
           (c.cache_hint == TK_CACHE_NORMAL || c.cache_hint == TK_CACHE_EVICT_FIRST) &&
           (c.loop == TK_LOOP_GRID_STRIDE || c.loop == TK_LOOP_ONE_SHOT) &&
           (c.unroll == 1 || c.unroll == 2 || c.unroll == 4);
}

bool dtype_valid(tk_dtype d) { return d == TK_F32 || d == TK_F16 || d == TK_BF16; }

/* The config a call uses: *given when not NULL; else the tuned entry for (op, dtype, n) when the
 * library can run it and its scheme is of the call's kind (with_mask: a masking scheme); else the
 * default of that kind. dtype must be valid. */
tk_relu_mask_config resolve_config(const char *op, tk_dtype dtype, int64_t n, bool with_mask,
                                   const tk_relu_mask_config *given)
{
    if (given) return *given;
    const int64_t *v = tk_tuned_values(&kSpace, op, tk_dtype_name(dtype), n);
    if (v) {
        const tk_relu_mask_config c = config_from_values(v);
        if (config_supported(c, tk_dtype_size(dtype)) && (c.mask != TK_MASK_NONE) == with_mask)
            return c;
    }
    return tk_relu_mask_default_config(dtype, with_mask ? TK_MASK_BALLOT32 : TK_MASK_NONE);
}

/* One call's arguments, untyped, as the entry points receive them. */
struct Call {
    const char *op;       /* the tuned-lookup key */
    bool fwd, add;
    tk_dtype dtype;
    int64_t n;
    const void *in0, *in1; /* fwd: x, addend (NULL for ReLU); bwd: dy, y (NULL when masked) */
    void *out0, *out1;     /* fwd: y, unused; bwd: dx, d_addend (NULL: not written) */
    uint32_t *mask;        /* fwd: written when not NULL; bwd: read when not NULL */
};

inline bool aligned_to(const void *p, size_t bytes) { return tk::is_aligned(p, bytes); }

/* Checks, resolves and launches one call. Pointers that must be there were checked by the entry
 * point; with_mask says the call's kind. */
tk_status run(const Call &k, bool with_mask, const tk_relu_mask_config *config,
              cudaStream_t stream)
{
    if (!dtype_valid(k.dtype) || k.n < 0) return TK_ERR_INVALID_ARGUMENT;
    const size_t es = tk_dtype_size(k.dtype);
    if (config && !config_supported(*config, es)) return TK_ERR_UNSUPPORTED_CONFIG;
    if (k.n == 0) return TK_OK;
    if (config && (config->mask != TK_MASK_NONE) != with_mask) return TK_ERR_INVALID_ARGUMENT;
    const void *data[] = {k.in0, k.in1, k.out0, k.out1};
    for (const void *p : data)
        if (!aligned_to(p, es)) return TK_ERR_INVALID_ARGUMENT;
    if (!aligned_to(k.mask, 4)) return TK_ERR_INVALID_ARGUMENT;
    const tk_relu_mask_config c = resolve_config(k.op, k.dtype, k.n, with_mask, config);
    int pack = c.pack_size;
    for (const void *p : data)
        if (!aligned_to(p, static_cast<size_t>(c.pack_size) * es)) pack = 1;
    return tk::dispatch_dtype(k.dtype, [&](auto tag) -> tk_status {
        using T = decltype(tag);
        if (k.fwd) {
            const FwdArgs<T> g = {k.n, static_cast<const T *>(k.in0),
                                  static_cast<const T *>(k.in1), static_cast<T *>(k.out0),
                                  k.mask};
            if (k.add) return launch_packed<true, T>(c, pack, g, stream);
            return launch_packed<false, T>(c, pack, g, stream);
        }
        const BwdArgs<T> g = {k.n, static_cast<const T *>(k.in0), static_cast<const T *>(k.in1),
                              k.mask, static_cast<T *>(k.out0), static_cast<T *>(k.out1)};
        return launch_packed<false, T>(c, pack, g, stream);
    });
}

} // namespace

/* ---- public entry points ---------------------------------------------------------------------- */

extern "C" {

int64_t tk_relu_mask_words(int64_t n) { return n > 0 ? tk::ceil_div(n, 32) : 0; }

const tk_config_space *tk_relu_mask_config_space(void) { return &kSpace; }

tk_relu_mask_config tk_relu_mask_default_config(tk_dtype dtype, tk_mask_scheme scheme)
{
    tk_relu_mask_config c;
    c.block_size = static_cast<int>(kParams[P_BLOCK_SIZE].default_value);
    c.waves = static_cast<int>(kParams[P_WAVES].default_value);
    c.cache_hint = static_cast<tk_cache_hint>(kParams[P_CACHE_HINT].default_value);
    c.loop = static_cast<tk_loop>(kParams[P_LOOP].default_value);
    c.unroll = static_cast<int>(kParams[P_UNROLL].default_value);
    c.mask = scheme;
    const size_t size = tk_dtype_size(dtype);
    c.pack_size = size ? static_cast<int>(tk::kMaxPackBytes / size)
                       : static_cast<int>(kParams[P_PACK_SIZE].default_value);
    return c;
}

tk_status tk_relu_mask_config_from_text(const char *text, tk_relu_mask_config *out)
{
    if (!text || !out) return TK_ERR_INVALID_ARGUMENT;
    int64_t v[P_COUNT];
    const tk_status st = tk_config_parse(&kSpace, text, v);
    if (st != TK_OK) return st;
    *out = config_from_values(v);
    return TK_OK;
}

tk_status tk_relu_fwd(tk_dtype dtype, int64_t n, const void *x, void *y, uint32_t *mask,
                      const tk_relu_mask_config *config, cudaStream_t stream)
{
    if (n > 0 && (!x || !y)) return TK_ERR_INVALID_ARGUMENT;
    const Call k = {kReluFwd, true, false, dtype, n, x, nullptr, y, nullptr, mask};
    return run(k, mask != nullptr, config, stream);
}

tk_status tk_add_relu_fwd(tk_dtype dtype, int64_t n, const void *x, const void *addend, void *y,
                          uint32_t *mask, const tk_relu_mask_config *config, cudaStream_t stream)
{
    if (n > 0 && (!x || !addend || !y)) return TK_ERR_INVALID_ARGUMENT;
    const Call k = {kAddReluFwd, true, true, dtype, n, x, addend, y, nullptr, mask};
    return run(k, mask != nullptr, config, stream);
}

tk_status tk_relu_bwd(tk_dtype dtype, int64_t n, const void *dy, const uint32_t *mask,
                      const void *y, void *dx, const tk_relu_mask_config *config,
                      cudaStream_t stream)
{
    if (n > 0 && (!dy || !dx || (mask == nullptr) == (y == nullptr)))
        return TK_ERR_INVALID_ARGUMENT;
    const Call k = {kReluBwd, false, false, dtype, n, dy, y, dx, nullptr,
                    const_cast<uint32_t *>(mask)};
    return run(k, mask != nullptr, config, stream);
}

tk_status tk_add_relu_bwd(tk_dtype dtype, int64_t n, const void *dy, const uint32_t *mask,
                          const void *y, void *dx, void *d_addend,
                          const tk_relu_mask_config *config, cudaStream_t stream)
{
    if (n > 0 && (!dy || !dx || (mask == nullptr) == (y == nullptr)))
        return TK_ERR_INVALID_ARGUMENT;
    void *da = d_addend == dx ? nullptr : d_addend;
    const Call k = {da ? kAddReluBwd : kReluBwd, false, true, dtype, n, dy, y, dx, da,
                    const_cast<uint32_t *>(mask)};
    return run(k, mask != nullptr, config, stream);
}

tk_status tk_relu_mask_tuned_config(const char *op, tk_dtype dtype, int64_t n, int with_mask,
                                    tk_relu_mask_config *out)
{
    static const char *const names[] = {kReluFwd, kAddReluFwd, kReluBwd, kAddReluBwd};
    if (!op || !out || !dtype_valid(dtype) || n < 0) return TK_ERR_INVALID_ARGUMENT;
    for (const char *name : names) {
        if (std::strcmp(op, name) == 0) {
            *out = resolve_config(name, dtype, n, with_mask != 0, nullptr);
            return TK_OK;
        }
    }
    return TK_ERR_INVALID_ARGUMENT;
}

} // extern "C"
