/* elementwise.cu: the elementwise family (OneFlow's template), y[i] = op(inputs[i]).
 *
 * Ops: relu    y = x > 0 || x != x ? x : 0   (NaN propagates, as torch.relu; -0 gives +0)
 *      gelu    y = x Phi(x) = 0.5 x (1 + erf(x / sqrt 2))   (the exact, erf form, not the tanh
 *              approximation), computed as x * erfc(-x / sqrt 2) / 2 in float for every dtype (see
 *              GeluOp)
 *      mul     y = a * b          add  y = a + b          fma  out = x * y + z
 * Dtypes: f32, f16 (__half), bf16 (__nv_bfloat16). relu and gelu compute in float and round once;
 * mul, add and fma use the native 16-bit instructions, paired (__hmul2, __hadd2, __hfma2) when a
 * pack holds two or more elements.
 * Parameters (tk_elementwise_config_space):
 *   block_size  32..1024, multiple of 32 (launch time; default 256)
 *   waves       >= 1 (launch time; the space lists 1..1024; default 32): grid_stride grid cap
 *   pack_size   1, 2, 4, 8 elements with pack_size * sizeof(T) <= 16 (compile time; default
 *               16 bytes: f32 4, f16/bf16 8)
 *   loop        grid_stride (a loop over packs, grid from launch.cuh's waves rule) or one_shot
 *               (no loop: one thread per `unroll` packs) (compile time)
 *   unroll      1, 2, 4: packs a thread loads before it computes and stores any of them (more
 *               loads in flight per thread; the packs of one round are a grid apart, so every
 *               load stays coalesced) (compile time; default 1)
 *   cache_hint  normal | evict_first: the packs are loaded and stored with the evict-first hint
 *               (ld/st.global.cs), so data used once does not push other kernels' lines out of
 *               L2 (compile time; default normal)
 * Alignment: when every pointer is aligned to the pack, the packed kernel runs over all of n.
 * When every pointer is misaligned by the same number of elements (views at one offset), the
 * first elements up to the pack boundary (the head) are peeled off and the rest still runs in
 * packs. Otherwise the pack_size = 1 instantiation runs (the scalar fallback). The head and the
 * last n % pack_size elements (the tail) are done by the first threads of the grid in the same
 * launch. Indices are 64-bit.
 *
 * Order: device helpers (op functors, pack application), kernels, launchers, public entry points
 * and the config space. */
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <cuda_runtime_api.h>
#include "dtype.cuh"
#include "elementwise_gelu16.h"
#include "launch.cuh"
#include "pack.cuh"
#include "tunekit.h"
#include "tuned_lookup.h"

