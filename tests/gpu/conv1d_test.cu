/* conv1d_test.cu: GPU test of the conv1d family (kernels/conv1d.cu).
 *
 * Every config of {direct} x {32, 96, 256, 1024 threads} and {const_smem, smem} x outputs per
 * thread {1, 2, 4, 8, 16} x {32, 96, 256, 1024 threads} (block * outputs <= 4096) on 18 shapes:
 * tiny ones (1 x 1, 1 x 6, 6 x 1, 7 x 3, 3 x 7, 2 x 2), short and long filters, odd lengths,
 * the filter as the first or the second argument, several filter chunks per block, a filter of
 * exactly TK_CONV1D_CONST_FILTER_MAX taps and one tap more (const_smem's fallback); the small
 * shapes also with every pointer one element off and with only the output three elements off
 * (the scalar-store fallback). Inputs uniform in [-1, 1) rounded to f32, the output poisoned
 * first (0xff bytes: NaN) with 16 poisoned guard elements on each side that must stay poisoned.
 * Each output must be within the rounding bound of its own terms, u * min(L_n + 1, 4 sqrt(L_n))
 * * sum |a b| + 2u |ref| (L_n terms; deterministic for short sums, Higham & Mary's
 * probabilistic bound with lambda = 4 beyond), against a double reference computed here, and
 * equal to the direct kernel's output bit for bit (every variant accumulates the same terms in
 * the same order with fmaf). Then: planted errors rejected by that check (a wrong element at
 * twice its own bound, 1e-3 off where an output sums two products), NULL-config calls
 * against tk_conv1d_tuned_config and the header's entries for this device, bad arguments,
 * const_smem from two streams and from two host threads at once (each output checked bit for
 * bit against smem: the concurrency rule of tunekit_conv1d.h), const_smem captured into a CUDA
 * graph (falls back to smem), outputs beyond 2^31 elements (64-bit indices, exact small-integer
 * data, every CUDA step checked where it happens), and, for information, the time of direct
 * against tiled configs on two problems. The work runs on non-blocking streams, which the legacy
 * stream does not order: a result is read only after the stream that computed it (or the device)
 * is synchronised, and uploads and memsets made on the legacy stream are waited for before work
 * on those streams uses them. Prints "N passed, N failed" last; exits non-zero on failure; skips
 * without a GPU. */
#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>
#include <cuda_runtime.h>
#include "gpu_check.h"
#include "tuned_lookup.h"
#include "tunekit.h"
#include "tuned_configs.h"

