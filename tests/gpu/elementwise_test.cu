/* elementwise_test.cu: GPU test of the elementwise family (kernels/elementwise.cu).
 *
 * For every op x dtype x pack_size x loop, block sizes {32, 96, 256, 1024}, waves {1, 7, 32},
 * sizes {1, 7, 8191, 65537, 2^20 + 3} and pointer offsets {0, 1, 3} elements on every pointer
 * (plus one case where only the last input is misaligned): random inputs, a poisoned output
 * (0xff bytes: NaN in every dtype), results compared with a double-precision CPU reference
 * computed from the dtype-rounded inputs (f32 rel 1e-6, gelu 2e-6; f16 rel 2^-10; bf16 rel
 * 2^-7; gelu adds atol 1e-6, f16 adds one subnormal step 2^-24), and the elements just before
 * and after the output range must still hold the poison. Then: relu's special values (NaN
 * propagates), n > 2^31 (64-bit indexing), NULL-config calls against
 * tk_elementwise_tuned_config, bad arguments, and the host overhead of a NULL config over an
 * explicit one (10^5 calls each, median of 7; fails above 100 ns per call), f32 gelu over all
 * 2^32 float bit patterns (checked on the GPU against the double reference), and the tuner's GPU
 * set-up of this family (tuner/ops/gpu_fill.h: generated inputs bit for bit against the host
 * twin, the GPU double reference against the CPU one). The grid-size rule
 * (launch.cuh) and the pack alignment helper are checked first, on the CPU, even without a GPU.
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
#include "launch.cuh"
#include "pack.cuh"
#include "decoder.h"
#include "gpu_check.h"
#include "gpu_fill_check.h"
#include "tk_check.h"
#include "tuned_lookup.h"
#include "tunekit.h"
#include "tuned_configs.h"

namespace {

enum OpId { RELU, GELU, MUL, ADD, FMA, N_OPS };
const char *const kOpNames[N_OPS] = {"elementwise.relu", "elementwise.gelu", "elementwise.mul",
                                     "elementwise.add", "elementwise.fma"};
const int kArity[N_OPS] = {1, 1, 2, 2, 3};
const tk_dtype kDtypes[] = {TK_F32, TK_F16, TK_BF16};
const char *const kLoopNames[] = {"grid_stride", "one_shot"};

double reference(OpId op, double a, double b, double c)
{
    switch (op) {
    case RELU: return a > 0 || a != a ? a : 0.0;
    case GELU: return 0.5 * a * std::erfc(-a / std::sqrt(2.0));
    case MUL: return a * b;
    case ADD: return a + b;
    case FMA: return a * b + c;
    default: return NAN;
    }
}

tk_status call_op(OpId op, tk_dtype dt, int64_t n, const void *const in[3], void *out,
                  const tk_elementwise_config *cfg, cudaStream_t s)
{
    switch (op) {
    case RELU: return tk_elementwise_unary(TK_RELU, dt, n, in[0], out, cfg, s);
    case GELU: return tk_elementwise_unary(TK_GELU, dt, n, in[0], out, cfg, s);
    case MUL: return tk_elementwise_binary(TK_MUL, dt, n, in[0], in[1], out, cfg, s);
    case ADD: return tk_elementwise_binary(TK_ADD, dt, n, in[0], in[1], out, cfg, s);
    default: return tk_elementwise_fma(dt, n, in[0], in[1], in[2], out, cfg, s);
    }
}

/* The test's tolerance and its rule, on the host and in the every-float check on the GPU. */
__host__ __device__ void tolerance(OpId op, tk_dtype dt, double *rtol, double *atol)
{
    *rtol = dt == TK_F32 ? (op == GELU ? 2e-6 : 1e-6) : dt == TK_F16 ? 0x1p-10 : 0x1p-7;
    *atol = (op == GELU ? 1e-6 : 0.0) + (dt == TK_F16 ? 0x1p-24 : 0.0);
}

__host__ __device__ bool close_enough(double got, double ref, double rtol, double atol)
{
    if (isnan(ref)) return isnan(got);
    if (isinf(ref)) return got == ref;
    return fabs(got - ref) <= atol + rtol * fabs(ref);
}

constexpr int64_t kMaxN = (1 << 20) + 3;
constexpr int64_t kGuard = 8;           /* poisoned elements checked after the output */
constexpr int64_t kAlloc = kMaxN + 64;  /* elements per buffer: offsets and guard fit */

/* Device buffers (3 inputs, 1 output) and their host mirrors for one op and dtype. */
struct Buffers {
    void *in[3] = {nullptr, nullptr, nullptr};
    void *out = nullptr;
    std::vector<double> host_in[3]; /* the inputs as the GPU holds them (dtype-rounded) */
    unsigned char *host_out = nullptr; /* pinned, kAlloc * 4 bytes */
};

/* Fills the inputs of op with random values (relu/gelu in [-4, 4], others in [-2, 2]), rounds
 * them to dtype and uploads them. */
