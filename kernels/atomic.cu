/* atomic.cu: the atomic family: a dot product of two f16 or bf16 vectors whose per-thread
 * partial sums reach the result through atomics, the write-up's benchmark of half atomicAdd
 * against packed half2 and the fast atomic add (kernels/atomic_add.cuh holds the helpers).
 *
 * Op: dot   out[out_index] += sum_{i < n} x[i] * y[i]   (f16, bf16), out a buffer of out_len
 *           elements of which only out[out_index] changes.
 * Every thread accumulates its products in float (products of 16-bit values are exact in
 * float; two accumulators), reading x and y in 16-byte packs (8 elements) two packs a grid
 * apart per round; a head peeled up to the pack boundary when x and y are misaligned alike,
 * scalar loads when they are misaligned differently; the tail by the grid's first threads.
 * Parameters (tk_atomic_config_space):
 *   strategy    half | half2_pack | fast | float_acc | block_reduce (compile time; default
 *               block_reduce): how partials reach out[out_index], see tunekit_atomic.h
 *   block_size  32..1024, multiple of 32 (launch time; default 256)
 *   waves       1..1024 (launch time; default 32): grid = min(packs / block, waves * resident
 *               blocks) (launch.cuh's rule), so the number of atomics is the number of threads
 *               (block_reduce: of blocks)
 *   cache_hint  normal | evict_first: the packs of x and y are loaded with ld.global.cs (compile
 *               time; default normal). A read-only stream under the dirty L2 a previous kernel
 *               (or the tuner's cold flush) leaves pays for the write-back of every dirty line its
 *               own lines displace; evict-first lines are displaced first, so it displaces fewer
 *               (reduce's v9 at 32 Mi f32 on an H100: 57.8 us plain, 53.3 us evict-first).
 * float_acc keeps a float and a counter in a caller-given workspace, zeroed by a memset in the
 * stream before the kernel; the last block (the counter) rounds the float total once into the
 * result. Indices are 64-bit.
 *
 * Order: device helpers, kernel, launchers, config space, public entry points. */
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

/* Kernel-level strategies: half2_pack splits into its two host-chosen lanes. */
enum KernelStrategy { K_HALF, K_PAIR_LOW, K_PAIR_HIGH, K_FAST, K_FLOAT_ACC, K_BLOCK_REDUCE };

/* The float accumulator and the finished-block counter of float_acc. */
struct Workspace {
    float sum;
    unsigned count;
};

/* Where the work lies: n_packs packs of N elements from x + n_head (aligned), the scalar head
 * x[0 .. n_head) and tail x[tail_start .. tail_start + n_tail). */
template <typename T>
struct DotArgs {
    const T *x, *y;
    int64_t n_packs;
    int n_head;
    int64_t tail_start;
    int n_tail;
    T *out;
    int64_t out_len, out_index;
    Workspace *ws;
};

/* ---- device helpers ------------------------------------------------------------------------ */

template <typename T, int N>
__device__ __forceinline__ void accumulate(const Pack<T, N> &a, const Pack<T, N> &b, float &even,
                                           float &odd)
{
#pragma unroll
    for (int k = 0; k < N; k++) {
        if (k % 2 == 0) even = fmaf(tk::to_float(a.elem[k]), tk::to_float(b.elem[k]), even);
        else odd = fmaf(tk::to_float(a.elem[k]), tk::to_float(b.elem[k]), odd);
    }
}

