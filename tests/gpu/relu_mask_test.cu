/* relu_mask_test.cu: GPU test of the relu_mask family (kernels/relu_mask.cu).
 *
 * For every op x dtype x mask scheme x pack_size x cache_hint x unroll (1, 2, 4), launch shapes
 * (block_size, waves, loop) in {(32, 1, grid_stride), (96, 7, grid_stride), (256, 1, one_shot),
 * (1024, 1, grid_stride)}, sizes {1, 31, 33, 8191, 65537, 2^20 + 3} and pointer offsets {0 on
 * every data pointer, 1 on every data pointer, 1 on one input only} (the largest size with the
 * middle two shapes): random inputs with planted +0 and -0, outputs poisoned (0xff bytes, NaN in
 * every dtype; mask words the complement of the expected ones, guard words 0xa5a5a5a5), then
 * compared EXACTLY with a double-precision CPU reference (value and sign of zero), the mask bit
 * for bit, and the elements and words just before and after every output must still hold the
 * poison. The backward's inputs are dy and the mask (or y, scheme none) computed on the CPU in
 * the documented layout. Then: warps looping over several tiles (n = 2^24 + 37, one wave of
 * grid-stride blocks, every op, dtype, scheme and unroll), forward then backward through the
 * library with every pair of schemes (a byte8 mask read by ballot32 and back), in-place calls,
 * add_relu_bwd with the addend's gradient NULL or equal to dx, special values (NaN, infinities,
 * signed zeros), n > 2^31, NULL-config calls against tk_relu_mask_tuned_config (and the header's
 * entries for this GPU), bad arguments, the NULL-config host overhead (limit 100 ns per call),
 * and the tuner's GPU set-up of the family (its references against the CPU one).
 * Prints "N passed, N failed" last; exits non-zero on failure; skips without a GPU. */
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include "decoder.h"
#include "gpu_check.h"
#include "gpu_fill_check.h"
#include "tk_check.h"
#include "tuned_lookup.h"
#include "tunekit.h"
#include "tuned_configs.h"

namespace {

enum OpId { RELU_FWD, ADD_RELU_FWD, RELU_BWD, ADD_RELU_BWD, N_OPS };
const char *const kOpNames[N_OPS] = {"relu_mask.relu_fwd", "relu_mask.add_relu_fwd",
                                     "relu_mask.relu_bwd", "relu_mask.add_relu_bwd"};
const tk_dtype kDtypes[] = {TK_F32, TK_F16, TK_BF16};
const char *const kSchemes[] = {"none", "byte8", "ballot32"};
const tk_cache_hint kHints[] = {TK_CACHE_NORMAL, TK_CACHE_EVICT_FIRST};
bool is_fwd(OpId op) { return op == RELU_FWD || op == ADD_RELU_FWD; }
bool is_add(OpId op) { return op == ADD_RELU_FWD || op == ADD_RELU_BWD; }

constexpr int64_t kMaxN = (1 << 20) + 3;
constexpr int64_t kGuard = 8;                   /* poisoned elements / words checked after */
constexpr int64_t kAlloc = kMaxN + 64;          /* elements per data buffer */
constexpr int64_t kMaskAlloc = kMaxN / 32 + 64; /* words per mask buffer */
constexpr uint32_t kGuardWord = 0xa5a5a5a5u;

int64_t words(int64_t n) { return tk_relu_mask_words(n); }

double round_to(tk_dtype dt, double v)
{
    unsigned char b[8];
    double r;
    tk_host_from_double(dt, &v, b, 1);
    tk_host_to_double(dt, b, &r, 1);
    return r;
}

bool passes(double s) { return !(s <= 0.0); }

bool same_value(double got, double want)
{
    if (std::isnan(want)) return std::isnan(got);
    return got == want && std::signbit(got) == std::signbit(want);
}

/* Device buffers and pinned host mirrors of cap elements (masks: cap / 32 + 64 words).
 * in[0]: x (forward) or dy (backward); in[1]: the addend; in[2]: the x the backward's mask is
 * computed from (with in[1] as its addend). Made by alloc_buffers, freed by free_buffers. */
struct Buffers {
    int64_t cap = 0;
    void *in[3] = {nullptr, nullptr, nullptr};
    void *y_in = nullptr;           /* backward scheme none: y, as the CPU computes it */
    void *out[2] = {nullptr, nullptr}; /* y or dx; the addend's gradient */
    uint32_t *mask = nullptr;       /* forward output */
    uint32_t *mask_in = nullptr;    /* backward input, as the CPU computes it */
    std::vector<double> host_in[3]; /* the inputs as the GPU holds them */
    unsigned char *host_out = nullptr;   /* pinned, cap * 4 bytes */
    uint32_t *host_mask = nullptr;       /* pinned, cap / 32 + 64 words */
};

Buffers alloc_buffers(int64_t cap)
{
    Buffers b;
    b.cap = cap;
    const int64_t mask_words = cap / 32 + 64;
    for (int k = 0; k < 3; k++)
        CUDA_OK(cudaMalloc(&b.in[k], cap * 4));
    CUDA_OK(cudaMalloc(&b.y_in, cap * 4));
    for (int k = 0; k < 2; k++)
        CUDA_OK(cudaMalloc(&b.out[k], cap * 4));
    CUDA_OK(cudaMalloc(&b.mask, mask_words * 4));
    CUDA_OK(cudaMalloc(&b.mask_in, mask_words * 4));
    CUDA_OK(cudaMallocHost(&b.host_out, cap * 4));
    CUDA_OK(cudaMallocHost(&b.host_mask, mask_words * 4));
    return b;
}

void free_buffers(Buffers &b)
{
    for (int k = 0; k < 3; k++)
        cudaFree(b.in[k]);
    cudaFree(b.y_in);
    for (int k = 0; k < 2; k++)
        cudaFree(b.out[k]);
    cudaFree(b.mask);
    cudaFree(b.mask_in);
    cudaFreeHost(b.host_out);
    cudaFreeHost(b.host_mask);
    b = Buffers();
}

/* Random inputs in [-4, 4] rounded to dt, every 97th element +0 and every 101st -0. */
void fill_inputs(Buffers &b, tk_dtype dt, std::mt19937_64 &rng)
{
    std::uniform_real_distribution<double> dist(-4.0, 4.0);
    const size_t es = tk_dtype_size(dt);
    std::vector<double> raw(b.cap);
    std::vector<unsigned char> stored(b.cap * es);
    for (int k = 0; k < 3; k++) {
        for (int64_t i = 0; i < b.cap; i++)
            raw[i] = i % 97 == 5 ? 0.0 : i % 101 == 7 ? -0.0 : dist(rng);
        tk_host_from_double(dt, raw.data(), stored.data(), b.cap);
        b.host_in[k].resize(b.cap);
        tk_host_to_double(dt, stored.data(), b.host_in[k].data(), b.cap);
        CUDA_OK(cudaMemcpy(b.in[k], stored.data(), b.cap * es, cudaMemcpyHostToDevice));
    }
}

/* The forward of n elements on the CPU: s = x (+ a rounded once), y = s passes ? s : +0. */
void forward_ref(tk_dtype dt, int64_t n, const double *x, const double *a, std::vector<double> &y,
                 std::vector<uint32_t> &mask)
{
    y.assign(n, 0.0);
    mask.assign(words(n), 0u);
    for (int64_t i = 0; i < n; i++) {
        const double s = a ? round_to(dt, x[i] + a[i]) : x[i];
        const bool p = passes(s);
        y[i] = p ? s : 0.0;
        if (p) mask[i / 32] |= 1u << (i % 32);
    }
}

/* Offsets (elements) of one case: in_off for in[0], in[1], in[2] / y_in, out_off for outputs. */
struct Variant {
    int64_t in_off[3];
    int64_t out_off;
    const char *name;
};

std::vector<Variant> variants_for(OpId op)
{
    std::vector<Variant> v = {{{0, 0, 0}, 0, "offset 0"}, {{1, 1, 1}, 1, "offset 1"}};
    /* one pointer misaligned (the rest aligned): the addend, y_in, or dy */
    if (op == ADD_RELU_FWD) v.push_back({{0, 1, 0}, 0, "addend +1"});
    else if (op == RELU_FWD) v.push_back({{0, 0, 0}, 1, "y +1"});
    else v.push_back({{1, 0, 0}, 0, "dy +1"});
    return v;
}

/* Checks one output (copied to host_out, [0, out_off + n + kGuard) elements) against want;
 * returns "" or what went wrong. */
std::string check_data(const unsigned char *host, const Decoder &decode, int64_t n,
                       int64_t out_off, const std::vector<double> &want, const char *what)
{
    const size_t es = tk_dtype_size(decode.dt);
    char msg[256];
    for (int64_t i = 0; i < out_off + n + kGuard; i++) {
        if (i >= out_off && i < out_off + n) continue;
        for (size_t k = 0; k < es; k++)
            if (host[i * es + k] != 0xff) {
                std::snprintf(msg, sizeof msg, "%s: wrote element %lld outside [0, n)", what,
                              (long long)(i - out_off));
                return msg;
            }
    }
    const unsigned char *out = host + out_off * es;
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < n; i++)
        if (!same_value(decode(out, i), want[i])) {
            if (first < 0) first = i;
            bad++;
        }
    if (bad) {
        std::snprintf(msg, sizeof msg, "%s: %lld bad elements, first [%lld] = %.9g, expected %.9g",
                      what, (long long)bad, (long long)first, decode(out, first), want[first]);
        return msg;
    }
    return "";
}