namespace {

using tk::Pack;

/* ---- device helpers: the ops ---------------------------------------------------------------
 * Each op is a functor with operator() on one element; kPaired ops also have pair() on the
 * 16-bit types' two-lane types, used when a pack has two or more elements. */

struct ReluOp {
    static constexpr bool kPaired = false;
    template <typename T>
    __device__ __forceinline__ T operator()(T x) const
    {
        const float f = tk::to_float(x);
        return tk::from_float<T>(f > 0.0f || f != f ? f : 0.0f);
    }
};

/* gelu through erfc: Phi(x) = erfc(|x| / sqrt 2) / 2 for x <= 0 and 1 minus that for x > 0, so
 * that negative x, where 1 + erf(x / sqrt 2) cancels (the erff form's relative error reaches 6.7%
 * at f32 and whole half ulps there), lose nothing. Two evaluations of h = erfc(|x| / sqrt 2) / 2,
 * both of the form t exp(-x^2 / 2 + P(t)), t = 1 / (1 + |x| / (2 sqrt 2)):
 *   f32: P the degree-9 Chebyshev fit of Numerical Recipes' erfcc (fractional error < 1.2e-7 for
 *        every argument), as h = t 2^(log2(e) (P(t) - z^2) - 1) with the hardware's approximate
 *        reciprocal and ex2.approx, like the 16-bit path: relative error <= 1.99e-6 where
 *        |y| > 1e-6, over every float (tests/gpu/elementwise_test.cu checks all 2^32 on the GPU
 *        against the double reference). With an IEEE reciprocal and expf it was issue-bound on
 *        the H200: 0.98-0.99x PyTorch at 4M-33M elements.
 *   f16, bf16: 8 gelus per 16-byte pack make the kernel issue-bound (the H200 reached 73-74% of
 *        its copy rate with the f32 evaluation), so they take a shorter one of the same form: h =
 *        t 2^(Q(t) - log2(e) x^2 / 2), Q a degree-6 polynomial fitted (weighted least squares,
 *        t in [1/4, 1], i.e. |x| <= 8.5; beyond it h underflows as it should) to
 *        log2(erfc(z) / (2t)) + z^2 log2(e), relative error of h <= 1.1e-5; the hardware's
 *        approximate reciprocal and base-2 exponential (ex2.approx) and no scaling multiplies:
 *        about 7 instructions fewer per element. Checked over every finite half and bfloat16
 *        against x Phi(x) in double (tests/unit/test_gelu.c, its float twin): all within the
 *        validation's tolerance; where the result is above the tolerance's absolute floor, 22 of
 *        63,488 halves and 1 of 65,280 bfloat16s are 1 ulp from the correctly rounded result (the
 *        f32 path with an IEEE reciprocal and expf: 4 halves), none further.
 * NaN gives NaN; +inf gives +inf; -inf gives NaN (-inf * 0), as the erf form does. */
__device__ constexpr float kGeluQ16[] = TK_GELU_Q16;
constexpr int kGeluQ16Terms = TK_GELU_Q16_TERMS;

struct GeluOp {
    static constexpr bool kPaired = false;
    template <typename T>
    __device__ __forceinline__ T operator()(T x) const
    {
        const float f = tk::to_float(x);
        const float u = fabsf(f);
        const float t = __fdividef(1.0f, fmaf(u, TK_GELU_INV_2SQRT2, 1.0f));
        float a;   /* log2 of h / t */
        if constexpr (std::is_same<T, float>::value) {
            float p = 0.17087277f;
            p = fmaf(p, t, -0.82215223f);
            p = fmaf(p, t, 1.48851587f);
            p = fmaf(p, t, -1.13520398f);
            p = fmaf(p, t, 0.27886807f);
            p = fmaf(p, t, -0.18628806f);
            p = fmaf(p, t, 0.09678418f);
            p = fmaf(p, t, 0.37409196f);
            p = fmaf(p, t, 1.00002368f);
            p = fmaf(p, t, -1.26551223f);
            /* h = t exp(P(t) - z^2) / 2 = t 2^(log2(e) P(t) - log2(e) x^2 / 2 - 1) */
            a = fmaf(p, TK_GELU_LOG2E, fmaf(-TK_GELU_HALF_LOG2E * u, u, -1.0f));
        } else {
            float q = kGeluQ16[0];
#pragma unroll
            for (int i = 1; i < kGeluQ16Terms; i++) q = fmaf(q, t, kGeluQ16[i]);
            a = fmaf(-TK_GELU_HALF_LOG2E * u, u, q);
        }
        float e;
        asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(a));
        const float half_erfc = t * e;
        return tk::from_float<T>(f * (f > 0.0f ? 1.0f - half_erfc : half_erfc));
    }
};

struct MulOp {
    static constexpr bool kPaired = true;
    __device__ __forceinline__ float operator()(float a, float b) const { return a * b; }
    template <typename T>
    __device__ __forceinline__ T operator()(T a, T b) const { return __hmul(a, b); }
    template <typename P>
    __device__ __forceinline__ P pair(P a, P b) const { return __hmul2(a, b); }
};

struct AddOp {
    static constexpr bool kPaired = true;
    __device__ __forceinline__ float operator()(float a, float b) const { return a + b; }
    template <typename T>
    __device__ __forceinline__ T operator()(T a, T b) const { return __hadd(a, b); }
    template <typename P>
    __device__ __forceinline__ P pair(P a, P b) const { return __hadd2(a, b); }
};