namespace {

const char *const kImplNames[] = {"direct", "const_smem", "smem"};
constexpr int64_t kGuard = 16;             /* poisoned elements checked around the output */
constexpr int64_t kMaxLen = 1 << 17;       /* longest input of the shape table */
constexpr int64_t kAlloc = 2 * kMaxLen + 4 * kGuard;

std::string config_name(const tk_conv1d_config &c)
{
    char buf[96];
    std::snprintf(buf, sizeof buf, "impl=%s block_size=%d outputs_per_thread=%d",
                  kImplNames[c.impl], c.block_size, c.outputs_per_thread);
    return buf;
}

std::vector<tk_conv1d_config> all_configs()
{
    std::vector<tk_conv1d_config> v;
    for (tk_conv1d_impl impl : {TK_CONV1D_DIRECT, TK_CONV1D_CONST_SMEM, TK_CONV1D_SMEM})
        for (int p : {1, 2, 4, 8, 16})
            for (int block : {32, 96, 256, 1024}) {
                if ((impl == TK_CONV1D_DIRECT && p != 1) || block * p > TK_CONV1D_MAX_TILE)
                    continue;
                v.push_back(tk_conv1d_config{impl, block, p});
            }
    return v;
}

/* Runs fn(begin, end) over [0, n) on all hardware threads. */
template <typename Fn>
void parallel_for(int64_t n, Fn fn)
{
    const int threads = std::max(1u, std::min(64u, std::thread::hardware_concurrency()));
    std::vector<std::thread> pool;
    const int64_t step = (n + threads - 1) / threads;
    for (int t = 0; t < threads; t++) {
        const int64_t b = t * step, e = std::min(n, b + step);
        if (b < e) pool.emplace_back(fn, b, e);
    }
    for (auto &th : pool)
        th.join();
}

/* The double reference of one shape with, per output, the bound its f32 sum must meet. */
struct Reference {
    std::vector<double> value, bound;
};

Reference reference(const float *a, int64_t la, const float *b, int64_t lb)
{
    const int64_t lo = la + lb - 1;
    Reference r;
    r.value.resize(lo);
    r.bound.resize(lo);
    const double u = std::ldexp(1.0, -24);
    parallel_for(lo, [&](int64_t begin, int64_t end) {
        for (int64_t n = begin; n < end; n++) {
            const int64_t m_lo = std::max<int64_t>(0, n - la + 1), m_hi = std::min(lb - 1, n);
            double s = 0, abs_sum = 0;
            for (int64_t m = m_lo; m <= m_hi; m++) {
                const double p = static_cast<double>(a[n - m]) * b[m];
                s += p;
                abs_sum += std::fabs(p);
            }
            const double l = static_cast<double>(m_hi - m_lo + 1);
            r.value[n] = s;
            r.bound[n] = u * std::min(l + 1, 4 * std::sqrt(l)) * abs_sum + 2 * u * std::fabs(s);
        }
    });
    return r;
}

/* Device buffers and host mirrors: inputs a and b (random, fixed), output with guards. */
struct Buffers {
    float *a = nullptr, *b = nullptr, *out = nullptr;
    std::vector<float> host_a, host_b;
    float *host_out = nullptr;   /* pinned, kAlloc floats */
};

bool is_poison(float v)
{
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    return bits == 0xffffffffu;
}

/* Checks out[-kGuard .. len_out + kGuard) (host copy starting kGuard before the output)
 * against the reference and, when direct is not NULL, bit for bit against it. Returns an empty
 * string or what went wrong. */
std::string check_output(const float *with_guards, int64_t len_out, const Reference &ref,
                         const float *direct)
{
    char msg[256];
    for (int64_t i = 0; i < kGuard; i++)
        if (!is_poison(with_guards[i]) || !is_poison(with_guards[kGuard + len_out + i])) {
            std::snprintf(msg, sizeof msg, "wrote a guard element (%s)",
                          !is_poison(with_guards[i]) ? "before the output" : "after the output");
            return msg;
        }
    const float *out = with_guards + kGuard;
    int64_t bad = 0, first = -1, differ = 0, first_differ = -1;
    for (int64_t n = 0; n < len_out; n++) {
        if (!(std::fabs(out[n] - ref.value[n]) <= ref.bound[n])) {
            if (first < 0) first = n;
            bad++;
        }
        if (direct && !(out[n] == direct[n])) {
            if (first_differ < 0) first_differ = n;
            differ++;
        }
    }
    if (bad) {
        std::snprintf(msg, sizeof msg,
                      "%lld of %lld outside the bound, first [%lld] = %.9g, expected %.9g "
                      "(bound %.3g)",
                      (long long)bad, (long long)len_out, (long long)first, out[first],
                      ref.value[first], ref.bound[first]);
        return msg;
    }
    if (differ) {
        std::snprintf(msg, sizeof msg,
                      "%lld of %lld differ from direct's bits, first [%lld] = %.9g, direct %.9g",
                      (long long)differ, (long long)len_out, (long long)first_differ,
                      out[first_differ], direct[first_differ]);
        return msg;
    }
    return "";
}

struct Shape {
    int64_t la, lb;
    bool offsets;   /* also run with shifted pointers */
};

struct Offsets {
    int64_t a, b, out;
    const char *name;
};

/* Runs c on (a + off.a, la) * (b + off.b, lb) into out + off.out (poisoned with guards first)
 * and copies the output with its guards into b.host_out. Everything runs on `stream` and is
 * waited for before returning, also when the call fails (nothing of it is left in flight). */
tk_status run_once(Buffers &buf, const Shape &s, const Offsets &off, const tk_conv1d_config *c,
                   cudaStream_t stream)
{
    const int64_t lo = s.la + s.lb - 1;
    float *out = buf.out + kGuard + off.out;
    CUDA_OK(cudaMemsetAsync(buf.out, 0xff, (kGuard + off.out + lo + kGuard) * sizeof(float),
                            stream));
    const tk_status st = tk_conv1d_full(buf.a + off.a, s.la, buf.b + off.b, s.lb, out, c, stream);
    if (st != TK_OK) {
        CUDA_OK(cudaStreamSynchronize(stream));
        return st;
    }
    CUDA_OK(cudaMemcpyAsync(buf.host_out, out - kGuard, (lo + 2 * kGuard) * sizeof(float),
                            cudaMemcpyDeviceToHost, stream));
    CUDA_OK(cudaStreamSynchronize(stream));
    return TK_OK;
}

void test_all_configs(Buffers &buf, cudaStream_t stream)
{
    const Shape shapes[] = {
        {1, 1, true},         {1, 6, true},         {6, 1, true},         {7, 3, true},
        {3, 7, true},         {2, 2, true},         {31, 33, true},       {1000, 3, true},
        {1000, 33, true},     {4097, 31, true},     {513, 4096, true},    {65537, 257, false},
        {20000, 5000, false}, {100, 16384, false},  {16384, 20000, false}, {20000, 16385, false},
        {kMaxLen, 5, false},  {70001, 1025, false},
    };
    const Offsets all_offsets[] = {
        {0, 0, 0, "aligned"}, {1, 1, 1, "every pointer +1"}, {0, 0, 3, "output +3"}};
    const std::vector<tk_conv1d_config> configs = all_configs();
    const tk_conv1d_config direct = {TK_CONV1D_DIRECT, 256, 1};
    std::vector<float> direct_out;
    for (const Shape &s : shapes) {
        const int64_t lo = s.la + s.lb - 1;
        int ok = 0, run = 0;
        for (const Offsets &off : all_offsets) {
            if (!s.offsets && off.a + off.b + off.out != 0) continue;
            const Reference ref = reference(buf.host_a.data() + off.a, s.la,
                                            buf.host_b.data() + off.b, s.lb);
            tk_status st = run_once(buf, s, off, &direct, stream);
            std::string err = st == TK_OK ? check_output(buf.host_out, lo, ref, nullptr)
                                          : std::string("status ") + tk_status_string(st);
            expect(err.empty(), "%lld x %lld %s, reference direct: %s", (long long)s.la,
                   (long long)s.lb, off.name, err.c_str());
            direct_out.assign(buf.host_out + kGuard, buf.host_out + kGuard + lo);
            for (const tk_conv1d_config &c : configs) {
                if (s.la * s.lb > gpu_test_max_n() * 32 || !gpu_test_sample()) continue;
                expect(tk_conv1d_config_supported(&c), "%s is supported",
                       config_name(c).c_str());
                st = run_once(buf, s, off, &c, stream);
                err = st == TK_OK ? check_output(buf.host_out, lo, ref, direct_out.data())
                                  : std::string("status ") + tk_status_string(st);
                run++;
                ok += err.empty();
                expect(err.empty(), "%lld x %lld %s, %s: %s", (long long)s.la, (long long)s.lb,
                       off.name, config_name(c).c_str(), err.c_str());
            }
        }
        std::printf("%6lld x %-6lld %4d / %4d configs ok\n", (long long)s.la, (long long)s.lb, ok,
                    run);
    }
}

/* The checks above reject wrong outputs: a dropped tap, a window off by one, one wrong element,
 * an unwritten element. A wrong element is planted relative to that element's own bound: an
 * output of L products may legitimately be off by u * 4 sqrt(L) * sum |a b| (about 2e-3 at
 * lo / 3, which sums 1025 products: the harness's tolerance at L = 1024 is 2.4e-3), so a fixed
 * 1e-3 there proves nothing; 1e-3 is planted where the output sums two products (bound 1e-7). */
void test_planted_errors(Buffers &buf, cudaStream_t stream)
{
    const Shape s = {4097, 1025, false};
    const int64_t lo = s.la + s.lb - 1;
    const Offsets off = {0, 0, 0, "aligned"};
    const Reference ref = reference(buf.host_a.data(), s.la, buf.host_b.data(), s.lb);
    const tk_conv1d_config c = {TK_CONV1D_SMEM, 128, 8};
    expect(run_once(buf, s, off, &c, stream) == TK_OK, "planted: the clean run");
    const std::vector<float> clean(buf.host_out, buf.host_out + lo + 2 * kGuard);
    expect(check_output(clean.data(), lo, ref, nullptr).empty(), "planted: the clean run passes");

    std::vector<float> bad = clean;
    const int64_t mid = lo / 3;   /* sums s.lb products */
    bad[kGuard + mid] = static_cast<float>(ref.value[mid] + 2 * ref.bound[mid]);
    expect(!check_output(bad.data(), lo, ref, nullptr).empty(),
           "planted: output %lld (%lld products) set to its reference plus twice its bound %.3g",
           (long long)mid, (long long)s.lb, ref.bound[mid]);
    bad = clean;
    bad[kGuard + 1] += 1e-3f;   /* out[1] = a[1] b[0] + a[0] b[1] */
    expect(!check_output(bad.data(), lo, ref, nullptr).empty(),
           "planted: output 1 (2 products, bound %.3g) off by 1e-3", ref.bound[1]);
    bad = clean;
    std::memset(&bad[kGuard + lo - 1], 0xff, 4);
    expect(!check_output(bad.data(), lo, ref, nullptr).empty(), "planted: last element unwritten");
    bad = clean;
    bad[kGuard + lo] = 0.0f;
    expect(!check_output(bad.data(), lo, ref, nullptr).empty(), "planted: a guard written");
    /* the sums without the last tap, and with the window off by one */
    std::vector<float> dropped(lo + 2 * kGuard), shifted(lo + 2 * kGuard);
    std::memcpy(dropped.data(), clean.data(), kGuard * 4);
    std::memcpy(dropped.data() + kGuard + lo, clean.data() + kGuard + lo, kGuard * 4);
    shifted = dropped;
    const float *a = buf.host_a.data(), *b = buf.host_b.data();
    for (int64_t n = 0; n < lo; n++) {
        float d = 0, h = 0;
        for (int64_t m = 0; m < s.lb; m++) {
            if (n - m >= 0 && n - m < s.la && m != s.lb - 1) d = std::fmaf(a[n - m], b[m], d);
            if (n - m + 1 >= 0 && n - m + 1 < s.la) h = std::fmaf(a[n - m + 1], b[m], h);
        }
        dropped[kGuard + n] = d;
        shifted[kGuard + n] = h;
    }
    expect(!check_output(dropped.data(), lo, ref, nullptr).empty(), "planted: last tap dropped");
    expect(!check_output(shifted.data(), lo, ref, nullptr).empty(), "planted: window shifted");
    expect(!check_output(clean.data(), lo, ref, dropped.data() + kGuard).empty(),
           "planted: bits differing from direct");
}

/* A NULL config runs what tk_conv1d_tuned_config reports (same bits out); with a header that
 * does not know this device that is the default. */
void test_null_config(Buffers &buf, cudaStream_t stream)
{
    const Shape shapes[] = {{1000, 3, false}, {513, 4096, false}, {65537, 257, false}};
    const Offsets off = {0, 0, 0, "aligned"};
    for (const Shape &s : shapes) {
        const int64_t lo = s.la + s.lb - 1;
        tk_conv1d_config tuned;
        expect(tk_conv1d_tuned_config(s.la, s.lb, &tuned) == TK_OK && tk_conv1d_config_supported(&tuned),
               "tuned_config %lld x %lld", (long long)s.la, (long long)s.lb);
        const tk_status s1 = run_once(buf, s, off, nullptr, stream);
        const std::vector<float> with_null(buf.host_out, buf.host_out + lo + 2 * kGuard);
        const tk_status s2 = run_once(buf, s, off, &tuned, stream);
        expect(s1 == TK_OK && s2 == TK_OK &&
                   std::memcmp(with_null.data(), buf.host_out, (lo + 2 * kGuard) * 4) == 0,
               "NULL config vs tuned config %s: %lld x %lld", config_name(tuned).c_str(),
               (long long)s.la, (long long)s.lb);
        const Reference ref = reference(buf.host_a.data(), s.la, buf.host_b.data(), s.lb);
        expect(check_output(with_null.data(), lo, ref, nullptr).empty(),
               "NULL config output %lld x %lld", (long long)s.la, (long long)s.lb);
    }
}

/* For every conv1d entry the header holds for this device (matched as the library matches it),
 * the NULL config at that entry's size is the entry's config; else the default. */
void test_tuned_entries_for_this_device()
{
    const tk_conv1d_config d = tk_conv1d_default_config();
    for_each_tuned_entry(
        "conv1d.full",
        [](const tk_tuned_entry &e, int i) {
            /* the key is bucket * 2^36 + signal: min(2^bucket, signal) taps is in the bucket */
            const int64_t signal = e.size & ((int64_t{1} << 36) - 1);
            const int64_t filter = std::min(int64_t{1} << (e.size >> 36), signal);
            tk_conv1d_config want, got;
            expect(tk_conv1d_size_key(signal, filter) == e.size,
                   "header entry %d: key %lld does not decode", i, (long long)e.size);
            expect(tk_conv1d_config_from_text(e.config, &want) == TK_OK,
                   "header entry %d does not parse: %s", i, e.config);
            expect(tk_conv1d_tuned_config(signal, filter, &got) == TK_OK &&
                       want.impl == got.impl && want.block_size == got.block_size &&
                       want.outputs_per_thread == got.outputs_per_thread,
                   "NULL config for %lld x %lld is not the header's %s", (long long)signal,
                   (long long)filter, e.config);
        },
        [&d] {
            tk_conv1d_config got;
            tk_conv1d_tuned_config(1 << 20, 4096, &got);
            expect(got.impl == d.impl && got.block_size == d.block_size &&
                       got.outputs_per_thread == d.outputs_per_thread,
                   "unknown device: not the default config");
        });
}

void test_bad_arguments(Buffers &buf, cudaStream_t stream)
{
    const tk_conv1d_config ok = tk_conv1d_default_config();
    float *a = buf.a, *b = buf.b, *y = buf.out;
    expect(tk_conv1d_full(a, -1, b, 3, y, &ok, stream) == TK_ERR_INVALID_ARGUMENT, "len_a < 0");
    expect(tk_conv1d_full(a, 3, b, -1, y, &ok, stream) == TK_ERR_INVALID_ARGUMENT, "len_b < 0");
    expect(tk_conv1d_full(nullptr, 3, b, 3, y, &ok, stream) == TK_ERR_INVALID_ARGUMENT, "NULL a");
    expect(tk_conv1d_full(a, 3, nullptr, 3, y, &ok, stream) == TK_ERR_INVALID_ARGUMENT, "NULL b");
    expect(tk_conv1d_full(a, 3, b, 3, nullptr, nullptr, stream) == TK_ERR_INVALID_ARGUMENT,
           "NULL out");
    expect(tk_conv1d_full(nullptr, 0, nullptr, 5, nullptr, nullptr, stream) == TK_OK, "len_a 0");
    expect(tk_conv1d_full(a, 5, b, 0, y, &ok, stream) == TK_OK, "len_b 0");
    const tk_conv1d_config bad[] = {
        {TK_CONV1D_DIRECT, 256, 2},       {TK_CONV1D_SMEM, 512, 16},  {TK_CONV1D_CONST_SMEM, 1024, 8},
        {TK_CONV1D_SMEM, 33, 1},          {TK_CONV1D_SMEM, 0, 1},     {TK_CONV1D_SMEM, 2048, 1},
        {static_cast<tk_conv1d_impl>(3), 256, 1}, {TK_CONV1D_SMEM, 256, 3},
        {TK_CONV1D_CONST_SMEM, 256, 32},
    };
    for (const tk_conv1d_config &c : bad) {
        expect(tk_conv1d_full(a, 100, b, 7, y, &c, stream) == TK_ERR_UNSUPPORTED_CONFIG,
               "unsupported config impl=%d block_size=%d outputs_per_thread=%d", c.impl,
               c.block_size, c.outputs_per_thread);
        expect(tk_conv1d_full(a, 0, b, 0, y, &c, stream) == TK_ERR_UNSUPPORTED_CONFIG,
               "unsupported config with nothing to do, impl=%d block_size=%d", c.impl,
               c.block_size);
    }
    tk_conv1d_config t;
    expect(tk_conv1d_tuned_config(5, 5, nullptr) == TK_ERR_INVALID_ARGUMENT, "tuned NULL out");
    expect(tk_conv1d_tuned_config(-5, 5, &t) == TK_ERR_INVALID_ARGUMENT, "tuned len < 0");
    expect(cudaStreamSynchronize(stream) == cudaSuccess && cudaGetLastError() == cudaSuccess,
           "no CUDA error left behind by rejected calls");
}

/* Many const_smem calls with different filters in flight on two streams (one host thread
 * alternating, then two host threads with a stream each): every output must equal, bit for bit,
 * the smem kernel's on the same inputs computed one at a time afterwards. A filter copied over
 * another call's filter while that call's kernel still runs would show as a difference. */
void test_const_concurrency()
{
    const int64_t la = 1 << 18, lb = 2048, lo = la + lb - 1;
    const int calls = 24;
    std::mt19937_64 rng(99);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> host_a(la), host_f(static_cast<size_t>(calls) * lb);
    for (auto &v : host_a)
        v = dist(rng);
    for (auto &v : host_f)
        v = dist(rng);
    float *a = nullptr, *f = nullptr, *outs = nullptr, *check = nullptr;
    CUDA_OK(cudaMalloc(&a, la * 4));
    CUDA_OK(cudaMalloc(&f, host_f.size() * 4));
    CUDA_OK(cudaMalloc(&outs, static_cast<size_t>(calls) * lo * 4));
    CUDA_OK(cudaMalloc(&check, lo * 4));
    CUDA_OK(cudaMemcpy(a, host_a.data(), la * 4, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(f, host_f.data(), host_f.size() * 4, cudaMemcpyHostToDevice));
    /* a pageable upload may return before its DMA lands, and legacy-stream work does not order
     * non-blocking streams: wait for it before the calls below read a and f */
    CUDA_OK(cudaDeviceSynchronize());
    cudaStream_t s[2];
    for (auto &st : s)
        CUDA_OK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    const tk_conv1d_config cst = {TK_CONV1D_CONST_SMEM, 128, 4};
    const tk_conv1d_config smem = {TK_CONV1D_SMEM, 128, 4};
    std::vector<float> got(lo), want(lo);

    auto verify = [&](const char *how) {
        int bad = 0;
        for (int i = 0; i < calls; i++) {
            CUDA_OK(cudaMemcpy(got.data(), outs + static_cast<size_t>(i) * lo, lo * 4,
                               cudaMemcpyDeviceToHost));
            expect(tk_conv1d_full(a, la, f + static_cast<size_t>(i) * lb, lb, check, &smem,
                                  s[0]) == TK_OK,
                   "concurrency: smem check call");
            CUDA_OK(cudaStreamSynchronize(s[0]));
            CUDA_OK(cudaMemcpy(want.data(), check, lo * 4, cudaMemcpyDeviceToHost));
            bad += std::memcmp(got.data(), want.data(), lo * 4) != 0;
        }
        expect(bad == 0, "const_smem %s: %d of %d outputs differ from smem", how, bad, calls);
    };

    CUDA_OK(memset_sync(outs, 0xff, static_cast<size_t>(calls) * lo * 4));
    CUDA_OK(cudaDeviceSynchronize());   /* the poison lands before the calls on s[] write */
    int launched = 0;
    for (int i = 0; i < calls; i++)
        launched += tk_conv1d_full(a, la, f + static_cast<size_t>(i) * lb, lb,
                                   outs + static_cast<size_t>(i) * lo, &cst, s[i & 1]) == TK_OK;
    CUDA_OK(cudaDeviceSynchronize());
    expect(launched == calls, "const_smem alternating streams: %d of %d calls ok", launched, calls);
    verify("on two alternating streams");

    CUDA_OK(memset_sync(outs, 0xff, static_cast<size_t>(calls) * lo * 4));
    CUDA_OK(cudaDeviceSynchronize());
    int launched_by[2] = {0, 0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; t++)
        threads.emplace_back([&, t] {
            for (int i = t; i < calls; i += 2)
                launched_by[t] += tk_conv1d_full(a, la, f + static_cast<size_t>(i) * lb, lb,
                                                 outs + static_cast<size_t>(i) * lo, &cst,
                                                 s[t]) == TK_OK;
        });
    for (auto &th : threads)
        th.join();
    CUDA_OK(cudaDeviceSynchronize());
    expect(launched_by[0] + launched_by[1] == calls, "const_smem two threads: %d of %d calls ok",
           launched_by[0] + launched_by[1], calls);
    verify("from two host threads");

    /* captured into a graph: falls back to smem, same bits */
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    CUDA_OK(memset_sync(outs, 0xff, lo * 4));
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaStreamBeginCapture(s[1], cudaStreamCaptureModeThreadLocal));
    const tk_status st = tk_conv1d_full(a, la, f, lb, outs, &cst, s[1]);
    CUDA_OK(cudaStreamEndCapture(s[1], &graph));
    expect(st == TK_OK, "const_smem while capturing: %s", tk_status_string(st));
    CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_OK(cudaGraphLaunch(exec, s[1]));
    CUDA_OK(cudaStreamSynchronize(s[1]));
    CUDA_OK(cudaMemcpy(got.data(), outs, lo * 4, cudaMemcpyDeviceToHost));
    expect(tk_conv1d_full(a, la, f, lb, check, &smem, s[0]) == TK_OK, "graph: smem check call");
    CUDA_OK(cudaStreamSynchronize(s[0]));
    CUDA_OK(cudaMemcpy(want.data(), check, lo * 4, cudaMemcpyDeviceToHost));
    expect(std::memcmp(got.data(), want.data(), lo * 4) == 0,
           "const_smem captured in a graph differs from smem");
    /* and const_smem outside capture still works after it (each stream waited for before its
     * result is read, whatever the call returned) */
    expect(tk_conv1d_full(a, la, f + lb, lb, outs, &cst, s[1]) == TK_OK,
           "const_smem after a captured call");
    CUDA_OK(cudaStreamSynchronize(s[1]));
    CUDA_OK(cudaMemcpy(got.data(), outs, lo * 4, cudaMemcpyDeviceToHost));
    expect(tk_conv1d_full(a, la, f + lb, lb, check, &smem, s[0]) == TK_OK,
           "smem check after the graph");
    CUDA_OK(cudaStreamSynchronize(s[0]));
    CUDA_OK(cudaMemcpy(want.data(), check, lo * 4, cudaMemcpyDeviceToHost));
    expect(std::memcmp(got.data(), want.data(), lo * 4) == 0,
           "const_smem after a captured call differs from smem");
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    for (auto &st2 : s)
        cudaStreamDestroy(st2);
    cudaFree(a);
    cudaFree(f);
    cudaFree(outs);
    cudaFree(check);
}

/* Element i of the ramp fill_ramp writes: small integers times a quarter, in [-250, 250]. */
__host__ __device__ inline float ramp_value(int64_t i)
{
    return static_cast<float>(static_cast<int>(i % 2001) - 1000) * 0.25f;
}

__global__ void fill_ramp(float *x, int64_t n)
{
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += stride)
        x[i] = ramp_value(i);
}