/* Checks the mask (copied to host_mask, words(n) + kGuard words). */
std::string check_mask(const uint32_t *got, int64_t n, const std::vector<uint32_t> &want)
{
    char msg[256];
    const int64_t nw = words(n);
    for (int64_t w = 0; w < nw; w++)
        if (got[w] != want[w]) {
            std::snprintf(msg, sizeof msg, "mask word %lld = 0x%08x, expected 0x%08x",
                          (long long)w, got[w], want[w]);
            return msg;
        }
    for (int64_t w = nw; w < nw + kGuard; w++)
        if (got[w] != kGuardWord) {
            std::snprintf(msg, sizeof msg, "wrote mask word %lld past the %lld words",
                          (long long)w, (long long)nw);
            return msg;
        }
    return "";
}

/* Poisons the outputs: data 0xff bytes; forward mask: the complement of want, then guards. */
void poison(Buffers &b, tk_dtype dt, int64_t span, const std::vector<uint32_t> *want,
            cudaStream_t s)
{
    const size_t bytes = span * tk_dtype_size(dt);
    CUDA_OK(cudaMemsetAsync(b.out[0], 0xff, bytes, s));
    CUDA_OK(cudaMemsetAsync(b.out[1], 0xff, bytes, s));
    if (!want) return;
    const int64_t nw = static_cast<int64_t>(want->size());
    for (int64_t w = 0; w < nw; w++)
        b.host_mask[w] = ~(*want)[w];
    for (int64_t w = nw; w < nw + kGuard; w++)
        b.host_mask[w] = kGuardWord;
    CUDA_OK(cudaMemcpyAsync(b.mask, b.host_mask, (nw + kGuard) * 4, cudaMemcpyHostToDevice, s));
}

/* One case's pointers. */
struct Ptrs {
    const void *in0, *in1;
    const void *y_in;
    const uint32_t *mask_in;
    void *out0, *out1;
    uint32_t *mask;
};

tk_status call(OpId op, tk_dtype dt, int64_t n, const Ptrs &p, const tk_relu_mask_config *c,
               cudaStream_t s)
{
    switch (op) {
    case RELU_FWD: return tk_relu_fwd(dt, n, p.in0, p.out0, p.mask, c, s);
    case ADD_RELU_FWD: return tk_add_relu_fwd(dt, n, p.in0, p.in1, p.out0, p.mask, c, s);
    case RELU_BWD: return tk_relu_bwd(dt, n, p.in0, p.mask_in, p.y_in, p.out0, c, s);
    default: return tk_add_relu_bwd(dt, n, p.in0, p.mask_in, p.y_in, p.out0, p.out1, c, s);
    }
}

/* The expected results of one (op, n, variant): y or dx, and the mask (forward) or the mask and
 * y the backward reads (uploaded to mask_in and y_in). */
struct Case {
    std::vector<double> want;        /* y (forward) or dx (backward) */
    std::vector<uint32_t> mask;      /* forward: expected; backward: its input */
};

Case make_case(Buffers &b, OpId op, tk_dtype dt, int64_t n, const Variant &v)
{
    Case c;
    const double *x = b.host_in[0].data() + v.in_off[0];
    const double *a = b.host_in[1].data() + v.in_off[1];
    if (is_fwd(op)) {
        forward_ref(dt, n, x, is_add(op) ? a : nullptr, c.want, c.mask);
        return c;
    }
    /* backward: y and the mask from in[2] (+ in[1] for Add+ReLU), as the forward would give */
    std::vector<double> y;
    forward_ref(dt, n, b.host_in[2].data(), is_add(op) ? b.host_in[1].data() : nullptr, y,
                c.mask);
    const size_t es = tk_dtype_size(dt);
    std::vector<unsigned char> ys((n + v.in_off[1]) * es, 0);
    tk_host_from_double(dt, y.data(), ys.data() + v.in_off[1] * es, n);
    CUDA_OK(cudaMemcpy(b.y_in, ys.data(), ys.size(), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(b.mask_in, c.mask.data(), c.mask.size() * 4, cudaMemcpyHostToDevice));
    c.want.resize(n);
    for (int64_t i = 0; i < n; i++)
        c.want[i] = (c.mask[i / 32] >> (i % 32)) & 1u ? x[i] : 0.0;   /* x here is dy */
    return c;
}

Ptrs ptrs_for(Buffers &b, OpId op, tk_dtype dt, const Variant &v, int scheme)
{
    const size_t es = tk_dtype_size(dt);
    auto at = [es](void *base, int64_t off) { return static_cast<char *>(base) + off * es; };
    Ptrs p = {at(b.in[0], v.in_off[0]), at(b.in[1], v.in_off[1]), nullptr, nullptr,
              at(b.out[0], v.out_off), nullptr, nullptr};
    if (op == ADD_RELU_BWD) p.out1 = at(b.out[1], v.out_off);
    if (is_fwd(op)) {
        if (scheme != TK_MASK_NONE) p.mask = b.mask;
    } else if (scheme != TK_MASK_NONE) {
        p.mask_in = b.mask_in;
    } else {
        p.y_in = at(b.y_in, v.in_off[1]);
    }
    return p;
}

/* Runs one config on one case and checks everything; returns "" or what went wrong. */
std::string run_one(Buffers &b, OpId op, tk_dtype dt, const Decoder &decode, int64_t n,
                    const Variant &v, const Case &k, const Ptrs &p, const tk_relu_mask_config &c,
                    cudaStream_t s)
{
    const bool fwd_mask = is_fwd(op) && c.mask != TK_MASK_NONE;
    const int64_t span = v.out_off + n + kGuard;
    poison(b, dt, span, fwd_mask ? &k.mask : nullptr, s);
    const tk_status st = call(op, dt, n, p, &c, s);
    if (st != TK_OK) return std::string("status ") + tk_status_string(st);
    const size_t es = tk_dtype_size(dt);
    CUDA_OK(cudaMemcpyAsync(b.host_out, b.out[0], span * es, cudaMemcpyDeviceToHost, s));
    if (fwd_mask)
        CUDA_OK(cudaMemcpyAsync(b.host_mask, b.mask, (words(n) + kGuard) * 4,
                                cudaMemcpyDeviceToHost, s));
    CUDA_OK(cudaStreamSynchronize(s));
    std::string err = check_data(b.host_out, decode, n, v.out_off, k.want,
                                 is_fwd(op) ? "y" : "dx");
    if (err.empty() && fwd_mask) err = check_mask(b.host_mask, n, k.mask);
    if (err.empty() && op == ADD_RELU_BWD) {
        CUDA_OK(cudaMemcpy(b.host_out, b.out[1], span * es, cudaMemcpyDeviceToHost));
        err = check_data(b.host_out, decode, n, v.out_off, k.want, "d_addend");
    }
    return err;
}

/* The launch shapes the config sweeps use: (block_size, waves, loop). */
struct Shape {
    int block_size, waves;
    tk_loop loop;
};
const Shape kShapes[] = {{32, 1, TK_LOOP_GRID_STRIDE},
                         {96, 7, TK_LOOP_GRID_STRIDE},
                         {256, 1, TK_LOOP_ONE_SHOT},
                         {1024, 1, TK_LOOP_GRID_STRIDE}};
const int kUnrolls[] = {1, 2, 4};

std::string config_name(const tk_relu_mask_config &c)
{
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "mask=%s pack_size=%d unroll=%d cache_hint=%d block_size=%d waves=%d loop=%s",
                  kSchemes[c.mask], c.pack_size, c.unroll, static_cast<int>(c.cache_hint),
                  c.block_size, c.waves, c.loop == TK_LOOP_ONE_SHOT ? "one_shot" : "grid_stride");
    return buf;
}

