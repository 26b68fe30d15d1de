/* upsample_test.cu: GPU test of the upsample family (kernels/upsample.cu).
 *
 * Forward and backward, every dtype, against a double-precision CPU reference computed here
 * from the dtype-rounded inputs (forward: exact; backward: within
 * tk_upsample_nearest_bwd_error_bound for the largest |dy| actually drawn):
 *   - 2 x 2 on 13 small shapes (W = 1, 2, 3, 4, 6, 7, 8, 12, 16, 40, 80, 81; odd and even H),
 *     every implementation (generic, pack2x, vec with pack 2, 4, 8), block sizes {32, 96, 256,
 *     1024}, waves {1, 3, 32}, both cache hints, and 8 pairs of (input, output) pointer offsets
 *     in elements, so the alignment fallbacks (vec -> narrower vec -> pack2x -> generic) all
 *     run;
 *   - two large shapes where the grid-stride loop turns more than once (waves 1);
 *   - other scales (1x1, 1x2, 2x1, 3x3, 2x3, 4x4, 5x1), where every impl must run generic;
 * each with the output poisoned first (0xff bytes: NaN in every dtype) and the elements around
 * it checked to still hold the poison. Then: planted errors (a wrong element, a dropped term,
 * a sum rounded in 16-bit precision) are rejected by the same comparison, NULL-config calls
 * match tk_upsample_tuned_config (and the header's entries for this device), bad arguments,
 * the NULL-config host overhead (<= 100 ns per call), and outputs beyond 2^31 elements (64-bit
 * indices). The config-space and default-config checks run on the CPU even without a GPU.
 * Prints "N passed, N failed" last; exits non-zero on failure; skips without a GPU. */
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
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
#include "tk_check.h"
#include "tuned_lookup.h"
#include "tunekit.h"
#include "tuned_configs.h"

namespace {

const tk_dtype kDtypes[] = {TK_F32, TK_F16, TK_BF16};
const char *const kImplNames[] = {"generic", "pack2x", "vec"};
const char *const kOpNames[2] = {"upsample.nearest2x_fwd", "upsample.nearest2x_bwd"};

struct Shape {
    int64_t n, c, h, w;
};

int64_t elements(const Shape &s) { return s.n * s.c * s.h * s.w; }

/* The definition, with explicit coordinates: forward out[p][oh][ow] = in[p][oh/sh][ow/sw];
 * backward out[p][h][w] = sum of in[p][h*sh + a][w*sw + b]. in is the source tensor (x or dy). */
void reference(bool bwd, const Shape &s, int sh, int sw, const double *in, std::vector<double> &out)
{
    const int64_t planes = s.n * s.c, oh = s.h * sh, ow = s.w * sw;
    out.assign(bwd ? elements(s) : elements(s) * sh * sw, 0.0);
    for (int64_t p = 0; p < planes; p++)
        for (int64_t r = 0; r < oh; r++)
            for (int64_t q = 0; q < ow; q++) {
                const int64_t big = (p * oh + r) * ow + q;
                const int64_t small = (p * s.h + r / sh) * s.w + q / sw;
                if (bwd)
                    out[small] += in[big];
                else
                    out[big] = in[small];
            }
}

tk_status call(bool bwd, tk_dtype dt, const Shape &s, int sh, int sw, const void *src, void *dst,
               const tk_upsample_config *cfg, cudaStream_t st)
{
    if (bwd) return tk_upsample_nearest_bwd(dt, s.n, s.c, s.h, s.w, sh, sw, src, dst, cfg, st);
    return tk_upsample_nearest_fwd(dt, s.n, s.c, s.h, s.w, sh, sw, src, dst, cfg, st);
}

bool close_enough(double got, double ref, double rtol, double atol)
{
    if (std::isnan(ref)) return std::isnan(got);
    return std::fabs(got - ref) <= atol + rtol * std::fabs(ref);
}

constexpr int64_t kGuard = 8;      /* poisoned elements checked on each side of the output */
constexpr int64_t kSlack = 64;     /* elements of room around every buffer for offsets, guards */

/* Device buffers for one dtype: the source (x or dy) with its host values, and the output. */
struct Buffers {
    int64_t capacity = 0;            /* elements of each buffer, slack included */
    void *src = nullptr, *dst = nullptr;
    unsigned char *host = nullptr;   /* pinned, capacity * 4 bytes */
    std::vector<double> src_values;  /* the source as the GPU holds it (dtype-rounded) */
};

/* Fills the whole source buffer with values uniform in [-4, 4) rounded to dt. Returns the
 * largest magnitude drawn. */
double fill_source(Buffers &b, tk_dtype dt, std::mt19937_64 &rng)
{
    std::uniform_real_distribution<double> dist(-4.0, 4.0);
    const size_t es = tk_dtype_size(dt);
    std::vector<double> raw(b.capacity);
    for (auto &v : raw) {
        do v = dist(rng);
        while (v == 0.0);
    }
    std::vector<unsigned char> stored(b.capacity * es);
    tk_host_from_double(dt, raw.data(), stored.data(), b.capacity);
    b.src_values.resize(b.capacity);
    tk_host_to_double(dt, stored.data(), b.src_values.data(), b.capacity);
    CUDA_OK(cudaMemcpy(b.src, stored.data(), b.capacity * es, cudaMemcpyHostToDevice));
    double m = 0.0;
    for (double v : b.src_values)
        m = std::max(m, std::fabs(v));
    return m;
}

struct Offsets {
    int64_t in, out;
};

/* One test case: a direction, dtype, shape, scales and pointer offsets; its reference. */
struct Case {
    bool bwd;
    tk_dtype dt;
    Shape s;
    int sh, sw;
    Offsets off;
    std::vector<double> ref;
    double rtol, atol;
};

void prepare_case(Case &k, const Buffers &b, double max_abs)
{
    reference(k.bwd, k.s, k.sh, k.sw, b.src_values.data() + k.off.in, k.ref);
    k.rtol = k.atol = 0.0;
    if (k.bwd) tk_upsample_nearest_bwd_error_bound(k.dt, k.sh, k.sw, max_abs, &k.rtol, &k.atol);
}

std::string describe(const Case &k, const tk_upsample_config &c)
{
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "%s %s (%lld,%lld,%lld,%lld) scale %dx%d offsets in %lld out %lld "
                  "impl=%s pack=%d block=%d waves=%d hint=%s",
                  k.bwd ? "bwd" : "fwd", tk_dtype_name(k.dt), (long long)k.s.n, (long long)k.s.c,
                  (long long)k.s.h, (long long)k.s.w, k.sh, k.sw, (long long)k.off.in,
                  (long long)k.off.out, kImplNames[c.impl], c.pack_size, c.block_size, c.waves,
                  c.cache_hint == TK_CACHE_EVICT_FIRST ? "evict_first" : "normal");
    return buf;
}