struct FmaOp {
    static constexpr bool kPaired = true;
    __device__ __forceinline__ float operator()(float x, float y, float z) const
    {
        return fmaf(x, y, z);
    }
    template <typename T>
    __device__ __forceinline__ T operator()(T x, T y, T z) const { return __hfma(x, y, z); }
    template <typename P>
    __device__ __forceinline__ P pair(P x, P y, P z) const { return __hfma2(x, y, z); }
};

/* out = op applied to the packs in... element by element, or two elements at a time through
 * op.pair for the paired ops on 16-bit types. */
template <int N, typename Op, typename T, typename... In>
__device__ __forceinline__ Pack<T, N> apply_pack(const Op &op, const In &...in)
{
    Pack<T, N> out;
    if constexpr (Op::kPaired && tk::kIs16BitFloat<T> && N >= 2) {
#pragma unroll
        for (int k = 0; k < N; k += 2) {
            const tk::Paired<T> r = op.pair(tk::make_pair(in.elem[k], in.elem[k + 1])...);
            out.elem[k] = tk::low(r);
            out.elem[k + 1] = tk::high(r);
        }
    } else {
#pragma unroll
        for (int k = 0; k < N; k++)
            out.elem[k] = op(in.elem[k]...);
    }
    return out;
}

/* ---- kernels --------------------------------------------------------------------------------
 * Packs: y[head + i*N .. head + i*N + N) for i < n_packs, aligned. Scalars: the head
 * y[0 .. n_head) and the tail y[tail_start .. tail_start + n_tail), one element per thread by the
 * grid's first threads. A round of a thread handles U packs a grid apart (loads first, then the
 * ops and stores); kOneShot: the grid covers every pack in one round, no loop. */

template <int N, int U, bool kOneShot, bool kEvictFirst, typename Op, typename T, typename... In>
__global__ void __launch_bounds__(tk::kMaxBlockSize)
    elementwise_kernel(Op op, int64_t n_packs, int n_head, int64_t tail_start, int n_tail, T *y,
                       const In *...in)
{
    const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const int64_t threads = static_cast<int64_t>(gridDim.x) * blockDim.x;
    T *yp = y + n_head;
    for (int64_t base = tid; base < n_packs; base += threads * U) {
        Pack<T, N> out[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int64_t i = base + u * threads;
            if (i < n_packs)
                out[u] = apply_pack<N, Op, T>(
                    op, tk::load_pack_hinted<kEvictFirst, T, N>(in + n_head + i * N)...);
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int64_t i = base + u * threads;
            if (i < n_packs) tk::store_pack_hinted<kEvictFirst, T, N>(yp + i * N, out[u]);
        }
        if constexpr (kOneShot) break;
    }
    if (tid < n_head) y[tid] = op(in[tid]...);
    if (tid < n_tail) y[tail_start + tid] = op(in[tail_start + tid]...);
}

/* ---- launchers ------------------------------------------------------------------------------ */

/* Launches the N-element-pack, U-unrolled instantiation of op for n (> 0) elements, the first
 * n_head of them (< N) scalar so that the packs start aligned. */
template <int N, int U, bool kEvictFirst, typename Op, typename T, typename... In>
tk_status launch_unrolled(const Op &op, int64_t n, int n_head, const tk_elementwise_config &c,
                          cudaStream_t stream, T *y, const In *...in)
{
    const int64_t n_packs = (n - n_head) / N;
    const int64_t tail_start = n_head + n_packs * N;
    const int n_tail = static_cast<int>(n - tail_start);
    const int scalars = n_head > n_tail ? n_head : n_tail;
    /* work items of one thread: rounds of U packs; the scalars need that many threads too */
    int64_t n_units = tk::ceil_div(n_packs, U);
    if (n_units < scalars) n_units = scalars;
    unsigned grid = 0;
    tk_status st = tk::grid_size(c.loop, n_units, c.block_size, c.waves, &grid);
    if (st != TK_OK) return st;
    if (c.loop == TK_LOOP_ONE_SHOT)
        elementwise_kernel<N, U, true, kEvictFirst, Op, T, In...><<<grid, c.block_size, 0, stream>>>(
            op, n_packs, n_head, tail_start, n_tail, y, in...);
    else
        elementwise_kernel<N, U, false, kEvictFirst, Op, T, In...><<<grid, c.block_size, 0, stream>>>(
            op, n_packs, n_head, tail_start, n_tail, y, in...);
    return cudaGetLastError() == cudaSuccess ? TK_OK : TK_ERR_LAUNCH;
}

