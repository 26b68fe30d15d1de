/* reduce_test.cu: GPU test of the reduce family (kernels/reduce.cu).
 *
 * Exactness over every variant: integer inputs in [-16, 16] \ {0} whose absolute sum stays below
 * 2^24, so every partial sum in any order is an exact float and the sum must equal the int64
 * reference bit for bit (one element lost or read twice changes it); a unique maximum 17 and
 * minimum -17 planted at positions that move with the size. For sum, max and min x f32, f16,
 * bf16 x every version x block sizes 64..1024 x every finish x waves {1, 3} (versions >= 6) x
 * every pack that fits (versions 8, 9) x both cache hints x both loads (versions >= 7) x unroll
 * {2, 4} (version 9), sizes {1, 2, 31, 64, 1000, 4097, 65537, 2^20 + 3} and input offsets
 * {0, 1, 3} elements. Then: random float inputs (uniform [-1, 2)) within the plan's rigorous
 * error bound (the largest error / bound ratio is printed), NaN / inf / empty / one-element
 * inputs for every version and finish, the result's neighbour never written, bitwise-repeatable
 * two_pass and last_block results, four streams reducing at once (their workspaces must not
 * mix), the grid of versions 6..9 against launch.cuh's rule on this device, NULL-config calls
 * against tk_reduce_tuned_config and the header's entries for this device, bad arguments,
 * releasing the workspaces, the host overhead of a NULL config (fails above 100 ns per call) and
 * n > 2^31 (64-bit indexing). Last, the tuner's GPU set-up of this family (tuner/ops/gpu_fill.h):
 * generated inputs bit for bit against the host twin, and gpu_ref_sums against a CPU double
 * reference of the same inputs.
 *
 * Ordering: the launches run on cudaStreamNonBlocking streams, which do not wait for the legacy
 * default stream (and a cudaMemcpy from pageable memory may return before its DMA lands), so
 * every upload, poison and read-back goes through to_device / poison / from_device on the stream
 * of the launches, and the host reads a result only after that stream is synchronised. Every
 * result is poisoned before its launch, so a call that writes nothing cannot pass on an older
 * value, and every call's status is checked.
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
#include "gpu_check.h"
#include "gpu_fill_check.h"
#include "tk_check.h"
#include "tuned_lookup.h"
#include "tunekit.h"
#include "tuned_configs.h"

namespace {

/* ---- transfers ordered with the launches (see the file comment) ------------------------------- */

/* bytes from host src to device dst, landed when this returns (src may be reused). */
void to_device(cudaStream_t s, void *dst, const void *src, size_t bytes)
{
    CUDA_OK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s));
    CUDA_OK(cudaStreamSynchronize(s));
}

/* 0xff bytes (a NaN in every float) at dst, before whatever is launched on s next. */
void poison(cudaStream_t s, void *dst, size_t bytes)
{
    CUDA_OK(cudaMemsetAsync(dst, 0xff, bytes, s));
}

/* bytes from device src to host dst after everything launched on s so far has finished. */
void from_device(cudaStream_t s, void *dst, const void *src, size_t bytes)
{
    CUDA_OK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, s));
    CUDA_OK(cudaStreamSynchronize(s));
}

const tk_reduce_op kOps[] = {TK_REDUCE_SUM, TK_REDUCE_MAX, TK_REDUCE_MIN};
const char *const kOpNames[] = {"reduce.sum", "reduce.max", "reduce.min"};
const tk_dtype kDtypes[] = {TK_F32, TK_F16, TK_BF16};
const char *const kFinishNames[] = {"two_pass", "last_block", "atomic"};
const int kBlocks[] = {64, 128, 256, 512, 1024};

std::string config_text(const tk_reduce_config &c)
{
    char buf[256];
    if (tk_reduce_config_to_text(&c, buf, sizeof buf) < 0) return "(invalid config)";
    return buf;
}

tk_reduce_config make(int version, int block, int waves, int pack, tk_reduce_finish finish,
                      tk_cache_hint hint, int unroll = 1, tk_reduce_load load = TK_REDUCE_LOAD_COP)
{
    return tk_reduce_config{version, block, waves, pack, finish, hint, unroll, load};
}

/* Every config the library runs for dtype: the grid of the file comment. */
std::vector<tk_reduce_config> all_configs(tk_dtype dt)
{
    std::vector<tk_reduce_config> out;
    const int max_pack = static_cast<int>(16 / tk_dtype_size(dt));
    for (int v = 0; v <= TK_REDUCE_MAX_VERSION; v++)
        for (int b : kBlocks)
            for (int f = 0; f < 3; f++)
                for (int w : {1, 3}) {
                    if (v < 6 && w != 1) continue;
                    for (int p = 1; p <= (v >= 8 ? max_pack : 1); p *= 2)
                        for (int h = 0; h < (v >= 7 ? 2 : 1); h++)
                            for (int l = 0; l < (v >= 7 ? 2 : 1); l++)
                                for (int u : {1, 2, 4}) {
                                    if ((v == 9) == (u == 1)) continue;
                                    out.push_back(make(v, b, w, p, static_cast<tk_reduce_finish>(f),
                                                       static_cast<tk_cache_hint>(h), u,
                                                       static_cast<tk_reduce_load>(l)));
                                }
                }
    return out;
}

/* One config per version and finish (one wave, 16-byte packs, evict-first loads through the
 * cache operators, 4 packs in flight), plus versions 8 and 9 with no_allocate loads and 9 with
 * 2 packs in flight. */
