/* probe.cu: the experiments behind the open performance questions, in one program for one device
 * call (`make build/probe`, then `build/probe SECTION`). Each section prints a table; none of its numbers
 * goes into the database or the header (tuner runs do that).
 *
 *  copy     the copy ceiling's dependence on data: 1 GiB cudaMemcpyAsync with the source memset to
 *           a constant (what the tuner measured until now) against random bytes, interleaved, and
 *           a 16-byte-vector copy kernel on random bytes.
 *  read     a read-only stream of 128 MB (reduce.sum f32 at n = 32 Mi) under each L2 state: cold
 *           (2 x L2 overwritten, the tuner's default), clean (2 x L2 read), cold+clean (overwritten
 *           then another 2 x L2 read: cold and no dirty line left), with each load flavour; and the
 *           tuned tk_reduce_sum under the same states: is reduce at the read ceiling, and what do
 *           the dirty lines the flush leaves cost?
 *  gelu     f16 gelu at n = 32 Mi, cold: the erff form (the library's until 2026-11-21) and relu
 *           in one loop structure of the probe's own, and relu and gelu (now the erfc form,
 *           elementwise.cu) through the library at two configs. Measured on an H100 before the
 *           library changed, the probe's loop with the erfc form ran at relu's speed (grid-stride
 *           64 x 8 waves: relu 49.54, erff 50.02, erfc 49.44 us).
 *  layout   f16 mul at n = 32 Mi, cold, through the library, with its three buffers allocated
 *           separately (the tuner's harness) or as slices of one allocation.
 *  hints    f16 relu and mul at n = 32 Mi, cold, in a kernel of the probe's own, with the loads and
 *           the stores each plain, evict-first (.cs or an L2 policy) or evict-last: does sparing
 *           the flush's dirty lines from the read stream help a kernel that also writes?
 *  bulk     Hopper bulk copies (cp.async.bulk into shared memory, S stages in flight per block)
 *           against per-thread loads: the 128 MB read stream and f16 relu at n = 32 Mi, under
 *           cold, clean and cold+idle (cold, then 1 ms idle: does L2 clean itself?), with the
 *           empty kernel's time between two events.
 *  host     host cost of cudaGetDevice against tk_current_device (the driver's current context),
 *           the tuned lookup, and NULL against explicit config calls.
 *
 * Every time is the median of CUDA-event-timed runs after warm-up, inputs random. */
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include "../tests/gpu/gpu_check.h"
#include "current_device.h"
#include "tk_check.h"
#include "tunekit.h"