template <int N, bool kEvictFirst, typename Op, typename T, typename... In>
tk_status launch_hinted(const Op &op, int64_t n, int n_head, const tk_elementwise_config &c,
                        cudaStream_t stream, T *y, const In *...in)
{
    switch (c.unroll) {
    case 2: return launch_unrolled<N, 2, kEvictFirst>(op, n, n_head, c, stream, y, in...);
    case 4: return launch_unrolled<N, 4, kEvictFirst>(op, n, n_head, c, stream, y, in...);
    default: return launch_unrolled<N, 1, kEvictFirst>(op, n, n_head, c, stream, y, in...);
    }
}

template <int N, typename Op, typename T, typename... In>
tk_status launch_packed(const Op &op, int64_t n, int n_head, const tk_elementwise_config &c,
                        cudaStream_t stream, T *y, const In *...in)
{
    if (c.cache_hint == TK_CACHE_EVICT_FIRST)
        return launch_hinted<N, true>(op, n, n_head, c, stream, y, in...);
    return launch_hinted<N, false>(op, n, n_head, c, stream, y, in...);
}

/* Whether c is a config the library has a variant for, with elements of elem_size bytes. */
bool config_supported(const tk_elementwise_config &c, size_t elem_size)
{
    const bool pack_ok = (c.pack_size == 1 || c.pack_size == 2 || c.pack_size == 4 ||
                          c.pack_size == 8) &&
                         static_cast<size_t>(c.pack_size) * elem_size <=
                             static_cast<size_t>(tk::kMaxPackBytes);
    return pack_ok && c.block_size >= 32 && c.block_size <= tk::kMaxBlockSize &&
           c.block_size % 32 == 0 && c.waves >= 1 &&
           (c.unroll == 1 || c.unroll == 2 || c.unroll == 4) &&
           (c.cache_hint == TK_CACHE_NORMAL || c.cache_hint == TK_CACHE_EVICT_FIRST) &&
           (c.loop == TK_LOOP_GRID_STRIDE || c.loop == TK_LOOP_ONE_SHOT);
}

/* Misalignment of p within a pack of `bytes` (a power of two), in bytes. */
inline size_t misalignment(const void *p, size_t bytes)
{
    return reinterpret_cast<uintptr_t>(p) & (bytes - 1);
}

/* Picks the pack instantiation: c.pack_size when every pointer is aligned to it, or when every
 * pointer is misaligned by the same whole number of elements (then the head up to the pack
 * boundary is peeled off); else the scalar fallback, pack_size 1. */
template <typename Op, typename T, typename... In>
tk_status launch_op(const Op &op, int64_t n, const tk_elementwise_config &c, cudaStream_t stream,
                    T *y, const In *...in)
{
    const size_t bytes = static_cast<size_t>(c.pack_size) * sizeof(T);
    const size_t mis = misalignment(y, bytes);
    const bool same = ((misalignment(in, bytes) == mis) && ...) && mis % sizeof(T) == 0;
    int pack = same ? c.pack_size : 1;
    int64_t head = same && mis ? static_cast<int64_t>((bytes - mis) / sizeof(T)) : 0;
    if (head >= n) pack = 1, head = 0;   /* too short to reach a pack boundary */
    const int n_head = static_cast<int>(head);
    switch (pack) {
    case 2: return launch_packed<2>(op, n, n_head, c, stream, y, in...);
    case 4: return launch_packed<4>(op, n, n_head, c, stream, y, in...);
    case 8:
        if constexpr (tk::kPackFits<T, 8>) return launch_packed<8>(op, n, n_head, c, stream, y, in...);
        return TK_ERR_UNSUPPORTED_CONFIG;
    default: return launch_packed<1>(op, n, 0, c, stream, y, in...);
    }
}

/* ---- config space and resolution ------------------------------------------------------------ */

/* Parameter order of the space (canonical: sorted by name); tk_config_parse fills values[]
 * in this order. */