std::vector<tk_reduce_config> version_configs(tk_dtype dt, int block = 256)
{
    std::vector<tk_reduce_config> out;
    const int pack = static_cast<int>(16 / tk_dtype_size(dt));
    for (int v = 0; v <= TK_REDUCE_MAX_VERSION; v++)
        for (int f = 0; f < 3; f++) {
            const tk_reduce_finish fin = static_cast<tk_reduce_finish>(f);
            const tk_cache_hint hint = v >= 7 ? TK_CACHE_EVICT_FIRST : TK_CACHE_NORMAL;
            if (v < 8) {
                out.push_back(make(v, block, 1, 1, fin, hint));
                continue;
            }
            for (tk_reduce_load l : {TK_REDUCE_LOAD_COP, TK_REDUCE_LOAD_NO_ALLOCATE})
                for (int u : {2, 4}) {
                    if (v == 8 && u == 4) continue;
                    out.push_back(make(v, block, 1, pack, fin, hint, v == 9 ? u : 1, l));
                }
        }
    return out;
}

constexpr int64_t kMaxN = (1 << 20) + 3;
constexpr int64_t kAlloc = kMaxN + 64;

/* The input on the device and its values on the host (dtype-rounded, as doubles). */
struct Input {
    void *dev = nullptr;      /* kAlloc * 4 bytes */
    std::vector<double> host; /* kAlloc values */
    tk_dtype dt = TK_F32;
};

/* Uploads host (rounded to dt) to the device buffer, landed before anything later on s. */
void upload(cudaStream_t s, Input &in)
{
    std::vector<unsigned char> stored(in.host.size() * 4);
    tk_host_from_double(in.dt, in.host.data(), stored.data(), static_cast<int64_t>(in.host.size()));
    tk_host_to_double(in.dt, stored.data(), in.host.data(), static_cast<int64_t>(in.host.size()));
    to_device(s, in.dev, stored.data(), in.host.size() * tk_dtype_size(in.dt));
}

/* Integers in [-16, 16] \ {0}. */
void fill_integers(Input &in, std::mt19937_64 &rng)
{
    std::uniform_int_distribution<int> d(-16, 15);
    for (double &v : in.host) {
        const int k = d(rng);
        v = k >= 0 ? k + 1 : k;
    }
}

double reference(tk_reduce_op op, const double *x, int64_t n)
{
    double r = op == TK_REDUCE_SUM ? 0.0 : op == TK_REDUCE_MAX ? -INFINITY : INFINITY;
    for (int64_t i = 0; i < n; i++) {
        const double v = x[i];
        if (op == TK_REDUCE_SUM) r += v;
        else if (op == TK_REDUCE_MAX) r = v > r || v != v ? v : r;
        else r = v < r || v != v ? v : r;
    }
    return r;
}

bool same_value(float got, double want)
{
    if (std::isnan(want)) return std::isnan(got);
    return static_cast<double>(got) == want;
}

/* ---- exactness over every variant -------------------------------------------------------------- */

void test_exact_all_configs(cudaStream_t s)
{
    const int64_t sizes[] = {1, 2, 31, 64, 1000, 4097, 65537, kMaxN};
    const int64_t offsets[] = {0, 1, 3};
    std::mt19937_64 rng(20260401);
    Input in;
    CUDA_OK(cudaMalloc(&in.dev, kAlloc * 4));
    in.host.resize(kAlloc);
    float *results = nullptr, *host_results = nullptr;
    const size_t max_configs = 2048;
    CUDA_OK(cudaMalloc(&results, max_configs * sizeof(float)));
    CUDA_OK(cudaMallocHost(&host_results, max_configs * sizeof(float)));
    for (tk_dtype dt : kDtypes) {
        in.dt = dt;
        const std::vector<tk_reduce_config> configs = all_configs(dt);
        if (configs.size() > max_configs) {
            expect(false, "%zu configs for %s, room for %zu", configs.size(), tk_dtype_name(dt),
                   max_configs);
            continue;
        }
        int ok[3] = {0, 0, 0}, run[3] = {0, 0, 0};
        for (int64_t n : sizes)
            for (int64_t off : offsets) {
                if (n > gpu_test_max_n()) continue;
                fill_integers(in, rng);
                const int64_t pmax = off + (n * 5) / 7, pmin = off + n - 1 - n / 3;
                in.host[pmax] = 17;
                if (pmin != pmax) in.host[pmin] = -17;
                upload(s, in);
                double abs_sum = 0;
                for (int64_t i = 0; i < n; i++)
                    abs_sum += std::fabs(in.host[off + i]);
                expect(abs_sum < 16777216.0, "integer data not exact in float");
                const void *x = static_cast<const char *>(in.dev) + off * tk_dtype_size(dt);
                for (int o = 0; o < 3; o++) {
                    const double want = reference(kOps[o], in.host.data() + off, n);
                    poison(s, results, max_configs * sizeof(float));
                    std::vector<tk_status> st(configs.size());
                    std::vector<char> sampled(configs.size());   /* all but in the small mode */
                    for (size_t k = 0; k < configs.size(); k++)
                        if ((sampled[k] = gpu_test_sample()))
                            st[k] = tk_reduce(kOps[o], dt, n, x, results + k, &configs[k], s);
                    from_device(s, host_results, results, configs.size() * sizeof(float));
                    for (size_t k = 0; k < configs.size(); k++) {
                        if (!sampled[k]) continue;
                        const bool good = st[k] == TK_OK && same_value(host_results[k], want);
                        run[o]++;
                        ok[o] += good;
                        expect(good, "%s %s n=%lld offset %lld %s: status %s, got %.9g expected %.9g",
                               kOpNames[o], tk_dtype_name(dt), (long long)n, (long long)off,
                               config_text(configs[k]).c_str(), tk_status_string(st[k]),
                               (double)host_results[k], want);
                    }
                }
            }
        for (int o = 0; o < 3; o++)
            std::printf("exact: %-10s %-4s %6d / %6d variants ok\n", kOpNames[o], tk_dtype_name(dt),
                        ok[o], run[o]);
    }
    cudaFree(results);
    cudaFreeHost(host_results);
    cudaFree(in.dev);
}

/* ---- random floats within the plan's error bound ---------------------------------------------- */

