/* upsample.cu: the upsample family, nearest-neighbour upsampling of contiguous NCHW tensors by
 * integer scales (public API and semantics: tunekit_upsample.h).
 *
 * Variants (parameter impl):
 *   generic  any scales sh x sw. Forward: one output element per thread, source
 *            x[(orow / sh) * W + ocol / sw] for output row orow (over all N*C*OH rows) and
 *            column ocol. Backward: one dx element per thread, summing its sh*sw dy elements
 *            (a gather: no atomics for any integer scale), in float.
 *   pack2x   2 x 2 (OneFlow's kernel): one input element i = row * W + col per thread; its four
 *            outputs are the 2-wide packs at 2 * (i + row * W) and W * 2 elements further (the
 *            next output row). The backward loads those two packs and sums four values.
 *   vec      2 x 2 with pack_size = V input elements per thread, loaded (forward) or stored
 *            (backward) as one V-element pack. When W % V == 0 the V elements lie in one row and
 *            their 2V outputs per output row are contiguous and aligned: stored (forward) or
 *            loaded (backward) as packs of up to 16 bytes. Otherwise (odd widths) each element
 *            takes the pack2x access on the wide side, stepping its row as it crosses one.
 *            vec with V = 1 is pack2x itself.
 * Only the number of rows N*C*H matters, never H alone: output row 2r and 2r + 1 belong to input
 * row r whatever H is, so odd heights need nothing special.
 * Parameters (tk_upsample_config_space):
 *   impl        generic | pack2x | vec (compile time; default vec)
 *   pack_size   1, 2, 4, 8 input elements of vec, at most 16 bytes (compile time; default 16
 *               bytes: f32 4, f16/bf16 8); ignored by generic and pack2x
 *   block_size  32..1024, multiple of 32 (launch time; default 256)
 *   waves       >= 1 (launch time; default 32): grid-stride grid cap, launch.cuh's rule
 *   cache_hint  normal | evict_first (compile time; default normal): evict_first gives every
 *               load and store the evict-first hint (pack.cuh), so the tensors streamed through
 *               L2 once replace each other there rather than what other kernels left behind
 *               (under a cold-L2 measurement: dirty lines, whose write-back costs DRAM time)
 * Fallbacks: scales other than 2 x 2 run generic; pointers not aligned to the requested packs run
 * the widest pack they allow (V halved down to pack2x, then generic). The last n % V input
 * elements (the tail) are done one per thread by the first threads of the same launch.
 * Indices are 32-bit (divisions by multiply-high with a magic number) when the larger tensor
 * has fewer than 2^31 elements, 64-bit otherwise. Backward sums accumulate in float and round
 * once; their error bound is tk_upsample_nearest_bwd_error_bound.
 *
 * Order: device helpers (divider, pack helpers), kernels, launchers, config space and
 * resolution, public entry points. */
#include <cmath>
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

/* ---- device helpers --------------------------------------------------------------------------
 * Divider<I>: n / d for a divisor d >= 1 fixed at launch. For 32-bit indices (n and d below
 * 2^31) Granlund and Montgomery's multiply-high: with s = ceil(log2 d) and
 * m = floor(2^32 (2^s - d) / d) + 1, n / d = (umulhi(n, m) + n) >> s (no overflow: n < 2^31).
 * For 64-bit indices a plain division (only tensors beyond 2^31 elements take that path). */
template <typename I>
struct Divider;

template <>
struct Divider<uint32_t> {
    uint32_t magic;
    uint32_t shift;
    explicit Divider(uint32_t d)
    {
        shift = 0;
        while (shift < 32 && (uint64_t{1} << shift) < d)
            shift++;
        magic = static_cast<uint32_t>(((uint64_t{1} << 32) * ((uint64_t{1} << shift) - d)) / d + 1);
    }
    __device__ __forceinline__ uint32_t div(uint32_t n) const
    {
        return (__umulhi(n, magic) + n) >> shift;
    }
};

template <>
struct Divider<uint64_t> {
    uint64_t d;
    explicit Divider(uint64_t divisor) : d(divisor) {}
    __device__ __forceinline__ uint64_t div(uint64_t n) const { return n / d; }
};