namespace {

cudaStream_t g_s;
cudaEvent_t g_e0, g_e1;
void *g_flush, *g_flush2;
size_t g_flush_bytes;
unsigned g_fill;
int g_sms;

/* 24 random bits for element i: murmur3's finaliser of i and the seed */
__device__ __forceinline__ float random_unit(size_t i, uint32_t seed)
{
    uint32_t h = (uint32_t)i * 0x9E3779B1u ^ seed;
    h ^= h >> 16; h *= 0x85EBCA6Bu; h ^= h >> 13; h *= 0xC2B2AE35u; h ^= h >> 16;
    return (float)(h >> 8) * (1.0f / 16777216.0f);
}

/* Random floats in [-1, 1) or halves in [-4, 4). */
__global__ void fill_float(float *p, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = 2.0f * random_unit(i, seed) - 1.0f;
}
__global__ void fill_half(__half *p, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = __float2half(8.0f * random_unit(i, seed) - 4.0f);
}

/* COLD_IDLE (not in the read section's sweep): cold, then 1 ms with the GPU idle before the
 * timed run: does L2 write its dirty lines back on its own when DRAM is free? */
enum L2State { COLD, CLEAN, COLD_CLEAN, HOT, N_STATES, COLD_IDLE = N_STATES };
const char *const kStateNames[] = {"cold", "clean", "cold+clean", "hot", "cold+idle"};

void prepare(L2State st)
{
    if (st == COLD || st == COLD_CLEAN || st == COLD_IDLE)
        CUDA_OK(cudaMemsetAsync(g_flush, (int)(++g_fill & 0xff), g_flush_bytes, g_s));
    if (st == COLD_IDLE) {
        CUDA_OK(cudaStreamSynchronize(g_s));
        const auto t0 = std::chrono::steady_clock::now();
        while (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(1)) {}
    }
    if (st == CLEAN && tk_check_flush_l2(g_flush, g_flush_bytes, g_s) != TK_OK) std::exit(2);
    if (st == COLD_CLEAN && tk_check_flush_l2(g_flush2, g_flush_bytes, g_s) != TK_OK) std::exit(2);
}

/* Median microseconds of `runs` timed calls of f, each after prepare(st); 3 warm-ups. */
template <typename F>
double time_us(L2State st, int runs, F f)
{
    for (int i = 0; i < 3; i++) { prepare(st); f(); }
    std::vector<double> t;
    for (int i = 0; i < runs; i++) {
        prepare(st);
        CUDA_OK(cudaEventRecord(g_e0, g_s));
        f();
        CUDA_OK(cudaEventRecord(g_e1, g_s));
        CUDA_OK(cudaEventSynchronize(g_e1));
        float ms = 0;
        CUDA_OK(cudaEventElapsedTime(&ms, g_e0, g_e1));
        t.push_back(ms * 1000.0);
    }
    CUDA_OK(cudaGetLastError());
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

/* ---- copy ---------------------------------------------------------------------------------- */

template <int U>
__global__ void copy_kernel(const uint4 *__restrict__ x, uint4 *__restrict__ y, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (; i + (U - 1) * stride < n; i += U * stride) {
        uint4 v[U];
#pragma unroll
        for (int u = 0; u < U; u++) v[u] = x[i + u * stride];
#pragma unroll
        for (int u = 0; u < U; u++) y[i + u * stride] = v[u];
    }
    for (; i < n; i += stride) y[i] = x[i];
}

void section_copy()
{
    const size_t bytes = (size_t)1 << 30;
    void *src, *dst;
    CUDA_OK(cudaMalloc(&src, bytes));
    CUDA_OK(cudaMalloc(&dst, bytes));
    std::printf("\n== copy: 1 GiB device-to-device, GB/s counting read + written (median of 25) ==\n");
    std::printf("%-6s %14s %14s %16s\n", "round", "memcpy 0x5a", "memcpy random", "kernel random");
    auto memcpy_gbps = [&]() {
        double us = time_us(HOT, 25, [&] {
            CUDA_OK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, g_s));
        });
        return 2.0 * bytes / (us * 1e3);
    };
    for (int r = 0; r < 4; r++) {
        CUDA_OK(cudaMemsetAsync(src, 0x5a, bytes, g_s));
        const double c = memcpy_gbps();
        if (tk_check_fill_random(src, bytes, 1234u + r, g_s) != TK_OK) std::exit(2);
        const double rnd = memcpy_gbps();
        const double k = 2.0 * bytes /
                         (time_us(HOT, 25, [&] {
                              copy_kernel<2><<<g_sms * 4, 512, 0, g_s>>>(
                                  (const uint4 *)src, (uint4 *)dst, bytes / 16);
                          }) * 1e3);
        std::printf("%-6d %14.1f %14.1f %16.1f\n", r, c, rnd, k);
    }
    /* at the size of f16 relu at 32 Mi (64 MB in, 64 MB out), cold */
    const size_t b64 = (size_t)64 << 20;
    const double us64 = time_us(COLD, 50, [&] {
        CUDA_OK(cudaMemcpyAsync(dst, src, b64, cudaMemcpyDeviceToDevice, g_s));
    });
    const double us64k = time_us(COLD, 50, [&] {
        copy_kernel<2><<<g_sms * 4, 512, 0, g_s>>>((const uint4 *)src, (uint4 *)dst, b64 / 16);
    });
    std::printf("64 MB copy, cold, random: memcpy %.2f us (%.1f GB/s), kernel %.2f us (%.1f GB/s)\n",
                us64, 2.0 * b64 / (us64 * 1e3), us64k, 2.0 * b64 / (us64k * 1e3));
    CUDA_OK(cudaFree(src));
    CUDA_OK(cudaFree(dst));
}

/* ---- read ---------------------------------------------------------------------------------- */

enum Load { LD_PLAIN, LD_NC, LD_EF_HINT, LD_NC_EF_HINT, LD_CS, LD_NC_256B, LD_LU, N_LOADS };
const char *const kLoadNames[] = {"ld",          "ld.nc",    "ld.L2::hint(ef)", "ld.nc.L2::hint(ef)",
                                  "ld.cs",       "ld.nc.L2::256B", "ld.lu"};

__device__ __forceinline__ uint64_t ef_policy()
{
    uint64_t p;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
    return p;
}