enum { P_BLOCK_SIZE, P_CACHE_HINT, P_LOOP, P_PACK_SIZE, P_UNROLL, P_WAVES, P_COUNT };

const int64_t kPackSizes[] = {1, 2, 4, 8};
const int64_t kUnrolls[] = {1, 2, 4};
const char *const kLoops[] = {"grid_stride", "one_shot"};
const char *const kCacheHints[] = {"normal", "evict_first"};
const tk_param_desc kParams[P_COUNT] = {
    {"block_size", 0, 0, nullptr, nullptr, 32, tk::kMaxBlockSize, 32, 256},
    {"cache_hint", 1, 2, nullptr, kCacheHints, 0, 0, 0, TK_CACHE_NORMAL},
    {"loop", 1, 2, nullptr, kLoops, 0, 0, 0, TK_LOOP_GRID_STRIDE},
    {"pack_size", 1, 4, kPackSizes, nullptr, 0, 0, 0, 4},
    {"unroll", 1, 3, kUnrolls, nullptr, 0, 0, 0, 1},
    {"waves", 0, 0, nullptr, nullptr, 1, 1024, 1, 32},
};
const tk_config_space kSpace = {"elementwise", P_COUNT, kParams};

/* The op names the tuner and the generated header use; these literals are the cache keys of
 * tk_tuned_values, so every lookup passes one of them. */
const char kRelu[] = "elementwise.relu";
const char kGelu[] = "elementwise.gelu";
const char kMul[] = "elementwise.mul";
const char kAdd[] = "elementwise.add";
const char kFma[] = "elementwise.fma";

tk_elementwise_config config_from_values(const int64_t *v)
{
    tk_elementwise_config c;
    c.block_size = static_cast<int>(v[P_BLOCK_SIZE]);
    c.cache_hint = static_cast<tk_cache_hint>(v[P_CACHE_HINT]);
    c.loop = static_cast<tk_loop>(v[P_LOOP]);
    c.pack_size = static_cast<int>(v[P_PACK_SIZE]);
    c.unroll = static_cast<int>(v[P_UNROLL]);
    c.waves = static_cast<int>(v[P_WAVES]);
    return c;
}

/* The config a call uses: *given when not NULL, else the tuned entry for (op_name, dtype, n), else
 * the default. A tuned entry the library cannot run (a stale header) also gives the default.
 * dtype must be valid. */
tk_elementwise_config resolve_config(const char *op_name, tk_dtype dtype, int64_t n,
                                     const tk_elementwise_config *given)
{
    if (given) return *given;
    const int64_t *v = tk_tuned_values(&kSpace, op_name, tk_dtype_name(dtype), n);
    if (v) {
        const tk_elementwise_config c = config_from_values(v);
        if (config_supported(c, tk_dtype_size(dtype))) return c;
    }
    return tk_elementwise_default_config(dtype);
}

bool dtype_valid(tk_dtype d) { return d == TK_F32 || d == TK_F16 || d == TK_BF16; }

/* The shared front of the entry points: argument checks, config resolution and check.
 * Returns TK_OK with *c set when there is work to launch; *done = true when n == 0. */
tk_status prepare_call(const char *op_name, tk_dtype dtype, int64_t n, bool pointers_ok,
                       const tk_elementwise_config *config, tk_elementwise_config *c, bool *done)
{
    if (!dtype_valid(dtype) || n < 0 || (n > 0 && !pointers_ok)) return TK_ERR_INVALID_ARGUMENT;
    if (config && !config_supported(*config, tk_dtype_size(dtype)))
        return TK_ERR_UNSUPPORTED_CONFIG;
    *done = n == 0;
    if (*done) return TK_OK;
    *c = resolve_config(op_name, dtype, n, config);
    return TK_OK;
}

} // namespace

/* ---- public entry points -------------------------------------------------------------------- */