/* Counts one CUDA step of test_beyond_int32: a failure is reported with its context and the
 * runtime's last error cleared (a sticky error stays, and the caller stops). True when ok. */
bool step_ok(cudaError_t e, const char *context, const char *step)
{
    expect(e == cudaSuccess, "beyond 2^31, %s: %s: %s", context, step, cudaGetErrorString(e));
    if (e != cudaSuccess) cudaGetLastError();
    return e == cudaSuccess;
}

const char *memory_type_name(cudaMemoryType t)
{
    switch (t) {
    case cudaMemoryTypeHost: return "host";
    case cudaMemoryTypeDevice: return "device";
    case cudaMemoryTypeManaged: return "managed";
    default: return "unregistered";
    }
}

/* host[0 .. n) = dev[s0 .. s0 + n), copied on `stream` after everything queued there and waited
 * for (the reads never rely on the legacy stream's ordering). A failed copy is reported with what
 * the runtime says of the range's first and last element. True when the copy worked. */
bool read_window(float *host, const float *dev, int64_t s0, int64_t n, cudaStream_t stream,
                 const char *context)
{
    cudaError_t e = cudaMemcpyAsync(host, dev + s0, static_cast<size_t>(n) * sizeof(float),
                                    cudaMemcpyDeviceToHost, stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    if (e == cudaSuccess) return true;
    cudaGetLastError();
    cudaPointerAttributes first = {}, last = {};
    const bool known = cudaPointerGetAttributes(&first, dev + s0) == cudaSuccess &&
                       cudaPointerGetAttributes(&last, dev + s0 + n - 1) == cudaSuccess;
    cudaGetLastError();
    expect(false, "beyond 2^31, %s: reading elements [%lld, %lld) of %p: %s (first element %s, "
                  "last element %s)",
           context, (long long)s0, (long long)(s0 + n), static_cast<const void *>(dev),
           cudaGetErrorString(e), known ? memory_type_name(first.type) : "?",
           known ? memory_type_name(last.type) : "?");
    return false;
}

constexpr int64_t kWindow = 1000;   /* elements per window read back */

/* The checks of test_beyond_int32 on allocated buffers: a[la], b[3], out[la + 2], window
 * (pinned, kWindow floats). Every step is checked where it happens: the uploads, the fill
 * kernel's launch and run, the signal and the poisoned output read back before any conv1d
 * kernel (so a failed read is not blamed on one), then per config: status, no CUDA error left
 * behind, the run, the windows. */
void check_beyond_int32(float *a, int64_t la, float *b, float *out, float *window,
                        cudaStream_t stream)
{
    const int64_t lb = 3, lo = la + lb - 1;
    const float hb[3] = {0.5f, -0.25f, 1.0f};
    if (!step_ok(cudaMemcpyAsync(b, hb, sizeof hb, cudaMemcpyHostToDevice, stream), "setup",
                 "filter upload"))
        return;
    fill_ramp<<<4096, 256, 0, stream>>>(a, la);
    if (!step_ok(cudaGetLastError(), "setup", "fill_ramp launch") ||
        !step_ok(cudaStreamSynchronize(stream), "setup", "fill_ramp run"))
        return;
    /* the signal is only 2^31 + 4 long: its middle window ends at 2^31 + 2, across the boundary */
    const int64_t sig_starts[] = {0, (int64_t{1} << 31) + 2 - kWindow, la - kWindow};
    for (int64_t s0 : sig_starts) {
        if (!read_window(window, a, s0, kWindow, stream, "signal")) return;
        int64_t bad = 0;
        for (int64_t k = 0; k < kWindow; k++)
            bad += window[k] != ramp_value(s0 + k);
        expect(bad == 0, "beyond 2^31: signal window at %lld: %lld of %lld wrong", (long long)s0,
               (long long)bad, (long long)kWindow);
    }
    /* the output is 2^31 + 6 long: its middle window ends at 2^31 + 4, across the boundary */
    const int64_t starts[] = {0, (int64_t{1} << 31) + 4 - kWindow, lo - kWindow};
    if (!step_ok(cudaMemsetAsync(out, 0xff, lo * sizeof(float), stream), "setup",
                 "output poison"))
        return;
    for (int64_t s0 : starts) {
        if (!read_window(window, out, s0, kWindow, stream, "poisoned output")) return;
        expect(std::all_of(window, window + kWindow, is_poison),
               "beyond 2^31: poisoned output window at %lld", (long long)s0);
    }

    const tk_conv1d_config configs[] = {{TK_CONV1D_DIRECT, 256, 1},
                                        {TK_CONV1D_CONST_SMEM, 256, 4},
                                        {TK_CONV1D_SMEM, 256, 16}};
    for (const tk_conv1d_config &c : configs) {
        const std::string name = config_name(c);
        if (!step_ok(cudaMemsetAsync(out, 0xff, lo * sizeof(float), stream), name.c_str(),
                     "output poison"))
            return;
        const tk_status st = tk_conv1d_full(a, la, b, lb, out, &c, stream);
        const cudaError_t left = cudaGetLastError();
        expect(st == TK_OK && left == cudaSuccess,
               "beyond 2^31, %s: status %s, CUDA error left behind: %s", name.c_str(),
               tk_status_string(st), cudaGetErrorString(left));
        if (!step_ok(cudaStreamSynchronize(stream), name.c_str(), "kernel run")) return;
        if (st != TK_OK) continue;
        int64_t bad = 0;
        for (int64_t s0 : starts) {
            if (!read_window(window, out, s0, kWindow, stream, name.c_str())) return;
            for (int64_t k = 0; k < kWindow; k++) {
                const int64_t n = s0 + k;
                double want = 0;
                for (int64_t m = 0; m < lb; m++)
                    if (n - m >= 0 && n - m < la)
                        want += static_cast<double>(ramp_value(n - m)) * hb[m];
                bad += window[k] != static_cast<float>(want);
            }
        }
        expect(bad == 0, "beyond 2^31, %s: %lld of %lld outputs wrong", name.c_str(),
               (long long)bad, (long long)(3 * kWindow));
    }
    std::printf("beyond 2^31: %lld outputs, 3 implementations checked in 3 windows\n",
                (long long)lo);
}

/* An output of 2^31 + 6 elements (signal 2^31 + 4, filter 3): every implementation must reach
 * the last element with 64-bit indices. Small integers times quarters: the sums are exact, so
 * windows at the start, around 2^31 and at the end are compared exactly. Skipped when the GPU
 * has too little free memory (the buffers and 1 GiB to spare); an allocation failing when the
 * memory is there is a failure. */
void test_beyond_int32(cudaStream_t stream)
{
    const int64_t la = (int64_t{1} << 31) + 4, lo = la + 2;
    const size_t need = static_cast<size_t>(la + lo + 3) * sizeof(float);
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_OK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (free_bytes < need + (size_t{1} << 30)) {
        std::printf("beyond 2^31: skipped (needs %.1f GiB of GPU memory, %.1f GiB free)\n",
                    need / 1073741824.0, free_bytes / 1073741824.0);
        return;
    }
    float *a = nullptr, *b = nullptr, *out = nullptr, *window = nullptr;
    if (step_ok(cudaMalloc(&a, static_cast<size_t>(la) * sizeof(float)), "setup",
                "cudaMalloc signal") &&
        step_ok(cudaMalloc(&out, static_cast<size_t>(lo) * sizeof(float)), "setup",
                "cudaMalloc output") &&
        step_ok(cudaMalloc(&b, 3 * sizeof(float)), "setup", "cudaMalloc filter") &&
        step_ok(cudaMallocHost(&window, kWindow * sizeof(float)), "setup", "cudaMallocHost"))
        check_beyond_int32(a, la, b, out, window, stream);
    cudaStreamSynchronize(stream);
    cudaFree(a);
    cudaFree(b);
    cudaFree(out);
    cudaFreeHost(window);
    cudaGetLastError();
}

/* For information (no assertion): median of 9 event-timed runs, direct against a few tiled
 * configs, on a short-filter and a long-filter problem. */
void report_timings(cudaStream_t stream)
{
    const int64_t problems[][2] = {{int64_t{16} << 20, 127}, {int64_t{1} << 20, 4096}};
    const tk_conv1d_config configs[] = {
        {TK_CONV1D_DIRECT, 256, 1},      {TK_CONV1D_CONST_SMEM, 256, 1},
        {TK_CONV1D_CONST_SMEM, 256, 8},  {TK_CONV1D_CONST_SMEM, 128, 16},
        {TK_CONV1D_SMEM, 256, 8},        {TK_CONV1D_SMEM, 128, 16},
    };
    cudaEvent_t e0, e1;
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    for (const auto &pr : problems) {
        const int64_t la = pr[0], lb = pr[1], lo = la + lb - 1;
        float *a = nullptr, *b = nullptr, *out = nullptr;
        CUDA_OK(cudaMalloc(&a, la * 4));
        CUDA_OK(cudaMalloc(&b, lb * 4));
        CUDA_OK(cudaMalloc(&out, lo * 4));
        fill_ramp<<<1024, 256, 0, stream>>>(a, la);
        CUDA_OK(cudaGetLastError());
        fill_ramp<<<16, 256, 0, stream>>>(b, lb);
        CUDA_OK(cudaGetLastError());
        std::printf("timing %lld x %lld (%.2f G multiply-adds):", (long long)la, (long long)lb,
                    static_cast<double>(la) * lb * 1e-9);
        for (const tk_conv1d_config &c : configs) {
            std::vector<float> ms;
            for (int r = 0; r < 10; r++) {
                CUDA_OK(cudaEventRecord(e0, stream));
                const tk_status st = tk_conv1d_full(a, la, b, lb, out, &c, stream);
                CUDA_OK(cudaEventRecord(e1, stream));
                CUDA_OK(cudaEventSynchronize(e1));
                float t = 0;
                CUDA_OK(cudaEventElapsedTime(&t, e0, e1));
                if (st == TK_OK && r > 0) ms.push_back(t);
            }
            std::sort(ms.begin(), ms.end());
            std::printf("\n  %-52s %9.1f us", config_name(c).c_str(),
                        ms.empty() ? -1.0 : ms[ms.size() / 2] * 1e3);
        }
        std::printf("\n");
        CUDA_OK(cudaStreamSynchronize(stream));
        cudaFree(a);
        cudaFree(b);
        cudaFree(out);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
}

/* The config rules and the default, on the CPU. */
void test_config_rules()
{
    const tk_conv1d_config d = tk_conv1d_default_config();
    expect(d.impl == TK_CONV1D_CONST_SMEM && d.block_size == 256 && d.outputs_per_thread == 1,
           "default config: const_smem, 256 threads, 1 output per thread");
    expect(tk_conv1d_config_supported(&d), "default config supported");
    const tk_config_space *sp = tk_conv1d_config_space();
    expect(sp && std::strcmp(sp->family, "conv1d") == 0 && sp->n_params == 3 &&
               std::strcmp(sp->params[0].name, "block_size") == 0 &&
               std::strcmp(sp->params[1].name, "impl") == 0 &&
               std::strcmp(sp->params[2].name, "outputs_per_thread") == 0,
           "config space: block_size, impl, outputs_per_thread (sorted)");
    for (const tk_conv1d_config &c : all_configs())
        expect(tk_conv1d_config_supported(&c), "%s supported", config_name(c).c_str());
}

} // namespace

int main()
{
    test_config_rules();
    cudaDeviceProp prop;
    if (!gpu_check_start("conv1d_test", &prop)) return gpu_check_done();
    cudaStream_t stream;
    CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    Buffers buf;
    CUDA_OK(cudaMalloc(&buf.a, kAlloc * 4));
    CUDA_OK(cudaMalloc(&buf.b, kAlloc * 4));
    CUDA_OK(cudaMalloc(&buf.out, kAlloc * 4));
    CUDA_OK(cudaMallocHost(&buf.host_out, kAlloc * 4));
    std::mt19937_64 rng(20240917);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    buf.host_a.resize(kAlloc);
    buf.host_b.resize(kAlloc);
    for (auto &v : buf.host_a)
        v = static_cast<float>(dist(rng));
    for (auto &v : buf.host_b)
        v = static_cast<float>(dist(rng));
    CUDA_OK(cudaMemcpy(buf.a, buf.host_a.data(), kAlloc * 4, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(buf.b, buf.host_b.data(), kAlloc * 4, cudaMemcpyHostToDevice));
    CUDA_OK(cudaDeviceSynchronize());   /* pageable uploads may return before their DMA lands */

    test_bad_arguments(buf, stream);
    test_all_configs(buf, stream);
    test_planted_errors(buf, stream);
    test_null_config(buf, stream);
    test_tuned_entries_for_this_device();
    test_const_concurrency();
    GPU_TEST_FULL_ONLY(test_beyond_int32(stream));
    report_timings(stream);

    cudaFree(buf.a);
    cudaFree(buf.b);
    cudaFree(buf.out);
    cudaFreeHost(buf.host_out);
    cudaStreamDestroy(stream);
    return gpu_check_done();
}