/* This thread's partial sum; *work says whether it had any element. E: evict-first loads. */
template <typename T, int N, bool E>
__device__ __forceinline__ float dot_partial(const DotArgs<T> &a, int64_t tid, int64_t threads,
                                             bool *work)
{
    float even = 0.0f, odd = 0.0f;
    const T *xp = a.x + a.n_head, *yp = a.y + a.n_head;
    int64_t i = tid;
    for (; i + threads < a.n_packs; i += 2 * threads) {
        const Pack<T, N> x0 = tk::load_pack_hinted<E, T, N>(xp + i * N);
        const Pack<T, N> y0 = tk::load_pack_hinted<E, T, N>(yp + i * N);
        const Pack<T, N> x1 = tk::load_pack_hinted<E, T, N>(xp + (i + threads) * N);
        const Pack<T, N> y1 = tk::load_pack_hinted<E, T, N>(yp + (i + threads) * N);
        accumulate(x0, y0, even, odd);
        accumulate(x1, y1, even, odd);
    }
    if (i < a.n_packs)
        accumulate(tk::load_pack_hinted<E, T, N>(xp + i * N),
                   tk::load_pack_hinted<E, T, N>(yp + i * N), even, odd);
    if (tid < a.n_head) even = fmaf(tk::to_float(a.x[tid]), tk::to_float(a.y[tid]), even);
    if (tid < a.n_tail) {
        const int64_t t = a.tail_start + tid;
        odd = fmaf(tk::to_float(a.x[t]), tk::to_float(a.y[t]), odd);
    }
    *work = tid < a.n_packs || tid < a.n_head || tid < a.n_tail;
    return even + odd;
}

/* The sum of v over the block (every thread calls it; thread 0 gets the total). */
__device__ __forceinline__ float block_sum(float v)
{
    __shared__ float warp_sums[32];
#pragma unroll
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        const int n_warps = (blockDim.x + 31) / 32;
        v = lane < n_warps ? warp_sums[lane] : 0.0f;
#pragma unroll
        for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
    }
    return v;
}

/* ---- kernel -------------------------------------------------------------------------------- */

template <typename T, int N, int S, bool E>
__global__ void __launch_bounds__(tk::kMaxBlockSize) dot_kernel(DotArgs<T> a)
{
    const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const int64_t threads = static_cast<int64_t>(gridDim.x) * blockDim.x;
    bool work = false;
    const float p = dot_partial<T, N, E>(a, tid, threads, &work);
    if constexpr (S == K_BLOCK_REDUCE) {
        const float s = block_sum(p);
        if (threadIdx.x == 0) tk::fast_atomic_add(a.out, a.out_index, a.out_len, tk::from_float<T>(s));
    } else if constexpr (S == K_FLOAT_ACC) {
        if (work) {
            atomicAdd(&a.ws->sum, p);
            __threadfence();
        }
        __syncthreads();
        if (threadIdx.x == 0 && atomicAdd(&a.ws->count, 1u) == gridDim.x - 1) {
            __threadfence();
            const float total = atomicAdd(&a.ws->sum, 0.0f);   /* an atomic read at L2 */
            T *o = a.out + a.out_index;
            *o = tk::from_float<T>(tk::to_float(*o) + total);
        }
    } else {
        if (!work) return;
        const T v = tk::from_float<T>(p);
        const T zero = tk::negative_zero<T>();
        if constexpr (S == K_HALF) tk::atomic_add(a.out + a.out_index, v);
        else if constexpr (S == K_PAIR_LOW) tk::atomic_add_pair(a.out + a.out_index, tk::make_pair(v, zero));
        else if constexpr (S == K_PAIR_HIGH) tk::atomic_add_pair(a.out + a.out_index - 1, tk::make_pair(zero, v));
        else tk::fast_atomic_add(a.out, a.out_index, a.out_len, v);
    }
}

/* ---- launchers ----------------------------------------------------------------------------- */

/* Pack width of the 16-bit types: one 16-byte load. */
constexpr int kPack = tk::kMaxPackBytes / 2;

/* The split of n elements into head, aligned packs and tail, and the grid over it. */
struct Plan {
    int pack;                /* kPack or 1 */
    int64_t n_packs;
    int n_head, n_tail;
    int64_t tail_start;
    unsigned grid;
};

inline size_t misalignment(const void *p, size_t bytes)
{
    return reinterpret_cast<uintptr_t>(p) & (bytes - 1);
}

/* Work units of one thread: packs, and the head and tail elements. */
inline int64_t plan_units(const Plan &p)
{
    int64_t u = p.n_packs;
    if (u < p.n_head) u = p.n_head;
    if (u < p.n_tail) u = p.n_tail;
    return u;
}