extern "C" {

const tk_config_space *tk_elementwise_config_space(void) { return &kSpace; }

tk_elementwise_config tk_elementwise_default_config(tk_dtype dtype)
{
    tk_elementwise_config c;
    c.block_size = static_cast<int>(kParams[P_BLOCK_SIZE].default_value);
    c.waves = static_cast<int>(kParams[P_WAVES].default_value);
    c.loop = static_cast<tk_loop>(kParams[P_LOOP].default_value);
    c.unroll = static_cast<int>(kParams[P_UNROLL].default_value);
    c.cache_hint = static_cast<tk_cache_hint>(kParams[P_CACHE_HINT].default_value);
    const size_t size = tk_dtype_size(dtype);
    c.pack_size = size ? static_cast<int>(tk::kMaxPackBytes / size)
                       : static_cast<int>(kParams[P_PACK_SIZE].default_value);
    return c;
}

tk_status tk_elementwise_config_from_text(const char *text, tk_elementwise_config *out)
{
    if (!text || !out) return TK_ERR_INVALID_ARGUMENT;
    int64_t v[P_COUNT];
    const tk_status st = tk_config_parse(&kSpace, text, v);
    if (st != TK_OK) return st;
    *out = config_from_values(v);
    return TK_OK;
}

tk_status tk_elementwise_tuned_config(const char *op, tk_dtype dtype, int64_t n,
                                      tk_elementwise_config *out)
{
    static const char *const names[] = {kRelu, kGelu, kMul, kAdd, kFma};
    if (!op || !out || !dtype_valid(dtype) || n < 0) return TK_ERR_INVALID_ARGUMENT;
    for (const char *name : names) {
        if (std::strcmp(op, name) == 0) {
            *out = resolve_config(name, dtype, n, nullptr);
            return TK_OK;
        }
    }
    return TK_ERR_INVALID_ARGUMENT;
}

tk_status tk_elementwise_unary(tk_unary_op op, tk_dtype dtype, int64_t n, const void *x, void *y,
                               const tk_elementwise_config *config, cudaStream_t stream)
{
    if (op != TK_RELU && op != TK_GELU) return TK_ERR_INVALID_ARGUMENT;
    tk_elementwise_config c;
    bool done = false;
    tk_status st = prepare_call(op == TK_RELU ? kRelu : kGelu, dtype, n, x && y, config, &c, &done);
    if (st != TK_OK || done) return st;
    return tk::dispatch_dtype(dtype, [&](auto tag) {
        using T = decltype(tag);
        const T *xs = static_cast<const T *>(x);
        T *ys = static_cast<T *>(y);
        if (op == TK_RELU) return launch_op(ReluOp{}, n, c, stream, ys, xs);
        return launch_op(GeluOp{}, n, c, stream, ys, xs);
    });
}

tk_status tk_elementwise_binary(tk_binary_op op, tk_dtype dtype, int64_t n, const void *a,
                                const void *b, void *y, const tk_elementwise_config *config,
                                cudaStream_t stream)
{
    if (op != TK_MUL && op != TK_ADD) return TK_ERR_INVALID_ARGUMENT;
    tk_elementwise_config c;
    bool done = false;
    tk_status st =
        prepare_call(op == TK_MUL ? kMul : kAdd, dtype, n, a && b && y, config, &c, &done);
    if (st != TK_OK || done) return st;
    return tk::dispatch_dtype(dtype, [&](auto tag) {
        using T = decltype(tag);
        const T *as = static_cast<const T *>(a);
        const T *bs = static_cast<const T *>(b);
        T *ys = static_cast<T *>(y);
        if (op == TK_MUL) return launch_op(MulOp{}, n, c, stream, ys, as, bs);
        return launch_op(AddOp{}, n, c, stream, ys, as, bs);
    });
}

tk_status tk_elementwise_fma(tk_dtype dtype, int64_t n, const void *x, const void *y,
                             const void *z, void *out, const tk_elementwise_config *config,
                             cudaStream_t stream)
{
    tk_elementwise_config c;
    bool done = false;
    tk_status st = prepare_call(kFma, dtype, n, x && y && z && out, config, &c, &done);
    if (st != TK_OK || done) return st;
    return tk::dispatch_dtype(dtype, [&](auto tag) {
        using T = decltype(tag);
        return launch_op(FmaOp{}, n, c, stream, static_cast<T *>(out), static_cast<const T *>(x),
                         static_cast<const T *>(y), static_cast<const T *>(z));
    });
}

} // extern "C"