template <int L>
__device__ __forceinline__ float4 ld(const float4 *p, uint64_t pol)
{
    float4 v;
    if constexpr (L == LD_PLAIN)
        asm volatile("ld.global.v4.f32 {%0,%1,%2,%3}, [%4];"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
    else if constexpr (L == LD_NC)
        asm volatile("ld.global.nc.v4.f32 {%0,%1,%2,%3}, [%4];"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
    else if constexpr (L == LD_EF_HINT)
        asm volatile("ld.global.L1::no_allocate.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p), "l"(pol));
    else if constexpr (L == LD_NC_EF_HINT)
        asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p), "l"(pol));
    else if constexpr (L == LD_CS)
        asm volatile("ld.global.cs.v4.f32 {%0,%1,%2,%3}, [%4];"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
    else if constexpr (L == LD_NC_256B)
        asm volatile("ld.global.nc.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
    else
        asm volatile("ld.global.lu.v4.f32 {%0,%1,%2,%3}, [%4];"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
    return v;
}

template <int L, int U>
__global__ void __launch_bounds__(256) read_sum(const float4 *x, size_t n4, float *out)
{
    const uint64_t pol = (L == LD_EF_HINT || L == LD_NC_EF_HINT) ? ef_policy() : 0;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    float acc = 0;
    for (; i + (U - 1) * stride < n4; i += U * stride) {
        float4 v[U];
#pragma unroll
        for (int u = 0; u < U; u++) v[u] = ld<L>(x + i + u * stride, pol);
#pragma unroll
        for (int u = 0; u < U; u++) acc += (v[u].x + v[u].y) + (v[u].z + v[u].w);
    }
    for (; i < n4; i += stride) {
        float4 v = ld<L>(x + i, pol);
        acc += (v.x + v.y) + (v.z + v.w);
    }
    for (int o = 16; o; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, acc);
}

template <int L>
void launch_read(const float4 *x, size_t n4, float *out, int unroll)
{
    const int grid = g_sms * 8; /* 256-thread blocks, 2048 threads per SM */
    if (unroll == 4) read_sum<L, 4><<<grid, 256, 0, g_s>>>(x, n4, out);
    else read_sum<L, 1><<<grid, 256, 0, g_s>>>(x, n4, out);
}

void section_read()
{
    const size_t n = (size_t)32 << 20, bytes = n * 4;
    float *x, *out;
    CUDA_OK(cudaMalloc(&x, bytes));
    CUDA_OK(cudaMalloc(&out, 64));
    fill_float<<<4 * g_sms, 512, 0, g_s>>>(x, n, 77u);
    std::printf("\n== read: 128 MB read-only stream (f32, n = 32 Mi), us (median of 40), "
                "GB/s read ==\n");
    std::printf("%-20s %6s", "load", "unroll");
    for (int s = 0; s < N_STATES; s++) std::printf(" %18s", kStateNames[s]);
    std::printf("\n");
    using Fn = void (*)(const float4 *, size_t, float *, int);
    const Fn fns[N_LOADS] = {launch_read<0>, launch_read<1>, launch_read<2>, launch_read<3>,
                             launch_read<4>, launch_read<5>, launch_read<6>};
    for (int l = 0; l < N_LOADS; l++)
        for (int u : {1, 4}) {
            std::printf("%-20s %6d", kLoadNames[l], u);
            for (int s = 0; s < N_STATES; s++) {
                const double us = time_us((L2State)s, 40, [&] {
                    fns[l]((const float4 *)x, n / 4, out, u);
                });
                std::printf("  %7.2f (%7.1f)", us, bytes / (us * 1e3));
            }
            std::printf("\n");
        }
    const char *const configs[] = {
        nullptr,
        "block_size=256,cache_hint=evict_first,finish=atomic,load=cop,pack_size=4,unroll=4,"
        "version=9,waves=1",
        "block_size=256,cache_hint=normal,finish=atomic,load=cop,pack_size=4,unroll=4,"
        "version=9,waves=1",
        "block_size=512,cache_hint=normal,finish=atomic,load=no_allocate,pack_size=4,unroll=1,"
        "version=8,waves=1"};
    for (const char *text : configs) {
        tk_reduce_config c;
        const tk_reduce_config *cp = nullptr;
        if (text) {
            if (tk_reduce_config_from_text(text, &c) != TK_OK) {
                std::printf("tk_reduce %s: does not parse\n", text);
                continue;
            }
            cp = &c;
        }
        std::printf("tk_reduce_sum %s\n%27s", text ? text : "(tuned)", "");
        for (int s = 0; s < N_STATES; s++) {
            const double us = time_us((L2State)s, 40, [&] {
                tk_reduce_sum(TK_F32, (int64_t)n, x, out, cp, g_s);
            });
            std::printf("  %7.2f (%7.1f)", us, bytes / (us * 1e3));
        }
        std::printf("\n");
    }
    CUDA_OK(cudaFree(x));
    CUDA_OK(cudaFree(out));
}

/* ---- gelu ---------------------------------------------------------------------------------- */

struct Relu {
    __device__ float operator()(float f) const { return f > 0.0f ? f : 0.0f; }
};
struct GeluErf {
    __device__ float operator()(float f) const
    {
        return 0.5f * f * (1.0f + erff(f * 0.707106781186547524f));
    }
};
template <typename Op, bool OneShot>
__global__ void unary_h8(const uint4 *__restrict__ x, uint4 *__restrict__ y, size_t n8)
{
    const Op op;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n8; i += stride) {
        uint4 v = x[i];
        __half2 *h = reinterpret_cast<__half2 *>(&v);
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const float2 f = __half22float2(h[k]);
            h[k] = __floats2half2_rn(op(f.x), op(f.y));
        }
        y[i] = v;
        if (OneShot) break;
    }
}

void section_gelu()
{
    const size_t n = (size_t)32 << 20, bytes = n * 2;
    __half *x, *y;
    CUDA_OK(cudaMalloc(&x, bytes));
    CUDA_OK(cudaMalloc(&y, bytes));
    fill_half<<<4 * g_sms, 512, 0, g_s>>>(x, n, 99u);
    std::printf("\n== gelu f16, n = 32 Mi, cold: us (median of 40) ==\n");
    struct V { const char *name; int block; int waves; bool one_shot; };
    const V vs[] = {{"grid-stride 64 x 8 waves", 64, 8, false},
                    {"grid-stride 256 x 8 waves", 256, 8, false},
                    {"one-shot 1024", 1024, 0, true},
                    {"one-shot 128", 128, 0, true}};
    std::printf("%-28s %10s %10s\n", "loop", "relu", "gelu erff");
    const size_t n8 = n / 8;
    for (const V &v : vs) {
        const int grid = v.one_shot ? (int)((n8 + v.block - 1) / v.block)
                                    : g_sms * (2048 / v.block) * v.waves / 1;
        double t[2];
        t[0] = time_us(COLD, 40, [&] {
            if (v.one_shot) unary_h8<Relu, true><<<grid, v.block, 0, g_s>>>((const uint4 *)x, (uint4 *)y, n8);
            else unary_h8<Relu, false><<<grid, v.block, 0, g_s>>>((const uint4 *)x, (uint4 *)y, n8);
        });
        t[1] = time_us(COLD, 40, [&] {
            if (v.one_shot) unary_h8<GeluErf, true><<<grid, v.block, 0, g_s>>>((const uint4 *)x, (uint4 *)y, n8);
            else unary_h8<GeluErf, false><<<grid, v.block, 0, g_s>>>((const uint4 *)x, (uint4 *)y, n8);
        });
        std::printf("%-28s %10.2f %10.2f\n", v.name, t[0], t[1]);
    }
    const char *const lib[] = {
        nullptr,
        "block_size=64,cache_hint=normal,loop=grid_stride,pack_size=8,unroll=1,waves=8",
        "block_size=1024,cache_hint=normal,loop=one_shot,pack_size=8,unroll=1,waves=1",
        "block_size=64,cache_hint=evict_first,loop=one_shot,pack_size=8,unroll=1,waves=1"};
    for (const char *text : lib) {
        tk_elementwise_config c;
        if (text && tk_elementwise_config_from_text(text, &c) != TK_OK) continue;
        const tk_elementwise_config *cp = text ? &c : nullptr;
        for (L2State st : {COLD, CLEAN}) {
            const double r = time_us(st, 40, [&] {
                tk_elementwise_unary(TK_RELU, TK_F16, (int64_t)n, x, y, cp, g_s);
            });
            const double g = time_us(st, 40, [&] {
                tk_elementwise_unary(TK_GELU, TK_F16, (int64_t)n, x, y, cp, g_s);
            });
            std::printf("library %s, %s: relu %.2f, gelu %.2f\n", text ? text : "(tuned)",
                        kStateNames[st], r, g);
        }
    }
    CUDA_OK(cudaFree(x));
    CUDA_OK(cudaFree(y));
}

/* ---- layout -------------------------------------------------------------------------------- */

void section_layout()
{
    const size_t n = (size_t)32 << 20, bytes = n * 2;
    std::printf("\n== mul f16, n = 32 Mi, cold, by buffer layout: us (median of 40) ==\n");
    const char *const cfgs[] = {
        "block_size=512,cache_hint=normal,loop=grid_stride,pack_size=8,unroll=1,waves=16",
        "block_size=128,cache_hint=normal,loop=one_shot,pack_size=8,unroll=1,waves=1"};
    struct Layout { const char *name; size_t gap; bool one; };
    const Layout ls[] = {{"3 cudaMallocs (+32 B)", 32, false},
                         {"3 cudaMallocs (exact)", 0, false},
                         {"1 alloc, 64 MiB apart", 0, true},
                         {"1 alloc, +4 KiB stagger", 4096, true},
                         {"1 alloc, +1 MiB stagger", 1 << 20, true}};
    std::printf("%-26s", "layout");
    for (const char *c : cfgs) std::printf(" %14.14s", strstr(c, "loop=") + 5);
    std::printf("\n");
    for (const Layout &l : ls) {
        void *p[3] = {nullptr, nullptr, nullptr}, *base = nullptr;
        if (l.one) {
            CUDA_OK(cudaMalloc(&base, 3 * (bytes + l.gap)));
            for (int k = 0; k < 3; k++) p[k] = (char *)base + k * (bytes + l.gap);
        } else {
            for (int k = 0; k < 3; k++) CUDA_OK(cudaMalloc(&p[k], bytes + l.gap));
        }
        for (int k = 0; k < 2; k++) fill_half<<<4 * g_sms, 512, 0, g_s>>>((__half *)p[k], n, 5u + k);
        std::printf("%-26s", l.name);
        for (const char *text : cfgs) {
            tk_elementwise_config c;
            tk_elementwise_config_from_text(text, &c);
            const double us = time_us(COLD, 40, [&] {
                tk_elementwise_binary(TK_MUL, TK_F16, (int64_t)n, p[0], p[1], p[2], &c, g_s);
            });
            std::printf(" %14.2f", us);
        }
        std::printf("\n");
        if (base) CUDA_OK(cudaFree(base));
        else for (int k = 0; k < 3; k++) CUDA_OK(cudaFree(p[k]));
    }
}

/* ---- host ---------------------------------------------------------------------------------- */

double host_ns(int reps, void (*f)(int))
{
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; i++) f(i);
    auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::nano>(t1 - t0).count() / reps;
}

void *g_x, *g_y;
tk_elementwise_config g_cfg;

void section_host()
{
    std::printf("\n== host: ns per call ==\n");
    CUDA_OK(cudaMalloc(&g_x, 1024));
    CUDA_OK(cudaMalloc(&g_y, 1024));
    tk_elementwise_tuned_config("elementwise.relu", TK_F32, 1, &g_cfg);
    for (int round = 0; round < 3; round++) {
        const double gd = host_ns(1000000, [](int) { int d; cudaGetDevice(&d); });
        const double cd = host_ns(1000000, [](int) { int d; tk_current_device(&d); });
        const double lk = host_ns(1000000, [](int i) {
            tk_elementwise_config c;
            tk_elementwise_tuned_config("elementwise.relu", TK_F32, 1 + (i & 1023), &c);
        });
        std::vector<double> dn, de;
        for (int r = 0; r < 400; r++) {
            for (int which = 0; which < 2; which++) {
                const bool null_first = r & 1;
                const bool use_null = (which == 0) == null_first;
                CUDA_OK(cudaStreamSynchronize(g_s));
                auto t0 = std::chrono::steady_clock::now();
                for (int i = 0; i < 200; i++)
                    tk_elementwise_unary(TK_RELU, TK_F32, 1, g_x, g_y, use_null ? nullptr : &g_cfg, g_s);
                auto t1 = std::chrono::steady_clock::now();
                (use_null ? dn : de).push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / 200);
            }
        }
        CUDA_OK(cudaStreamSynchronize(g_s));
        std::sort(dn.begin(), dn.end());
        std::sort(de.begin(), de.end());
        std::printf("round %d: cudaGetDevice %.1f, tk_current_device %.1f, tuned lookup %.1f, "
                    "launch NULL %.1f, explicit %.1f, difference %.1f\n",
                    round, gd, cd, lk, dn[200], de[200], dn[200] - de[200]);
    }
}