void test_random_within_bound(cudaStream_t s)
{
    /* the small mode's cap (racecheck runs every config of this sweep) keeps an odd length */
    const int64_t n = std::min((int64_t{8} << 20) + 5, gpu_test_max_n() | 1);
    std::mt19937_64 rng(77);
    std::uniform_real_distribution<double> d(-1.0, 2.0);
    Input in;
    in.host.resize(n);
    CUDA_OK(cudaMalloc(&in.dev, n * 4));
    float *out = nullptr;
    CUDA_OK(cudaMalloc(&out, sizeof(float)));
    for (tk_dtype dt : kDtypes) {
        in.dt = dt;
        for (double &v : in.host)
            v = d(rng);
        upload(s, in);
        const int64_t lens[2] = {n, n - 1 - n / 9};   /* the whole input, and a shorter odd part */
        double sums[2], abs_sums[2];
        for (int k = 0; k < 2; k++) {
            sums[k] = abs_sums[k] = 0;
            for (int64_t i = 0; i < lens[k]; i++) {
                sums[k] += in.host[i];
                abs_sums[k] += std::fabs(in.host[i]);
            }
        }
        const double want_max = reference(TK_REDUCE_MAX, in.host.data(), n);
        const double want_min = reference(TK_REDUCE_MIN, in.host.data(), n);
        double worst = 0;
        for (int b : {64, 1024})
            for (const tk_reduce_config &c : version_configs(dt, b))
                for (int k = 0; k < 2; k++) {
                    const int64_t len = lens[k];
                    const double sum = sums[k], abs_sum = abs_sums[k];
                    tk_reduce_plan plan;
                    const tk_status ps = tk_reduce_plan_for(dt, len, in.dev, &c, &plan);
                    const double u = std::ldexp(1.0, -24), ku = plan.error_depth * u;
                    const double atol = ku / (1 - ku) * abs_sum + plan.error_depth * 0x1p-126;
                    float got = NAN;
                    poison(s, out, sizeof(float));
                    const tk_status st = tk_reduce_sum(dt, len, in.dev, out, &c, s);
                    from_device(s, &got, out, sizeof got);
                    const double err = std::fabs(static_cast<double>(got) - sum);
                    worst = std::max(worst, err / atol);
                    expect(ps == TK_OK && st == TK_OK && err <= atol,
                           "random sum %s n=%lld %s: got %.9g expected %.9g (error %.3g, bound %.3g, "
                           "depth %lld)", tk_dtype_name(dt), (long long)len, config_text(c).c_str(),
                           (double)got, sum, err, atol, (long long)plan.error_depth);
                    if (len == n) {
                        float mx = NAN, mn = NAN;
                        poison(s, out, sizeof(float));
                        const tk_status sx = tk_reduce_max(dt, n, in.dev, out, &c, s);
                        from_device(s, &mx, out, sizeof mx);
                        poison(s, out, sizeof(float));
                        const tk_status sn = tk_reduce_min(dt, n, in.dev, out, &c, s);
                        from_device(s, &mn, out, sizeof mn);
                        expect(sx == TK_OK && sn == TK_OK && mx == want_max && mn == want_min,
                               "random max/min %s %s: %s %s, %g %g", tk_dtype_name(dt),
                               config_text(c).c_str(), tk_status_string(sx), tk_status_string(sn),
                               (double)mx, (double)mn);
                    }
                }
        std::printf("random sum %-4s n=%lld: largest error / bound = %.3g\n", tk_dtype_name(dt),
                    (long long)n, worst);
    }
    cudaFree(out);
    cudaFree(in.dev);
}

/* ---- special values ----------------------------------------------------------------------------- */

/* Runs op over vals (rounded to dt) with every version x finish at block sizes 64 and 1024,
 * expecting want. */
void check_special(cudaStream_t s, tk_dtype dt, tk_reduce_op op, const std::vector<double> &vals,
                   double want, const char *what)
{
    const int64_t n = static_cast<int64_t>(vals.size());
    std::vector<unsigned char> stored(std::max<int64_t>(n, 1) * 4);
    tk_host_from_double(dt, vals.data(), stored.data(), n);
    void *x = nullptr;
    float *out = nullptr;
    CUDA_OK(cudaMalloc(&x, std::max<int64_t>(n, 1) * 4));
    CUDA_OK(cudaMalloc(&out, sizeof(float)));
    if (n) to_device(s, x, stored.data(), n * tk_dtype_size(dt));
    for (int b : {64, 1024})
        for (const tk_reduce_config &c : version_configs(dt, b)) {
            poison(s, out, sizeof(float));
            const tk_status st = tk_reduce(op, dt, n, n ? x : nullptr, out, &c, s);
            float got = 0;
            from_device(s, &got, out, sizeof got);
            const bool ok = st == TK_OK && (std::isnan(want) ? std::isnan(got) : got == want);
            expect(ok, "%s %s %s n=%lld %s: got %g expected %g", what, kOpNames[op],
                   tk_dtype_name(dt), (long long)n, config_text(c).c_str(), (double)got, want);
        }
    cudaFree(x);
    cudaFree(out);
}

