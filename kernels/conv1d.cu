/* conv1d.cu: the conv1d family: the full linear convolution of two f32 sequences,
 * out[n] = sum_m sig[n - m] * flt[m], n in [0, len_sig + len_flt - 1), where the signal is the
 * longer input and the filter the shorter (convolution is commutative; see tunekit_conv1d.h).
 *
 * Variants (impl):
 *   direct      one thread per output: loops m over the filter taps whose signal index is in
 *               range, both operands read from global memory (the classic naive kernel).
 *   const_smem  tiled: a block computes T = block_size * outputs_per_thread consecutive outputs.
 *               For each filter chunk of F taps (F = min(max(T, 2048), len_flt rounded up to
 *               outputs_per_thread)), the block stages the signal tile with its halo (T + F
 *               elements, zeros outside the signal) in shared memory; the filter itself sits in
 *               __constant__ memory (uniform reads, no shared-memory traffic), copied there by the
 *               call (see the concurrency rule in tunekit_conv1d.h).
 *   smem        the same tiling with the filter chunk also staged in shared memory (zero padded),
 *               for filters of any length; const_smem falls back to it.
 * Register window of the tiled kernels (P = outputs_per_thread): thread t owns the P
 * consecutive outputs t*P .. t*P + P - 1 of its block. Over the taps of a chunk, taken P at a
 * time (a group), the signal values it needs are a window of 2P - 1 elements that slides down by
 * P per group: one aligned P-element vector load from shared memory per group (tk::Pack, a warp
 * reading consecutive vectors: no bank conflicts) feeds P * P fmaf; the group loop is unrolled
 * to 16 taps, so the loads of later groups are in flight while earlier ones compute. Per thread
 * the taps are accumulated in ascending order with fmaf, exactly as direct does; the zero-padded
 * products add exact zeros, so every variant gives the same bits. Chunks whose signal range lies
 * wholly outside the signal for a block are skipped.
 * Parameters (tk_conv1d_config_space):
 *   impl                direct | const_smem | smem (compile time; default const_smem)
 *   block_size          32..1024, multiple of 32 (launch time; default 256)
 *   outputs_per_thread  1, 2, 4, 8, 16 (compile time; default 1); direct takes 1 only;
 *                       block_size * outputs_per_thread <= TK_CONV1D_MAX_TILE (4096), which keeps
 *                       a block's shared memory (T + 2F <= max(3T, T + 4096) floats) within the
 *                       default 48 KB.
 * Grids: one block per tile of T outputs (one thread per output for direct), from launch.cuh's
 * one_shot rule. Indices into the sequences are 64-bit.
 *
 * Order: constant filter and device helpers, kernels, the const_smem ordering state, launchers,
 * config space and resolution, public entry points. */
#include <cstdint>
#include <mutex>
#include <cuda_runtime_api.h>
#include "current_device.h"
#include "launch.cuh"
#include "pack.cuh"
#include "tunekit.h"
#include "tuned_lookup.h"