/* Runs one config on one case: poisons the output region, launches, copies back the output
 * and its guards, compares. Returns "" or what went wrong. */
std::string run_case(const Case &k, const tk_upsample_config *c, Buffers &b, const Decoder &dec,
                     cudaStream_t st)
{
    const size_t es = tk_dtype_size(k.dt);
    const int64_t n_out = static_cast<int64_t>(k.ref.size());
    const int64_t lo = k.off.out - kGuard; /* off.out >= kGuard: see the offsets used */
    const int64_t span = n_out + 2 * kGuard;
    unsigned char *dst_base = static_cast<unsigned char *>(b.dst);
    CUDA_OK(cudaMemsetAsync(dst_base + lo * es, 0xff, span * es, st));
    const tk_status s = call(k.bwd, k.dt, k.s, k.sh, k.sw,
                             static_cast<const unsigned char *>(b.src) + k.off.in * es,
                             dst_base + k.off.out * es, c, st);
    if (s != TK_OK) return std::string("status ") + tk_status_string(s);
    CUDA_OK(cudaMemcpyAsync(b.host, dst_base + lo * es, span * es, cudaMemcpyDeviceToHost, st));
    CUDA_OK(cudaStreamSynchronize(st));
    char msg[200];
    for (int64_t i = 0; i < span; i++) {
        if (i >= kGuard && i < kGuard + n_out) continue;
        for (size_t q = 0; q < es; q++)
            if (b.host[i * es + q] != 0xff) {
                std::snprintf(msg, sizeof msg, "wrote element %lld outside the output",
                              (long long)(i - kGuard));
                return msg;
            }
    }
    const unsigned char *out = b.host + kGuard * es;
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < n_out; i++)
        if (!close_enough(dec(out, i), k.ref[i], k.rtol, k.atol)) {
            if (first < 0) first = i;
            bad++;
        }
    if (bad) {
        std::snprintf(msg, sizeof msg, "%lld bad elements, first [%lld] = %.9g, expected %.9g",
                      (long long)bad, (long long)first, dec(out, first), k.ref[first]);
        return msg;
    }
    return "";
}

/* The implementations to try for dtype dt: generic, pack2x, and vec for each pack that fits. */
std::vector<tk_upsample_config> impls_for(tk_dtype dt)
{
    std::vector<tk_upsample_config> v;
    v.push_back({256, TK_UPSAMPLE_GENERIC, 1, 32, TK_CACHE_NORMAL});
    v.push_back({256, TK_UPSAMPLE_PACK2X, 1, 32, TK_CACHE_NORMAL});
    for (int p : {2, 4, 8})
        if (p * tk_dtype_size(dt) <= 16) v.push_back({256, TK_UPSAMPLE_VEC, p, 32, TK_CACHE_NORMAL});
    return v;
}