void test_all_configs(Buffers &b, cudaStream_t s)
{
    const int64_t sizes[] = {1, 31, 33, 8191, 65537, kMaxN};
    const int packs[] = {1, 2, 4, 8};
    std::mt19937_64 rng(20240608);
    for (int op = 0; op < N_OPS; op++)
        for (tk_dtype dt : kDtypes) {
            const Decoder decode(dt);
            fill_inputs(b, dt, rng);
            const size_t es = tk_dtype_size(dt);
            int ok = 0, run = 0;
            for (int64_t n : sizes)
                for (const Variant &v : variants_for(static_cast<OpId>(op))) {
                    const Case k = make_case(b, static_cast<OpId>(op), dt, n, v);
                    for (int scheme = 0; scheme < 3; scheme++) {
                        const Ptrs p = ptrs_for(b, static_cast<OpId>(op), dt, v, scheme);
                        for (int pack : packs) {
                            if (pack * es > 16) continue;
                            for (tk_cache_hint hint : kHints)
                                for (int unroll : kUnrolls)
                                    for (int sh = 0; sh < 4; sh++) {
                                        if (n == kMaxN && (sh == 0 || sh == 3)) continue;
                                        if (n > gpu_test_max_n() || !gpu_test_sample()) continue;
                                        const tk_relu_mask_config c = {
                                            kShapes[sh].block_size, kShapes[sh].waves, pack,
                                            static_cast<tk_mask_scheme>(scheme), hint,
                                            kShapes[sh].loop, unroll};
                                        const std::string err = run_one(
                                            b, static_cast<OpId>(op), dt, decode, n, v, k, p, c,
                                            s);
                                        run++;
                                        ok += err.empty();
                                        expect(err.empty(), "%s %s n=%lld %s %s: %s",
                                               kOpNames[op], tk_dtype_name(dt), (long long)n,
                                               v.name, config_name(c).c_str(), err.c_str());
                                    }
                        }
                    }
                }
            std::printf("%-24s %-4s %5d / %5d configs ok\n", kOpNames[op], tk_dtype_name(dt), ok,
                        run);
        }
}

/* Warps that take several tiles: n = 2^24 + 37 with one wave of grid-stride blocks (every warp
 * loops over two or more tiles, the last one partial), every op, dtype, scheme and unroll at the
 * widest pack, checked in full as test_all_configs checks. */
void test_grid_stride_loops(cudaStream_t s)
{
    const int64_t n = (int64_t{1} << 24) + 37;
    Buffers b = alloc_buffers(n + 64);
    std::mt19937_64 rng(4242);
    const Variant v = {{0, 0, 0}, 0, "offset 0"};
    for (tk_dtype dt : kDtypes) {
        const Decoder decode(dt);
        fill_inputs(b, dt, rng);
        const int pack = static_cast<int>(16 / tk_dtype_size(dt));
        for (int op = 0; op < N_OPS; op++) {
            const Case k = make_case(b, static_cast<OpId>(op), dt, n, v);
            int ok = 0, run = 0;
            for (int scheme = 0; scheme < 3; scheme++) {
                const Ptrs p = ptrs_for(b, static_cast<OpId>(op), dt, v, scheme);
                for (int unroll : kUnrolls) {
                    const tk_relu_mask_config c = {1024, 1, pack,
                                                   static_cast<tk_mask_scheme>(scheme),
                                                   unroll == 2 ? TK_CACHE_EVICT_FIRST
                                                               : TK_CACHE_NORMAL,
                                                   TK_LOOP_GRID_STRIDE, unroll};
                    const std::string err =
                        run_one(b, static_cast<OpId>(op), dt, decode, n, v, k, p, c, s);
                    run++;
                    ok += err.empty();
                    expect(err.empty(), "grid-stride loops: %s %s n=%lld %s: %s", kOpNames[op],
                           tk_dtype_name(dt), (long long)n, config_name(c).c_str(), err.c_str());
                }
            }
            std::printf("%-24s %-4s %5d / %5d configs ok at n = 2^24 + 37, waves 1\n",
                        kOpNames[op], tk_dtype_name(dt), ok, run);
        }
    }
    free_buffers(b);
}

/* Forward then backward through the library, every pair of schemes (the mask layout is the
 * same for byte8 and ballot32; none passes y), plus in-place calls. */