/* ---- hints --------------------------------------------------------------------------------- */

/* Loads and stores of 16 bytes with a chosen cache behaviour: 0 plain, 1 .cs (evict-first in L1
 * and L2), 2 an evict-first L2 policy (loads; L1::no_allocate), 3 an evict-last L2 policy. */
template <int K>
__device__ __forceinline__ uint4 ld16(const uint4 *p, uint64_t ef)
{
    uint4 v;
    if constexpr (K == 0) v = *p;
    else if constexpr (K == 1) v = __ldcs(p);
    else
        asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0,%1,%2,%3}, [%4], %5;"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p), "l"(ef));
    return v;
}
template <int K>
__device__ __forceinline__ void st16(uint4 *p, uint4 v, uint64_t el)
{
    if constexpr (K == 0) *p = v;
    else if constexpr (K == 1) __stcs(p, v);
    else
        asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1,%2,%3,%4}, %5;"
                     :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w), "l"(el) : "memory");
}

/* f16 relu (B = false: y = relu(a)) or mul (B: y = a * b) over 16-byte packs, grid-stride. */
template <int LK, int SK, bool B>
__global__ void __launch_bounds__(1024) hint_h8(const uint4 *__restrict__ a, const uint4 *__restrict__ b,
                                                uint4 *__restrict__ y, size_t n8)
{
    uint64_t ef = 0, el = 0;
    if constexpr (LK == 2) asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(ef));
    if constexpr (SK == 3) asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(el));
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n8; i += stride) {
        uint4 va = ld16<LK>(a + i, ef);
        __half2 *ha = reinterpret_cast<__half2 *>(&va);
        if constexpr (B) {
            uint4 vb = ld16<LK>(b + i, ef);
            const __half2 *hb = reinterpret_cast<const __half2 *>(&vb);
#pragma unroll
            for (int k = 0; k < 4; k++) ha[k] = __hmul2(ha[k], hb[k]);
        } else {
#pragma unroll
            for (int k = 0; k < 4; k++) ha[k] = __hmax2(ha[k], __float2half2_rn(0.0f));
        }
        st16<SK>(y + i, va, el);
    }
}