/* The elements per pack on the 2x-wide side of a V-element pack: 2V, in packs of at most 16
 * bytes. */
template <typename T, int V>
constexpr int kWideChunk = 2 * V < tk::kMaxPackSize<T> ? 2 * V : tk::kMaxPackSize<T>;

/* Writes {v0 v0 v1 v1 ...} (2V elements) to top and to bottom, in packs of kWideChunk. */
template <typename T, int V, bool kEF>
__device__ __forceinline__ void store_doubled(T *top, T *bottom, const Pack<T, V> &in)
{
    constexpr int kChunk = kWideChunk<T, V>;
#pragma unroll
    for (int c = 0; c < 2 * V; c += kChunk) {
        Pack<T, kChunk> out;
#pragma unroll
        for (int k = 0; k < kChunk; k++)
            out.elem[k] = in.elem[(c + k) / 2];
        tk::store_pack_hinted<kEF, T, kChunk>(top + c, out);
        tk::store_pack_hinted<kEF, T, kChunk>(bottom + c, out);
    }
}

/* s[k] = p[2k] + p[2k + 1] in float for k < V, loading the 2V elements at p in packs of
 * kWideChunk. */
template <typename T, int V, bool kEF>
__device__ __forceinline__ void pair_sums(const T *p, float (&s)[V])
{
    constexpr int kChunk = kWideChunk<T, V>;
#pragma unroll
    for (int c = 0; c < 2 * V; c += kChunk) {
        const Pack<T, kChunk> v = tk::load_pack_hinted<kEF, T, kChunk>(p + c);
#pragma unroll
        for (int k = 0; k < kChunk; k += 2)
            s[(c + k) / 2] = tk::to_float(v.elem[k]) + tk::to_float(v.elem[k + 1]);
    }
}

/* The four outputs of one input element, top = its first output (the 2-wide pack at top and
 * the one w2 = 2W elements on). */
template <typename T, bool kEF, typename I>
__device__ __forceinline__ void store_four(T *top, I w2, T v)
{
    const Pack<T, 2> p = {{v, v}};
    tk::store_pack_hinted<kEF, T, 2>(top, p);
    tk::store_pack_hinted<kEF, T, 2>(top + w2, p);
}

/* The sum of the four dy elements of one dx element (top as in store_four), rounded once. */
template <typename T, bool kEF, typename I>
__device__ __forceinline__ T sum_four(const T *top, I w2)
{
    const Pack<T, 2> a = tk::load_pack_hinted<kEF, T, 2>(top);
    const Pack<T, 2> b = tk::load_pack_hinted<kEF, T, 2>(top + w2);
    return tk::from_float<T>((tk::to_float(a.elem[0]) + tk::to_float(a.elem[1])) +
                             (tk::to_float(b.elem[0]) + tk::to_float(b.elem[1])));
}

template <typename T, bool kEF>
__device__ __forceinline__ T load_one(const T *p)
{
    return tk::load_pack_hinted<kEF, T, 1>(p).elem[0];
}

template <typename T, bool kEF>
__device__ __forceinline__ void store_one(T *p, T v)
{
    const Pack<T, 1> one = {{v}};
    tk::store_pack_hinted<kEF, T, 1>(p, one);
}

/* ---- kernels ---------------------------------------------------------------------------------
 * 2 x 2 kernels: input element i (row r = i / W, column i - r W) has its first output at
 * 2 (i + r W) (= 2r * 2W + 2 col). Thread u handles input elements [uV, uV + V) in a grid-stride
 * loop; the tail [n_packs V, n) goes to threads 0 .. n % V - 1 afterwards. */