/* Runs every config of impls x blocks x waves x cache hints on the case; prints nothing unless
 * one fails. */
void run_configs(Case &k, Buffers &b, const Decoder &dec, const std::vector<int> &blocks,
                 const std::vector<int> &waves, cudaStream_t st, int *ok, int *run)
{
    for (tk_upsample_config c : impls_for(k.dt))
        for (int block : blocks)
            for (int w : waves)
            for (tk_cache_hint hint : {TK_CACHE_NORMAL, TK_CACHE_EVICT_FIRST}) {
                if (elements(k.s) > gpu_test_max_n() || !gpu_test_sample()) continue;
                c.block_size = block;
                c.waves = w;
                c.cache_hint = hint;
                const std::string err = run_case(k, &c, b, dec, st);
                (*run)++;
                *ok += err.empty();
                expect(err.empty(), "%s: %s", describe(k, c).c_str(), err.c_str());
            }
}

void test_all_configs(Buffers &b, cudaStream_t st)
{
    const Shape small[] = {{1, 1, 1, 1}, {1, 1, 1, 2},  {1, 1, 2, 1},  {1, 2, 3, 3},  {2, 3, 5, 7},
                           {1, 1, 7, 4}, {3, 2, 4, 6},  {2, 2, 6, 8},  {1, 3, 9, 12}, {2, 1, 5, 16},
                           {1, 2, 8, 80}, {1, 2, 7, 81}, {2, 3, 33, 40}};
    /* (in, out) offsets in elements; out >= kGuard so the guard before it exists */
    const Offsets offsets[] = {{0, 8},  {1, 9},  {2, 10}, {4, 12},
                               {0, 10}, {2, 8},  {1, 8},  {0, 9}};
    /* more units than the grid has threads (132 SMs x 2048) with waves 1: the loop turns */
    const Shape large[] = {{2, 16, 129, 130}, {1, 8, 300, 1000}};
    const std::pair<int, int> scales[] = {{1, 1}, {1, 2}, {2, 1}, {3, 3}, {2, 3}, {4, 4}, {5, 1}};
    std::mt19937_64 rng(20240611);
    for (tk_dtype dt : kDtypes) {
        const Decoder dec(dt);
        const double max_abs = fill_source(b, dt, rng);
        for (bool bwd : {false, true}) {
            int ok = 0, run = 0;
            for (const Shape &s : small)
                for (const Offsets &o : offsets) {
                    Case k{bwd, dt, s, 2, 2, o, {}, 0, 0};
                    prepare_case(k, b, max_abs);
                    run_configs(k, b, dec, {32, 96, 256, 1024}, {1, 3, 32}, st, &ok, &run);
                }
            for (const Shape &s : large) {
                Case k{bwd, dt, s, 2, 2, {0, 8}, {}, 0, 0};
                prepare_case(k, b, max_abs);
                run_configs(k, b, dec, {32, 1024}, {1}, st, &ok, &run);
            }
            for (const auto &sc : scales)
                for (const Shape &s : {small[0], small[4], small[10], small[12]})
                    for (const Offsets &o : {offsets[0], offsets[1]}) {
                        Case k{bwd, dt, s, sc.first, sc.second, o, {}, 0, 0};
                        prepare_case(k, b, max_abs);
                        run_configs(k, b, dec, {96}, {1, 32}, st, &ok, &run);
                    }
            std::printf("%s %-4s %6d / %6d configs ok\n", kOpNames[bwd], tk_dtype_name(dt), ok,
                        run);
        }
    }
}

/* The comparison the tests (and the tuner's harness) use must reject wrong outputs: a forward
 * with one element off by one unit in the last place, and backward results with one term
 * dropped, one element off by 16 times the bound, or (16-bit dtypes) the sum rounded to the
 * dtype after every addition, while the correctly rounded sum itself passes. Checked on the
 * GPU with tk_check_close. */