void test_round_trip(Buffers &b, cudaStream_t s)
{
    const int64_t n = 100003;
    std::mt19937_64 rng(99);
    for (tk_dtype dt : kDtypes) {
        const Decoder decode(dt);
        fill_inputs(b, dt, rng);
        const size_t es = tk_dtype_size(dt);
        for (int add = 0; add < 2; add++) {
            std::vector<double> y, want(n);
            std::vector<uint32_t> mask;
            forward_ref(dt, n, b.host_in[0].data(), add ? b.host_in[1].data() : nullptr, y, mask);
            for (int64_t i = 0; i < n; i++)
                want[i] = (mask[i / 32] >> (i % 32)) & 1u ? b.host_in[2][i] : 0.0;
            for (int fs = 0; fs < 3; fs++)
                for (int bs = 0; bs < 3; bs++) {
                    if ((fs == 0) != (bs == 0)) continue;
                    tk_relu_mask_config cf = tk_relu_mask_default_config(dt, static_cast<tk_mask_scheme>(fs));
                    tk_relu_mask_config cb = tk_relu_mask_default_config(dt, static_cast<tk_mask_scheme>(bs));
                    cf.block_size = 128;
                    cf.unroll = 4;
                    cf.loop = TK_LOOP_ONE_SHOT;
                    cb.waves = 3;
                    cb.unroll = 2;
                    uint32_t *m = fs ? b.mask : nullptr;
                    CUDA_OK(memset_sync(b.out[0], 0xff, (n + kGuard) * es));
                    CUDA_OK(memset_sync(b.out[1], 0xff, (n + kGuard) * es));
                    tk_status s1 = add ? tk_add_relu_fwd(dt, n, b.in[0], b.in[1], b.out[0], m, &cf, s)
                                       : tk_relu_fwd(dt, n, b.in[0], b.out[0], m, &cf, s);
                    const void *yv = fs ? nullptr : b.out[0];
                    /* backward in place: dx overwrites y (scheme none reads y first) */
                    tk_status s2 = add ? tk_add_relu_bwd(dt, n, b.in[2], m, yv, b.out[0], b.out[1], &cb, s)
                                       : tk_relu_bwd(dt, n, b.in[2], m, yv, b.out[0], &cb, s);
                    CUDA_OK(cudaStreamSynchronize(s));
                    CUDA_OK(cudaMemcpy(b.host_out, b.out[0], (n + kGuard) * es, cudaMemcpyDeviceToHost));
                    std::string err = check_data(b.host_out, decode, n, 0, want, "dx");
                    if (err.empty() && add) {
                        CUDA_OK(cudaMemcpy(b.host_out, b.out[1], (n + kGuard) * es, cudaMemcpyDeviceToHost));
                        err = check_data(b.host_out, decode, n, 0, want, "d_addend");
                    }
                    expect(s1 == TK_OK && s2 == TK_OK && err.empty(),
                           "round trip %s %s: forward %s, backward %s: %s %s %s",
                           add ? "add_relu" : "relu", tk_dtype_name(dt), kSchemes[fs],
                           kSchemes[bs], tk_status_string(s1), tk_status_string(s2), err.c_str());
                }
            /* in place forward: y over x (a copy of in[0] in out[1]); add: y over the addend */
            for (int scheme = 0; scheme < 3; scheme++) {
                tk_relu_mask_config c =
                    tk_relu_mask_default_config(dt, static_cast<tk_mask_scheme>(scheme));
                c.unroll = 4;
                CUDA_OK(cudaMemcpy(b.out[1], add ? b.in[1] : b.in[0], n * es, cudaMemcpyDeviceToDevice));
                CUDA_OK(memset_sync(static_cast<char *>(b.out[1]) + n * es, 0xff, kGuard * es));
                uint32_t *m = scheme ? b.mask : nullptr;
                tk_status st = add ? tk_add_relu_fwd(dt, n, b.in[0], b.out[1], b.out[1], m, &c, s)
                                   : tk_relu_fwd(dt, n, b.out[1], b.out[1], m, &c, s);
                CUDA_OK(cudaStreamSynchronize(s));
                CUDA_OK(cudaMemcpy(b.host_out, b.out[1], (n + kGuard) * es, cudaMemcpyDeviceToHost));
                std::string err = check_data(b.host_out, decode, n, 0, y, "y in place");
                if (err.empty() && scheme) {
                    CUDA_OK(cudaMemcpy(b.host_mask, b.mask, words(n) * 4, cudaMemcpyDeviceToHost));
                    if (std::memcmp(b.host_mask, mask.data(), words(n) * 4) != 0)
                        err = "mask differs";
                }
                expect(st == TK_OK && err.empty(), "in-place %s forward %s mask=%s: %s",
                       add ? "add_relu" : "relu", tk_dtype_name(dt), kSchemes[scheme], err.c_str());
            }
        }
        /* add_relu_bwd with the addend's gradient NULL or == dx writes dx alone */
        std::vector<double> y, want(n);
        std::vector<uint32_t> mask;
        forward_ref(dt, n, b.host_in[0].data(), b.host_in[1].data(), y, mask);
        for (int64_t i = 0; i < n; i++)
            want[i] = (mask[i / 32] >> (i % 32)) & 1u ? b.host_in[2][i] : 0.0;
        CUDA_OK(cudaMemcpy(b.mask_in, mask.data(), words(n) * 4, cudaMemcpyHostToDevice));
        for (int alias = 0; alias < 2; alias++) {
            CUDA_OK(memset_sync(b.out[0], 0xff, (n + kGuard) * es));
            CUDA_OK(memset_sync(b.out[1], 0xff, (n + kGuard) * es));
            const tk_relu_mask_config c = tk_relu_mask_default_config(dt, TK_MASK_BYTE8);
            tk_status st = tk_add_relu_bwd(dt, n, b.in[2], b.mask_in, nullptr, b.out[0],
                                           alias ? b.out[0] : nullptr, &c, s);
            CUDA_OK(cudaStreamSynchronize(s));
            CUDA_OK(cudaMemcpy(b.host_out, b.out[0], (n + kGuard) * es, cudaMemcpyDeviceToHost));
            std::string err = check_data(b.host_out, decode, n, 0, want, "dx");
            CUDA_OK(cudaMemcpy(b.host_out, b.out[1], (n + kGuard) * es, cudaMemcpyDeviceToHost));
            int64_t touched = 0;
            for (int64_t i = 0; i < (n + kGuard) * static_cast<int64_t>(es); i++)
                touched += b.host_out[i] != 0xff;
            expect(st == TK_OK && err.empty() && touched == 0,
                   "add_relu_bwd %s with d_addend %s: %s, %lld bytes of the other buffer written",
                   tk_dtype_name(dt), alias ? "== dx" : "NULL", err.c_str(), (long long)touched);
        }
    }
}