template <typename T, int V, bool kWideRows, bool kEF, typename I>
__global__ void __launch_bounds__(tk::kMaxBlockSize)
    up2x_fwd_kernel(const T *__restrict__ x, T *__restrict__ y, I n, I w, Divider<I> by_w)
{
    const I tid = static_cast<I>(blockIdx.x) * blockDim.x + threadIdx.x;
    const I threads = static_cast<I>(gridDim.x) * blockDim.x;
    const I n_packs = n / V;
    const I w2 = 2 * w;
    for (I u = tid; u < n_packs; u += threads) {
        const I i0 = u * V;
        const Pack<T, V> in = tk::load_pack_hinted<kEF, T, V>(x + i0);
        I row = by_w.div(i0);
        if constexpr (kWideRows) {
            T *top = y + 2 * (i0 + row * w);
            store_doubled<T, V, kEF>(top, top + w2, in);
        } else {
            I col = i0 - row * w;
#pragma unroll
            for (int k = 0; k < V; k++) {
                store_four<T, kEF, I>(y + 2 * (i0 + k + row * w), w2, in.elem[k]);
                if (++col == w) col = 0, row++;
            }
        }
    }
    const I t = n_packs * V + tid;
    if (t < n) store_four<T, kEF, I>(y + 2 * (t + by_w.div(t) * w), w2, load_one<T, kEF>(x + t));
}

template <typename T, int V, bool kWideRows, bool kEF, typename I>
__global__ void __launch_bounds__(tk::kMaxBlockSize)
    up2x_bwd_kernel(const T *__restrict__ dy, T *__restrict__ dx, I n, I w, Divider<I> by_w)
{
    const I tid = static_cast<I>(blockIdx.x) * blockDim.x + threadIdx.x;
    const I threads = static_cast<I>(gridDim.x) * blockDim.x;
    const I n_packs = n / V;
    const I w2 = 2 * w;
    for (I u = tid; u < n_packs; u += threads) {
        const I i0 = u * V;
        I row = by_w.div(i0);
        Pack<T, V> out;
        if constexpr (kWideRows) {
            const T *top = dy + 2 * (i0 + row * w);
            float a[V], b[V];
            pair_sums<T, V, kEF>(top, a);
            pair_sums<T, V, kEF>(top + w2, b);
#pragma unroll
            for (int k = 0; k < V; k++)
                out.elem[k] = tk::from_float<T>(a[k] + b[k]);
        } else {
            I col = i0 - row * w;
#pragma unroll
            for (int k = 0; k < V; k++) {
                out.elem[k] = sum_four<T, kEF, I>(dy + 2 * (i0 + k + row * w), w2);
                if (++col == w) col = 0, row++;
            }
        }
        tk::store_pack_hinted<kEF, T, V>(dx + i0, out);
    }
    const I t = n_packs * V + tid;
    if (t < n) store_one<T, kEF>(dx + t, sum_four<T, kEF, I>(dy + 2 * (t + by_w.div(t) * w), w2));
}

/* generic forward: one output element per thread; ow = W * sw is the output row length. */
template <typename T, bool kEF, typename I>
__global__ void __launch_bounds__(tk::kMaxBlockSize)
    generic_fwd_kernel(const T *__restrict__ x, T *__restrict__ y, I n_out, I w, I ow,
                       Divider<I> by_ow, Divider<I> by_sh, Divider<I> by_sw)
{
    const I tid = static_cast<I>(blockIdx.x) * blockDim.x + threadIdx.x;
    const I threads = static_cast<I>(gridDim.x) * blockDim.x;
    for (I o = tid; o < n_out; o += threads) {
        const I orow = by_ow.div(o);
        const I ocol = o - orow * ow;
        store_one<T, kEF>(y + o, load_one<T, kEF>(x + by_sh.div(orow) * w + by_sw.div(ocol)));
    }
}

/* generic backward: one dx element per thread, its dy window starting at row r * sh, column
 * col * sw, summed row by row in float from -0 (the exact additive identity). */
template <typename T, bool kEF, typename I>
__global__ void __launch_bounds__(tk::kMaxBlockSize)
    generic_bwd_kernel(const T *__restrict__ dy, T *__restrict__ dx, I n, I w, I ow, I sh, I sw,
                       Divider<I> by_w)
{
    const I tid = static_cast<I>(blockIdx.x) * blockDim.x + threadIdx.x;
    const I threads = static_cast<I>(gridDim.x) * blockDim.x;
    for (I i = tid; i < n; i += threads) {
        const I row = by_w.div(i);
        const T *p = dy + row * sh * ow + (i - row * w) * sw;
        float acc = -0.0f;
        for (I a = 0; a < sh; a++, p += ow)
            for (I b = 0; b < sw; b++)
                acc += tk::to_float(load_one<T, kEF>(p + b));
        store_one<T, kEF>(dx + i, tk::from_float<T>(acc));
    }
}