void test_planted_errors(Buffers &b, cudaStream_t st)
{
    const Shape s = {2, 3, 17, 24};
    const int64_t n_in = elements(s), n_out = 4 * n_in;
    std::mt19937_64 rng(99);
    double *ref_dev = nullptr;
    CUDA_OK(cudaMalloc(&ref_dev, n_out * sizeof(double)));
    for (tk_dtype dt : kDtypes) {
        const size_t es = tk_dtype_size(dt);
        const double max_abs = fill_source(b, dt, rng);
        const double *in = b.src_values.data();
        std::vector<double> ref, variant;
        std::vector<unsigned char> stored(n_out * es);
        /* returns the number of elements tk_check_close flags in variant */
        auto flagged = [&](const std::vector<double> &v, const std::vector<double> &r,
                           double rtol, double atol) {
            tk_host_from_double(dt, v.data(), stored.data(), static_cast<int64_t>(v.size()));
            CUDA_OK(cudaMemcpy(b.dst, stored.data(), v.size() * es, cudaMemcpyHostToDevice));
            CUDA_OK(cudaMemcpy(ref_dev, r.data(), r.size() * sizeof(double),
                               cudaMemcpyHostToDevice));
            int64_t n_bad = -1, first = 0;
            tk_check_close(dt, static_cast<int64_t>(v.size()), b.dst, ref_dev, rtol, atol, &n_bad,
                           &first, nullptr, nullptr, 1, st);
            return n_bad;
        };
        /* forward: exact, so one element one ulp off fails */
        reference(false, s, 2, 2, in, ref);
        expect(flagged(ref, ref, 0, 0) == 0, "%s fwd: the reference itself passes",
               tk_dtype_name(dt));
        variant = ref;
        variant[n_out / 2] = std::nextafter(static_cast<float>(variant[n_out / 2]), 100.0f);
        if (dt != TK_F32) variant[n_out / 2] += std::fabs(variant[n_out / 2]) * 0x1p-7;
        expect(flagged(variant, ref, 0, 0) == 1, "%s fwd: one element one ulp off is flagged",
               tk_dtype_name(dt));
        /* backward */
        double rtol = 0, atol = 0;
        tk_upsample_nearest_bwd_error_bound(dt, 2, 2, max_abs, &rtol, &atol);
        reference(true, s, 2, 2, in, ref);
        expect(flagged(ref, ref, rtol, atol) == 0, "%s bwd: the rounded exact sum passes",
               tk_dtype_name(dt));
        variant = ref;
        for (int64_t i = 0; i < n_in; i++) {
            const int64_t row = i / s.w, col = i % s.w;
            variant[i] -= in[(2 * row + 1) * 2 * s.w + 2 * col + 1]; /* the last term dropped */
        }
        expect(flagged(variant, ref, rtol, atol) >= n_in * 9 / 10,
               "%s bwd: sums missing a term are flagged", tk_dtype_name(dt));
        variant = ref;
        variant[7] += 16 * (atol + rtol * std::fabs(ref[7]));
        expect(flagged(variant, ref, rtol, atol) == 1, "%s bwd: one element 16 bounds off",
               tk_dtype_name(dt));
        if (dt != TK_F32) {
            /* every partial sum rounded to the dtype: some elements err beyond the bound */
            for (int64_t i = 0; i < n_in; i++) {
                const int64_t row = i / s.w, col = i % s.w, t = 2 * row * 2 * s.w + 2 * col;
                double acc = 0.0;
                for (int64_t j : {t, t + 1, t + 2 * s.w, t + 2 * s.w + 1}) {
                    acc += in[j];
                    tk_host_from_double(dt, &acc, stored.data(), 1);
                    tk_host_to_double(dt, stored.data(), &acc, 1);
                }
                variant[i] = acc;
            }
            expect(flagged(variant, ref, rtol, atol) > 0,
                   "%s bwd: sums rounded to the dtype at every step are flagged",
                   tk_dtype_name(dt));
        }
    }
    cudaFree(ref_dev);
}

/* A NULL config runs what tk_upsample_tuned_config reports (same bits out), and with a header
 * that has nothing for this device that is the default config. */
