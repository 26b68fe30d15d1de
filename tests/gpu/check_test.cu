/* check_test.cu: GPU test of the validation helpers (kernels/check.cu, tk_check.h).
 *
 * tk_check_close against planted errors in every dtype: NaN, +-Inf, values far outside and (f32)
 * right at the tolerance (the GPU must agree with the CPU's rule), the very last element,
 * errors spread over many blocks (the reported indices must be the lowest, ascending, with their
 * got / expected values), many errors (count exact, first max_report in order), NaN and Inf in
 * the reference, max_report 0 and larger than the number of failures, n = 0, bad arguments. tk_check_poison: the NaN bit
 * patterns, and a poisoned output fails everywhere. Also the time of a 256 Mi element f32
 * comparison (printed; fails above 50 ms). tk_check_hold: held work waits for the host's word,
 * goes when it comes, and goes after the limit when it never does.
 * Prints "N passed, N failed" last; exits non-zero on failure; skips without a GPU. */
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>
#include <cuda_runtime.h>
#include "gpu_check.h"
#include "tk_check.h"
#include "tunekit.h"

namespace {

const tk_dtype kDtypes[] = {TK_F32, TK_F16, TK_BF16};

double rtol_of(tk_dtype dt) { return dt == TK_F32 ? 1e-6 : dt == TK_F16 ? 0x1p-10 : 0x1p-7; }

/* A reference on the GPU and an output made from it (rounded to dtype), with host copies. */
struct Case {
    tk_dtype dt;
    int64_t n;
    std::vector<double> ref;        /* host reference */
    std::vector<double> out_val;    /* host output values (before rounding to dtype) */
    double *d_ref = nullptr;
    void *d_out = nullptr;

    Case(tk_dtype d, int64_t count, uint64_t seed) : dt(d), n(count), ref(count), out_val(count)
    {
        std::mt19937_64 rng(seed);
        std::uniform_real_distribution<double> dist(-3.0, 3.0);
        std::vector<unsigned char> bits(n * tk_dtype_size(dt));
        for (int64_t i = 0; i < n; i++)
            ref[i] = dist(rng);
        /* the reference is exactly representable, so the unplanted output matches it exactly */
        tk_host_from_double(dt, ref.data(), bits.data(), n);
        tk_host_to_double(dt, bits.data(), ref.data(), n);
        out_val = ref;
        CUDA_OK(cudaMalloc(&d_ref, n * sizeof(double)));
        CUDA_OK(cudaMalloc(&d_out, n * tk_dtype_size(dt) + 16));
    }
    ~Case()
    {
        cudaFree(d_ref);
        cudaFree(d_out);
    }
    Case(const Case &) = delete;
    Case &operator=(const Case &) = delete;