tk_status make_plan(int64_t n, const void *x, const void *y, size_t elem, const tk_atomic_config &c,
                    Plan *p)
{
    const size_t bytes = kPack * elem;
    const size_t mis = misalignment(x, bytes);
    p->pack = kPack;
    p->n_head = 0;
    if (mis != misalignment(y, bytes) || mis % elem != 0) p->pack = 1;
    else if (mis) p->n_head = static_cast<int>((bytes - mis) / elem);
    if (p->n_head >= n) p->pack = 1, p->n_head = 0;
    p->n_packs = (n - p->n_head) / p->pack;
    p->tail_start = p->n_head + p->n_packs * p->pack;
    p->n_tail = static_cast<int>(n - p->tail_start);
    return tk::grid_size(TK_LOOP_GRID_STRIDE, plan_units(*p), c.block_size, c.waves, &p->grid);
}

/* The half2_pack lane for out[out_index]: K_PAIR_LOW when the element starts an aligned pair
 * whose partner is in bounds, K_PAIR_HIGH when it ends one, -1 when the partner is outside. */
int pair_lane(const void *out, size_t elem, int64_t out_len, int64_t out_index)
{
    const char *e = static_cast<const char *>(out) + static_cast<size_t>(out_index) * elem;
    if (misalignment(e, 2 * elem) == 0) return out_index + 1 < out_len ? K_PAIR_LOW : -1;
    return out_index > 0 ? K_PAIR_HIGH : -1;
}

template <typename T, int N, bool E>
tk_status launch_strategy(int s, const Plan &p, const DotArgs<T> &a, int block, cudaStream_t stream)
{
    switch (s) {
    case K_HALF: dot_kernel<T, N, K_HALF, E><<<p.grid, block, 0, stream>>>(a); break;
    case K_PAIR_LOW: dot_kernel<T, N, K_PAIR_LOW, E><<<p.grid, block, 0, stream>>>(a); break;
    case K_PAIR_HIGH: dot_kernel<T, N, K_PAIR_HIGH, E><<<p.grid, block, 0, stream>>>(a); break;
    case K_FAST: dot_kernel<T, N, K_FAST, E><<<p.grid, block, 0, stream>>>(a); break;
    case K_FLOAT_ACC: dot_kernel<T, N, K_FLOAT_ACC, E><<<p.grid, block, 0, stream>>>(a); break;
    default: dot_kernel<T, N, K_BLOCK_REDUCE, E><<<p.grid, block, 0, stream>>>(a); break;
    }
    return cudaGetLastError() == cudaSuccess ? TK_OK : TK_ERR_LAUNCH;
}

/* Runs kernel strategy s (lane already chosen) for n > 0 elements. */
template <typename T>
tk_status launch_dot(int s, const tk_atomic_config &c, int64_t n, const T *x, const T *y, T *out,
                     int64_t out_len, int64_t out_index, void *workspace, cudaStream_t stream)
{
    Plan p;
    tk_status st = make_plan(n, x, y, sizeof(T), c, &p);
    if (st != TK_OK) return st;
    DotArgs<T> a = {x, y, p.n_packs, p.n_head, p.tail_start, p.n_tail, out, out_len, out_index,
                    static_cast<Workspace *>(workspace)};
    if (s == K_FLOAT_ACC && cudaMemsetAsync(workspace, 0, sizeof(Workspace), stream) != cudaSuccess)
        return TK_ERR_CUDA;
    const bool evict = c.cache_hint == TK_CACHE_EVICT_FIRST;
    if (p.pack == kPack)
        return evict ? launch_strategy<T, kPack, true>(s, p, a, c.block_size, stream)
                     : launch_strategy<T, kPack, false>(s, p, a, c.block_size, stream);
    return evict ? launch_strategy<T, 1, true>(s, p, a, c.block_size, stream)
                 : launch_strategy<T, 1, false>(s, p, a, c.block_size, stream);
}