void fill_inputs(Buffers &b, OpId op, tk_dtype dt, std::mt19937_64 &rng)
{
    const double range = kArity[op] == 1 ? 4.0 : 2.0;
    std::uniform_real_distribution<double> dist(-range, range);
    const size_t es = tk_dtype_size(dt);
    std::vector<double> raw(kAlloc);
    std::vector<unsigned char> stored(kAlloc * es);
    for (int k = 0; k < 3; k++) {
        for (auto &v : raw)
            v = dist(rng);
        tk_host_from_double(dt, raw.data(), stored.data(), kAlloc);
        b.host_in[k].resize(kAlloc);
        tk_host_to_double(dt, stored.data(), b.host_in[k].data(), kAlloc);
        CUDA_OK(cudaMemcpy(b.in[k], stored.data(), kAlloc * es, cudaMemcpyHostToDevice));
    }
}

struct Variant {
    int64_t in_off[3];
    int64_t out_off;
    const char *name;
};

/* Pointer offsets (elements): {0, 1, 3} on every pointer, and only the last input off by one. */
std::vector<Variant> variants_for(OpId op)
{
    std::vector<Variant> v = {{{0, 0, 0}, 0, "offset 0"},
                              {{1, 1, 1}, 1, "offset 1"},
                              {{3, 3, 3}, 3, "offset 3"}};
    Variant last = {{0, 0, 0}, 0, "last input +1"};
    last.in_off[kArity[op] - 1] = 1;
    v.push_back(last);
    return v;
}

/* Checks the output of one launch (already copied to b.host_out, covering [0, out_off + n +
 * kGuard) elements) against ref; returns an empty string or what went wrong. */
std::string check_output(const Buffers &b, const Decoder &decode, int64_t n, int64_t out_off,
                         const std::vector<double> &ref, double rtol, double atol)
{
    const size_t es = tk_dtype_size(decode.dt);
    char msg[256];
    for (int64_t i = 0; i < out_off; i++)
        for (size_t k = 0; k < es; k++)
            if (b.host_out[i * es + k] != 0xff) {
                std::snprintf(msg, sizeof msg, "wrote element %lld before the output",
                              (long long)(i - out_off));
                return msg;
            }
    for (int64_t i = out_off + n; i < out_off + n + kGuard; i++)
        for (size_t k = 0; k < es; k++)
            if (b.host_out[i * es + k] != 0xff) {
                std::snprintf(msg, sizeof msg, "wrote element n + %lld after the output",
                              (long long)(i - out_off - n));
                return msg;
            }
    const unsigned char *out = b.host_out + out_off * es;
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < n; i++)
        if (!close_enough(decode(out, i), ref[i], rtol, atol)) {
            if (first < 0) first = i;
            bad++;
        }
    if (bad) {
        std::snprintf(msg, sizeof msg, "%lld bad elements, first [%lld] = %.9g, expected %.9g",
                      (long long)bad, (long long)first, decode(out, first), ref[first]);
        return msg;
    }
    return "";
}

void test_all_configs(Buffers &b, cudaStream_t s)
{
    const int64_t sizes[] = {1, 7, 8191, 65537, kMaxN};
    const int blocks[] = {32, 96, 256, 1024};
    const int waves[] = {1, 7, 32};
    const int packs[] = {1, 2, 4, 8};
    std::mt19937_64 rng(20240601);
    std::vector<double> ref;
    for (int op = 0; op < N_OPS; op++)
        for (tk_dtype dt : kDtypes) {
            const Decoder decode(dt);
            fill_inputs(b, static_cast<OpId>(op), dt, rng);
            const size_t es = tk_dtype_size(dt);
            double rtol, atol;
            tolerance(static_cast<OpId>(op), dt, &rtol, &atol);
            int configs_ok = 0, configs_run = 0;
            for (int64_t n : sizes)
                for (const Variant &v : variants_for(static_cast<OpId>(op))) {
                    ref.resize(n);
                    for (int64_t i = 0; i < n; i++)
                        ref[i] = reference(static_cast<OpId>(op), b.host_in[0][v.in_off[0] + i],
                                           b.host_in[1][v.in_off[1] + i],
                                           b.host_in[2][v.in_off[2] + i]);
                    const void *in[3];
                    for (int k = 0; k < 3; k++)
                        in[k] = static_cast<const char *>(b.in[k]) + v.in_off[k] * es;
                    void *out = static_cast<char *>(b.out) + v.out_off * es;
                    const size_t copy_bytes = (v.out_off + n + kGuard) * es;
                    for (int pack : packs) {
                        if (pack * es > 16) continue;
                        for (int loop = 0; loop < 2; loop++)
                            for (int block : blocks)
                                for (int w : waves)
                                for (int variant = 0; variant < 4; variant++) {
                                    if (n > gpu_test_max_n() || !gpu_test_sample()) continue;
                                    /* unroll 1, 2, 4 with no hint; evict_first with unroll 1 */
                                    const int unroll = variant == 3 ? 1 : 1 << variant;
                                    const tk_cache_hint hint =
                                        variant == 3 ? TK_CACHE_EVICT_FIRST : TK_CACHE_NORMAL;
                                    const tk_elementwise_config c = {block, w, pack,
                                                                     static_cast<tk_loop>(loop),
                                                                     unroll, hint};
                                    CUDA_OK(cudaMemsetAsync(b.out, 0xff, copy_bytes, s));
                                    tk_status st = call_op(static_cast<OpId>(op), dt, n, in, out,
                                                           &c, s);
                                    std::string err;
                                    if (st != TK_OK) {
                                        err = std::string("status ") + tk_status_string(st);
                                    } else {
                                        CUDA_OK(cudaMemcpyAsync(b.host_out, b.out, copy_bytes,
                                                                cudaMemcpyDeviceToHost, s));
                                        CUDA_OK(cudaStreamSynchronize(s));
                                        err = check_output(b, decode, n, v.out_off, ref, rtol,
                                                           atol);
                                    }
                                    configs_run++;
                                    configs_ok += err.empty();
                                    expect(err.empty(),
                                           "%s %s n=%lld %s block_size=%d waves=%d pack_size=%d "
                                           "loop=%s unroll=%d cache_hint=%d: %s",
                                           kOpNames[op], tk_dtype_name(dt), (long long)n, v.name,
                                           block, w, pack, kLoopNames[loop], unroll, (int)hint,
                                           err.c_str());
                                }
                    }
                }
            std::printf("%-18s %-4s %5d / %5d configs ok\n", kOpNames[op], tk_dtype_name(dt),
                        configs_ok, configs_run);
        }
}