void test_null_config(Buffers &b, cudaStream_t st)
{
    const Shape shapes[] = {{1, 1, 3, 5}, {2, 4, 16, 16}, {4, 8, 40, 41}};
    std::vector<unsigned char> a(b.capacity * 4), c2(b.capacity * 4);
    std::mt19937_64 rng(7);
    cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    const bool known = tk_tuned_match_device(tk_tuned_devices, TK_TUNED_N_DEVICES, prop.name,
                                             prop.major, prop.minor,
                                             prop.multiProcessorCount) >= 0;
    for (tk_dtype dt : kDtypes) {
        fill_source(b, dt, rng);
        const size_t es = tk_dtype_size(dt);
        for (int bwd = 0; bwd < 2; bwd++)
            for (const Shape &s : shapes)
                for (int scale : {2, 3}) {
                    tk_upsample_config tuned;
                    const tk_status st_t =
                        tk_upsample_tuned_config(kOpNames[bwd], dt, elements(s), &tuned);
                    expect(st_t == TK_OK, "tuned_config %s %s", kOpNames[bwd], tk_dtype_name(dt));
                    if (!known) {
                        const tk_upsample_config d = tk_upsample_default_config(dt);
                        expect(std::memcmp(&d, &tuned, sizeof d) == 0,
                               "unknown device: tuned config of %s %s is not the default",
                               kOpNames[bwd], tk_dtype_name(dt));
                    }
                    const int64_t n_dst = bwd ? elements(s) : elements(s) * scale * scale;
                    CUDA_OK(memset_sync(b.dst, 0xff, n_dst * es));
                    const tk_status s1 = call(bwd, dt, s, scale, scale, b.src, b.dst, nullptr, st);
                    CUDA_OK(cudaStreamSynchronize(st));
                    CUDA_OK(cudaMemcpy(a.data(), b.dst, n_dst * es, cudaMemcpyDeviceToHost));
                    CUDA_OK(memset_sync(b.dst, 0xff, n_dst * es));
                    const tk_status s2 = call(bwd, dt, s, scale, scale, b.src, b.dst, &tuned, st);
                    CUDA_OK(cudaStreamSynchronize(st));
                    CUDA_OK(cudaMemcpy(c2.data(), b.dst, n_dst * es, cudaMemcpyDeviceToHost));
                    std::vector<double> ref;
                    reference(bwd, s, scale, scale, b.src_values.data(), ref);
                    const Decoder dec(dt);
                    double rtol = 0, atol = 0;
                    if (bwd) tk_upsample_nearest_bwd_error_bound(dt, scale, scale, 4.0, &rtol, &atol);
                    int64_t bad = 0;
                    for (int64_t i = 0; i < n_dst; i++)
                        bad += !close_enough(dec(a.data(), i), ref[i], rtol, atol);
                    expect(s1 == TK_OK && s2 == TK_OK && bad == 0 &&
                               std::memcmp(a.data(), c2.data(), n_dst * es) == 0,
                           "NULL config vs tuned config: %s %s (%lld,%lld,%lld,%lld) scale %d",
                           kOpNames[bwd], tk_dtype_name(dt), (long long)s.n, (long long)s.c,
                           (long long)s.h, (long long)s.w, scale);
                }
    }
}

/* For every upsample entry the compiled-in header holds for this device (matched as the library
 * matches it), the tuned config at exactly that size is the entry's config. */
void test_tuned_entries_for_this_device()
{
    for_each_tuned_entry(
        "upsample.",
        [](const tk_tuned_entry &e, int i) {
            tk_upsample_config want, got;
            const int dt = tk_dtype_parse(e.dtype);
            expect(dt >= 0 && tk_upsample_config_from_text(e.config, &want) == TK_OK,
                   "header entry %d does not parse: %s", i, e.config);
            expect(tk_upsample_tuned_config(e.op, static_cast<tk_dtype>(dt), e.size, &got) ==
                           TK_OK &&
                       std::memcmp(&want, &got, sizeof want) == 0,
                   "NULL config for %s %s size %lld is not the header's %s", e.op, e.dtype,
                   (long long)e.size, e.config);
        },
        [] {});
}