/* ---- launchers ------------------------------------------------------------------------------- */

/* One call's sizes: n input elements (n*c*h*w) in rows of w, scales, and the output's n_out
 * elements in rows of ow = w * sw. */
struct Shape {
    int64_t n, w, n_out, ow;
    int sh, sw;
};

/* Which kernel a call runs: v = 0 generic, else the 2 x 2 kernel with V = v (1 is pack2x);
 * wide_rows: W % V == 0 (contiguous wide-side packs). */
struct Plan {
    int v;
    bool wide_rows;
};

/* The plan for config c: generic unless the scales are 2 x 2; vec starts from pack_size and
 * pack2x from 1; V is halved until `narrow` (x or dx) is aligned to V elements and `wide` (y or
 * dy) to the wide-side packs; generic when even the 2-wide packs are misaligned. */
Plan plan_for(const tk_upsample_config &c, const Shape &s, size_t es, const void *narrow,
              const void *wide)
{
    if (s.sh != 2 || s.sw != 2 || c.impl == TK_UPSAMPLE_GENERIC) return {0, false};
    for (int v = c.impl == TK_UPSAMPLE_VEC ? c.pack_size : 1; v >= 1; v /= 2) {
        const bool wide_rows = s.w % v == 0;
        const size_t pack_bytes = static_cast<size_t>(v) * es;
        size_t wide_bytes = wide_rows ? 2 * pack_bytes : 2 * es;
        if (wide_bytes > static_cast<size_t>(tk::kMaxPackBytes)) wide_bytes = tk::kMaxPackBytes;
        if (tk::is_aligned(narrow, pack_bytes) && tk::is_aligned(wide, wide_bytes))
            return {v, wide_rows};
    }
    return {0, false};
}

/* Launches kernel over n_units work items with c's block size and waves. */
template <typename Kernel, typename... Args>
tk_status launch(Kernel kernel, int64_t n_units, const tk_upsample_config &c, cudaStream_t stream,
                 Args... args)
{
    unsigned grid = 0;
    const tk_status st = tk::grid_size(TK_LOOP_GRID_STRIDE, n_units, c.block_size, c.waves, &grid);
    if (st != TK_OK) return st;
    kernel<<<grid, c.block_size, 0, stream>>>(args...);
    return cudaGetLastError() == cudaSuccess ? TK_OK : TK_ERR_LAUNCH;
}

template <bool kBwd, typename T, bool kEF, typename I>
tk_status launch_generic(const Shape &s, const T *src, T *dst, const tk_upsample_config &c,
                         cudaStream_t stream)
{
    const I w = static_cast<I>(s.w), ow = static_cast<I>(s.ow);
    const I sh = static_cast<I>(s.sh), sw = static_cast<I>(s.sw);
    if constexpr (kBwd)
        return launch(generic_bwd_kernel<T, kEF, I>, s.n, c, stream, src, dst,
                      static_cast<I>(s.n), w, ow, sh, sw, Divider<I>(w));
    else
        return launch(generic_fwd_kernel<T, kEF, I>, s.n_out, c, stream, src, dst,
                      static_cast<I>(s.n_out), w, ow, Divider<I>(ow), Divider<I>(sh),
                      Divider<I>(sw));
}

template <bool kBwd, typename T, bool kEF, typename I, int V, bool kWideRows>
tk_status launch_2x(const Shape &s, const T *src, T *dst, const tk_upsample_config &c,
                    cudaStream_t stream)
{
    const int64_t n_packs = s.n / V, n_tail = s.n % V;
    const int64_t n_units = n_packs > n_tail ? n_packs : n_tail;
    const I n = static_cast<I>(s.n), w = static_cast<I>(s.w);
    if constexpr (kBwd)
        return launch(up2x_bwd_kernel<T, V, kWideRows, kEF, I>, n_units, c, stream, src, dst, n,
                      w, Divider<I>(w));
    else
        return launch(up2x_fwd_kernel<T, V, kWideRows, kEF, I>, n_units, c, stream, src, dst, n,
                      w, Divider<I>(w));
}