template <int LK, int SK>
double time_hint(bool binary, const uint4 *a, const uint4 *b, uint4 *y, size_t n8, int block, int waves)
{
    const int grid = g_sms * (2048 / block) * waves;
    return time_us(COLD, 60, [&] {
        if (binary) hint_h8<LK, SK, true><<<grid, block, 0, g_s>>>(a, b, y, n8);
        else hint_h8<LK, SK, false><<<grid, block, 0, g_s>>>(a, b, y, n8);
    });
}

void section_hints()
{
    const size_t n = (size_t)32 << 20, bytes = n * 2, n8 = n / 8;
    void *a, *b, *y;
    CUDA_OK(cudaMalloc(&a, bytes));
    CUDA_OK(cudaMalloc(&b, bytes));
    CUDA_OK(cudaMalloc(&y, bytes));
    fill_half<<<4 * g_sms, 512, 0, g_s>>>((__half *)a, n, 11u);
    fill_half<<<4 * g_sms, 512, 0, g_s>>>((__half *)b, n, 12u);
    std::printf("\n== hints: f16 relu and mul, n = 32 Mi, cold, grid-stride 16-byte packs: us (median "
                "of 60) ==\n");
    struct H { const char *name; double (*fn)(bool, const uint4 *, const uint4 *, uint4 *, size_t, int, int); };
    const H hs[] = {{"ld plain   st plain", time_hint<0, 0>},
                    {"ld .cs     st plain", time_hint<1, 0>},
                    {"ld ef-pol  st plain", time_hint<2, 0>},
                    {"ld plain   st .cs", time_hint<0, 1>},
                    {"ld .cs     st .cs", time_hint<1, 1>},
                    {"ld ef-pol  st el-pol", time_hint<2, 3>},
                    {"ld plain   st el-pol", time_hint<0, 3>}};
    const int shapes[][2] = {{1024, 32}, {256, 8}, {128, 16}};
    std::printf("%-22s", "loads / stores");
    for (const auto &sh : shapes) std::printf("   relu %4dx%-3d   mul %4dx%-3d", sh[0], sh[1], sh[0], sh[1]);
    std::printf("\n");
    for (int round = 0; round < 2; round++)
        for (const H &h : hs) {
            std::printf("%-22s", h.name);
            for (const auto &sh : shapes)
                std::printf("   %13.2f   %12.2f", h.fn(false, (const uint4 *)a, nullptr, (uint4 *)y, n8, sh[0], sh[1]),
                            h.fn(true, (const uint4 *)a, (const uint4 *)b, (uint4 *)y, n8, sh[0], sh[1]));
            std::printf("\n");
        }
    CUDA_OK(cudaFree(a));
    CUDA_OK(cudaFree(b));
    CUDA_OK(cudaFree(y));
}