/* relu on NaN, infinities, signed zeros: NaN propagates (as torch.relu), -0 gives +0. */
void test_relu_special(Buffers &b, cudaStream_t s)
{
    const double x[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, -1.5, 2.5, -1e-30};
    const int n = sizeof x / sizeof x[0];
    for (tk_dtype dt : kDtypes) {
        const size_t es = tk_dtype_size(dt);
        unsigned char in_bits[sizeof x / sizeof x[0] * 4], out_bits[sizeof x / sizeof x[0] * 4];
        tk_host_from_double(dt, x, in_bits, n);
        CUDA_OK(cudaMemcpy(b.in[0], in_bits, n * es, cudaMemcpyHostToDevice));
        for (int pack : {1, 2, 4}) {
            tk_elementwise_config c = tk_elementwise_default_config(dt);
            c.pack_size = pack;
            tk_status st = tk_elementwise_unary(TK_RELU, dt, n, b.in[0], b.out, &c, s);
            CUDA_OK(cudaStreamSynchronize(s));
            CUDA_OK(cudaMemcpy(out_bits, b.out, n * es, cudaMemcpyDeviceToHost));
            double y[sizeof x / sizeof x[0]];
            tk_host_to_double(dt, out_bits, y, n);
            bool ok = st == TK_OK && std::isnan(y[0]) && std::isnan(y[1]) && y[2] == INFINITY &&
                      y[3] == 0.0 && y[4] == 0.0 && !std::signbit(y[4]) && y[5] == 0.0 &&
                      !std::signbit(y[5]) && y[6] == 0.0 && y[7] == 2.5 && y[8] == 0.0;
            expect(ok, "relu special values %s pack %d", tk_dtype_name(dt), pack);
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

/* n > 2^31 elements of f16: every variant must reach the last element with 64-bit indices.
 * Checks three windows (start, around 2^31, end). Skipped when the GPU has too little memory. */
void test_beyond_int32(cudaStream_t s)
{
    const int64_t n = (int64_t{1} << 31) + 37;
    __half *x = nullptr, *y = nullptr;
    if (cudaMalloc(&x, (n + 8) * sizeof(__half)) != cudaSuccess ||
        cudaMalloc(&y, (n + 8) * sizeof(__half)) != cudaSuccess) {
        cudaGetLastError();
        cudaFree(x);
        std::printf("n > 2^31: skipped (not enough GPU memory)\n");
        return;
    }
    fill_ramp_f16<<<1024, 256, 0, s>>>(x, n + 8);
    CUDA_OK(cudaGetLastError());
    struct Case {
        int pack, offset;
        tk_loop loop;
        int unroll;
    } cases[] = {{8, 0, TK_LOOP_GRID_STRIDE, 1}, {8, 0, TK_LOOP_ONE_SHOT, 4},
                 {1, 0, TK_LOOP_ONE_SHOT, 2}, {4, 1, TK_LOOP_GRID_STRIDE, 4}};
    /* the last case also takes the evict-first path over 2^31 elements */
    const int64_t win = 65536;
    std::vector<__half> host(win);
    for (const Case &k : cases) {
        CUDA_OK(cudaMemsetAsync(y, 0xff, (n + 8) * sizeof(__half), s));
        tk_elementwise_config c = {256, 32, k.pack, k.loop, k.unroll,
                                   k.offset ? TK_CACHE_EVICT_FIRST : TK_CACHE_NORMAL};
        const int64_t len = n - k.offset;
        const int64_t starts[] = {0, (int64_t{1} << 31) - win, len - win}; /* output elements */
        tk_status st = tk_elementwise_unary(TK_RELU, TK_F16, len, x + k.offset, y + k.offset, &c, s);
        CUDA_OK(cudaStreamSynchronize(s));
        bool ok = st == TK_OK;
        for (int64_t start : starts) {
            CUDA_OK(cudaMemcpy(host.data(), y + k.offset + start, win * sizeof(__half),
                               cudaMemcpyDeviceToHost));
            for (int64_t j = 0; j < win && ok; j++) {
                const int64_t i = k.offset + start + j;
                const float xv = static_cast<float>(static_cast<int>(i % 2001) - 1000) * 0.25f;
                ok = __half2float(host[j]) == (xv > 0 ? xv : 0.0f);
            }
        }
        expect(ok, "relu f16 n = 2^31 + %lld pack %d loop %s offset %d", (long long)(len - (int64_t{1} << 31)),
               k.pack, kLoopNames[k.loop], k.offset);
    }
    cudaFree(x);
    cudaFree(y);
}

/* The grid rule of launch.cuh with made-up device limits (no GPU needed). */
void test_grid_rule()
{
    const tk::DeviceLimits h100 = {132, 2048}, small = {58, 1536};
    auto grid = [](tk_loop loop, int64_t units, int block, int64_t waves,
                   const tk::DeviceLimits &lim, unsigned *g) {
        *g = 0;
        return tk::grid_for_limits(loop, units, block, waves, lim, g);
    };
    const tk_loop gs = TK_LOOP_GRID_STRIDE, os = TK_LOOP_ONE_SHOT;
    unsigned g = 0;
    expect(grid(gs, 1, 256, 32, h100, &g) == TK_OK && g == 1, "grid: one unit");
    expect(grid(gs, 0, 256, 32, h100, &g) == TK_OK && g == 1, "grid: no units -> 1 block");
    expect(grid(gs, 8388608, 256, 32, h100, &g) == TK_OK && g == 32768,
           "grid: 8 Mi packs fit under the cap (got %u)", g);
    expect(grid(gs, int64_t{1} << 30, 256, 32, h100, &g) == TK_OK && g == 132 * 8 * 32,
           "grid: capped at sm * (2048 / 256) * 32 (got %u)", g);
    expect(grid(gs, int64_t{1} << 30, 96, 7, h100, &g) == TK_OK && g == 132 * 21 * 7,
           "grid: block 96 -> 21 resident blocks per SM (got %u)", g);
    expect(grid(gs, int64_t{1} << 30, 1024, 1, h100, &g) == TK_OK && g == 264,
           "grid: block 1024, one wave (got %u)", g);
    expect(grid(gs, int64_t{1} << 30, 1024, 3, small, &g) == TK_OK && g == 58 * 1 * 3,
           "grid: 1536 threads per SM, block 1024 (got %u)", g);
    expect(grid(gs, 1000, 96, 7, h100, &g) == TK_OK && g == 11, "grid: ceil_div (got %u)", g);
    expect(grid(gs, int64_t{1} << 40, 32, INT64_MAX, h100, &g) == TK_ERR_UNSUPPORTED_CONFIG,
           "grid: more than 2^31 - 1 blocks is refused");
    expect(grid(gs, int64_t{1} << 40, 32, 1024, h100, &g) == TK_OK && g == 132 * 64 * 1024,
           "grid: n = 2^40 grid-stride stays bounded (got %u)", g);
    expect(grid(os, 1000, 96, 1, h100, &g) == TK_OK && g == 11, "one_shot: ceil_div");
    expect(grid(os, int64_t{1} << 30, 256, 1, h100, &g) == TK_OK && g == (1u << 22),
           "one_shot: no cap (got %u)", g);
    expect(grid(os, 0, 256, 1, h100, &g) == TK_OK && g == 1, "one_shot: no units -> 1 block");
    expect(grid(os, int64_t{1} << 40, 32, 1, h100, &g) == TK_ERR_UNSUPPORTED_CONFIG,
           "one_shot: 2^35 blocks is refused");
    expect(grid(gs, -1, 256, 1, h100, &g) == TK_ERR_INVALID_ARGUMENT, "grid: n_units < 0");
    expect(grid(gs, 10, 0, 1, h100, &g) == TK_ERR_INVALID_ARGUMENT, "grid: block 0");
    expect(grid(gs, 10, 2048, 1, h100, &g) == TK_ERR_INVALID_ARGUMENT, "grid: block 2048");
    expect(grid(gs, 10, 256, 0, h100, &g) == TK_ERR_INVALID_ARGUMENT, "grid: waves 0");
    expect(grid(static_cast<tk_loop>(3), 10, 256, 1, h100, &g) == TK_ERR_INVALID_ARGUMENT,
           "grid: bad loop");

    static_assert(sizeof(tk::Pack<float, 4>) == 16 && alignof(tk::Pack<float, 4>) == 16, "");
    static_assert(sizeof(tk::Pack<__half, 8>) == 16 && alignof(tk::Pack<__half, 8>) == 16, "");
    static_assert(alignof(tk::Pack<__half, 2>) == 4 && tk::kMaxPackSize<__half> == 8, "");
    static_assert(tk::kPackFits<float, 4> && !tk::kPackFits<float, 8> && !tk::kPackFits<float, 3>,
                  "");
    const char *base = reinterpret_cast<const char *>(uintptr_t{1} << 20);
    expect(tk::is_aligned(base, 16) && tk::is_aligned(base + 16, 16) &&
               !tk::is_aligned(base + 2, 16) && tk::is_aligned(base + 2, 2) &&
               !tk::is_aligned(base + 6, 4) && tk::is_aligned(nullptr, 16),
           "is_aligned");
}

/* Elements of bytes[0 .. n * es) still holding the 0xff poison. */
int64_t count_poisoned(const unsigned char *bytes, int64_t n, size_t es)
{
    int64_t poisoned = 0;
    for (int64_t i = 0; i < n; i++) {
        bool all = true;
        for (size_t k = 0; k < es; k++)
            all &= bytes[i * es + k] == 0xff;
        poisoned += all;
    }
    return poisoned;
}

/* A NULL config runs exactly what tk_elementwise_tuned_config reports (same bits out), and with
 * the committed empty header that is the default config. */
void test_null_config(Buffers &b, cudaStream_t s)
{
    const int64_t sizes[] = {1, 8191, kMaxN};
    std::vector<unsigned char> a(kAlloc * 4), c2(kAlloc * 4);
    std::mt19937_64 rng(7);
    for (tk_dtype dt : kDtypes) {
        fill_inputs(b, MUL, dt, rng);
        const size_t es = tk_dtype_size(dt);
        for (int op = 0; op < N_OPS; op++)
            for (int64_t n : sizes) {
                tk_elementwise_config tuned;
                tk_status st = tk_elementwise_tuned_config(kOpNames[op], dt, n, &tuned);
                expect(st == TK_OK, "tuned_config %s %s", kOpNames[op], tk_dtype_name(dt));
                if (tk_tuned_device_count() == 0) {
                    const tk_elementwise_config d = tk_elementwise_default_config(dt);
                    expect(std::memcmp(&d, &tuned, sizeof d) == 0,
                           "empty header: tuned config of %s %s is not the default",
                           kOpNames[op], tk_dtype_name(dt));
                }
                const void *in[3] = {b.in[0], b.in[1], b.in[2]};
                CUDA_OK(memset_sync(b.out, 0xff, n * es));
                tk_status s1 = call_op(static_cast<OpId>(op), dt, n, in, b.out, nullptr, s);
                CUDA_OK(cudaStreamSynchronize(s));
                CUDA_OK(cudaMemcpy(a.data(), b.out, n * es, cudaMemcpyDeviceToHost));
                CUDA_OK(memset_sync(b.out, 0xff, n * es));
                tk_status s2 = call_op(static_cast<OpId>(op), dt, n, in, b.out, &tuned, s);
                CUDA_OK(cudaStreamSynchronize(s));
                CUDA_OK(cudaMemcpy(c2.data(), b.out, n * es, cudaMemcpyDeviceToHost));
                expect(s1 == TK_OK && s2 == TK_OK && count_poisoned(a.data(), n, es) == 0 &&
                           std::memcmp(a.data(), c2.data(), n * es) == 0,
                       "NULL config vs tuned config: %s %s n=%lld", kOpNames[op],
                       tk_dtype_name(dt), (long long)n);
            }
    }
}

/* Which config a NULL config runs on this GPU: for every entry the compiled-in header holds for
 * this device (matched as the library matches it), the tuned config at exactly that size is the
 * entry's config; a device the header does not know gets the default. */
void test_tuned_entries_for_this_device()
{
    const int checked = for_each_tuned_entry(
        "elementwise.",
        [](const tk_tuned_entry &e, int i) {
            tk_elementwise_config want, got;
            const int dt = tk_dtype_parse(e.dtype);
            expect(dt >= 0 && tk_elementwise_config_from_text(e.config, &want) == TK_OK,
                   "header entry %d does not parse: %s", i, e.config);
            expect(tk_elementwise_tuned_config(e.op, static_cast<tk_dtype>(dt), e.size, &got) ==
                           TK_OK &&
                       std::memcmp(&want, &got, sizeof want) == 0,
                   "NULL config for %s %s n=%lld is not the header's %s", e.op, e.dtype,
                   (long long)e.size, e.config);
        },
        [] {
            tk_elementwise_config got;
            tk_elementwise_tuned_config("elementwise.mul", TK_F32, 1 << 20, &got);
            const tk_elementwise_config d = tk_elementwise_default_config(TK_F32);
            expect(std::memcmp(&d, &got, sizeof d) == 0, "unknown device: not the default config");
        });
    expect(checked != 0, "the header knows this GPU but has no elementwise entry for it");
}

void test_bad_arguments(Buffers &b, cudaStream_t s)
{
    const tk_elementwise_config ok = tk_elementwise_default_config(TK_F32);
    void *x = b.in[0], *y = b.out;
    expect(tk_elementwise_unary(TK_RELU, TK_F32, -1, x, y, &ok, s) == TK_ERR_INVALID_ARGUMENT,
           "n < 0");
    expect(tk_elementwise_unary(TK_RELU, TK_F32, 5, nullptr, y, &ok, s) == TK_ERR_INVALID_ARGUMENT,
           "NULL x");
    expect(tk_elementwise_unary(TK_RELU, TK_F32, 5, x, nullptr, &ok, s) == TK_ERR_INVALID_ARGUMENT,
           "NULL y");
    expect(tk_elementwise_unary(static_cast<tk_unary_op>(9), TK_F32, 5, x, y, &ok, s) ==
               TK_ERR_INVALID_ARGUMENT,
           "bad unary op");
    expect(tk_elementwise_unary(TK_GELU, static_cast<tk_dtype>(3), 5, x, y, &ok, s) ==
               TK_ERR_INVALID_ARGUMENT,
           "bad dtype");
    expect(tk_elementwise_binary(static_cast<tk_binary_op>(-1), TK_F32, 5, x, x, y, &ok, s) ==
               TK_ERR_INVALID_ARGUMENT,
           "bad binary op");
    expect(tk_elementwise_binary(TK_ADD, TK_F16, 5, x, nullptr, y, &ok, s) ==
               TK_ERR_INVALID_ARGUMENT,
           "NULL b");
    expect(tk_elementwise_fma(TK_BF16, 5, x, x, nullptr, y, &ok, s) == TK_ERR_INVALID_ARGUMENT,
           "NULL z");
    expect(tk_elementwise_fma(TK_BF16, -3, x, x, x, y, nullptr, s) == TK_ERR_INVALID_ARGUMENT,
           "fma n < 0");
    /* n == 0: nothing to do, NULL pointers allowed */
    expect(tk_elementwise_unary(TK_RELU, TK_F32, 0, nullptr, nullptr, nullptr, s) == TK_OK, "n == 0");
    expect(tk_elementwise_fma(TK_F16, 0, nullptr, nullptr, nullptr, nullptr, &ok, s) == TK_OK,
           "fma n == 0");
    /* unsupported configs */
    struct {
        tk_elementwise_config c;
        tk_dtype dt;
        const char *what;
    } bad[] = {
        {{33, 32, 4, TK_LOOP_GRID_STRIDE, 1, TK_CACHE_NORMAL}, TK_F32, "block_size 33"},
        {{0, 32, 4, TK_LOOP_GRID_STRIDE, 1, TK_CACHE_NORMAL}, TK_F32, "block_size 0"},
        {{1056, 32, 4, TK_LOOP_GRID_STRIDE, 1, TK_CACHE_NORMAL}, TK_F32, "block_size 1056"},
        {{256, 0, 4, TK_LOOP_GRID_STRIDE, 1, TK_CACHE_NORMAL}, TK_F32, "waves 0"},
        {{256, -4, 4, TK_LOOP_GRID_STRIDE, 1, TK_CACHE_NORMAL}, TK_F32, "waves -4"},
        {{256, 32, 3, TK_LOOP_GRID_STRIDE, 1, TK_CACHE_NORMAL}, TK_F32, "pack_size 3"},
        {{256, 32, 8, TK_LOOP_GRID_STRIDE, 1, TK_CACHE_NORMAL}, TK_F32, "pack_size 8 for f32"},
        {{256, 32, 16, TK_LOOP_GRID_STRIDE, 1, TK_CACHE_NORMAL}, TK_F16, "pack_size 16 for f16"},
        {{256, 32, 4, static_cast<tk_loop>(2), 1, TK_CACHE_NORMAL}, TK_F32, "loop 2"},
        {{256, 32, 4, TK_LOOP_GRID_STRIDE, 3, TK_CACHE_NORMAL}, TK_F32, "unroll 3"},
        {{256, 32, 4, TK_LOOP_GRID_STRIDE, 0, TK_CACHE_NORMAL}, TK_F32, "unroll 0"},
        {{256, 32, 4, TK_LOOP_GRID_STRIDE, 1, static_cast<tk_cache_hint>(2)}, TK_F32, "cache_hint 2"},
    };
    for (auto &k : bad) {
        expect(tk_elementwise_unary(TK_RELU, k.dt, 100, x, y, &k.c, s) == TK_ERR_UNSUPPORTED_CONFIG,
               "unary with %s", k.what);
        expect(tk_elementwise_binary(TK_MUL, k.dt, 100, x, x, y, &k.c, s) ==
                   TK_ERR_UNSUPPORTED_CONFIG,
               "binary with %s", k.what);
        expect(tk_elementwise_fma(k.dt, 0, x, x, x, y, &k.c, s) == TK_ERR_UNSUPPORTED_CONFIG,
               "fma n == 0 with %s", k.what);
    }
    tk_elementwise_config c;
    expect(tk_elementwise_tuned_config("elementwise.foo", TK_F32, 10, &c) == TK_ERR_INVALID_ARGUMENT,
           "tuned_config unknown op");
    expect(tk_elementwise_tuned_config("mul", TK_F32, 10, &c) == TK_ERR_INVALID_ARGUMENT,
           "tuned_config bare op name");
    expect(tk_elementwise_tuned_config("elementwise.mul", static_cast<tk_dtype>(5), 10, &c) ==
               TK_ERR_INVALID_ARGUMENT,
           "tuned_config bad dtype");
    expect(tk_elementwise_tuned_config("elementwise.mul", TK_F32, 10, nullptr) ==
               TK_ERR_INVALID_ARGUMENT,
           "tuned_config NULL out");
    expect(cudaStreamSynchronize(s) == cudaSuccess && cudaGetLastError() == cudaSuccess,
           "no CUDA error left behind by rejected calls");
}

/* Host time per call of one batch of relu launches on one element; the batch is short enough
 * that the launch queue never fills (a full queue would time the GPU, not the host), and the
 * synchronisation after it is not timed. */
double time_batch(const tk_elementwise_config *cfg, void *x, void *y, cudaStream_t s)
{
    const int batch = 200;
    cudaStreamSynchronize(s);
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; i++)
        tk_elementwise_unary(TK_RELU, TK_F32, 1, x, y, cfg, s);
    auto t1 = std::chrono::steady_clock::now();
    cudaStreamSynchronize(s);
    return std::chrono::duration<double, std::nano>(t1 - t0).count() / batch;
}

/* The NULL-config overhead: batches with a NULL config and with the same config given
 * explicitly, interleaved (alternating which goes first) so drift hits both alike; the median
 * per-call time of each. Also the lookup alone (tk_elementwise_tuned_config), which is what a
 * NULL config adds, timed without any launch. */
void test_null_config_overhead(Buffers &b, cudaStream_t s)
{
    const int rounds = 400;
    tk_elementwise_config explicit_cfg;
    tk_elementwise_tuned_config("elementwise.relu", TK_F32, 1, &explicit_cfg);
    for (int i = 0; i < 20; i++) { /* warm up: first-call caches, the driver */
        time_batch(nullptr, b.in[0], b.out, s);
        time_batch(&explicit_cfg, b.in[0], b.out, s);
    }
    std::vector<double> with_null, with_explicit;
    for (int r = 0; r < rounds; r++) {
        if (r & 1) {
            with_null.push_back(time_batch(nullptr, b.in[0], b.out, s));
            with_explicit.push_back(time_batch(&explicit_cfg, b.in[0], b.out, s));
        } else {
            with_explicit.push_back(time_batch(&explicit_cfg, b.in[0], b.out, s));
            with_null.push_back(time_batch(nullptr, b.in[0], b.out, s));
        }
    }
    std::sort(with_null.begin(), with_null.end());
    std::sort(with_explicit.begin(), with_explicit.end());
    const double mn = with_null[rounds / 2], me = with_explicit[rounds / 2];
    const int lookups = 1000000;
    tk_elementwise_config sink;
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < lookups; i++)
        tk_elementwise_tuned_config("elementwise.relu", TK_F32, 1 + (i & 1023), &sink);
    auto t1 = std::chrono::steady_clock::now();
    const double lookup_ns = std::chrono::duration<double, std::nano>(t1 - t0).count() / lookups;
    std::printf("host time per call, n = 1: NULL config %.1f ns, explicit config %.1f ns, "
                "difference %.1f ns (limit 100); the tuned lookup alone %.1f ns\n",
                mn, me, mn - me, lookup_ns);
    expect(mn - me <= 100.0, "NULL-config overhead %.1f ns per call exceeds 100 ns", mn - me);
    expect(lookup_ns <= 100.0, "tuned lookup %.1f ns per call exceeds 100 ns", lookup_ns);
    CUDA_OK(cudaStreamSynchronize(s));
    expect(cudaGetLastError() == cudaSuccess, "overhead loop left a CUDA error");
}

/* The tuner's GPU set-up of this family (tuner/ops/gpu_fill.h): the generated inputs equal the
 * host twin's bit for bit (every dtype, the three input streams, the harness's range [-4, 4)),
 * and the GPU reference of every op equals the CPU double reference from the same inputs
 * (exactly, gelu within 1e-14 relative + 1e-300: device and host erfc differ in the last bits). */
void test_gpu_setup()
{
    const int64_t n = 65537;
    for (tk_dtype dt : kDtypes) {
        const void *in[3];
        std::vector<double> host[3];
        for (int k = 0; k < 3; k++) {
            in[k] = check_gpu_fill_matches_twin(dt, n, 0x5eedull + (uint64_t)dt, k, -4.0, 4.0);
            std::vector<unsigned char> bits((size_t)n * tk_dtype_size(dt));
            CUDA_OK(cudaMemcpy(bits.data(), in[k], bits.size(), cudaMemcpyDeviceToHost));
            host[k].resize((size_t)n);
            tk_host_to_double(dt, bits.data(), host[k].data(), n);
        }
        double *ref = nullptr;
        CUDA_OK(cudaMalloc(&ref, (size_t)n * sizeof(double)));
        std::vector<double> got((size_t)n);
        for (int op = 0; op < N_OPS; op++) {
            char err[512] = "";
            /* OpId and gpu_ew_op list the ops in the same order */
            const int rc = gpu_ref_elementwise((gpu_ew_op)op, dt, n, in, ref, err, sizeof err);
            expect(rc == 0, "gpu_ref_elementwise(%s): %s", kOpNames[op], err);
            CUDA_OK(cudaMemcpy(got.data(), ref, got.size() * sizeof(double), cudaMemcpyDeviceToHost));
            int64_t bad = 0, first = -1;
            for (int64_t i = 0; i < n; i++) {
                const double want = reference((OpId)op, host[0][(size_t)i], host[1][(size_t)i],
                                              host[2][(size_t)i]);
                const double tol = op == GELU ? 1e-14 * std::fabs(want) + 1e-300 : 0.0;
                if (!(std::fabs(got[(size_t)i] - want) <= tol)) {
                    if (first < 0) first = i;
                    bad++;
                }
            }
            expect(bad == 0, "GPU reference of %s (dtype %d): %lld of %lld differ from the CPU's, first [%lld]",
                   kOpNames[op], (int)dt, (long long)bad, (long long)n, (long long)first);
        }
        cudaFree(ref);
        for (int k = 0; k < 3; k++) cudaFree(const_cast<void *>(in[k]));
    }
}

/* f32 gelu over every float: chunk c of 2^28 inputs holds the bit patterns [c 2^28, (c+1) 2^28). */
__global__ void every_float_fill(float *x, uint32_t first, int64_t n)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        x[i] = __uint_as_float(first + (uint32_t)i);
}