namespace {

constexpr int kConstFilterMax = TK_CONV1D_CONST_FILTER_MAX;
constexpr int kMaxTile = TK_CONV1D_MAX_TILE;
/* A filter chunk is max(T, kMinChunk) taps at most: small tiles still take long filters in few
 * chunks (each chunk costs two barriers and a global-memory round trip for its tiles). */
constexpr int kMinChunk = 2048;

/* The const_smem filter: one per device and process (ordered by ConstOrder below). */
__constant__ float c_filter[kConstFilterMax];

/* ---- device helpers ------------------------------------------------------------------------- */

/* Threads per block a tiled instantiation allows: T = block_size * P <= kMaxTile. */
constexpr int max_block_for(int p) { return kMaxTile / p < 1024 ? kMaxTile / p : 1024; }

/* v[0 .. P) = p[0 .. P), p aligned to min(P, 4) floats (shared memory), in packs of up to 16 B. */
template <int P>
__device__ __forceinline__ void load_window(const float *p, float (&v)[P])
{
    constexpr int kPack = P < 4 ? P : 4;
#pragma unroll
    for (int i = 0; i < P; i += kPack) {
        const tk::Pack<float, kPack> pk = tk::load_pack<float, kPack>(p + i);
#pragma unroll
        for (int k = 0; k < kPack; k++)
            v[i + k] = pk.elem[k];
    }
}

/* One chunk of taps [m0, m0 + F) (F a multiple of P) into the thread's P accumulators.
 * tile[i] = sig[n0 - m0 - F + 1 + i] for i in [0, T + F); ftile = the chunk's taps (smem, zero
 * padded) or unused (kConst: the taps come from c_filter, those at or beyond len_flt as 0).
 * Output t*P + k takes tile[t*P + k - m + F - 1] * flt[m0 + m] for m = g*P + r: group g's
 * window is the two vectors tile[(t - g - 1)*P + F ..] (lo) and tile[(t - g)*P + F ..] (hi), and
 * the element for (k, r) is window[P - 1 + k - r]. */
template <int P, bool kConst>
__device__ __forceinline__ void accumulate_chunk(const float *tile, const float *ftile, int t,
                                                 int F, int64_t m0, int64_t len_flt,
                                                 float (&acc)[P])
{
    const int groups = F / P;
    const int q0 = t + groups;
    /* groups whose P taps all lie inside the filter (the rest read c_filter guarded) */
    const int64_t taps_left = len_flt - m0;
    const int full = taps_left >= F ? groups : static_cast<int>(taps_left / P);
    float hi[P];
    load_window<P>(tile + q0 * P, hi);
#pragma unroll(P >= 16 ? 1 : 16 / P)
    for (int g = 0; g < groups; g++) {
        float lo[P], bv[P];
        load_window<P>(tile + (q0 - g - 1) * P, lo);
        if constexpr (kConst) {
            const int m = static_cast<int>(m0) + g * P;
            if (g < full) {
#pragma unroll
                for (int r = 0; r < P; r++)
                    bv[r] = c_filter[m + r];
            } else {   /* the last group: taps past the filter are 0; the index is clamped
                        * so that even a speculated load stays inside c_filter */
#pragma unroll
                for (int r = 0; r < P; r++) {
                    const int i = m + r < kConstFilterMax ? m + r : kConstFilterMax - 1;
                    bv[r] = m + r < len_flt ? c_filter[i] : 0.0f;
                }
            }
        } else {
            load_window<P>(ftile + g * P, bv);
        }
#pragma unroll
        for (int r = 0; r < P; r++)
#pragma unroll
            for (int k = 0; k < P; k++) {
                const int e = P - 1 + k - r;
                acc[k] = fmaf(e < P ? lo[e] : hi[e - P], bv[r], acc[k]);
            }
#pragma unroll
        for (int i = 0; i < P; i++)
            hi[i] = lo[i];
    }
}

/* ---- kernels --------------------------------------------------------------------------------- */

__global__ void __launch_bounds__(tk::kMaxBlockSize)
    conv1d_direct(const float *__restrict__ sig, int64_t len_sig, const float *__restrict__ flt,
                  int64_t len_flt, float *__restrict__ out, int64_t len_out)
{
    const int64_t n = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (n >= len_out) return;
    const int64_t m_lo = n - len_sig + 1 > 0 ? n - len_sig + 1 : 0;
    const int64_t m_hi = n < len_flt - 1 ? n : len_flt - 1;
    float s = 0.0f;
    for (int64_t m = m_lo; m <= m_hi; m++)
        s = fmaf(sig[n - m], flt[m], s);
    out[n] = s;
}

/* Block b computes out[b*T .. b*T + T), T = blockDim.x * P; dynamic shared memory holds the
 * signal tile (T + chunk floats) and, unless kConst, the filter chunk (chunk floats). */
template <int P, bool kConst>
__global__ void __launch_bounds__(max_block_for(P))
    conv1d_tiled(const float *__restrict__ sig, int64_t len_sig, const float *__restrict__ flt,
                 int64_t len_flt, float *__restrict__ out, int64_t len_out, int chunk)
{
    extern __shared__ __align__(16) float smem[];
    const int T = static_cast<int>(blockDim.x) * P;
    const int t = static_cast<int>(threadIdx.x);
    const int64_t n0 = static_cast<int64_t>(blockIdx.x) * T;
    float *tile = smem;
    float *ftile = smem + T + chunk;
    float acc[P];
#pragma unroll
    for (int k = 0; k < P; k++)
        acc[k] = 0.0f;
    for (int64_t m0 = 0; m0 < len_flt; m0 += chunk) {
        /* this chunk's length: the taps left, rounded up to P, at most chunk */
        const int64_t left = (len_flt - m0 + P - 1) / P * P;
        const int F = left < chunk ? static_cast<int>(left) : chunk;
        const int64_t base = n0 - m0 - F + 1;   /* signal index of tile[0] */
        if (base >= len_sig || n0 + T - 1 - m0 < 0) continue;   /* uniform over the block */
        __syncthreads();   /* the previous chunk's readers are done with the tiles */
        for (int i = t; i < T + F; i += blockDim.x) {
            const int64_t j = base + i;
            tile[i] = j >= 0 && j < len_sig ? sig[j] : 0.0f;
        }
        if constexpr (!kConst) {
            for (int i = t; i < F; i += blockDim.x)
                ftile[i] = m0 + i < len_flt ? flt[m0 + i] : 0.0f;
        }
        __syncthreads();
        accumulate_chunk<P, kConst>(tile, ftile, t, F, m0, len_flt, acc);
    }
    const int64_t j0 = n0 + static_cast<int64_t>(t) * P;
    constexpr int kPack = P < 4 ? P : 4;
    if (j0 + P <= len_out && tk::is_aligned(out + j0, kPack * sizeof(float))) {
#pragma unroll
        for (int i = 0; i < P; i += kPack) {
            tk::Pack<float, kPack> pk;
#pragma unroll
            for (int k = 0; k < kPack; k++)
                pk.elem[k] = acc[i + k];
            tk::store_pack<float, kPack>(out + j0 + i, pk);
        }
    } else {
#pragma unroll
        for (int k = 0; k < P; k++)
            if (j0 + k < len_out) out[j0 + k] = acc[k];
    }
}

/* ---- const_smem ordering state ----------------------------------------------------------------
 * Per device ordinal, an event recorded after the latest const_smem kernel; the next const_smem
 * call's stream waits on it before its copy into c_filter. The mutex makes wait, copy, launch
 * and record one step for the host threads. Events are created on first use and kept for the
 * life of the process. */
constexpr int kOrderDevices = 64;
struct ConstOrder {
    std::mutex mu;
    cudaEvent_t done[kOrderDevices] = {};
    bool recorded[kOrderDevices] = {};
};
ConstOrder g_const_order;

/* ---- launchers ------------------------------------------------------------------------------- */

struct Problem {
    const float *sig, *flt;
    int64_t len_sig, len_flt, len_out;
    float *out;
};

tk_status launch_direct(const Problem &p, int block, cudaStream_t stream)
{
    unsigned grid = 0;
    const tk_status st = tk::grid_size(TK_LOOP_ONE_SHOT, p.len_out, block, 1, &grid);
    if (st != TK_OK) return st;
    conv1d_direct<<<grid, block, 0, stream>>>(p.sig, p.len_sig, p.flt, p.len_flt, p.out,
                                              p.len_out);
    return cudaGetLastError() == cudaSuccess ? TK_OK : TK_ERR_LAUNCH;
}

template <int P, bool kConst>
tk_status launch_tiled_p(const Problem &p, int block, cudaStream_t stream)
{
    const int T = block * P;
    const int64_t taps = (p.len_flt + P - 1) / P * P;
    const int chunk_max = T > kMinChunk ? T : kMinChunk;
    const int chunk = taps < chunk_max ? static_cast<int>(taps) : chunk_max;
    const size_t smem = static_cast<size_t>(T + chunk + (kConst ? 0 : chunk)) * sizeof(float);
    unsigned grid = 0;
    const tk_status st =
        tk::grid_size(TK_LOOP_ONE_SHOT, tk::ceil_div(p.len_out, P), block, 1, &grid);
    if (st != TK_OK) return st;
    conv1d_tiled<P, kConst><<<grid, block, smem, stream>>>(p.sig, p.len_sig, p.flt, p.len_flt,
                                                          p.out, p.len_out, chunk);
    return cudaGetLastError() == cudaSuccess ? TK_OK : TK_ERR_LAUNCH;
}

template <bool kConst>
tk_status launch_tiled(const Problem &p, const tk_conv1d_config &c, cudaStream_t stream)
{
    switch (c.outputs_per_thread) {
    case 2: return launch_tiled_p<2, kConst>(p, c.block_size, stream);
    case 4: return launch_tiled_p<4, kConst>(p, c.block_size, stream);
    case 8: return launch_tiled_p<8, kConst>(p, c.block_size, stream);
    case 16: return launch_tiled_p<16, kConst>(p, c.block_size, stream);
    default: return launch_tiled_p<1, kConst>(p, c.block_size, stream);
    }
}

/* const_smem: the filter into c_filter on the caller's stream, ordered after the previous
 * const_smem kernel of this device (see tunekit_conv1d.h); the smem kernel when the filter does
 * not fit, the stream is capturing, or the device ordinal is beyond the ordering table. */
tk_status launch_const(const Problem &p, const tk_conv1d_config &c, cudaStream_t stream)
{
    if (p.len_flt > kConstFilterMax) return launch_tiled<false>(p, c, stream);
    int dev = 0;
    if (tk_current_device(&dev) != 0) return TK_ERR_CUDA;
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
        cudaGetLastError();   /* e.g. the legacy stream while another thread captures */
        return launch_tiled<false>(p, c, stream);
    }
    if (capture != cudaStreamCaptureStatusNone || dev < 0 || dev >= kOrderDevices)
        return launch_tiled<false>(p, c, stream);
    std::lock_guard<std::mutex> lock(g_const_order.mu);
    cudaEvent_t &done = g_const_order.done[dev];
    if (!done && cudaEventCreateWithFlags(&done, cudaEventDisableTiming) != cudaSuccess) {
        done = nullptr;
        return TK_ERR_CUDA;
    }
    if (g_const_order.recorded[dev] && cudaStreamWaitEvent(stream, done, 0) != cudaSuccess)
        return TK_ERR_CUDA;
    if (cudaMemcpyToSymbolAsync(c_filter, p.flt, static_cast<size_t>(p.len_flt) * sizeof(float),
                                0, cudaMemcpyDefault, stream) != cudaSuccess)
        return TK_ERR_CUDA;
    const tk_status st = launch_tiled<true>(p, c, stream);
    if (st != TK_OK) return st;
    if (cudaEventRecord(done, stream) != cudaSuccess) return TK_ERR_CUDA;
    g_const_order.recorded[dev] = true;
    return TK_OK;
}