/* ---- bulk ---------------------------------------------------------------------------------- */
/* Hopper's bulk copies (cp.async.bulk, the TMA's one-dimensional form) against per-thread loads:
 * a persistent grid whose thread 0 keeps S chunks of the input in flight into shared memory
 * (one mbarrier per stage), the block consuming them in order. For the read-only stream: the
 * sum of 128 MB; for a kernel that writes: f16 relu in place in shared memory, each chunk stored
 * back with a bulk store whose stage is reloaded once the store has read it. Also the empty
 * kernel's time between two events (the fixed part of every measured time), and each L2 state
 * including cold+idle. */

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
__device__ __forceinline__ uint32_t smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ uint64_t l2_policy(bool evict_first)
{
    uint64_t p;
    if (evict_first) asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
    else asm volatile("createpolicy.fractional.L2::evict_normal.b64 %0, 1.0;" : "=l"(p));
    return p;
}

__device__ __forceinline__ void mbar_init(uint64_t *bar)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(bar)) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t *bar, uint32_t parity)
{
    asm volatile("{\n"
                 ".reg .pred P1;\n"
                 "LAB_WAIT:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n"
                 "@P1 bra DONE;\n"
                 "bra LAB_WAIT;\n"
                 "DONE:\n"
                 "}\n" ::"r"(smem_addr(bar)),
                 "r"(parity)
                 : "memory");
}
/* thread 0: arm the stage's barrier for `bytes` and start the bulk load into it */
__device__ __forceinline__ void bulk_load(void *dst, const void *src, uint32_t bytes, uint64_t *bar,
                                          uint64_t pol)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)),
                 "r"(bytes)
                 : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint"
                 " [%0], [%1], %2, [%3], %4;" ::"r"(smem_addr(dst)),
                 "l"(src), "r"(bytes), "r"(smem_addr(bar)), "l"(pol)
                 : "memory");
}
__device__ __forceinline__ void bulk_store(void *dst, const void *src, uint32_t bytes, uint64_t pol)
{
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%0], [%1], %2, %3;" ::"l"(
                     dst),
                 "r"(smem_addr(src)), "r"(bytes), "l"(pol)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
/* Both bulk kernels' start: thread 0 initialises the S stage barriers and starts the block's
 * first S chunks (chunk c of iteration i is blockIdx.x + i * gridDim.x, into stage i % S). */
template <int S>
__device__ __forceinline__ void bulk_start(uint64_t *bars, unsigned char *buf, const char *x,
                                           size_t nchunks, uint32_t chunk, uint64_t pol)
{
    if (threadIdx.x == 0) {
        for (int s = 0; s < S; s++) mbar_init(&bars[s]);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        for (int s = 0; s < S; s++) {
            const size_t c = blockIdx.x + (size_t)s * gridDim.x;
            if (c < nchunks) bulk_load(buf + s * chunk, x + c * chunk, chunk, &bars[s], pol);
        }
    }
    __syncthreads();
}
#endif

template <int S>
__global__ void __launch_bounds__(256) bulk_read_sum(const char *x, size_t nchunks, uint32_t chunk,
                                                     float *out, bool evict_first)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    extern __shared__ __align__(128) unsigned char buf[];
    __shared__ uint64_t bars[S];
    const uint64_t pol = l2_policy(evict_first);
    bulk_start<S>(bars, buf, x, nchunks, chunk, pol);
    float acc = 0;
    unsigned it = 0;
    for (size_t c = blockIdx.x; c < nchunks; c += gridDim.x, it++) {
        const unsigned s = it % S;
        mbar_wait(&bars[s], (it / S) & 1);
        const float4 *p = reinterpret_cast<const float4 *>(buf + s * chunk);
        for (unsigned k = threadIdx.x; k < chunk / 16; k += blockDim.x) {
            const float4 v = p[k];
            acc += (v.x + v.y) + (v.z + v.w);
        }
        __syncthreads();
        const size_t next = c + (size_t)S * gridDim.x;
        if (threadIdx.x == 0 && next < nchunks)
            bulk_load(buf + s * chunk, x + next * chunk, chunk, &bars[s], pol);
    }
    for (int o = 16; o; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, acc);
#endif
}