void test_bad_arguments(Buffers &b, cudaStream_t st)
{
    const tk_upsample_config ok = tk_upsample_default_config(TK_F32);
    const void *x = b.src;
    void *y = b.dst;
    for (int bwd = 0; bwd < 2; bwd++) {
        const char *d = bwd ? "bwd" : "fwd";
        const Shape s = {1, 2, 3, 4};
        expect(call(bwd, TK_F32, {-1, 2, 3, 4}, 2, 2, x, y, &ok, st) == TK_ERR_INVALID_ARGUMENT,
               "%s: n < 0", d);
        expect(call(bwd, TK_F32, {1, 2, 3, -4}, 2, 2, x, y, &ok, st) == TK_ERR_INVALID_ARGUMENT,
               "%s: w < 0", d);
        expect(call(bwd, TK_F32, s, 0, 2, x, y, &ok, st) == TK_ERR_INVALID_ARGUMENT,
               "%s: scale_h 0", d);
        expect(call(bwd, TK_F32, s, 2, -1, x, y, &ok, st) == TK_ERR_INVALID_ARGUMENT,
               "%s: scale_w -1", d);
        expect(call(bwd, TK_F32, s, 2, 2, nullptr, y, &ok, st) == TK_ERR_INVALID_ARGUMENT,
               "%s: NULL source", d);
        expect(call(bwd, TK_F32, s, 2, 2, x, nullptr, &ok, st) == TK_ERR_INVALID_ARGUMENT,
               "%s: NULL destination", d);
        expect(call(bwd, static_cast<tk_dtype>(3), s, 2, 2, x, y, &ok, st) ==
                   TK_ERR_INVALID_ARGUMENT,
               "%s: bad dtype", d);
        const int64_t big = int64_t{1} << 31;
        expect(call(bwd, TK_F16, {big, big, 1, 1}, 2, 2, x, y, &ok, st) ==
                   TK_ERR_INVALID_ARGUMENT,
               "%s: output of 2^64 elements", d);
        expect(call(bwd, TK_F16, {1, 1, big, big / 2}, 2, 2, x, y, &ok, st) ==
                   TK_ERR_INVALID_ARGUMENT,
               "%s: output of 2^63 elements", d);
        expect(call(bwd, TK_F16, {1, 1, int64_t{1} << 30, 1 << 30}, 1, 1, nullptr, nullptr, &ok,
                    st) == TK_ERR_INVALID_ARGUMENT,
               "%s: 2^60 elements with NULL pointers", d);
        /* any zero size: nothing to do, NULL pointers allowed */
        expect(call(bwd, TK_F32, {0, 2, 3, 4}, 2, 2, nullptr, nullptr, nullptr, st) == TK_OK,
               "%s: n == 0", d);
        expect(call(bwd, TK_BF16, {3, 2, 3, 0}, 3, 1, nullptr, nullptr, &ok, st) == TK_OK,
               "%s: w == 0", d);
        struct {
            tk_upsample_config c;
            tk_dtype dt;
            const char *what;
        } bad[] = {
            {{33, TK_UPSAMPLE_VEC, 4, 32, TK_CACHE_NORMAL}, TK_F32, "block_size 33"},
            {{0, TK_UPSAMPLE_VEC, 4, 32, TK_CACHE_NORMAL}, TK_F32, "block_size 0"},
            {{1056, TK_UPSAMPLE_VEC, 4, 32, TK_CACHE_NORMAL}, TK_F32, "block_size 1056"},
            {{256, TK_UPSAMPLE_VEC, 4, 0, TK_CACHE_NORMAL}, TK_F32, "waves 0"},
            {{256, TK_UPSAMPLE_PACK2X, 1, -2, TK_CACHE_NORMAL}, TK_F16, "waves -2"},
            {{256, TK_UPSAMPLE_VEC, 3, 32, TK_CACHE_NORMAL}, TK_F32, "pack_size 3"},
            {{256, TK_UPSAMPLE_GENERIC, 16, 32, TK_CACHE_NORMAL}, TK_F16, "pack_size 16"},
            {{256, TK_UPSAMPLE_VEC, 8, 32, TK_CACHE_NORMAL}, TK_F32, "vec pack_size 8 for f32"},
            {{256, static_cast<tk_upsample_impl>(3), 2, 32, TK_CACHE_NORMAL}, TK_F16, "impl 3"},
            {{256, static_cast<tk_upsample_impl>(-1), 2, 32, TK_CACHE_NORMAL}, TK_F16, "impl -1"},
            {{256, TK_UPSAMPLE_VEC, 2, 32, static_cast<tk_cache_hint>(2)}, TK_F16, "cache_hint 2"},
        };
        for (auto &k : bad) {
            expect(call(bwd, k.dt, s, 2, 2, x, y, &k.c, st) == TK_ERR_UNSUPPORTED_CONFIG, "%s: %s",
                   d, k.what);
            expect(call(bwd, k.dt, {0, 1, 1, 1}, 2, 2, x, y, &k.c, st) ==
                       TK_ERR_UNSUPPORTED_CONFIG,
                   "%s: %s with nothing to do", d, k.what);
        }
    }
    tk_upsample_config c;
    expect(tk_upsample_tuned_config("upsample.nearest", TK_F32, 10, &c) == TK_ERR_INVALID_ARGUMENT,
           "tuned_config unknown op");
    expect(tk_upsample_tuned_config("nearest2x_fwd", TK_F32, 10, &c) == TK_ERR_INVALID_ARGUMENT,
           "tuned_config bare op name");
    expect(tk_upsample_tuned_config(kOpNames[0], static_cast<tk_dtype>(5), 10, &c) ==
               TK_ERR_INVALID_ARGUMENT,
           "tuned_config bad dtype");
    expect(tk_upsample_tuned_config(kOpNames[1], TK_F32, 10, nullptr) == TK_ERR_INVALID_ARGUMENT,
           "tuned_config NULL out");
    expect(cudaStreamSynchronize(st) == cudaSuccess && cudaGetLastError() == cudaSuccess,
           "no CUDA error left behind by rejected calls");
}

/* Host time per call of one batch of forward launches on a 1 x 1 x 1 x 1 input (short enough
 * that the launch queue never fills); the synchronisation after it is not timed. */