void test_special_values(cudaStream_t s)
{
    const int64_t n = 5000;   /* several blocks for every version at block size 64 */
    for (tk_dtype dt : kDtypes) {
        std::vector<double> base(n);
        for (int64_t i = 0; i < n; i++)
            base[i] = static_cast<double>((i * 7) % 13) - 6.5;
        std::vector<double> v = base;
        v[n / 2] = NAN;
        for (tk_reduce_op op : kOps)
            check_special(s, dt, op, v, NAN, "one NaN");
        v = base;
        v[0] = NAN; /* NaN first: max/min must not let later values displace it */
        for (tk_reduce_op op : kOps)
            check_special(s, dt, op, v, NAN, "NaN first");
        v = base;
        v[n - 1] = INFINITY;
        check_special(s, dt, TK_REDUCE_SUM, v, INFINITY, "+inf");
        check_special(s, dt, TK_REDUCE_MAX, v, INFINITY, "+inf");
        check_special(s, dt, TK_REDUCE_MIN, v, -6.5, "+inf");
        v[3] = -INFINITY;
        check_special(s, dt, TK_REDUCE_SUM, v, NAN, "+inf and -inf");
        check_special(s, dt, TK_REDUCE_MIN, v, -INFINITY, "-inf");
        check_special(s, dt, TK_REDUCE_MAX, std::vector<double>(n, -INFINITY), -INFINITY, "all -inf");
        check_special(s, dt, TK_REDUCE_MIN, std::vector<double>(n, INFINITY), INFINITY, "all +inf");
        check_special(s, dt, TK_REDUCE_MAX, std::vector<double>(n, -3.0), -3.0, "all -3");
        check_special(s, dt, TK_REDUCE_MIN, std::vector<double>(n, 5.0), 5.0, "all 5");
        /* empty: the identity; one element: itself */
        check_special(s, dt, TK_REDUCE_SUM, {}, 0.0, "empty");
        check_special(s, dt, TK_REDUCE_MAX, {}, -INFINITY, "empty");
        check_special(s, dt, TK_REDUCE_MIN, {}, INFINITY, "empty");
        for (tk_reduce_op op : kOps)
            check_special(s, dt, op, {-2.5}, -2.5, "one element");
    }
}

/* ---- the result's neighbour, repeatability, streams --------------------------------------------- */

void test_guard_and_repeatability(cudaStream_t s)
{
    const int64_t n = std::min((int64_t{4} << 20) + 17, gpu_test_max_n() | 1);
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> d(-1.0, 2.0);
    Input in;
    in.dt = TK_F32;
    in.host.resize(n);
    for (double &v : in.host)
        v = d(rng);
    CUDA_OK(cudaMalloc(&in.dev, n * 4));
    upload(s, in);
    float *out = nullptr;
    CUDA_OK(cudaMalloc(&out, 4 * sizeof(float)));
    for (tk_reduce_op op : kOps)
        for (int b : {64, 256})
            for (const tk_reduce_config &c : version_configs(TK_F32, b)) {
                float first[4], again[4];
                poison(s, out, 4 * sizeof(float));
                const tk_status st = tk_reduce(op, TK_F32, n, in.dev, out + 1, &c, s);
                from_device(s, first, out, sizeof first);
                uint32_t bits[4];
                std::memcpy(bits, first, sizeof bits);
                expect(st == TK_OK, "%s %s: %s", kOpNames[op], config_text(c).c_str(),
                       tk_status_string(st));
                expect(bits[0] == 0xffffffffu && bits[2] == 0xffffffffu && bits[3] == 0xffffffffu,
                       "%s %s: wrote outside out[1]", kOpNames[op], config_text(c).c_str());
                expect(!std::isnan(first[1]), "%s %s: wrote nothing to out[1]", kOpNames[op],
                       config_text(c).c_str());
                if (c.finish == TK_FINISH_ATOMIC && op == TK_REDUCE_SUM) continue;
                bool same = true, launched = true;
                for (int r = 0; r < 4; r++) {
                    poison(s, out, 4 * sizeof(float));
                    launched &= tk_reduce(op, TK_F32, n, in.dev, out + 1, &c, s) == TK_OK;
                    from_device(s, again, out, sizeof again);
                    same &= std::memcmp(&again[1], &first[1], sizeof(float)) == 0;
                }
                expect(launched && same, "%s %s: not bitwise repeatable", kOpNames[op],
                       config_text(c).c_str());
            }
    cudaFree(out);
    cudaFree(in.dev);
}

/* Four streams reduce different integer inputs at once with multi-block single-launch finishes;
 * a workspace shared between them would mix their counters and accumulators. */
void test_streams()
{
    constexpr int kStreams = 4, kCalls = 64;
    const int64_t n = (int64_t{1} << 20) + 9;
    cudaStream_t st[kStreams];
    void *x[kStreams];
    float *out[kStreams];
    double want[kStreams][3];
    std::mt19937_64 rng(11);
    for (int k = 0; k < kStreams; k++) {
        CUDA_OK(cudaStreamCreateWithFlags(&st[k], cudaStreamNonBlocking));
        Input in;
        in.dt = TK_F32;
        in.host.resize(n);
        fill_integers(in, rng);
        CUDA_OK(cudaMalloc(&in.dev, n * 4));
        upload(st[k], in);
        x[k] = in.dev;
        for (int o = 0; o < 3; o++)
            want[k][o] = reference(kOps[o], in.host.data(), n);
        CUDA_OK(cudaMalloc(&out[k], kCalls * sizeof(float)));
        poison(st[k], out[k], kCalls * sizeof(float));
    }
    const tk_reduce_config cs[] = {
        make(9, 128, 1, 4, TK_FINISH_ATOMIC, TK_CACHE_EVICT_FIRST, 4, TK_REDUCE_LOAD_NO_ALLOCATE),
        make(9, 256, 2, 4, TK_FINISH_LAST_BLOCK, TK_CACHE_NORMAL, 2),
        make(2, 64, 1, 1, TK_FINISH_LAST_BLOCK, TK_CACHE_NORMAL),
        make(7, 64, 3, 1, TK_FINISH_ATOMIC, TK_CACHE_NORMAL),
        make(4, 128, 1, 1, TK_FINISH_TWO_PASS, TK_CACHE_NORMAL),
    };
    bool launched = true;
    for (int call = 0; call < kCalls; call++)
        for (int k = 0; k < kStreams; k++)
            launched &= tk_reduce(kOps[call % 3], TK_F32, n, x[k], out[k] + call,
                                  &cs[(call + k) % 5], st[k]) == TK_OK;
    int bad = 0;
    for (int k = 0; k < kStreams; k++) {
        float host[kCalls];
        from_device(st[k], host, out[k], sizeof host);
        for (int call = 0; call < kCalls; call++)
            bad += !same_value(host[call], want[k][call % 3]);
        cudaFree(out[k]);
        cudaFree(x[k]);
        cudaStreamDestroy(st[k]);
    }
    expect(launched && bad == 0, "4 concurrent streams: %d of %d results wrong", bad,
           kStreams * kCalls);
}