template <int S>
__global__ void __launch_bounds__(256) bulk_relu_h(const char *x, char *y, size_t nchunks,
                                                   uint32_t chunk, bool evict_first)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    extern __shared__ __align__(128) unsigned char buf[];
    __shared__ uint64_t bars[S];
    const uint64_t pol = l2_policy(evict_first), store_pol = l2_policy(false);
    bulk_start<S>(bars, buf, x, nchunks, chunk, pol);
    unsigned it = 0;
    const __half2 zero = __float2half2_rn(0.0f);
    for (size_t c = blockIdx.x; c < nchunks; c += gridDim.x, it++) {
        const unsigned s = it % S;
        mbar_wait(&bars[s], (it / S) & 1);
        uint4 *p = reinterpret_cast<uint4 *>(buf + s * chunk);
        for (unsigned k = threadIdx.x; k < chunk / 16; k += blockDim.x) {
            uint4 v = p[k];
            __half2 *h = reinterpret_cast<__half2 *>(&v);
#pragma unroll
            for (int j = 0; j < 4; j++) h[j] = __hmax2(h[j], zero);
            p[k] = v;
        }
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncthreads();
        if (threadIdx.x == 0) {
            bulk_store(y + c * chunk, p, chunk, store_pol);
            /* every store but this one has read its stage: the previous stage is free */
            asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
            const size_t next = c + (size_t)(S - 1) * gridDim.x;
            if (it >= 1 && next < nchunks) {
                const unsigned ps = (it - 1) % S;
                bulk_load(buf + ps * chunk, x + next * chunk, chunk, &bars[ps], pol);
            }
        }
    }
    if (threadIdx.x == 0) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#endif
}

__global__ void empty_kernel() {}

/* f(std::integral_constant<int, S>{}) for the run-time stage count S of the bulk kernels. */
template <typename F>
void with_stages(int stages, F f)
{
    switch (stages) {
    case 2: f(std::integral_constant<int, 2>{}); break;
    case 4: f(std::integral_constant<int, 4>{}); break;
    case 6: f(std::integral_constant<int, 6>{}); break;
    default: f(std::integral_constant<int, 8>{}); break;
    }
}