template <bool kBwd, typename T, bool kEF, typename I, int V>
tk_status launch_vec(const Shape &s, bool wide_rows, const T *src, T *dst,
                     const tk_upsample_config &c, cudaStream_t stream)
{
    if constexpr (tk::kPackFits<T, V>) {
        if (wide_rows) return launch_2x<kBwd, T, kEF, I, V, true>(s, src, dst, c, stream);
        return launch_2x<kBwd, T, kEF, I, V, false>(s, src, dst, c, stream);
    }
    return TK_ERR_UNSUPPORTED_CONFIG;
}

template <bool kBwd, typename T, bool kEF, typename I>
tk_status launch_plan(const Plan &p, const Shape &s, const T *src, T *dst,
                      const tk_upsample_config &c, cudaStream_t stream)
{
    switch (p.v) {
    case 1: return launch_2x<kBwd, T, kEF, I, 1, true>(s, src, dst, c, stream);
    case 2: return launch_vec<kBwd, T, kEF, I, 2>(s, p.wide_rows, src, dst, c, stream);
    case 4: return launch_vec<kBwd, T, kEF, I, 4>(s, p.wide_rows, src, dst, c, stream);
    case 8: return launch_vec<kBwd, T, kEF, I, 8>(s, p.wide_rows, src, dst, c, stream);
    default: return launch_generic<kBwd, T, kEF, I>(s, src, dst, c, stream);
    }
}

/* launch_plan for the config's cache hint and the index width. */
template <bool kBwd, typename T>
tk_status launch_hinted(const Plan &p, const Shape &s, const T *src, T *dst,
                        const tk_upsample_config &c, cudaStream_t stream)
{
    const bool index32 = s.n_out <= INT32_MAX;
    if (c.cache_hint == TK_CACHE_EVICT_FIRST) {
        if (index32) return launch_plan<kBwd, T, true, uint32_t>(p, s, src, dst, c, stream);
        return launch_plan<kBwd, T, true, uint64_t>(p, s, src, dst, c, stream);
    }
    if (index32) return launch_plan<kBwd, T, false, uint32_t>(p, s, src, dst, c, stream);
    return launch_plan<kBwd, T, false, uint64_t>(p, s, src, dst, c, stream);
}

/* ---- config space and resolution ------------------------------------------------------------- */

/* Parameter order of the space (canonical: sorted by name); tk_config_parse fills values[]
 * in this order. */
enum { P_BLOCK_SIZE, P_CACHE_HINT, P_IMPL, P_PACK_SIZE, P_WAVES, P_COUNT };

const int64_t kPackSizes[] = {1, 2, 4, 8};
const char *const kImpls[] = {"generic", "pack2x", "vec"};
const char *const kCacheHints[] = {"normal", "evict_first"};
const tk_param_desc kParams[P_COUNT] = {
    {"block_size", 0, 0, nullptr, nullptr, 32, tk::kMaxBlockSize, 32, 256},
    {"cache_hint", 1, 2, nullptr, kCacheHints, 0, 0, 0, TK_CACHE_NORMAL},
    {"impl", 1, 3, nullptr, kImpls, 0, 0, 0, TK_UPSAMPLE_VEC},
    {"pack_size", 1, 4, kPackSizes, nullptr, 0, 0, 0, 4},
    {"waves", 0, 0, nullptr, nullptr, 1, 1024, 1, 32},
};
const tk_config_space kSpace = {"upsample", P_COUNT, kParams};

/* The op names the tuner and the generated header use (the cache keys of tk_tuned_values: every
 * lookup passes one of these literals). */
const char kOpFwd[] = "upsample.nearest2x_fwd";
const char kOpBwd[] = "upsample.nearest2x_bwd";