/* ---- config space and resolution ------------------------------------------------------------- */

/* Parameter order of the space (canonical: sorted by name). */
enum { P_BLOCK_SIZE, P_IMPL, P_OUTPUTS_PER_THREAD, P_COUNT };

const int64_t kOutputsPerThread[] = {1, 2, 4, 8, 16};
const char *const kImpls[] = {"direct", "const_smem", "smem"};
const tk_param_desc kParams[P_COUNT] = {
    {"block_size", 0, 0, nullptr, nullptr, 32, tk::kMaxBlockSize, 32, 256},
    {"impl", 1, 3, nullptr, kImpls, 0, 0, 0, TK_CONV1D_CONST_SMEM},
    {"outputs_per_thread", 1, 5, kOutputsPerThread, nullptr, 0, 0, 0, 1},
};
const tk_config_space kSpace = {"conv1d", P_COUNT, kParams};

/* The op name the tuner and the generated header use (a cache key of tk_tuned_values). */
const char kFull[] = "conv1d.full";

tk_conv1d_config config_from_values(const int64_t *v)
{
    tk_conv1d_config c;
    c.block_size = static_cast<int>(v[P_BLOCK_SIZE]);
    c.impl = static_cast<tk_conv1d_impl>(v[P_IMPL]);
    c.outputs_per_thread = static_cast<int>(v[P_OUTPUTS_PER_THREAD]);
    return c;
}