/* ---- config space and resolution ----------------------------------------------------------- */

/* Parameter order of the space (sorted by name), as tk_config_parse fills values[]. */
enum { P_BLOCK_SIZE, P_CACHE_HINT, P_STRATEGY, P_WAVES, P_COUNT };

const char *const kStrategies[] = {"half", "half2_pack", "fast", "float_acc", "block_reduce"};
const char *const kCacheHints[] = {"normal", "evict_first"};
const tk_param_desc kParams[P_COUNT] = {
    {"block_size", 0, 0, nullptr, nullptr, 32, tk::kMaxBlockSize, 32, 256},
    {"cache_hint", 1, 2, nullptr, kCacheHints, 0, 0, 0, TK_CACHE_NORMAL},
    {"strategy", 1, 5, nullptr, kStrategies, 0, 0, 0, TK_ATOMIC_BLOCK_REDUCE},
    {"waves", 0, 0, nullptr, nullptr, 1, 1024, 1, 32},
};
const tk_config_space kSpace = {"atomic", P_COUNT, kParams};

/* The op name the tuner and the generated header use (the tk_tuned_values cache key). */
const char kDot[] = "atomic.dot";

tk_atomic_config config_from_values(const int64_t *v)
{
    tk_atomic_config c;
    c.block_size = static_cast<int>(v[P_BLOCK_SIZE]);
    c.strategy = static_cast<tk_atomic_strategy>(v[P_STRATEGY]);
    c.waves = static_cast<int>(v[P_WAVES]);
    c.cache_hint = static_cast<tk_cache_hint>(v[P_CACHE_HINT]);
    return c;
}

bool config_supported(const tk_atomic_config &c)
{
    return c.strategy >= TK_ATOMIC_HALF && c.strategy <= TK_ATOMIC_BLOCK_REDUCE &&
           c.block_size >= 32 && c.block_size <= tk::kMaxBlockSize && c.block_size % 32 == 0 &&
           c.waves >= 1 && c.waves <= 1024 &&
           (c.cache_hint == TK_CACHE_NORMAL || c.cache_hint == TK_CACHE_EVICT_FIRST);
}

bool dtype_valid(tk_dtype d) { return d == TK_F16 || d == TK_BF16; }

/* The tuned config for (dtype, n), else the default (also for a stale entry). */
tk_atomic_config tuned_config(tk_dtype dtype, int64_t n)
{
    const int64_t *v = tk_tuned_values(&kSpace, kDot, tk_dtype_name(dtype), n);
    if (v) {
        const tk_atomic_config c = config_from_values(v);
        if (config_supported(c)) return c;
    }
    return tk_atomic_default_config();
}

/* The kernel strategy for a config on this output, or -1 when half2_pack has no partner. */
int kernel_strategy(const tk_atomic_config &c, const void *out, size_t elem, int64_t out_len,
                    int64_t out_index)
{
    switch (c.strategy) {
    case TK_ATOMIC_HALF: return K_HALF;
    case TK_ATOMIC_HALF2_PACK: return out ? pair_lane(out, elem, out_len, out_index) : K_PAIR_LOW;
    case TK_ATOMIC_FAST: return K_FAST;
    case TK_ATOMIC_FLOAT_ACC: return K_FLOAT_ACC;
    case TK_ATOMIC_BLOCK_REDUCE: break;
    }
    return K_BLOCK_REDUCE;
}

} // namespace

/* ---- public entry points ------------------------------------------------------------------- */