double time_batch(const tk_upsample_config *cfg, const void *x, void *y, cudaStream_t st)
{
    const int batch = 200;
    cudaStreamSynchronize(st);
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; i++)
        tk_upsample_nearest_fwd(TK_F32, 1, 1, 1, 1, 2, 2, x, y, cfg, st);
    auto t1 = std::chrono::steady_clock::now();
    cudaStreamSynchronize(st);
    return std::chrono::duration<double, std::nano>(t1 - t0).count() / batch;
}

/* The NULL-config overhead: interleaved batches with a NULL config and with the same config
 * given explicitly, median per-call time of each; fails above 100 ns per call. */
void test_null_config_overhead(Buffers &b, cudaStream_t st)
{
    const int rounds = 200;
    tk_upsample_config explicit_cfg;
    tk_upsample_tuned_config(kOpNames[0], TK_F32, 1, &explicit_cfg);
    for (int i = 0; i < 10; i++) {
        time_batch(nullptr, b.src, b.dst, st);
        time_batch(&explicit_cfg, b.src, b.dst, st);
    }
    std::vector<double> with_null, with_explicit;
    for (int r = 0; r < rounds; r++) {
        if (r & 1) {
            with_null.push_back(time_batch(nullptr, b.src, b.dst, st));
            with_explicit.push_back(time_batch(&explicit_cfg, b.src, b.dst, st));
        } else {
            with_explicit.push_back(time_batch(&explicit_cfg, b.src, b.dst, st));
            with_null.push_back(time_batch(nullptr, b.src, b.dst, st));
        }
    }
    std::sort(with_null.begin(), with_null.end());
    std::sort(with_explicit.begin(), with_explicit.end());
    const double mn = with_null[rounds / 2], me = with_explicit[rounds / 2];
    std::printf("upsample host time per call: NULL config %.1f ns, explicit %.1f ns, "
                "difference %.1f ns (limit 100)\n", mn, me, mn - me);
    expect(mn - me <= 100.0, "NULL-config overhead %.1f ns per call exceeds 100 ns", mn - me);
    CUDA_OK(cudaStreamSynchronize(st));
    expect(cudaGetLastError() == cudaSuccess, "overhead loop left a CUDA error");
}

/* x[i] = ((i mod 2039) - 1019) / 4 in f16 (exact), a pattern every element can be checked
 * against without a copy of the tensor. */
__global__ void fill_pattern_f16(__half *x, int64_t n)
{
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += stride)
        x[i] = __float2half(static_cast<float>(static_cast<int>(i % 2039) - 1019) * 0.25f);
}

double pattern(int64_t i) { return static_cast<double>(static_cast<int>(i % 2039) - 1019) * 0.25; }

/* Outputs beyond 2^31 elements: f16 (1, 1, 16385, 32768) upsampled by 2 x 2 has 2^31 + 131072
 * outputs, so only 64-bit indices reach the end. Forward and backward with generic, pack2x and
 * vec 8; windows at the start, around element 2^31 of the large tensor, and at the end are
 * checked against the pattern. Skipped when the GPU lacks the 6.5 GB it needs. */