/* ---- plans on this device -------------------------------------------------------------------------- */

void test_plans_on_device(const cudaDeviceProp &prop)
{
    for (int v = 6; v <= TK_REDUCE_MAX_VERSION + 1; v++)   /* TK_REDUCE_MAX_VERSION + 1: v9, unroll 2 */
        for (int b : kBlocks)
            for (int w : {1, 2, 5}) {
                const int version = std::min(v, TK_REDUCE_MAX_VERSION);
                const int unroll = v == 9 ? 4 : v == 10 ? 2 : 1;
                const tk_reduce_config c = make(version, b, w, version >= 8 ? 4 : 1,
                                                TK_FINISH_LAST_BLOCK, TK_CACHE_NORMAL, unroll);
                const int64_t n = int64_t{1} << 28;
                tk_reduce_plan p;
                const tk_status st = tk_reduce_plan_for(TK_F32, n, nullptr, &c, &p);
                const int64_t units = version <= 7 ? n : n / 4 / unroll;
                const int64_t cap = static_cast<int64_t>(prop.multiProcessorCount) *
                                    (prop.maxThreadsPerMultiProcessor / b) * w;
                const int64_t want = std::min((units + b - 1) / b, cap);
                expect(st == TK_OK && p.grid == want && p.launches == 1 && !p.direct &&
                           p.workspace_bytes == 256 + 4 * want && p.error_depth > 0,
                       "plan v%d unroll %d block %d waves %d: grid %u, expected %lld", version,
                       unroll, b, w, p.grid, (long long)want);
            }
    /* a small input fits one block: written directly */
    const tk_reduce_config c = make(9, 256, 1, 4, TK_FINISH_TWO_PASS, TK_CACHE_NORMAL, 4);
    tk_reduce_plan p;
    expect(tk_reduce_plan_for(TK_F32, 4096, nullptr, &c, &p) == TK_OK && p.grid == 1 && p.direct &&
               p.launches == 1 && p.workspace_bytes == 0,
           "plan v9 n=4096: one block, direct");
}

/* ---- NULL config, the tuned header ---------------------------------------------------------------- */

void test_null_config(cudaStream_t s)
{
    const int64_t sizes[] = {1, 5000, kMaxN};
    std::mt19937_64 rng(3);
    Input in;
    in.host.resize(kAlloc);
    CUDA_OK(cudaMalloc(&in.dev, kAlloc * 4));
    float *out = nullptr;
    CUDA_OK(cudaMalloc(&out, 2 * sizeof(float)));
    for (tk_dtype dt : kDtypes) {
        in.dt = dt;
        fill_integers(in, rng);
        upload(s, in);
        for (int o = 0; o < 3; o++)
            for (int64_t n : sizes) {
                tk_reduce_config tuned;
                expect(tk_reduce_tuned_config(kOpNames[o], dt, n, &tuned) == TK_OK &&
                           tk_reduce_config_supported(&tuned, dt),
                       "tuned config %s %s", kOpNames[o], tk_dtype_name(dt));
                if (tk_tuned_device_count() == 0) {
                    const tk_reduce_config d = tk_reduce_default_config(dt);
                    expect(std::memcmp(&d, &tuned, sizeof d) == 0,
                           "empty header: tuned config of %s %s is not the default", kOpNames[o],
                           tk_dtype_name(dt));
                }
                poison(s, out, 2 * sizeof(float));
                const tk_status s1 = tk_reduce(kOps[o], dt, n, in.dev, out, nullptr, s);
                const tk_status s2 = tk_reduce(kOps[o], dt, n, in.dev, out + 1, &tuned, s);
                float got[2];
                from_device(s, got, out, sizeof got);
                const double want = reference(kOps[o], in.host.data(), n);
                expect(s1 == TK_OK && s2 == TK_OK && same_value(got[0], want) &&
                           same_value(got[1], want),
                       "NULL config vs tuned config %s %s n=%lld: %g %g expected %g", kOpNames[o],
                       tk_dtype_name(dt), (long long)n, (double)got[0], (double)got[1], want);
            }
    }
    cudaFree(out);
    cudaFree(in.dev);
}

/* Every entry the compiled-in header holds for this device is what a NULL config gets at that
 * size; a device the header does not know gets the default. */
void test_tuned_entries_for_this_device()
{
    for_each_tuned_entry(
        "reduce.",
        [](const tk_tuned_entry &e, int i) {
            tk_reduce_config want, got;
            const int dt = tk_dtype_parse(e.dtype);
            expect(dt >= 0 && tk_reduce_config_from_text(e.config, &want) == TK_OK,
                   "header entry %d does not parse: %s", i, e.config);
            expect(tk_reduce_tuned_config(e.op, static_cast<tk_dtype>(dt), e.size, &got) == TK_OK &&
                       std::memcmp(&want, &got, sizeof want) == 0,
                   "NULL config for %s %s n=%lld is not the header's %s", e.op, e.dtype,
                   (long long)e.size, e.config);
        },
        [] {
            tk_reduce_config got;
            tk_reduce_tuned_config("reduce.sum", TK_F32, 1 << 20, &got);
            const tk_reduce_config d = tk_reduce_default_config(TK_F32);
            expect(std::memcmp(&d, &got, sizeof d) == 0, "unknown device: not the default config");
        });
}

/* ---- bad arguments, workspaces ------------------------------------------------------------------ */