struct GeluTally {
    unsigned long long finite, bad, special_bad;
    unsigned int max_rel_bits;   /* the largest relative error where |x Phi(x)| > 1e-6, as float bits */
    unsigned int first_bad;      /* the input bits of a failing element (any), 0 if none */
};

/* The test's gelu rule (tolerance, close_enough) against x Phi(x) = x erfc(-x / sqrt 2) / 2 in
 * double, which also gives the special values documented in elementwise.cu: NaN in, NaN out;
 * +inf gives +inf and -inf NaN (-inf times 0). */
__global__ void every_float_check(const float *x, const float *y, int64_t n, GeluTally *t)
{
    unsigned long long finite = 0, bad = 0, special = 0;
    unsigned int max_rel = 0, first_bad = 0;
    double rtol, atol;
    tolerance(GELU, TK_F32, &rtol, &atol);
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        const float f = x[i], g = y[i];
        const double want = 0.5 * (double)f * erfc(-(double)f * 0.70710678118654752440);
        const bool ok = close_enough(g, want, rtol, atol);
        if (f != f || isinf(f)) {
            if (!ok) {
                special++;
                first_bad = __float_as_uint(f);
            }
            continue;
        }
        finite++;
        if (!ok) {
            bad++;
            first_bad = __float_as_uint(f);
        }
        const double err = fabs((double)g - want);
        if (fabs(want) > 1e-6) {
            const float rel = (float)(err / fabs(want));
            max_rel = max(max_rel, __float_as_uint(rel));
        }
    }
    for (int o = 16; o > 0; o /= 2) {
        finite += __shfl_down_sync(0xffffffffu, finite, o);
        bad += __shfl_down_sync(0xffffffffu, bad, o);
        special += __shfl_down_sync(0xffffffffu, special, o);
        max_rel = max(max_rel, __shfl_down_sync(0xffffffffu, max_rel, o));
        first_bad = max(first_bad, __shfl_down_sync(0xffffffffu, first_bad, o));
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(&t->finite, finite);
        atomicAdd(&t->bad, bad);
        atomicAdd(&t->special_bad, special);
        atomicMax(&t->max_rel_bits, max_rel);
        if (first_bad) atomicMax(&t->first_bad, first_bad);
    }
}