tk_upsample_config config_from_values(const int64_t *v)
{
    tk_upsample_config c;
    c.block_size = static_cast<int>(v[P_BLOCK_SIZE]);
    c.impl = static_cast<tk_upsample_impl>(v[P_IMPL]);
    c.pack_size = static_cast<int>(v[P_PACK_SIZE]);
    c.waves = static_cast<int>(v[P_WAVES]);
    c.cache_hint = static_cast<tk_cache_hint>(v[P_CACHE_HINT]);
    return c;
}

/* Whether the library has a variant for c with elements of es bytes. */
bool config_supported(const tk_upsample_config &c, size_t es)
{
    const bool pack_ok = c.pack_size == 1 || c.pack_size == 2 || c.pack_size == 4 ||
                         c.pack_size == 8;
    return pack_ok && c.block_size >= 32 && c.block_size <= tk::kMaxBlockSize &&
           c.block_size % 32 == 0 && c.waves >= 1 &&
           (c.impl == TK_UPSAMPLE_GENERIC || c.impl == TK_UPSAMPLE_PACK2X ||
            c.impl == TK_UPSAMPLE_VEC) &&
           (c.cache_hint == TK_CACHE_NORMAL || c.cache_hint == TK_CACHE_EVICT_FIRST) &&
           (c.impl != TK_UPSAMPLE_VEC ||
            static_cast<size_t>(c.pack_size) * es <= static_cast<size_t>(tk::kMaxPackBytes));
}

bool dtype_valid(tk_dtype d) { return d == TK_F32 || d == TK_F16 || d == TK_BF16; }

/* The config a call uses: *given when not NULL, else the tuned entry for (op_name, dtype, size),
 * else the default (also for a stale tuned entry the library cannot run). dtype must be
 * valid. */
tk_upsample_config resolve_config(const char *op_name, tk_dtype dtype, int64_t size,
                                  const tk_upsample_config *given)
{
    if (given) return *given;
    const int64_t *v = tk_tuned_values(&kSpace, op_name, tk_dtype_name(dtype), size);
    if (v) {
        const tk_upsample_config c = config_from_values(v);
        if (config_supported(c, tk_dtype_size(dtype))) return c;
    }
    return tk_upsample_default_config(dtype);
}

/* *out = a * b (a, b >= 0) when that is at most limit; false otherwise (overflow included). */
bool mul_within(int64_t a, int64_t b, int64_t limit, int64_t *out)
{
    int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r) || r > limit) return false;
    *out = r;
    return true;
}

/* The shared body of the two entry points: argument checks (dtype, sizes, scales, the 2^62
 * output limit, pointers when there is work), config check and resolution, plan, dispatch on
 * dtype and index width. src is x (forward) or dy (backward), dst y or dx. */
template <bool kBwd>
tk_status upsample_call(tk_dtype dtype, int64_t n, int64_t c, int64_t h, int64_t w, int sh,
                        int sw, const void *src, void *dst, const tk_upsample_config *config,
                        cudaStream_t stream)
{
    const int64_t kMaxOut = int64_t{1} << 62;
    Shape s = {0, w, 0, 0, sh, sw};
    int64_t nc = 0, nch = 0, nsh = 0;
    if (!dtype_valid(dtype) || n < 0 || c < 0 || h < 0 || w < 0 || sh < 1 || sw < 1 ||
        !mul_within(n, c, kMaxOut, &nc) || !mul_within(nc, h, kMaxOut, &nch) ||
        !mul_within(nch, w, kMaxOut, &s.n) || !mul_within(s.n, sh, kMaxOut, &nsh) ||
        !mul_within(nsh, sw, kMaxOut, &s.n_out) || (s.n > 0 && (!src || !dst)))
        return TK_ERR_INVALID_ARGUMENT;
    const size_t es = tk_dtype_size(dtype);
    if (config && !config_supported(*config, es)) return TK_ERR_UNSUPPORTED_CONFIG;
    if (s.n == 0) return TK_OK;
    s.ow = w * sw;
    const tk_upsample_config cfg = resolve_config(kBwd ? kOpBwd : kOpFwd, dtype, s.n, config);
    /* the narrow side is x (forward) or dx (backward), the wide side y or dy */
    const Plan plan = kBwd ? plan_for(cfg, s, es, dst, src) : plan_for(cfg, s, es, src, dst);
    return tk::dispatch_dtype(dtype, [&](auto tag) {
        using T = decltype(tag);
        return launch_hinted<kBwd, T>(plan, s, static_cast<const T *>(src), static_cast<T *>(dst),
                                      cfg, stream);
    });
}