void test_bad_arguments(cudaStream_t s)
{
    void *x = nullptr;
    float *out = nullptr;
    CUDA_OK(cudaMalloc(&x, 1024));
    CUDA_OK(cudaMalloc(&out, 16));
    const tk_reduce_config ok = tk_reduce_default_config(TK_F32);
    expect(tk_reduce(static_cast<tk_reduce_op>(3), TK_F32, 5, x, out, &ok, s) == TK_ERR_INVALID_ARGUMENT, "bad op");
    expect(tk_reduce(TK_REDUCE_SUM, static_cast<tk_dtype>(3), 5, x, out, &ok, s) == TK_ERR_INVALID_ARGUMENT, "bad dtype");
    expect(tk_reduce_sum(TK_F32, -1, x, out, &ok, s) == TK_ERR_INVALID_ARGUMENT, "n < 0");
    expect(tk_reduce_sum(TK_F32, 5, nullptr, out, &ok, s) == TK_ERR_INVALID_ARGUMENT, "NULL x");
    expect(tk_reduce_sum(TK_F32, 5, x, nullptr, &ok, s) == TK_ERR_INVALID_ARGUMENT, "NULL out");
    expect(tk_reduce_sum(TK_F32, 5, static_cast<char *>(x) + 2, out, &ok, s) == TK_ERR_INVALID_ARGUMENT,
           "f32 x on a 2-byte boundary");
    expect(tk_reduce_max(TK_BF16, 5, static_cast<char *>(x) + 1, out, &ok, s) == TK_ERR_INVALID_ARGUMENT,
           "bf16 x on an odd address");
    expect(tk_reduce_min(TK_F16, 5, x, reinterpret_cast<float *>(reinterpret_cast<char *>(out) + 1), &ok, s) ==
               TK_ERR_INVALID_ARGUMENT, "misaligned out");
    const struct {
        tk_reduce_config c;
        tk_dtype dt;
        const char *what;
    } bad[] = {
        {make(10, 256, 1, 4, TK_FINISH_TWO_PASS, TK_CACHE_NORMAL, 4), TK_F32, "version 10"},
        {make(9, 96, 1, 4, TK_FINISH_TWO_PASS, TK_CACHE_NORMAL, 4), TK_F32, "block_size 96"},
        {make(5, 32, 1, 1, TK_FINISH_TWO_PASS, TK_CACHE_NORMAL), TK_F32, "block_size 32"},
        {make(9, 256, 0, 4, TK_FINISH_TWO_PASS, TK_CACHE_NORMAL, 4), TK_F32, "waves 0"},
        {make(8, 256, 1, 8, TK_FINISH_TWO_PASS, TK_CACHE_NORMAL), TK_F32, "pack 8 for f32"},
        {make(9, 256, 1, 16, TK_FINISH_TWO_PASS, TK_CACHE_NORMAL, 4), TK_F16, "pack 16 for f16"},
        {make(9, 256, 1, 4, static_cast<tk_reduce_finish>(3), TK_CACHE_NORMAL, 4), TK_F32, "finish 3"},
        {make(9, 256, 1, 4, TK_FINISH_ATOMIC, static_cast<tk_cache_hint>(5), 4), TK_F32, "cache_hint 5"},
        {make(9, 256, 1, 4, TK_FINISH_ATOMIC, TK_CACHE_NORMAL, 1), TK_F32, "version 9 with unroll 1"},
        {make(9, 256, 1, 4, TK_FINISH_ATOMIC, TK_CACHE_NORMAL, 8), TK_F32, "unroll 8"},
        {make(8, 256, 1, 4, TK_FINISH_ATOMIC, TK_CACHE_NORMAL, 1, static_cast<tk_reduce_load>(2)),
         TK_F32, "load 2"},
    };
    for (const auto &k : bad)
        expect(tk_reduce_sum(k.dt, 100, x, out, &k.c, s) == TK_ERR_UNSUPPORTED_CONFIG, "%s", k.what);
    /* n == 0 with a NULL x writes the identity */
    float id[3];
    poison(s, out, sizeof id);
    for (int o = 0; o < 3; o++)
        expect(tk_reduce(kOps[o], TK_F16, 0, nullptr, out + o, nullptr, s) == TK_OK, "n == 0, NULL x");
    from_device(s, id, out, sizeof id);
    expect(id[0] == 0.0f && id[1] == -INFINITY && id[2] == INFINITY, "identities %g %g %g",
           (double)id[0], (double)id[1], (double)id[2]);
    expect(cudaStreamSynchronize(s) == cudaSuccess && cudaGetLastError() == cudaSuccess,
           "no CUDA error left behind by rejected calls");
    cudaFree(x);
    cudaFree(out);
}

/* Releasing every workspace, then reducing again (a fresh workspace, initialised on the stream). */
void test_release_workspaces(cudaStream_t s)
{
    const int64_t n = 300000;
    std::mt19937_64 rng(9);
    Input in;
    in.dt = TK_F16;
    in.host.resize(n);
    fill_integers(in, rng);
    CUDA_OK(cudaMalloc(&in.dev, n * 2));
    upload(s, in);
    float *out = nullptr;
    CUDA_OK(cudaMalloc(&out, sizeof(float)));
    const double want = reference(TK_REDUCE_SUM, in.host.data(), n);
    for (int round = 0; round < 3; round++) {
        CUDA_OK(cudaStreamSynchronize(s));
        expect(tk_reduce_release_workspaces() == TK_OK, "release workspaces");
        for (int f = 0; f < 3; f++) {
            const tk_reduce_config c =
                make(9, 64, 1, 8, static_cast<tk_reduce_finish>(f), TK_CACHE_NORMAL, 4);
            float got = NAN;
            poison(s, out, sizeof(float));
            expect(tk_reduce_sum(TK_F16, n, in.dev, out, &c, s) == TK_OK, "sum after release");
            from_device(s, &got, out, sizeof got);
            expect(same_value(got, want), "sum after release (%s): %g expected %g", kFinishNames[f],
                   (double)got, want);
        }
    }
    cudaFree(out);
    cudaFree(in.dev);
}