/* NaN, infinities and signed zeros through every scheme and pack. */
void test_special_values(Buffers &b, cudaStream_t s)
{
    const double x[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, -1.5, 2.5, -1e-30, 1.0,
                        INFINITY, -0.0, 3.0};
    const double a[] = {0.0, 1.0, -INFINITY, 1.0, -0.0, -0.0, 1.5, -2.5, 0.0, -1.0,
                        -INFINITY, 0.0, NAN};
    const int n = sizeof x / sizeof x[0];
    for (tk_dtype dt : kDtypes) {
        const size_t es = tk_dtype_size(dt);
        const Decoder decode(dt);
        unsigned char xs[64], as[64];
        tk_host_from_double(dt, x, xs, n);
        tk_host_from_double(dt, a, as, n);
        std::vector<double> xd(n), ad(n);
        tk_host_to_double(dt, xs, xd.data(), n);
        tk_host_to_double(dt, as, ad.data(), n);
        CUDA_OK(cudaMemcpy(b.in[0], xs, n * es, cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemcpy(b.in[1], as, n * es, cudaMemcpyHostToDevice));
        for (int add = 0; add < 2; add++) {
            std::vector<double> want;
            std::vector<uint32_t> mask;
            forward_ref(dt, n, xd.data(), add ? ad.data() : nullptr, want, mask);
            for (int scheme = 0; scheme < 3; scheme++)
                for (int pack : {1, 2, 4, 8}) {
                    if (pack * es > 16) continue;
                    tk_relu_mask_config c = tk_relu_mask_default_config(dt, static_cast<tk_mask_scheme>(scheme));
                    c.pack_size = pack;
                    uint32_t *m = scheme ? b.mask : nullptr;
                    CUDA_OK(memset_sync(b.out[0], 0xff, (n + kGuard) * es));
                    CUDA_OK(memset_sync(b.mask, 0x5a, 8));
                    tk_status st = add ? tk_add_relu_fwd(dt, n, b.in[0], b.in[1], b.out[0], m, &c, s)
                                       : tk_relu_fwd(dt, n, b.in[0], b.out[0], m, &c, s);
                    CUDA_OK(cudaStreamSynchronize(s));
                    CUDA_OK(cudaMemcpy(b.host_out, b.out[0], (n + kGuard) * es, cudaMemcpyDeviceToHost));
                    std::string err = check_data(b.host_out, decode, n, 0, want, "y");
                    uint32_t got = 0;
                    CUDA_OK(cudaMemcpy(&got, b.mask, 4, cudaMemcpyDeviceToHost));
                    if (err.empty() && scheme && got != mask[0]) err = "mask word differs";
                    expect(st == TK_OK && err.empty(), "special values %s %s mask=%s pack %d: %s (mask 0x%08x, want 0x%08x)",
                           add ? "add_relu_fwd" : "relu_fwd", tk_dtype_name(dt), kSchemes[scheme],
                           pack, err.c_str(), got, mask[0]);
                }
            /* the backward from y (scheme none) passes dy exactly where y passes: NaN included */
            std::vector<double> ybits;
            std::vector<uint32_t> m2;
            forward_ref(dt, n, xd.data(), add ? ad.data() : nullptr, ybits, m2);
            unsigned char ys[64];
            tk_host_from_double(dt, ybits.data(), ys, n);
            CUDA_OK(cudaMemcpy(b.y_in, ys, n * es, cudaMemcpyHostToDevice));
            std::vector<double> dxw(n);
            for (int i = 0; i < n; i++)
                dxw[i] = (m2[0] >> i) & 1u ? xd[i] : 0.0;   /* dy = x: NaN dy passes as NaN */
            const tk_relu_mask_config c = tk_relu_mask_default_config(dt, TK_MASK_NONE);
            CUDA_OK(memset_sync(b.out[0], 0xff, (n + kGuard) * es));
            tk_status st = tk_relu_bwd(dt, n, b.in[0], nullptr, b.y_in, b.out[0], &c, s);
            CUDA_OK(cudaStreamSynchronize(s));
            CUDA_OK(cudaMemcpy(b.host_out, b.out[0], (n + kGuard) * es, cudaMemcpyDeviceToHost));
            const std::string err = check_data(b.host_out, decode, n, 0, dxw, "dx");
            expect(st == TK_OK && err.empty(), "special values backward from y %s %s: %s",
                   add ? "(add)" : "", tk_dtype_name(dt), err.c_str());
        }
    }
}

__global__ void fill_ramp_f16(__half *x, int64_t n)
{
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += stride)
        x[i] = __float2half(static_cast<float>(static_cast<int>(i % 2001) - 1000) * 0.25f);
}

float ramp(int64_t i) { return static_cast<float>(static_cast<int>(i % 2001) - 1000) * 0.25f; }

/* n > 2^31 elements of f16: forward (ballot32, byte8, and the pack_size 1 fallback at an odd
 * offset) and the backward from the mask it wrote, checked in windows at the start, around 2^31
 * and at the end. Skipped when the GPU has too little memory. */
void test_beyond_int32(cudaStream_t s)
{
    const int64_t n = (int64_t{1} << 31) + 37;
    const int64_t nw = words(n) + 8;
    __half *x = nullptr, *y = nullptr;
    uint32_t *mask = nullptr;
    if (cudaMalloc(&x, (n + 64) * sizeof(__half)) != cudaSuccess ||
        cudaMalloc(&y, (n + 64) * sizeof(__half)) != cudaSuccess ||
        cudaMalloc(&mask, nw * 4) != cudaSuccess) {
        cudaGetLastError();
        cudaFree(x);
        cudaFree(y);
        std::printf("n > 2^31: skipped (not enough GPU memory)\n");
        return;
    }
    fill_ramp_f16<<<1024, 256, 0, s>>>(x, n + 64);
    CUDA_OK(cudaGetLastError());
    struct K {
        tk_mask_scheme scheme;
        int pack, offset;
        tk_cache_hint hint;
        tk_loop loop;
        int unroll;
    } cases[] = {{TK_MASK_BALLOT32, 8, 0, TK_CACHE_NORMAL, TK_LOOP_GRID_STRIDE, 4},
                 {TK_MASK_BYTE8, 8, 0, TK_CACHE_EVICT_FIRST, TK_LOOP_GRID_STRIDE, 2},
                 {TK_MASK_BALLOT32, 4, 1, TK_CACHE_NORMAL, TK_LOOP_ONE_SHOT, 1}};
    const int64_t win = 65536;
    std::vector<__half> host(win);
    std::vector<uint32_t> hmask(win / 32 + 1);
    for (const K &k : cases) {
        const int64_t len = n - k.offset;
        /* window starts are multiples of 32 (whole mask words); the last runs past len */
        const int64_t starts[] = {0, (int64_t{1} << 31) - win, (len - win) & ~int64_t{31}};
        tk_relu_mask_config c = {256, 32, k.pack, k.scheme, k.hint, k.loop, k.unroll};
        CUDA_OK(cudaMemsetAsync(mask, 0xff, nw * 4, s));
        tk_status st = tk_relu_fwd(TK_F16, len, x + k.offset, y + k.offset, mask, &c, s);
        CUDA_OK(cudaStreamSynchronize(s));
        bool ok = st == TK_OK;
        for (int64_t start : starts) {
            CUDA_OK(cudaMemcpy(host.data(), y + k.offset + start, win * 2, cudaMemcpyDeviceToHost));
            CUDA_OK(cudaMemcpy(hmask.data(), mask + start / 32, (win / 32) * 4, cudaMemcpyDeviceToHost));
            for (int64_t j = 0; j < win && ok; j++) {
                const int64_t i = start + j;   /* element of the view */
                if (i >= len) break;
                const float v = ramp(i + k.offset);
                ok = __half2float(host[j]) == (v > 0 ? v : 0.0f) &&
                     ((hmask[j / 32] >> (j % 32)) & 1u) == (v > 0 ? 1u : 0u);
            }
        }
        uint32_t last = 0;
        CUDA_OK(cudaMemcpy(&last, mask + words(len) - 1, 4, cudaMemcpyDeviceToHost));
        ok = ok && (len % 32 == 0 || (last >> (len % 32)) == 0);   /* padding bits */
        expect(ok, "relu_fwd f16 n = 2^31 + %lld mask=%s pack %d unroll %d offset %d",
               (long long)(len - (int64_t{1} << 31)), kSchemes[k.scheme], k.pack, k.unroll,
               k.offset);
        /* backward from that mask, dy = x, dx over y (the other scheme, another unroll) */
        c.mask = k.scheme == TK_MASK_BYTE8 ? TK_MASK_BALLOT32 : TK_MASK_BYTE8;
        c.unroll = k.unroll == 4 ? 1 : 4;
        st = tk_relu_bwd(TK_F16, len, x + k.offset, mask, nullptr, y + k.offset, &c, s);
        CUDA_OK(cudaStreamSynchronize(s));
        ok = st == TK_OK;
        for (int64_t start : starts) {
            CUDA_OK(cudaMemcpy(host.data(), y + k.offset + start, win * 2, cudaMemcpyDeviceToHost));
            for (int64_t j = 0; j < win && ok; j++) {
                const int64_t i = start + j;
                if (i >= len) break;
                const float v = ramp(i + k.offset);
                ok = __half2float(host[j]) == (v > 0 ? v : 0.0f);
            }
        }
        expect(ok, "relu_bwd f16 n = 2^31 + %lld mask=%s unroll %d (mask written by %s)",
               (long long)(len - (int64_t{1} << 31)), kSchemes[c.mask], c.unroll,
               kSchemes[k.scheme]);
    }
    cudaFree(x);
    cudaFree(y);
    cudaFree(mask);
}