void section_bulk()
{
    cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    const L2State states[] = {COLD, CLEAN, COLD_IDLE};
    auto header = [&](const char *what) {
        std::printf("%-44s", what);
        for (L2State s : states) std::printf(" %18s", kStateNames[s]);
        std::printf("\n");
    };
    auto row = [&](const char *name, double bytes, auto f) {
        std::printf("%-44s", name);
        for (L2State s : states) {
            const double us = time_us(s, 40, f);
            std::printf("  %7.2f (%7.1f)", us, bytes / (us * 1e3));
        }
        std::printf("\n");
    };
    std::printf("\n== bulk: us (median of 40), GB/s ==\n");
    header("empty kernel");
    row("<<<1, 32>>>", 0, [&] { empty_kernel<<<1, 32, 0, g_s>>>(); });
    row("<<<SMs x 8, 256>>>", 0, [&] { empty_kernel<<<g_sms * 8, 256, 0, g_s>>>(); });

    const size_t n = (size_t)32 << 20, bytes = n * 4;
    float *x, *out;
    CUDA_OK(cudaMalloc(&x, bytes));
    CUDA_OK(cudaMalloc(&out, 64));
    fill_float<<<4 * g_sms, 512, 0, g_s>>>(x, n, 77u);
    header("read 128 MB");
    row("tk_reduce_sum (tuned)", bytes, [&] { tk_reduce_sum(TK_F32, (int64_t)n, x, out, nullptr, g_s); });
    for (int per_sm : {4, 8, 16})
        for (int u : {4, 8}) {
            char name[64];
            std::snprintf(name, sizeof name, "ld ef unroll %d, SMs x %d blocks", u, per_sm);
            row(name, bytes, [&] {
                if (u == 4) read_sum<LD_EF_HINT, 4><<<g_sms * per_sm, 256, 0, g_s>>>((const float4 *)x, n / 4, out);
                else read_sum<LD_EF_HINT, 8><<<g_sms * per_sm, 256, 0, g_s>>>((const float4 *)x, n / 4, out);
            });
        }
    if (prop.major < 9) {
        std::printf("bulk copies need sm_90; skipped\n");
        return;
    }
    struct B { int stages; uint32_t chunk; int per_sm; };
    const B bs[] = {{4, 8192, 2}, {4, 16384, 2}, {8, 8192, 2}, {4, 16384, 3}, {2, 32768, 2},
                    {6, 16384, 2}, {4, 4096, 4}};
    for (int stages : {2, 4, 6, 8})
        with_stages(stages, [](auto S) {
            const int limit = 200 << 10;
            CUDA_OK(cudaFuncSetAttribute(bulk_read_sum<S>, cudaFuncAttributeMaxDynamicSharedMemorySize, limit));
            CUDA_OK(cudaFuncSetAttribute(bulk_relu_h<S>, cudaFuncAttributeMaxDynamicSharedMemorySize, limit));
        });
    for (const B &b : bs) {
        const size_t smem = (size_t)b.stages * b.chunk;
        for (bool ef : {false, true}) {
            char name[80];
            std::snprintf(name, sizeof name, "bulk %d x %u KB, SMs x %d, %s", b.stages, b.chunk >> 10,
                          b.per_sm, ef ? "evict_first" : "normal");
            const size_t nchunks = bytes / b.chunk;
            const int grid = g_sms * b.per_sm;
            row(name, bytes, [&] {
                CUDA_OK(cudaMemsetAsync(out, 0, 4, g_s));
                with_stages(b.stages, [&](auto S) {
                    bulk_read_sum<S><<<grid, 256, smem, g_s>>>((const char *)x, nchunks, b.chunk, out, ef);
                });
            });
        }
    }
    {
        /* check the sum once against tk_reduce_sum */
        float a = 0, b = 0;
        tk_reduce_sum(TK_F32, (int64_t)n, x, out, nullptr, g_s);
        CUDA_OK(cudaMemcpyAsync(&a, out, 4, cudaMemcpyDeviceToHost, g_s));
        CUDA_OK(cudaMemsetAsync(out, 0, 4, g_s));
        bulk_read_sum<4><<<g_sms * 2, 256, 4 * 16384, g_s>>>((const char *)x, bytes / 16384, 16384, out, true);
        CUDA_OK(cudaMemcpyAsync(&b, out, 4, cudaMemcpyDeviceToHost, g_s));
        CUDA_OK(cudaStreamSynchronize(g_s));
        std::printf("check: tk_reduce_sum %.6g, bulk %.6g\n", a, b);
    }
    /* the bulk sum rows time a 4-byte memset of the result too; its own time: */
    row("memset 4 B (inside the bulk rows)", 0, [&] { CUDA_OK(cudaMemsetAsync(out, 0, 4, g_s)); });
    CUDA_OK(cudaFree(x));

    const size_t nh = (size_t)32 << 20, hbytes = nh * 2;
    __half *hx, *hy;
    CUDA_OK(cudaMalloc(&hx, hbytes));
    CUDA_OK(cudaMalloc(&hy, hbytes));
    fill_half<<<4 * g_sms, 512, 0, g_s>>>(hx, nh, 99u);
    header("relu f16, n = 32 Mi (GB/s read + written)");
    row("tk relu (tuned)", 2.0 * hbytes, [&] {
        tk_elementwise_unary(TK_RELU, TK_F16, (int64_t)nh, hx, hy, nullptr, g_s);
    });
    row("tk gelu (tuned)", 2.0 * hbytes, [&] {
        tk_elementwise_unary(TK_GELU, TK_F16, (int64_t)nh, hx, hy, nullptr, g_s);
    });
    row("memcpy 64 MB", 2.0 * hbytes, [&] {
        CUDA_OK(cudaMemcpyAsync(hy, hx, hbytes, cudaMemcpyDeviceToDevice, g_s));
    });
    for (const B &b : bs) {
        const size_t smem = (size_t)b.stages * b.chunk;
        for (bool ef : {false, true}) {
            char name[80];
            std::snprintf(name, sizeof name, "bulk relu %d x %u KB, SMs x %d, %s", b.stages,
                          b.chunk >> 10, b.per_sm, ef ? "evict_first" : "normal");
            const size_t nchunks = hbytes / b.chunk;
            const int grid = g_sms * b.per_sm;
            row(name, 2.0 * hbytes, [&] {
                with_stages(b.stages, [&](auto S) {
                    bulk_relu_h<S><<<grid, 256, smem, g_s>>>((const char *)hx, (char *)hy, nchunks, b.chunk, ef);
                });
            });
        }
    }
    {
        /* check: the bulk relu's output equals the library's */
        std::vector<__half> a(nh), b(nh);
        tk_elementwise_unary(TK_RELU, TK_F16, (int64_t)nh, hx, hy, nullptr, g_s);
        CUDA_OK(cudaMemcpyAsync(a.data(), hy, hbytes, cudaMemcpyDeviceToHost, g_s));
        CUDA_OK(cudaMemsetAsync(hy, 0xff, hbytes, g_s));
        bulk_relu_h<4><<<g_sms * 2, 256, 4 * 16384, g_s>>>((const char *)hx, (char *)hy, hbytes / 16384, 16384, true);
        CUDA_OK(cudaMemcpyAsync(b.data(), hy, hbytes, cudaMemcpyDeviceToHost, g_s));
        CUDA_OK(cudaStreamSynchronize(g_s));
        std::printf("check: bulk relu %s the library's\n",
                    std::memcmp(a.data(), b.data(), hbytes) ? "DIFFERS from" : "equals");
    }
    CUDA_OK(cudaFree(hx));
    CUDA_OK(cudaFree(hy));
    CUDA_OK(cudaFree(out));
}

} // namespace


int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : "copy,read,gelu,layout,host";
    cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    g_sms = prop.multiProcessorCount;
    std::printf("device: %s, %d SMs, L2 %d MB\n", prop.name, g_sms, prop.l2CacheSize >> 20);
    CUDA_OK(cudaStreamCreateWithFlags(&g_s, cudaStreamNonBlocking));
    CUDA_OK(cudaEventCreate(&g_e0));
    CUDA_OK(cudaEventCreate(&g_e1));
    g_flush_bytes = 2 * (size_t)prop.l2CacheSize;
    CUDA_OK(cudaMalloc(&g_flush, g_flush_bytes));
    CUDA_OK(cudaMalloc(&g_flush2, g_flush_bytes));
    if (tk_check_fill_random(g_flush, g_flush_bytes, 1u, g_s) != TK_OK ||
        tk_check_fill_random(g_flush2, g_flush_bytes, 2u, g_s) != TK_OK)
        return 2;
    if (strstr(only, "host")) section_host();
    if (strstr(only, "copy")) section_copy();
    if (strstr(only, "read")) section_read();
    if (strstr(only, "gelu")) section_gelu();
    if (strstr(only, "layout")) section_layout();
    if (strstr(only, "hints")) section_hints();
    if (strstr(only, "bulk")) section_bulk();
    CUDA_OK(cudaDeviceSynchronize());
    return 0;
}