/* ---- host overhead of a NULL config --------------------------------------------------------------- */

/* Host time per call of a batch of sums over one element (one block, no workspace); the batch
 * is short enough that the launch queue never fills. Calls that did not return TK_OK are added
 * to *failed. */
double time_batch(const tk_reduce_config *cfg, const void *x, float *out, cudaStream_t s,
                  int *failed)
{
    const int batch = 200;
    CUDA_OK(cudaStreamSynchronize(s));
    int bad = 0;
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; i++)
        bad += tk_reduce_sum(TK_F32, 1, x, out, cfg, s) != TK_OK;
    auto t1 = std::chrono::steady_clock::now();
    CUDA_OK(cudaStreamSynchronize(s));
    *failed += bad;
    return std::chrono::duration<double, std::nano>(t1 - t0).count() / batch;
}

void test_null_config_overhead(cudaStream_t s)
{
    void *x = nullptr;
    float *out = nullptr;
    CUDA_OK(cudaMalloc(&x, 64));
    CUDA_OK(cudaMalloc(&out, sizeof(float)));
    CUDA_OK(cudaMemsetAsync(x, 0, 64, s));
    const int rounds = 400;
    tk_reduce_config explicit_cfg;
    expect(tk_reduce_tuned_config("reduce.sum", TK_F32, 1, &explicit_cfg) == TK_OK,
           "tuned config for the overhead test");
    int failed = 0;
    for (int i = 0; i < 20; i++) {
        time_batch(nullptr, x, out, s, &failed);
        time_batch(&explicit_cfg, x, out, s, &failed);
    }
    std::vector<double> with_null, with_explicit;
    for (int r = 0; r < rounds; r++) {
        if (r & 1) {
            with_null.push_back(time_batch(nullptr, x, out, s, &failed));
            with_explicit.push_back(time_batch(&explicit_cfg, x, out, s, &failed));
        } else {
            with_explicit.push_back(time_batch(&explicit_cfg, x, out, s, &failed));
            with_null.push_back(time_batch(nullptr, x, out, s, &failed));
        }
    }
    expect(failed == 0, "overhead loop: %d calls did not return TK_OK", failed);
    std::sort(with_null.begin(), with_null.end());
    std::sort(with_explicit.begin(), with_explicit.end());
    const double mn = with_null[rounds / 2], me = with_explicit[rounds / 2];
    std::printf("host time per call, n = 1: NULL config %.1f ns, explicit config %.1f ns, "
                "difference %.1f ns (limit 100)\n", mn, me, mn - me);
    expect(mn - me <= 100.0, "NULL-config overhead %.1f ns per call exceeds 100 ns", mn - me);
    CUDA_OK(cudaStreamSynchronize(s));
    expect(cudaGetLastError() == cudaSuccess, "overhead loop left a CUDA error");
    cudaFree(x);
    cudaFree(out);
}

/* ---- n > 2^31 ------------------------------------------------------------------------------------- */

/* x[i] = (i % 17) - 7 (mean 1: the sum does not cancel), then a maximum 100 and a minimum -100
 * planted beyond index 2^31. */
__global__ void fill_pattern_f16(__half *x, int64_t n)
{
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
        x[i] = __float2half(static_cast<float>(static_cast<int>(i % 17) - 7));
}

void test_beyond_int32(cudaStream_t s)
{
    const int64_t n = (int64_t{1} << 31) + 37;
    __half *x = nullptr;
    if (cudaMalloc(&x, (n + 8) * sizeof(__half)) != cudaSuccess) {
        cudaGetLastError();
        std::printf("n > 2^31: skipped (not enough GPU memory)\n");
        return;
    }
    float *out = nullptr;
    CUDA_OK(cudaMalloc(&out, sizeof(float)));
    fill_pattern_f16<<<1024, 256, 0, s>>>(x, n + 8);
    CUDA_OK(cudaGetLastError());
    const int64_t pmax = n - 1, pmin = (int64_t{1} << 31) + 5;
    const __half hmax = __float2half(100.0f), hmin = __float2half(-100.0f);
    to_device(s, x + pmax, &hmax, sizeof hmax);
    to_device(s, x + pmin, &hmin, sizeof hmin);
    /* the exact sum and absolute sum of the pattern with the two planted values */
    double sum = 0, abs_sum = 0;
    const int64_t q = n / 17, r = n % 17;
    for (int j = 0; j < 17; j++) {
        const int64_t count = q + (j < r ? 1 : 0);
        sum += static_cast<double>(count) * (j - 7);
        abs_sum += static_cast<double>(count) * std::abs(j - 7);
    }
    for (int64_t i : {pmax, pmin}) {
        const double old = static_cast<double>(i % 17) - 7, now = i == pmax ? 100.0 : -100.0;
        sum += now - old;
        abs_sum += std::fabs(now) - std::fabs(old);
    }
    const tk_reduce_config cases[] = {
        make(0, 1024, 1, 1, TK_FINISH_TWO_PASS, TK_CACHE_NORMAL),
        make(3, 256, 1, 1, TK_FINISH_LAST_BLOCK, TK_CACHE_NORMAL),
        make(6, 512, 1, 1, TK_FINISH_TWO_PASS, TK_CACHE_NORMAL),
        make(7, 256, 2, 1, TK_FINISH_ATOMIC, TK_CACHE_EVICT_FIRST),
        make(8, 256, 1, 8, TK_FINISH_LAST_BLOCK, TK_CACHE_NORMAL, 1, TK_REDUCE_LOAD_NO_ALLOCATE),
        make(9, 256, 1, 8, TK_FINISH_ATOMIC, TK_CACHE_EVICT_FIRST, 4),
        make(9, 512, 1, 8, TK_FINISH_LAST_BLOCK, TK_CACHE_EVICT_FIRST, 2, TK_REDUCE_LOAD_NO_ALLOCATE),
    };
    for (const tk_reduce_config &c : cases) {
        float got[3];
        tk_status st[3];
        for (int o = 0; o < 3; o++) {
            poison(s, out, sizeof(float));
            st[o] = tk_reduce(kOps[o], TK_F16, n, x, out, &c, s);
            from_device(s, &got[o], out, sizeof(float));
        }
        tk_reduce_plan plan;
        expect(tk_reduce_plan_for(TK_F16, n, x, &c, &plan) == TK_OK, "plan n = 2^31 + 37 %s",
               config_text(c).c_str());
        const double ku = plan.error_depth * std::ldexp(1.0, -24);
        const double atol = ku / (1 - ku) * abs_sum;
        expect(st[0] == TK_OK && std::fabs(got[0] - sum) <= atol,
               "n = 2^31 + 37 sum %s: got %.9g expected %.9g (bound %.3g)", config_text(c).c_str(),
               (double)got[0], sum, atol);
        expect(st[1] == TK_OK && st[2] == TK_OK && got[1] == 100.0f && got[2] == -100.0f,
               "n = 2^31 + 37 max/min %s: %g %g", config_text(c).c_str(), (double)got[1],
               (double)got[2]);
    }
    std::printf("n > 2^31: %d configs checked\n", static_cast<int>(sizeof cases / sizeof cases[0]));
    cudaFree(out);
    cudaFree(x);
}