void test_beyond_int32(cudaStream_t st)
{
    const Shape s = {1, 1, 16385, 32768};
    const int64_t n_in = elements(s), n_out = 4 * n_in, ow = 2 * s.w;
    __half *small = nullptr, *large = nullptr;
    if (cudaMalloc(&small, n_in * sizeof(__half)) != cudaSuccess ||
        cudaMalloc(&large, n_out * sizeof(__half)) != cudaSuccess) {
        cudaGetLastError();
        cudaFree(small);
        std::printf("outputs beyond 2^31 elements: skipped (not enough GPU memory)\n");
        return;
    }
    /* large-tensor rows to check: the first, those around element 2^31, the last */
    const int64_t rows[] = {0, 1, (int64_t{1} << 31) / ow - 1, (int64_t{1} << 31) / ow,
                            (int64_t{1} << 31) / ow + 1, 2 * s.h - 2, 2 * s.h - 1};
    std::vector<__half> host(ow);
    const tk_upsample_config configs[] = {{256, TK_UPSAMPLE_GENERIC, 1, 32, TK_CACHE_NORMAL},
                                          {256, TK_UPSAMPLE_PACK2X, 1, 32, TK_CACHE_EVICT_FIRST},
                                          {512, TK_UPSAMPLE_VEC, 8, 4, TK_CACHE_NORMAL},
                                          {128, TK_UPSAMPLE_VEC, 4, 1, TK_CACHE_EVICT_FIRST}};
    for (const tk_upsample_config &c : configs) {
        /* forward: x = pattern, every checked output row must repeat its input row */
        fill_pattern_f16<<<1024, 256, 0, st>>>(small, n_in);
        CUDA_OK(cudaMemsetAsync(large, 0xff, n_out * sizeof(__half), st));
        tk_status r = tk_upsample_nearest_fwd(TK_F16, s.n, s.c, s.h, s.w, 2, 2, small, large, &c,
                                              st);
        CUDA_OK(cudaStreamSynchronize(st));
        int64_t bad = 0;
        for (int64_t row : rows) {
            CUDA_OK(cudaMemcpy(host.data(), large + row * ow, ow * sizeof(__half),
                               cudaMemcpyDeviceToHost));
            for (int64_t q = 0; q < ow; q++)
                bad += __half2float(host[q]) != pattern((row / 2) * s.w + q / 2);
        }
        expect(r == TK_OK && bad == 0, "fwd beyond 2^31 outputs, impl %s: status %s, %lld bad",
               kImplNames[c.impl], tk_status_string(r), (long long)bad);
        /* backward: dy = pattern; dx rows are sums of four pattern values (exact in f16 at
         * these magnitudes? no: rounded once, so compare within the error bound) */
        fill_pattern_f16<<<4096, 256, 0, st>>>(large, n_out);
        CUDA_OK(cudaMemsetAsync(small, 0xff, n_in * sizeof(__half), st));
        r = tk_upsample_nearest_bwd(TK_F16, s.n, s.c, s.h, s.w, 2, 2, large, small, &c, st);
        CUDA_OK(cudaStreamSynchronize(st));
        double rtol = 0, atol = 0;
        tk_upsample_nearest_bwd_error_bound(TK_F16, 2, 2, 1019 * 0.25, &rtol, &atol);
        bad = 0;
        for (int64_t row : rows) {
            const int64_t r_in = row / 2;
            CUDA_OK(cudaMemcpy(host.data(), small + r_in * s.w, s.w * sizeof(__half),
                               cudaMemcpyDeviceToHost));
            for (int64_t q = 0; q < s.w; q++) {
                const int64_t t = 2 * r_in * ow + 2 * q;
                const double want = pattern(t) + pattern(t + 1) + pattern(t + ow) +
                                    pattern(t + ow + 1);
                bad += !close_enough(__half2float(host[q]), want, rtol, atol);
            }
        }
        expect(r == TK_OK && bad == 0, "bwd beyond 2^31 dy elements, impl %s: status %s, %lld bad",
               kImplNames[c.impl], tk_status_string(r), (long long)bad);
    }
    cudaFree(small);
    cudaFree(large);
}

/* CPU-only checks of the config space and texts (run even without a GPU). */
void test_config_space()
{
    const tk_config_space *sp = tk_upsample_config_space();
    expect(sp && sp->n_params == 5 && std::strcmp(sp->family, "upsample") == 0,
           "upsample config space");
    tk_upsample_config c;
    expect(tk_upsample_config_from_text(
               "block_size=128,cache_hint=evict_first,impl=vec,pack_size=8,waves=4", &c) ==
                   TK_OK &&
               c.block_size == 128 && c.impl == TK_UPSAMPLE_VEC && c.pack_size == 8 &&
               c.waves == 4 && c.cache_hint == TK_CACHE_EVICT_FIRST,
           "config text parses");
    expect(tk_upsample_config_from_text(
               "block_size=128,cache_hint=normal,impl=rows,pack_size=8,waves=4", &c) ==
               TK_ERR_UNSUPPORTED_CONFIG,
           "unknown impl refused");
    const tk_upsample_config d = tk_upsample_default_config(TK_BF16);
    expect(d.impl == TK_UPSAMPLE_VEC && d.pack_size == 8 && d.block_size == 256 && d.waves == 32 &&
               d.cache_hint == TK_CACHE_NORMAL,
           "bf16 default: vec 8, 256 threads, 32 waves, no hint");
}

} // namespace

int main()
{
    test_config_space();
    cudaDeviceProp prop;
    if (!gpu_check_start("upsample_test", &prop)) return gpu_check_done();
    cudaStream_t st;
    CUDA_OK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    Buffers b;
    b.capacity = 4 * int64_t{1 * 8 * 300 * 1000} + 2 * kSlack;
    CUDA_OK(cudaMalloc(&b.src, b.capacity * 4));
    CUDA_OK(cudaMalloc(&b.dst, b.capacity * 4));
    CUDA_OK(cudaMallocHost(&b.host, b.capacity * 4));

    test_bad_arguments(b, st);
    test_all_configs(b, st);
    test_planted_errors(b, st);
    test_null_config(b, st);
    test_tuned_entries_for_this_device();
    GPU_TEST_FULL_ONLY(test_null_config_overhead(b, st));
    GPU_TEST_FULL_ONLY(test_beyond_int32(st));

    cudaFree(b.src);
    cudaFree(b.dst);
    cudaFreeHost(b.host);
    cudaStreamDestroy(st);
    return gpu_check_done();
}