/* A NULL config runs exactly what tk_relu_mask_tuned_config reports for the call's kind (same
 * bytes out); with the committed empty header, that is the default of the kind. */
void test_null_config(Buffers &b, cudaStream_t s)
{
    const int64_t sizes[] = {1, 8191, kMaxN};
    std::vector<unsigned char> first(kAlloc * 4), second(kAlloc * 4);
    std::vector<uint32_t> m1(kMaskAlloc), m2(kMaskAlloc);
    std::mt19937_64 rng(7);
    for (tk_dtype dt : kDtypes) {
        fill_inputs(b, dt, rng);
        const size_t es = tk_dtype_size(dt);
        CUDA_OK(memset_sync(b.mask_in, 0x3c, kMaskAlloc * 4));
        CUDA_OK(cudaMemcpy(b.y_in, b.in[2], kAlloc * es, cudaMemcpyDeviceToDevice));
        for (int op = 0; op < N_OPS; op++)
            for (int with_mask = 0; with_mask < 2; with_mask++)
                for (int64_t n : sizes) {
                    tk_relu_mask_config tuned;
                    const tk_status ts = tk_relu_mask_tuned_config(kOpNames[op], dt, n, with_mask, &tuned);
                    expect(ts == TK_OK && (tuned.mask != TK_MASK_NONE) == (with_mask != 0),
                           "tuned_config %s %s with_mask %d: kind", kOpNames[op], tk_dtype_name(dt), with_mask);
                    if (tk_tuned_device_count() == 0) {
                        const tk_relu_mask_config d = tk_relu_mask_default_config(
                            dt, with_mask ? TK_MASK_BALLOT32 : TK_MASK_NONE);
                        expect(std::memcmp(&d, &tuned, sizeof d) == 0,
                               "empty header: tuned config of %s %s is not the default",
                               kOpNames[op], tk_dtype_name(dt));
                    }
                    const Variant v = {{0, 0, 0}, 0, "offset 0"};
                    const Ptrs p = ptrs_for(b, static_cast<OpId>(op), dt, v,
                                            with_mask ? TK_MASK_BALLOT32 : TK_MASK_NONE);
                    tk_status st[2];
                    for (int pass = 0; pass < 2; pass++) {
                        CUDA_OK(memset_sync(b.out[0], 0xff, n * es));
                        CUDA_OK(memset_sync(b.out[1], 0xff, n * es));
                        CUDA_OK(memset_sync(b.mask, 0xff, words(n) * 4));
                        st[pass] = call(static_cast<OpId>(op), dt, n, p, pass ? &tuned : nullptr, s);
                        CUDA_OK(cudaStreamSynchronize(s));
                        std::vector<unsigned char> &dst = pass ? second : first;
                        CUDA_OK(cudaMemcpy(dst.data(), b.out[0], n * es, cudaMemcpyDeviceToHost));
                        CUDA_OK(cudaMemcpy((pass ? m2 : m1).data(), b.mask, words(n) * 4, cudaMemcpyDeviceToHost));
                    }
                    int64_t unwritten = 0;
                    for (int64_t i = 0; i < n * static_cast<int64_t>(es); i += es)
                        unwritten += first[i] == 0xff && first[i + es - 1] == 0xff;
                    expect(st[0] == TK_OK && st[1] == TK_OK && unwritten == 0 &&
                               std::memcmp(first.data(), second.data(), n * es) == 0 &&
                               std::memcmp(m1.data(), m2.data(), words(n) * 4) == 0,
                           "NULL config vs tuned config: %s %s n=%lld with_mask %d",
                           kOpNames[op], tk_dtype_name(dt), (long long)n, with_mask);
                }
    }
}

/* Which config a NULL config runs on this GPU: every relu_mask entry the compiled-in header
 * holds for this device (matched as the library matches it) is what a masked NULL-config call
 * at exactly that size gets. */
void test_tuned_entries_for_this_device()
{
    for_each_tuned_entry(
        "relu_mask.",
        [](const tk_tuned_entry &e, int i) {
            tk_relu_mask_config want, got;
            const int dt = tk_dtype_parse(e.dtype);
            expect(dt >= 0 && tk_relu_mask_config_from_text(e.config, &want) == TK_OK &&
                       want.mask != TK_MASK_NONE,
                   "header entry %d is not a masked relu_mask config: %s", i, e.config);
            expect(tk_relu_mask_tuned_config(e.op, static_cast<tk_dtype>(dt), e.size, 1, &got) ==
                           TK_OK &&
                       std::memcmp(&want, &got, sizeof want) == 0,
                   "NULL config for %s %s n=%lld is not the header's %s", e.op, e.dtype,
                   (long long)e.size, e.config);
        },
        [] {});
}