bool config_supported(const tk_conv1d_config &c)
{
    const bool impl_ok =
        c.impl == TK_CONV1D_DIRECT || c.impl == TK_CONV1D_CONST_SMEM || c.impl == TK_CONV1D_SMEM;
    const bool block_ok = tk_param_supports(&kParams[P_BLOCK_SIZE], c.block_size) != 0;
    const bool p_ok = tk_param_supports(&kParams[P_OUTPUTS_PER_THREAD], c.outputs_per_thread) != 0;
    return impl_ok && block_ok && p_ok && c.block_size * c.outputs_per_thread <= kMaxTile &&
           (c.impl != TK_CONV1D_DIRECT || c.outputs_per_thread == 1);
}

/* *given when not NULL, else the tuned entry for these lengths, else the default (also when the
 * header's entry is one the library cannot run: a stale header). */
tk_conv1d_config resolve_config(int64_t len_a, int64_t len_b, const tk_conv1d_config *given)
{
    if (given) return *given;
    const int64_t *v = tk_tuned_values(&kSpace, kFull, "f32", tk_conv1d_size_key(len_a, len_b));
    if (v) {
        const tk_conv1d_config c = config_from_values(v);
        if (config_supported(c)) return c;
    }
    return tk_conv1d_default_config();
}

} // namespace