extern "C" {

const tk_config_space *tk_atomic_config_space(void) { return &kSpace; }

tk_atomic_config tk_atomic_default_config(void)
{
    tk_atomic_config c;
    c.block_size = static_cast<int>(kParams[P_BLOCK_SIZE].default_value);
    c.strategy = static_cast<tk_atomic_strategy>(kParams[P_STRATEGY].default_value);
    c.waves = static_cast<int>(kParams[P_WAVES].default_value);
    c.cache_hint = static_cast<tk_cache_hint>(kParams[P_CACHE_HINT].default_value);
    return c;
}

tk_status tk_atomic_config_from_text(const char *text, tk_atomic_config *out)
{
    if (!text || !out) return TK_ERR_INVALID_ARGUMENT;
    int64_t v[P_COUNT];
    const tk_status st = tk_config_parse(&kSpace, text, v);
    if (st != TK_OK) return st;
    *out = config_from_values(v);
    return TK_OK;
}

size_t tk_atomic_dot_workspace_bytes(void) { return sizeof(Workspace); }

tk_status tk_atomic_tuned_config(tk_dtype dtype, int64_t n, tk_atomic_config *out)
{
    if (!out || !dtype_valid(dtype) || n < 0) return TK_ERR_INVALID_ARGUMENT;
    *out = tuned_config(dtype, n);
    return TK_OK;
}

tk_status tk_atomic_dot(tk_dtype dtype, int64_t n, const void *x, const void *y, void *out,
                        int64_t out_len, int64_t out_index, void *workspace,
                        const tk_atomic_config *config, cudaStream_t stream)
{
    if (!dtype_valid(dtype) || n < 0 || (n > 0 && (!x || !y)) || !out || out_len < 1 ||
        out_index < 0 || out_index >= out_len)
        return TK_ERR_INVALID_ARGUMENT;
    const size_t elem = tk_dtype_size(dtype);
    tk_atomic_config c;
    int s;
    if (config) {
        if (!config_supported(*config)) return TK_ERR_UNSUPPORTED_CONFIG;
        if (config->strategy == TK_ATOMIC_FLOAT_ACC && !workspace) return TK_ERR_INVALID_ARGUMENT;
        c = *config;
        s = kernel_strategy(c, out, elem, out_len, out_index);
        if (s < 0) return TK_ERR_UNSUPPORTED_CONFIG;
    } else {
        c = tuned_config(dtype, n);
        s = kernel_strategy(c, out, elem, out_len, out_index);
        if (s < 0) s = K_FAST;
        if (s == K_FLOAT_ACC && !workspace) s = K_BLOCK_REDUCE;
    }
    if (n == 0) return TK_OK;
    return tk::dispatch_dtype(dtype, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (!tk::kIs16BitFloat<T>) return TK_ERR_INVALID_ARGUMENT;   /* checked above */
        else
            return launch_dot<T>(s, c, n, static_cast<const T *>(x), static_cast<const T *>(y),
                                 static_cast<T *>(out), out_len, out_index, workspace, stream);
    });
}

tk_status tk_atomic_dot_adds(tk_dtype dtype, int64_t n, const void *x, const void *y,
                             const tk_atomic_config *config, int64_t *dtype_adds,
                             int64_t *float_adds, int64_t *terms_per_thread)
{
    if (!dtype_valid(dtype) || n < 0 || (n > 0 && (!x || !y)) || !dtype_adds || !float_adds ||
        !terms_per_thread)
        return TK_ERR_INVALID_ARGUMENT;
    if (config && !config_supported(*config)) return TK_ERR_UNSUPPORTED_CONFIG;
    const tk_atomic_config c = config ? *config : tuned_config(dtype, n);
    *dtype_adds = *float_adds = *terms_per_thread = 0;
    if (n == 0) return TK_OK;
    Plan p;
    const tk_status st = make_plan(n, x, y, tk_dtype_size(dtype), c, &p);
    if (st != TK_OK) return st;
    const int64_t threads = static_cast<int64_t>(p.grid) * c.block_size;
    const int64_t units = plan_units(p);
    const int64_t working = threads < units ? threads : units;
    switch (c.strategy) {
    case TK_ATOMIC_BLOCK_REDUCE: *dtype_adds = p.grid; break;
    case TK_ATOMIC_FLOAT_ACC: *dtype_adds = 1, *float_adds = working; break;
    default: *dtype_adds = working; break;
    }
    *terms_per_thread = tk::ceil_div(p.n_packs, threads) * p.pack + (p.n_head > 0) + (p.n_tail > 0);
    return TK_OK;
}

} // extern "C"