void test_bad_arguments(Buffers &b, cudaStream_t s)
{
    const tk_relu_mask_config none = tk_relu_mask_default_config(TK_F32, TK_MASK_NONE);
    const tk_relu_mask_config bal = tk_relu_mask_default_config(TK_F32, TK_MASK_BALLOT32);
    void *x = b.in[0], *a = b.in[1], *y = b.out[0], *d = b.out[1];
    uint32_t *m = b.mask;
    const tk_status INV = TK_ERR_INVALID_ARGUMENT, UNS = TK_ERR_UNSUPPORTED_CONFIG;
    const tk_loop GS = TK_LOOP_GRID_STRIDE;
    struct {
        tk_status got, want;
        const char *what;
    } cases[] = {
        {tk_relu_fwd(TK_F32, -1, x, y, m, &bal, s), INV, "n < 0"},
        {tk_relu_fwd(TK_F32, 5, nullptr, y, m, &bal, s), INV, "NULL x"},
        {tk_relu_fwd(TK_F32, 5, x, nullptr, m, &bal, s), INV, "NULL y"},
        {tk_relu_fwd(static_cast<tk_dtype>(3), 5, x, y, m, &bal, s), INV, "bad dtype"},
        {tk_relu_fwd(TK_F32, 5, x, y, m, &none, s), INV, "mask with scheme none"},
        {tk_relu_fwd(TK_F32, 5, x, y, nullptr, &bal, s), INV, "no mask with ballot32"},
        {tk_relu_fwd(TK_F32, 5, x, y, reinterpret_cast<uint32_t *>(reinterpret_cast<char *>(m) + 2), &bal, s), INV, "mask not 4-aligned"},
        {tk_relu_fwd(TK_F32, 5, static_cast<char *>(x) + 2, y, m, &bal, s), INV, "x not 4-aligned for f32"},
        {tk_add_relu_fwd(TK_F16, 5, x, nullptr, y, m, nullptr, s), INV, "NULL addend"},
        {tk_add_relu_fwd(TK_F16, 5, x, static_cast<char *>(a) + 1, y, m, nullptr, s), INV, "addend not 2-aligned"},
        {tk_relu_bwd(TK_F32, 5, x, m, y, d, nullptr, s), INV, "backward with both mask and y"},
        {tk_relu_bwd(TK_F32, 5, x, nullptr, nullptr, d, nullptr, s), INV, "backward with neither"},
        {tk_relu_bwd(TK_F32, 5, nullptr, m, nullptr, d, nullptr, s), INV, "NULL dy"},
        {tk_relu_bwd(TK_F32, 5, x, m, nullptr, nullptr, nullptr, s), INV, "NULL dx"},
        {tk_relu_bwd(TK_F32, 5, x, m, nullptr, d, &none, s), INV, "mask read with scheme none"},
        {tk_relu_bwd(TK_F32, 5, x, nullptr, y, d, &bal, s), INV, "y read with ballot32"},
        {tk_add_relu_bwd(TK_BF16, 5, x, nullptr, nullptr, d, y, nullptr, s), INV, "add backward with neither"},
        {tk_add_relu_bwd(TK_BF16, -2, x, m, nullptr, d, y, nullptr, s), INV, "add backward n < 0"},
        /* n == 0: nothing to do, NULL pointers allowed */
        {tk_relu_fwd(TK_F32, 0, nullptr, nullptr, nullptr, nullptr, s), TK_OK, "n == 0"},
        {tk_relu_bwd(TK_F16, 0, nullptr, nullptr, nullptr, nullptr, &bal, s), TK_OK, "bwd n == 0"},
        {tk_add_relu_bwd(TK_BF16, 0, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, s), TK_OK, "add bwd n == 0"},
    };
    for (auto &k : cases)
        expect(k.got == k.want, "%s: got %s, want %s", k.what, tk_status_string(k.got),
               tk_status_string(k.want));
    struct {
        tk_relu_mask_config c;
        tk_dtype dt;
        const char *what;
    } bad[] = {
        {{33, 32, 4, TK_MASK_BALLOT32, TK_CACHE_NORMAL, GS, 1}, TK_F32, "block_size 33"},
        {{0, 32, 4, TK_MASK_BALLOT32, TK_CACHE_NORMAL, GS, 1}, TK_F32, "block_size 0"},
        {{1056, 32, 4, TK_MASK_BALLOT32, TK_CACHE_NORMAL, GS, 1}, TK_F32, "block_size 1056"},
        {{256, 0, 4, TK_MASK_BALLOT32, TK_CACHE_NORMAL, GS, 1}, TK_F32, "waves 0"},
        {{256, 32, 3, TK_MASK_BALLOT32, TK_CACHE_NORMAL, GS, 1}, TK_F32, "pack_size 3"},
        {{256, 32, 8, TK_MASK_BALLOT32, TK_CACHE_NORMAL, GS, 1}, TK_F32, "pack_size 8 for f32"},
        {{256, 32, 16, TK_MASK_BALLOT32, TK_CACHE_NORMAL, GS, 1}, TK_F16, "pack_size 16 for f16"},
        {{256, 32, 4, static_cast<tk_mask_scheme>(3), TK_CACHE_NORMAL, GS, 1}, TK_F32, "mask 3"},
        {{256, 32, 4, TK_MASK_BALLOT32, static_cast<tk_cache_hint>(2), GS, 1}, TK_F32, "cache_hint 2"},
        {{256, 32, 4, TK_MASK_BALLOT32, TK_CACHE_NORMAL, static_cast<tk_loop>(2), 1}, TK_F32, "loop 2"},
        {{256, 32, 4, TK_MASK_BYTE8, TK_CACHE_NORMAL, GS, 3}, TK_F32, "unroll 3"},
        {{256, 32, 4, TK_MASK_NONE, TK_CACHE_NORMAL, TK_LOOP_ONE_SHOT, 0}, TK_F32, "unroll 0"},
        {{256, 32, 8, TK_MASK_BALLOT32, TK_CACHE_NORMAL, GS, 8}, TK_F16, "unroll 8"},
    };
    for (auto &k : bad) {
        expect(tk_relu_fwd(k.dt, 100, x, y, m, &k.c, s) == UNS, "relu_fwd with %s", k.what);
        expect(tk_add_relu_fwd(k.dt, 0, x, a, y, m, &k.c, s) == UNS, "add_relu_fwd n == 0 with %s", k.what);
        expect(tk_relu_bwd(k.dt, 100, x, m, nullptr, d, &k.c, s) == UNS, "relu_bwd with %s", k.what);
        expect(tk_add_relu_bwd(k.dt, 100, x, m, nullptr, d, y, &k.c, s) == UNS, "add_relu_bwd with %s", k.what);
    }
    expect(cudaStreamSynchronize(s) == cudaSuccess && cudaGetLastError() == cudaSuccess,
           "no CUDA error left behind by rejected calls");
}

/* Host time per call of one batch of relu_bwd launches on one element (short enough that the
 * launch queue never fills; the synchronisation after it is not timed). */
double time_batch(const tk_relu_mask_config *cfg, Buffers &b, cudaStream_t s)
{
    const int batch = 200;
    cudaStreamSynchronize(s);
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; i++)
        tk_relu_bwd(TK_F32, 1, b.in[0], b.mask_in, nullptr, b.out[0], cfg, s);
    auto t1 = std::chrono::steady_clock::now();
    cudaStreamSynchronize(s);
    return std::chrono::duration<double, std::nano>(t1 - t0).count() / batch;
}

/* The NULL-config overhead: batches with a NULL config and with the same config given
 * explicitly, interleaved, the median per-call time of each. */
void test_null_config_overhead(Buffers &b, cudaStream_t s)
{
    const int rounds = 400;
    tk_relu_mask_config explicit_cfg;
    tk_relu_mask_tuned_config("relu_mask.relu_bwd", TK_F32, 1, 1, &explicit_cfg);
    for (int i = 0; i < 20; i++) {
        time_batch(nullptr, b, s);
        time_batch(&explicit_cfg, b, s);
    }
    std::vector<double> with_null, with_explicit;
    for (int r = 0; r < rounds; r++) {
        if (r & 1) {
            with_null.push_back(time_batch(nullptr, b, s));
            with_explicit.push_back(time_batch(&explicit_cfg, b, s));
        } else {
            with_explicit.push_back(time_batch(&explicit_cfg, b, s));
            with_null.push_back(time_batch(nullptr, b, s));
        }
    }
    std::sort(with_null.begin(), with_null.end());
    std::sort(with_explicit.begin(), with_explicit.end());
    const double mn = with_null[rounds / 2], me = with_explicit[rounds / 2];
    std::printf("host time per relu_bwd call, n = 1: NULL config %.1f ns, explicit %.1f ns, "
                "difference %.1f ns (limit 100)\n", mn, me, mn - me);
    expect(mn - me <= 100.0, "NULL-config overhead %.1f ns per call exceeds 100 ns", mn - me);
    CUDA_OK(cudaStreamSynchronize(s));
    expect(cudaGetLastError() == cudaSuccess, "overhead loop left a CUDA error");
}

/* Runs the tuner's GPU references (tuner/ops/gpu_fill.h) on stored inputs x (and addend a) of
 * dtype dt already on the device, whose values are hx (and ha), and checks them against
 * forward_ref: y in double and in storage (value and sign of zero), the mask bit for bit with its
 * padding bits cleared, and the gradient gpu_ref_relu_grad makes from that mask with x as dy. */