/* The f32 gelu's approximations (the hardware's reciprocal and ex2.approx, elementwise.cu) hold
 * for every float, not only the random ones above: all 2^32 bit patterns through the library's
 * default config, each result checked on the GPU against the double reference. Prints the
 * largest relative error where |x Phi(x)| > 1e-6. */
void test_gelu_every_float(cudaStream_t s)
{
    const int64_t chunk = int64_t{1} << 28;
    float *x = nullptr, *y = nullptr;
    GeluTally *t = nullptr;
    if (cudaMalloc(&x, (size_t)chunk * 4) != cudaSuccess ||
        cudaMalloc(&y, (size_t)chunk * 4) != cudaSuccess) {
        cudaFree(x);
        cudaGetLastError();
        std::printf("  skip: f32 gelu over every float (2 GiB of device memory not available)\n");
        return;
    }
    CUDA_OK(cudaMallocManaged(&t, sizeof *t));
    std::memset(t, 0, sizeof *t);
    for (int64_t c = 0; c < (int64_t{1} << 32) / chunk; c++) {
        every_float_fill<<<1024, 256, 0, s>>>(x, (uint32_t)(c * chunk), chunk);
        tk_status st = tk_elementwise_unary(TK_GELU, TK_F32, chunk, x, y, nullptr, s);
        expect(st == TK_OK, "gelu f32 over every float: chunk %lld: %s", (long long)c,
               tk_status_string(st));
        every_float_check<<<1024, 256, 0, s>>>(x, y, chunk, t);
    }
    CUDA_OK(cudaStreamSynchronize(s));
    float max_rel;
    std::memcpy(&max_rel, &t->max_rel_bits, sizeof max_rel);
    expect(t->finite == 4278190080ull, "gelu f32 over every float: %llu finite inputs checked",
           t->finite);
    expect(t->bad == 0 && t->special_bad == 0,
           "gelu f32 over every float: %llu finite and %llu special inputs outside the tolerance "
           "(one: bits 0x%08x)", t->bad, t->special_bad, t->first_bad);
    std::printf("  gelu f32 over every float: %llu finite, max relative error %.3g where |y| > 1e-6\n",
                t->finite, (double)max_rel);
    cudaFree(t);
    cudaFree(x);
    cudaFree(y);
}

} // namespace

int main()
{
    test_grid_rule();
    cudaDeviceProp prop;
    if (!gpu_check_start("elementwise_test", &prop)) return gpu_check_done();
    cudaStream_t s;
    CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    Buffers b;
    for (int k = 0; k < 3; k++)
        CUDA_OK(cudaMalloc(&b.in[k], kAlloc * 4));
    CUDA_OK(cudaMalloc(&b.out, kAlloc * 4));
    CUDA_OK(cudaMallocHost(&b.host_out, kAlloc * 4));

    test_bad_arguments(b, s);
    GPU_TEST_FULL_ONLY(test_gelu_every_float(s));
    test_all_configs(b, s);
    test_relu_special(b, s);
    test_null_config(b, s);
    test_tuned_entries_for_this_device();
    GPU_TEST_FULL_ONLY(test_null_config_overhead(b, s));
    GPU_TEST_FULL_ONLY(test_beyond_int32(s));
    test_gpu_setup();

    for (int k = 0; k < 3; k++)
        cudaFree(b.in[k]);
    cudaFree(b.out);
    cudaFreeHost(b.host_out);
    cudaStreamDestroy(s);
    return gpu_check_done();
}