/* ---- without a device ------------------------------------------------------------------------------ */

/* What needs no GPU: every config this test runs is one the library supports, and the default
 * config is too. */
void test_config_lists()
{
    for (tk_dtype dt : kDtypes) {
        int unsupported = 0;
        const std::vector<tk_reduce_config> all = all_configs(dt);
        for (const tk_reduce_config &c : all)
            unsupported += !tk_reduce_config_supported(&c, dt);
        expect(unsupported == 0 && all.size() == (dt == TK_F32 ? 1320u : 1680u),
               "config list %s: %zu configs, %d unsupported", tk_dtype_name(dt), all.size(), unsupported);
        const tk_reduce_config d = tk_reduce_default_config(dt);
        expect(tk_reduce_config_supported(&d, dt), "default config %s", tk_dtype_name(dt));
    }
}

/* gpu_ref_sums against the CPU in double over the same generated inputs (the harness's range
 * [-1, 2)): max and min exactly; sum and sum of magnitudes within 1e-11 of the sum of
 * magnitudes (the two sum in different orders, each with a relative error near n 2^-53); empty
 * input gives the identities. */
void test_gpu_setup()
{
    const int64_t sizes[] = { 1, 1000, (1 << 20) + 3 };
    const tk_dtype dtypes[] = { TK_F32, TK_F16, TK_BF16 };
    for (tk_dtype dt : dtypes)
        for (int64_t n : sizes) {
            void *x = check_gpu_fill_matches_twin(dt, n, 0xabcdull + (uint64_t)n, 0, -1.0, 2.0);
            std::vector<unsigned char> bits((size_t)n * tk_dtype_size(dt));
            CUDA_OK(cudaMemcpy(bits.data(), x, bits.size(), cudaMemcpyDeviceToHost));
            std::vector<double> v((size_t)n);
            tk_host_to_double(dt, bits.data(), v.data(), n);
            double sum = 0, sum_abs = 0, mx = -INFINITY, mn = INFINITY;
            for (double e : v) {
                sum += e;
                sum_abs += std::fabs(e);
                mx = std::max(mx, e);
                mn = std::min(mn, e);
            }
            gpu_sums g;
            char err[512] = "";
            expect(gpu_ref_sums(dt, n, x, &g, err, sizeof err) == 0, "gpu_ref_sums: %s", err);
            const double tol = 1e-11 * sum_abs;
            expect(g.max == mx && g.min == mn, "gpu_ref_sums dtype %d n %lld: max %.17g min %.17g, CPU %.17g %.17g",
                   (int)dt, (long long)n, g.max, g.min, mx, mn);
            expect(std::fabs(g.sum - sum) <= tol && std::fabs(g.sum_abs - sum_abs) <= tol,
                   "gpu_ref_sums dtype %d n %lld: sum %.17g sum_abs %.17g, CPU %.17g %.17g",
                   (int)dt, (long long)n, g.sum, g.sum_abs, sum, sum_abs);
            cudaFree(x);
        }
    gpu_sums e;
    char err[512] = "";
    expect(gpu_ref_sums(TK_F32, 0, nullptr, &e, err, sizeof err) == 0 && e.sum == 0 &&
               e.sum_abs == 0 && e.max == -INFINITY && e.min == INFINITY,
           "gpu_ref_sums of nothing: the identities");
}

} // namespace

int main()
{
    test_config_lists();
    cudaDeviceProp prop;
    if (!gpu_check_start("reduce_test", &prop)) return gpu_check_done();
    cudaStream_t s;
    CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    test_bad_arguments(s);
    test_plans_on_device(prop);
    test_exact_all_configs(s);
    test_special_values(s);
    test_random_within_bound(s);
    test_guard_and_repeatability(s);
    test_streams();
    test_null_config(s);
    test_tuned_entries_for_this_device();
    test_release_workspaces(s);
    GPU_TEST_FULL_ONLY(test_null_config_overhead(s));
    GPU_TEST_FULL_ONLY(test_beyond_int32(s));
    test_gpu_setup();

    CUDA_OK(cudaStreamSynchronize(s));
    CUDA_OK(cudaGetLastError());
    /* the library keeps its workspaces until told: a program that ends without this leaves
     * them to the driver (compute-sanitizer's memcheck --leak-check full reports them) */
    expect(tk_reduce_release_workspaces() == TK_OK, "release the workspaces at the end");
    cudaStreamDestroy(s);
    return gpu_check_done();
}