/* Higham's gamma(m) = m u / (1 - m u) for float's unit roundoff u = 2^-24 (infinite once
 * m u >= 1, where the bound says nothing). */
double gamma_f32(double m)
{
    const double u = 0x1p-24;
    return m * u < 1.0 ? m * u / (1.0 - m * u) : HUGE_VAL;
}

} // namespace

/* ---- public entry points ---------------------------------------------------------------------- */

extern "C" {

const tk_config_space *tk_upsample_config_space(void) { return &kSpace; }

tk_upsample_config tk_upsample_default_config(tk_dtype dtype)
{
    tk_upsample_config c;
    c.block_size = static_cast<int>(kParams[P_BLOCK_SIZE].default_value);
    c.impl = static_cast<tk_upsample_impl>(kParams[P_IMPL].default_value);
    c.waves = static_cast<int>(kParams[P_WAVES].default_value);
    c.cache_hint = static_cast<tk_cache_hint>(kParams[P_CACHE_HINT].default_value);
    const size_t size = tk_dtype_size(dtype);
    c.pack_size = size ? static_cast<int>(tk::kMaxPackBytes / size)
                       : static_cast<int>(kParams[P_PACK_SIZE].default_value);
    return c;
}

tk_status tk_upsample_config_from_text(const char *text, tk_upsample_config *out)
{
    if (!text || !out) return TK_ERR_INVALID_ARGUMENT;
    int64_t v[P_COUNT];
    const tk_status st = tk_config_parse(&kSpace, text, v);
    if (st != TK_OK) return st;
    *out = config_from_values(v);
    return TK_OK;
}

tk_status tk_upsample_tuned_config(const char *op, tk_dtype dtype, int64_t size,
                                   tk_upsample_config *out)
{
    if (!op || !out || !dtype_valid(dtype) || size < 0) return TK_ERR_INVALID_ARGUMENT;
    for (const char *name : {kOpFwd, kOpBwd}) {
        if (std::strcmp(op, name) == 0) {
            *out = resolve_config(name, dtype, size, nullptr);
            return TK_OK;
        }
    }
    return TK_ERR_INVALID_ARGUMENT;
}

tk_status tk_upsample_nearest_fwd(tk_dtype dtype, int64_t n, int64_t c, int64_t h, int64_t w,
                                  int scale_h, int scale_w, const void *x, void *y,
                                  const tk_upsample_config *config, cudaStream_t stream)
{
    return upsample_call<false>(dtype, n, c, h, w, scale_h, scale_w, x, y, config, stream);
}

tk_status tk_upsample_nearest_bwd(tk_dtype dtype, int64_t n, int64_t c, int64_t h, int64_t w,
                                  int scale_h, int scale_w, const void *dy, void *dx,
                                  const tk_upsample_config *config, cudaStream_t stream)
{
    return upsample_call<true>(dtype, n, c, h, w, scale_h, scale_w, dy, dx, config, stream);
}

tk_status tk_upsample_nearest_bwd_error_bound(tk_dtype dtype, int scale_h, int scale_w,
                                              double max_abs_dy, double *rtol, double *atol)
{
    if (!dtype_valid(dtype) || scale_h < 1 || scale_w < 1 || !(max_abs_dy >= 0) || !rtol ||
        !atol)
        return TK_ERR_INVALID_ARGUMENT;
    const double k = static_cast<double>(scale_h) * scale_w;
    const double ud = dtype == TK_F32 ? 0x1p-24 : dtype == TK_F16 ? 0x1p-11 : 0x1p-8;
    *rtol = ud;
    const double sum_err = max_abs_dy > 0 && k > 1 ? gamma_f32(k - 1.0) * k * max_abs_dy : 0.0;
    *atol = (1.0 + ud) * sum_err + (dtype == TK_F16 ? 0x1p-25 : 0.0);
    return TK_OK;
}

} // extern "C"