/* ---- public entry points ---------------------------------------------------------------------- */

extern "C" {

const tk_config_space *tk_conv1d_config_space(void) { return &kSpace; }

tk_conv1d_config tk_conv1d_default_config(void)
{
    tk_conv1d_config c;
    c.impl = static_cast<tk_conv1d_impl>(kParams[P_IMPL].default_value);
    c.block_size = static_cast<int>(kParams[P_BLOCK_SIZE].default_value);
    c.outputs_per_thread = static_cast<int>(kParams[P_OUTPUTS_PER_THREAD].default_value);
    return c;
}

tk_status tk_conv1d_config_from_text(const char *text, tk_conv1d_config *out)
{
    if (!text || !out) return TK_ERR_INVALID_ARGUMENT;
    int64_t v[P_COUNT];
    const tk_status st = tk_config_parse(&kSpace, text, v);
    if (st != TK_OK) return st;
    *out = config_from_values(v);
    return TK_OK;
}

int tk_conv1d_config_supported(const tk_conv1d_config *c) { return c && config_supported(*c); }

int64_t tk_conv1d_size_key(int64_t len_a, int64_t len_b)
{
    if (len_a < 1 || len_b < 1) return -1;
    const int64_t cap = (int64_t{1} << 36) - 1;
    int64_t flt = len_a < len_b ? len_a : len_b;
    int64_t sig = len_a < len_b ? len_b : len_a;
    if (flt > cap) flt = cap;
    if (sig > cap) sig = cap;
    int64_t bucket = 0;
    while ((int64_t{1} << bucket) < flt)
        bucket++;
    return (bucket << 36) + sig;
}

tk_status tk_conv1d_tuned_config(int64_t len_a, int64_t len_b, tk_conv1d_config *out)
{
    if (!out || len_a < 0 || len_b < 0) return TK_ERR_INVALID_ARGUMENT;
    *out = resolve_config(len_a, len_b, nullptr);
    return TK_OK;
}

tk_status tk_conv1d_full(const float *a, int64_t len_a, const float *b, int64_t len_b, float *out,
                         const tk_conv1d_config *config, cudaStream_t stream)
{
    if (len_a < 0 || len_b < 0) return TK_ERR_INVALID_ARGUMENT;
    if (config && !config_supported(*config)) return TK_ERR_UNSUPPORTED_CONFIG;
    if (len_a == 0 || len_b == 0) return TK_OK;
    if (!a || !b || !out) return TK_ERR_INVALID_ARGUMENT;
    const tk_conv1d_config c = resolve_config(len_a, len_b, config);
    Problem p;
    const bool swap = len_b > len_a;
    p.sig = swap ? b : a;
    p.len_sig = swap ? len_b : len_a;
    p.flt = swap ? a : b;
    p.len_flt = swap ? len_a : len_b;
    p.len_out = len_a + len_b - 1;
    p.out = out;
    switch (c.impl) {
    case TK_CONV1D_DIRECT: return launch_direct(p, c.block_size, stream);
    case TK_CONV1D_CONST_SMEM: return launch_const(p, c, stream);
    default: return launch_tiled<false>(p, c, stream);
    }
}

} // extern "C"