    /* Uploads ref and out_val (rounded to dtype). */
    void upload()
    {
        std::vector<unsigned char> bits(n * tk_dtype_size(dt));
        tk_host_from_double(dt, out_val.data(), bits.data(), n);
        CUDA_OK(cudaMemcpy(d_ref, ref.data(), n * sizeof(double), cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemcpy(d_out, bits.data(), bits.size(), cudaMemcpyHostToDevice));
    }
};

struct Result {
    tk_status st;
    int64_t n_bad;
    std::vector<int64_t> idx;
    std::vector<double> got, exp;
};

Result run_check(Case &c, double rtol, double atol, int max_report, cudaStream_t s)
{
    Result r;
    r.idx.assign(max_report + 1, -7);
    r.got.assign(max_report + 1, -7.0);
    r.exp.assign(max_report + 1, -7.0);
    r.n_bad = -1;
    r.st = tk_check_close(c.dt, c.n, c.d_out, c.d_ref, rtol, atol, &r.n_bad, r.idx.data(),
                          r.got.data(), r.exp.data(), max_report, s);
    return r;
}

/* The failing indices of c by the CPU rule, ascending. */
std::vector<int64_t> cpu_failures(const Case &c, double rtol, double atol)
{
    std::vector<unsigned char> bits(c.n * tk_dtype_size(c.dt));
    std::vector<double> got(c.n);
    tk_host_from_double(c.dt, c.out_val.data(), bits.data(), c.n);
    tk_host_to_double(c.dt, bits.data(), got.data(), c.n);
    std::vector<int64_t> bad;
    for (int64_t i = 0; i < c.n; i++) {
        const double g = got[i], e = c.ref[i];
        bool ok;
        if (std::isnan(e)) ok = std::isnan(g);
        else if (std::isinf(e)) ok = g == e;
        else ok = std::fabs(g - e) <= atol + rtol * std::fabs(e);
        if (!ok) bad.push_back(i);
    }
    return bad;
}

/* Checks r against the CPU's failures of c: count, lowest indices in order, values. */
void expect_matches_cpu(const Case &c, const Result &r, double rtol, double atol, int max_report,
                        const char *what)
{
    const std::vector<int64_t> bad = cpu_failures(c, rtol, atol);
    bool ok = r.st == TK_OK && r.n_bad == static_cast<int64_t>(bad.size());
    const int reported = static_cast<int>(std::min<int64_t>(bad.size(), max_report));
    for (int k = 0; ok && k < reported; k++) {
        const int64_t i = bad[k];
        std::vector<unsigned char> bits(tk_dtype_size(c.dt));
        double g;
        tk_host_from_double(c.dt, &c.out_val[i], bits.data(), 1);
        tk_host_to_double(c.dt, bits.data(), &g, 1);
        ok = r.idx[k] == i && (r.got[k] == g || (std::isnan(g) && std::isnan(r.got[k]))) &&
             (r.exp[k] == c.ref[i] || (std::isnan(c.ref[i]) && std::isnan(r.exp[k])));
    }
    /* nothing written past what was reported */
    ok = ok && r.idx[reported] == -7 && r.got[reported] == -7.0 && r.exp[reported] == -7.0;
    expect(ok, "%s %s: n_bad %lld (cpu %zu), first reported %lld (cpu %lld)", tk_dtype_name(c.dt),
           what, (long long)r.n_bad, bad.size(), (long long)(reported ? r.idx[0] : -1),
           (long long)(bad.empty() ? -1 : bad[0]));
}

void test_planted(cudaStream_t s)
{
    for (tk_dtype dt : kDtypes) {
        const double rtol = rtol_of(dt), atol = 0.0;
        Case c(dt, (3 << 20) + 5, 11 + dt);
        c.upload();
        Result clean = run_check(c, rtol, atol, 8, s);
        expect(clean.st == TK_OK && clean.n_bad == 0 && clean.idx[0] == -7,
               "%s: clean output passes", tk_dtype_name(dt));

        /* planted: NaN, +Inf, -Inf, far outside the tolerance, the very last element */
        const int64_t last = c.n - 1;
        c.out_val[5] = NAN;
        c.out_val[100] = INFINITY;
        c.out_val[1000] = -INFINITY;
        c.out_val[2 << 20] = c.ref[2 << 20] * (1 + 8 * rtol) + (c.ref[2 << 20] >= 0 ? 0.1 : -0.1);
        c.out_val[last] = c.ref[last] + 1.0;
        c.upload();
        Result r = run_check(c, rtol, atol, 8, s);
        expect(r.st == TK_OK && r.n_bad == 5, "%s: 5 planted failures, got %lld", tk_dtype_name(dt),
               (long long)r.n_bad);
        const int64_t want[] = {5, 100, 1000, 2 << 20, last};
        bool order = true;
        for (int k = 0; k < 5; k++)
            order &= r.idx[k] == want[k];
        expect(order, "%s: planted indices reported lowest first", tk_dtype_name(dt));
        expect(std::isnan(r.got[0]) && r.got[1] == INFINITY && r.got[2] == -INFINITY &&
                   r.exp[4] == c.ref[last],
               "%s: reported values", tk_dtype_name(dt));
        expect_matches_cpu(c, r, rtol, atol, 8, "planted");

        /* only the very last element */
        c.out_val = c.ref;
        c.out_val[last] = NAN;
        c.upload();
        r = run_check(c, rtol, atol, 4, s);
        expect(r.st == TK_OK && r.n_bad == 1 && r.idx[0] == last && r.idx[1] == -7,
               "%s: only the last element fails", tk_dtype_name(dt));

        /* just outside / inside the tolerance, f32 only (16-bit rounding would move them) */
        if (dt == TK_F32) {
            c.out_val = c.ref;
            c.upload();
            Result tight = run_check(c, 0.0, 0.0, 4, s);
            expect(tight.n_bad == 0, "f32: exact output passes rtol = atol = 0");
            /* out = ref (1 + 2^-20) rounded to f32 lands about half the time just inside and
             * half just outside rtol 2^-20: the GPU must agree with the CPU's rule on each */
            for (int64_t i = 0; i < c.n; i += 3) c.out_val[i] = c.ref[i] * (1 + 0x1p-20);
            c.upload();
            r = run_check(c, 0x1p-20, 0.0, 16, s);
            expect_matches_cpu(c, r, 0x1p-20, 0.0, 16, "boundary rtol 2^-20");
            expect(r.n_bad > c.n / 20 && r.n_bad < c.n / 3, "f32: boundary cases fall both ways");
            r = run_check(c, 0.0, 1e-7, 16, s);
            expect_matches_cpu(c, r, 0.0, 1e-7, 16, "atol 1e-7");
        }

        /* many failures: every third element from the middle on; exact count, lowest 32 */
        c.out_val = c.ref;
        for (int64_t i = c.n / 2 + 1; i < c.n; i += 3) c.out_val[i] = c.ref[i] + 1.0;
        c.upload();
        r = run_check(c, rtol, atol, 32, s);
        expect_matches_cpu(c, r, rtol, atol, 32, "every third element of the second half");
        r = run_check(c, rtol, atol, 0, s);
        expect(r.st == TK_OK && r.n_bad == (c.n - (c.n / 2 + 1) + 2) / 3 && r.idx[0] == -7,
               "%s: max_report 0 still counts", tk_dtype_name(dt));
        /* a huge report: more than the failures */
        r = run_check(c, rtol, atol, 2 << 20, s);
        expect_matches_cpu(c, r, rtol, atol, 2 << 20, "max_report larger than the failures");

        /* failures scattered at random over every block */
        std::mt19937_64 rng(99 + dt);
        c.out_val = c.ref;
        for (int k = 0; k < 5000; k++) {
            const int64_t i = static_cast<int64_t>(rng() % static_cast<uint64_t>(c.n));
            c.out_val[i] = -c.ref[i] + (c.ref[i] == 0 ? 1.0 : 0.0);
        }
        c.upload();
        r = run_check(c, rtol, atol, 100, s);
        expect_matches_cpu(c, r, rtol, atol, 100, "5000 scattered failures");
    }
}

void test_special_reference(cudaStream_t s)
{
    for (tk_dtype dt : kDtypes) {
        Case c(dt, 16, 5);
        c.ref[0] = NAN;       c.out_val[0] = NAN;        /* ok */
        c.ref[1] = NAN;       c.out_val[1] = 1.0;        /* bad */
        c.ref[2] = INFINITY;  c.out_val[2] = INFINITY;   /* ok */
        c.ref[3] = INFINITY;  c.out_val[3] = -INFINITY;  /* bad */
        c.ref[4] = -INFINITY; c.out_val[4] = -INFINITY;  /* ok */
        c.ref[5] = INFINITY;  c.out_val[5] = 60000.0;    /* bad: finite against Inf */
        c.ref[6] = 1.0;       c.out_val[6] = INFINITY;   /* bad */
        c.ref[7] = 1.0;       c.out_val[7] = NAN;        /* bad */
        c.upload();
        Result r = run_check(c, 1.0, 1.0, 8, s); /* a huge tolerance changes none of these */
        const int64_t want[] = {1, 3, 5, 6, 7};
        bool ok = r.st == TK_OK && r.n_bad == 5;
        for (int k = 0; ok && k < 5; k++)
            ok = r.idx[k] == want[k];
        expect(ok, "%s: NaN / Inf rules (n_bad %lld)", tk_dtype_name(dt), (long long)r.n_bad);
    }
}

void test_poison(cudaStream_t s)
{
    const int64_t n = (1 << 20) + 3;
    for (tk_dtype dt : kDtypes) {
        const size_t es = tk_dtype_size(dt);
        Case c(dt, n, 3);
        c.upload();
        CUDA_OK(memset_sync(c.d_out, 0, n * es + 16));
        expect(tk_check_poison(dt, n, c.d_out, s) == TK_OK, "%s: poison", tk_dtype_name(dt));
        CUDA_OK(cudaStreamSynchronize(s));
        std::vector<unsigned char> bits(n * es + 16);
        CUDA_OK(cudaMemcpy(bits.data(), c.d_out, bits.size(), cudaMemcpyDeviceToHost));
        bool ok = true;
        for (int64_t i = 0; i < n && ok; i++) {
            if (dt == TK_F32) {
                uint32_t v;
                std::memcpy(&v, &bits[i * 4], 4);
                ok = v == 0x7fc0deadu;
            } else {
                uint16_t v;
                std::memcpy(&v, &bits[i * 2], 2);
                ok = v == (dt == TK_F16 ? 0x7e5a : 0x7fda);
            }
        }
        for (size_t k = n * es; k < bits.size() && ok; k++)
            ok = bits[k] == 0;
        expect(ok, "%s: poison pattern on exactly n elements", tk_dtype_name(dt));
        std::vector<double> back(1);
        tk_host_to_double(dt, bits.data(), back.data(), 1);
        expect(std::isnan(back[0]), "%s: the poison is a NaN", tk_dtype_name(dt));
        Result r = run_check(c, rtol_of(dt), 1e-3, 10, s);
        bool all_bad = r.st == TK_OK && r.n_bad == n;
        for (int k = 0; all_bad && k < 10; k++)
            all_bad = r.idx[k] == k;
        expect(all_bad, "%s: a poisoned output fails everywhere", tk_dtype_name(dt));
    }
}

void test_arguments(cudaStream_t s)
{
    Case c(TK_F32, 64, 1);
    c.upload();
    int64_t n_bad = -1, idx[4];
    double got[4], expd[4];
    expect(tk_check_close(TK_F32, 0, nullptr, nullptr, 0, 0, &n_bad, idx, got, expd, 4, s) ==
                   TK_OK &&
               n_bad == 0,
           "n = 0");
    expect(tk_check_close(TK_F32, -1, c.d_out, c.d_ref, 0, 0, &n_bad, idx, got, expd, 4, s) ==
               TK_ERR_INVALID_ARGUMENT,
           "n < 0");
    expect(tk_check_close(static_cast<tk_dtype>(4), 64, c.d_out, c.d_ref, 0, 0, &n_bad, idx, got,
                          expd, 4, s) == TK_ERR_INVALID_ARGUMENT,
           "bad dtype");
    expect(tk_check_close(TK_F32, 64, nullptr, c.d_ref, 0, 0, &n_bad, idx, got, expd, 4, s) ==
               TK_ERR_INVALID_ARGUMENT,
           "NULL out");
    expect(tk_check_close(TK_F32, 64, c.d_out, nullptr, 0, 0, &n_bad, idx, got, expd, 4, s) ==
               TK_ERR_INVALID_ARGUMENT,
           "NULL ref");
    expect(tk_check_close(TK_F32, 64, c.d_out, c.d_ref, 0, 0, nullptr, idx, got, expd, 4, s) ==
               TK_ERR_INVALID_ARGUMENT,
           "NULL n_bad");
    expect(tk_check_close(TK_F32, 64, c.d_out, c.d_ref, 0, 0, &n_bad, nullptr, got, expd, 4, s) ==
               TK_ERR_INVALID_ARGUMENT,
           "NULL first_bad");
    expect(tk_check_close(TK_F32, 64, c.d_out, c.d_ref, 0, 0, &n_bad, idx, got, expd, -1, s) ==
               TK_ERR_INVALID_ARGUMENT,
           "max_report < 0");
    /* got and expected may be NULL */
    c.out_val[9] = 100.0;
    c.upload();
    expect(tk_check_close(TK_F32, 64, c.d_out, c.d_ref, 1e-6, 0, &n_bad, idx, nullptr, nullptr, 4,
                          s) == TK_OK &&
               n_bad == 1 && idx[0] == 9,
           "NULL got / expected");
    expect(tk_check_poison(TK_F16, -1, c.d_out, s) == TK_ERR_INVALID_ARGUMENT, "poison n < 0");
    expect(tk_check_poison(TK_F16, 5, nullptr, s) == TK_ERR_INVALID_ARGUMENT, "poison NULL");
    expect(tk_check_poison(TK_F16, 0, nullptr, s) == TK_OK, "poison n = 0");
    expect(tk_check_poison(static_cast<tk_dtype>(9), 5, c.d_out, s) == TK_ERR_INVALID_ARGUMENT,
           "poison bad dtype");
}

/* 256 Mi f32 elements against a double reference: milliseconds, not a CPU pass. */
void test_speed(cudaStream_t s)
{
    const int64_t n = int64_t{256} << 20;
    float *out = nullptr;
    double *ref = nullptr;
    if (cudaMalloc(&out, n * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&ref, n * sizeof(double)) != cudaSuccess) {
        cudaGetLastError();
        cudaFree(out);
        std::printf("256 Mi comparison: skipped (not enough GPU memory)\n");
        return;
    }
    CUDA_OK(memset_sync(out, 0, n * sizeof(float)));
    CUDA_OK(memset_sync(ref, 0, n * sizeof(double)));
    int64_t n_bad = -1, idx[8];
    tk_check_close(TK_F32, n, out, ref, 1e-6, 0, &n_bad, idx, nullptr, nullptr, 8, s); /* warm */
    double best = 1e30;
    for (int rep = 0; rep < 5; rep++) {
        auto t0 = std::chrono::steady_clock::now();
        tk_status st = tk_check_close(TK_F32, n, out, ref, 1e-6, 0, &n_bad, idx, nullptr, nullptr,
                                      8, s);
        auto t1 = std::chrono::steady_clock::now();
        const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
        if (st == TK_OK && ms < best) best = ms;
    }
    std::printf("tk_check_close, 256 Mi f32 elements, none failing: %.2f ms (best of 5)\n", best);
    expect(n_bad == 0 && best < 50.0, "256 Mi comparison took %.2f ms", best);
    /* all failing: the second pass must stay fast too */
    CUDA_OK(memset_sync(out, 0xff, n * sizeof(float)));
    auto t0 = std::chrono::steady_clock::now();
    tk_status st = tk_check_close(TK_F32, n, out, ref, 1e-6, 0, &n_bad, idx, nullptr, nullptr, 8, s);
    auto t1 = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    std::printf("tk_check_close, 256 Mi f32 elements, all failing: %.2f ms\n", ms);
    expect(st == TK_OK && n_bad == n && idx[0] == 0 && idx[7] == 7 && ms < 100.0,
           "256 Mi all failing: n_bad %lld, %.2f ms", (long long)n_bad, ms);
    cudaFree(out);
    cudaFree(ref);
}

/* tk_check_hold: work queued behind a hold waits for the host's word, and goes at once when it
 * comes; a word that never comes lets the stream go after max_ns; a NULL word is refused. */
void test_hold(cudaStream_t s)
{
    unsigned *word = nullptr;
    CUDA_OK(cudaHostAlloc(reinterpret_cast<void **>(&word), sizeof *word, cudaHostAllocMapped));
    *word = 0;
    cudaEvent_t after;
    CUDA_OK(cudaEventCreate(&after));
    /* released by the host */
    expect(tk_check_hold(word, 1, 2000000000ull, s) == TK_OK, "hold launches");
    CUDA_OK(cudaEventRecord(after, s));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    expect(cudaEventQuery(after) == cudaErrorNotReady, "the work behind an unreleased hold waits");
    auto t0 = std::chrono::steady_clock::now();
    __atomic_store_n(word, 1u, __ATOMIC_RELEASE);
    CUDA_OK(cudaEventSynchronize(after));
    const double release_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    expect(release_ms < 50.0, "released hold let the stream go in %.3f ms", release_ms);
    /* a wrapping counter: word 0xffffffff is at or past until 0xfffffffe, not past 1 */
    *word = 0xffffffffu;
    expect(tk_check_hold(word, 0xfffffffeu, 2000000000ull, s) == TK_OK, "hold launches");
    CUDA_OK(cudaStreamSynchronize(s));
    /* never released: the limit lets it go */
    t0 = std::chrono::steady_clock::now();
    expect(tk_check_hold(word, 5, 30000000ull, s) == TK_OK, "hold launches");
    CUDA_OK(cudaStreamSynchronize(s));
    const double limit_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    expect(limit_ms >= 29.0 && limit_ms < 2000.0, "unreleased hold with a 30 ms limit took %.1f ms",
           limit_ms);
    expect(tk_check_hold(nullptr, 1, 1000, s) == TK_ERR_INVALID_ARGUMENT, "NULL word refused");
    std::printf("hold: released after 20 ms, went in %.3f ms; unreleased with a 30 ms limit: %.1f ms\n",
                release_ms, limit_ms);
    cudaEventDestroy(after);
    cudaFreeHost(word);
}

} // namespace

int main()
{
    if (!gpu_check_start("check_test")) return gpu_check_done();
    cudaStream_t s;
    CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    test_arguments(s);
    test_special_reference(s);
    test_poison(s);
    test_planted(s);
    test_hold(s);
    GPU_TEST_FULL_ONLY(test_speed(s));
    CUDA_OK(cudaStreamSynchronize(s));
    expect(cudaGetLastError() == cudaSuccess, "no CUDA error left behind");
    cudaStreamDestroy(s);
    return gpu_check_done();
}