void check_gpu_reference(tk_dtype dt, int64_t n, const void *x, const void *a,
                         const std::vector<double> &hx, const std::vector<double> *ha,
                         const char *what)
{
    std::vector<double> want_y;
    std::vector<uint32_t> want_mask;
    forward_ref(dt, n, hx.data(), ha ? ha->data() : nullptr, want_y, want_mask);
    const int64_t nw = words(n);
    const size_t es = tk_dtype_size(dt);
    double *ref = nullptr;
    void *store = nullptr;
    uint32_t *mask = nullptr;
    CUDA_OK(cudaMalloc(&ref, n * sizeof(double)));
    CUDA_OK(cudaMalloc(&store, n * es));
    CUDA_OK(cudaMalloc(&mask, nw * 4));
    CUDA_OK(memset_sync(mask, 0xff, nw * 4));   /* padding bits must be cleared */
    char err[512] = "";
    expect(gpu_ref_relu_mask(dt, n, x, a, ref, store, mask, err, sizeof err) == 0,
           "%s: gpu_ref_relu_mask: %s", what, err);
    std::vector<double> got_y(n), got_store(n);
    std::vector<unsigned char> bits(n * es);
    std::vector<uint32_t> got_mask(nw);
    CUDA_OK(cudaMemcpy(got_y.data(), ref, n * sizeof(double), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(bits.data(), store, n * es, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(got_mask.data(), mask, nw * 4, cudaMemcpyDeviceToHost));
    tk_host_to_double(dt, bits.data(), got_store.data(), n);
    int64_t bad_y = 0, bad_store = 0, bad_words = 0;
    for (int64_t i = 0; i < n; i++) {
        bad_y += !same_value(got_y[i], want_y[i]);
        bad_store += !same_value(got_store[i], want_y[i]);
    }
    for (int64_t w = 0; w < nw; w++) bad_words += got_mask[w] != want_mask[w];
    expect(bad_y == 0 && bad_store == 0 && bad_words == 0,
           "%s (dtype %d, n %lld): GPU reference differs from the CPU's in %lld y, %lld stored y, "
           "%lld mask words", what, (int)dt, (long long)n, (long long)bad_y, (long long)bad_store,
           (long long)bad_words);
    expect(gpu_ref_relu_grad(dt, n, x, mask, ref, err, sizeof err) == 0,
           "%s: gpu_ref_relu_grad: %s", what, err);
    CUDA_OK(cudaMemcpy(got_y.data(), ref, n * sizeof(double), cudaMemcpyDeviceToHost));
    int64_t bad_dx = 0;
    for (int64_t i = 0; i < n; i++)
        bad_dx += !same_value(got_y[i], (want_mask[i / 32] >> (i % 32) & 1u) ? hx[i] : 0.0);
    expect(bad_dx == 0, "%s (dtype %d, n %lld): %lld gradient elements differ", what, (int)dt,
           (long long)n, (long long)bad_dx);
    cudaFree(ref);
    cudaFree(store);
    cudaFree(mask);
}

/* Uploads values (rounded to dt) and returns the device copy; hv gets the stored values. */
void *upload_values(tk_dtype dt, const std::vector<double> &v, std::vector<double> &hv)
{
    const size_t es = tk_dtype_size(dt);
    std::vector<unsigned char> bits(v.size() * es);
    tk_host_from_double(dt, v.data(), bits.data(), static_cast<int64_t>(v.size()));
    hv.resize(v.size());
    tk_host_to_double(dt, bits.data(), hv.data(), static_cast<int64_t>(v.size()));
    void *d = nullptr;
    CUDA_OK(cudaMalloc(&d, bits.size()));
    CUDA_OK(cudaMemcpy(d, bits.data(), bits.size(), cudaMemcpyHostToDevice));
    return d;
}

/* The tuner's GPU set-up of this family: hand-worked cases (the pass rule with signed zeros, NaN
 * and infinities; x + addend rounded once at f16 and bf16 ties; the layout across words with 26
 * padding bits), then the generator's inputs (checked against its host twin) of n = 1, 33 and
 * 65537 in every dtype, with and without an addend. */
void test_gpu_setup()
{
    const double inf = INFINITY;
    struct Hand {
        tk_dtype dt;
        std::vector<double> x, a, y;   /* a empty: no addend; y: the expected forward */
        uint32_t mask0;
    };
    const Hand hand[] = {
        {TK_F32, {1.5, -1.5, 0.0, -0.0, NAN, inf, -inf, 1e-30, -1e-30, 3.0}, {},
         {1.5, 0.0, 0.0, 0.0, NAN, inf, 0.0, (double)1e-30f, 0.0, 3.0}, 0x2b1u},
        /* f16 spacing 2 at [2048, 4096): 2048 + 1 ties to 2048 (even), 2048 + 3 to 2052 */
        {TK_F16, {2048.0, 2048.0, 1.0, -3.0, 0.5}, {1.0, 3.0, -1.0, 1.0, -0.25},
         {2048.0, 2052.0, 0.0, 0.0, 0.25}, 0x13u},
        {TK_BF16, {256.0, 256.0, -0.5}, {1.0, 3.0, 0.5}, {256.0, 260.0, 0.0}, 0x3u},
        {TK_F32, {inf, 1.0, -2.0}, {-inf, 0x1p-30, 1.0}, {NAN, 1.0, 0.0}, 0x3u},
    };
    for (const Hand &h : hand) {
        std::vector<double> hx, ha;
        void *x = upload_values(h.dt, h.x, hx);
        void *a = h.a.empty() ? nullptr : upload_values(h.dt, h.a, ha);
        const int64_t n = static_cast<int64_t>(h.x.size());
        std::vector<double> y;
        std::vector<uint32_t> m;
        forward_ref(h.dt, n, hx.data(), a ? ha.data() : nullptr, y, m);
        bool same = m[0] == h.mask0;
        for (int64_t i = 0; i < n; i++) same = same && same_value(y[i], h.y[i]);
        expect(same, "hand-worked relu_mask case (dtype %d, n %lld): the CPU reference is not "
               "the worked answer", (int)h.dt, (long long)n);
        check_gpu_reference(h.dt, n, x, a, hx, a ? &ha : nullptr, "hand-worked case");
        cudaFree(x);
        cudaFree(a);
    }
    {   /* every third element passes, and 69: words 0x49249249, ..., 26 padding bits */
        std::vector<double> v(70), hv;
        for (int i = 0; i < 70; i++) v[i] = (i % 3 == 0 || i == 69) ? 1.0 + i : -1.0 - i;
        void *x = upload_values(TK_F16, v, hv);
        check_gpu_reference(TK_F16, 70, x, nullptr, hv, nullptr, "layout across words");
        cudaFree(x);
    }
    for (tk_dtype dt : kDtypes)
        for (int64_t n : {int64_t{1}, int64_t{33}, int64_t{65537}}) {
            void *in[2];
            std::vector<double> host[2];
            for (int k = 0; k < 2; k++) {
                in[k] = check_gpu_fill_matches_twin(dt, n, 0x5eedull + n, k, -4.0, 4.0);
                std::vector<unsigned char> bits(n * tk_dtype_size(dt));
                CUDA_OK(cudaMemcpy(bits.data(), in[k], bits.size(), cudaMemcpyDeviceToHost));
                host[k].resize(n);
                tk_host_to_double(dt, bits.data(), host[k].data(), n);
            }
            check_gpu_reference(dt, n, in[0], nullptr, host[0], nullptr, "generated, relu");
            check_gpu_reference(dt, n, in[0], in[1], host[0], &host[1], "generated, add_relu");
            cudaFree(in[0]);
            cudaFree(in[1]);
        }
}

} // namespace

int main()
{
    cudaDeviceProp prop;
    if (!gpu_check_start("relu_mask_test", &prop)) return gpu_check_done();
    cudaStream_t s;
    CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    Buffers b = alloc_buffers(kAlloc);

    test_bad_arguments(b, s);
    test_all_configs(b, s);
    test_grid_stride_loops(s);
    test_round_trip(b, s);
    test_special_values(b, s);
    test_null_config(b, s);
    test_tuned_entries_for_this_device();
    GPU_TEST_FULL_ONLY(test_null_config_overhead(b, s));
    GPU_TEST_FULL_ONLY(test_beyond_int32(s));
    test_gpu_setup();

    free_buffers(b);
    cudaStreamDestroy(s);
    return gpu_check_done();
}
