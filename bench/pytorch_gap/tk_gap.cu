/* tk_gap.cu: runs one tunekit problem with one explicit config, in isolation, for ncu.sh
 * (bench/pytorch_gap/README.md): the same public entry points and the same inputs as the
 * tuner's harness (random, never zero; index_add: indices uniform in [0, index_range), alpha
 * 0.75, a device status word), so that ncu sees exactly the kernels the tuner timed.
 *
 *   tk_gap time    FAMILY.OP DTYPE SHAPE CONFIG [RUNS]    median of RUNS (default 60) CUDA-event
 *                                                         timed calls, 2 x L2 overwritten before
 *                                                         each (the tuner's `cache: cold`)
 *   tk_gap profile FAMILY.OP DTYPE SHAPE CONFIG [REPS]    3 warm-up calls, then REPS (default 1)
 *                                                         calls between cudaProfilerStart and
 *                                                         cudaProfilerStop (ncu --profile-from-start off)
 *   tk_gap check   FAMILY.OP DTYPE SHAPE CONFIG           parses the arguments only (no GPU)
 *
 * FAMILY.OP: elementwise.{relu,gelu,mul,add,fma},
 * relu_mask.{relu_fwd,add_relu_fwd,relu_bwd,add_relu_bwd}, index_add.add.
 * Built with -DTK_GAP_SHARED (build.sh with SHARED=1) it is a shared library instead, whose
 * tk_gap_open / tk_gap_call / tk_gap_status_ok / tk_gap_close judge.py calls through ctypes. SHAPE and CONFIG are the tuner's text (the `shape` and `config` columns of
 * `tuner best`), e.g.
 *   tk_gap time index_add.add f16 self0=33554432,n_index=1024,index_range=1024,idx64=1 \
 *          block_size=256,grid_cap=32,pack_size=1,small_mode=spread,threshold=1024
 * Shape keys: elementwise and relu_mask n, offset (elements, every pointer), with_mask
 * (relu_mask, default 1); index_add self0..self7, dim, n_index, index_range (0: the whole
 * dimension), idx64 (default 1), offset.
 *
 * Build (repository root, after `make`): nvcc -O3 -std=c++17 -arch=sm_90 -Ikernels -Ituner \
 *     -o build/tk_gap bench/pytorch_gap/tk_gap.cu build/libtunekit.a */
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include "tunekit.h"
#include "ops/gpu_fill.h"

#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            std::fprintf(stderr, "tk_gap: %s:%d: %s: %s\n", __FILE__, __LINE__, #x,           \
                         cudaGetErrorString(e_));                                              \
            std::exit(2);                                                                      \
        }                                                                                      \
    } while (0)

#define TK(x)                                                                                  \
    do {                                                                                       \
        tk_status s_ = (x);                                                                    \
        if (s_ != TK_OK) {                                                                     \
            std::fprintf(stderr, "tk_gap: %s:%d: %s: %s\n", __FILE__, __LINE__, #x,           \
                         tk_status_string(s_));                                                \
            std::exit(2);                                                                      \
        }                                                                                      \
    } while (0)

namespace {

[[noreturn]] void die(const char *what, const char *arg)
{
    std::fprintf(stderr, "tk_gap: %s%s\n", what, arg ? arg : "");
    std::exit(2);
}

/* ---- inputs -------------------------------------------------------------------------------- */

__device__ __forceinline__ void put(float *p, float v) { *p = v; }
__device__ __forceinline__ void put(__half *p, float v) { *p = __float2half(v); }
__device__ __forceinline__ void put(__nv_bfloat16 *p, float v) { *p = __float2bfloat16(v); }

/* p[i] uniform in [lo, hi), never zero before rounding to T: the tuner's generator
 * (gpu_fill_value of tuner/ops/gpu_fill.h, stream 0). */
template <typename T>
__global__ void gap_fill(T *p, size_t n, uint32_t seed, float lo, float hi)
{
    const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
    for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
        put(p + i, static_cast<float>(gpu_fill_value(seed, 0, static_cast<int64_t>(i), lo, hi)));
}

void fill(tk_dtype dt, void *p, size_t n, uint32_t seed, float lo, float hi, cudaStream_t s)
{
    if (n == 0) return;
    const unsigned grid = static_cast<unsigned>(std::min<size_t>((n + 255) / 256, 4096));
    switch (dt) {
    case TK_F32: gap_fill<<<grid, 256, 0, s>>>(static_cast<float *>(p), n, seed, lo, hi); break;
    case TK_F16: gap_fill<<<grid, 256, 0, s>>>(static_cast<__half *>(p), n, seed, lo, hi); break;
    default: gap_fill<<<grid, 256, 0, s>>>(static_cast<__nv_bfloat16 *>(p), n, seed, lo, hi); break;
    }
    CK(cudaGetLastError());
}

std::vector<void *> g_allocs;

/* n elements of es bytes at `offset` elements past a fresh allocation (16 spare at the end). */
void *alloc_at(size_t n, size_t es, int64_t offset)
{
    void *base = nullptr;
    CK(cudaMalloc(&base, (n + static_cast<size_t>(offset) + 16) * es));
    g_allocs.push_back(base);
    return static_cast<char *>(base) + static_cast<size_t>(offset) * es;
}

/* ---- the problem's text -------------------------------------------------------------------- */

struct Shape {
    std::vector<std::pair<std::string, int64_t>> kv;
    int64_t get(const char *key, int64_t def) const
    {
        for (const auto &p : kv)
            if (p.first == key) return p.second;
        return def;
    }
};

Shape parse_shape(const char *text)
{
    Shape s;
    std::string t(text);
    size_t pos = 0;
    while (pos < t.size()) {
        size_t end = t.find(',', pos);
        if (end == std::string::npos) end = t.size();
        const std::string item = t.substr(pos, end - pos);
        const size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0) die("bad shape item: ", item.c_str());
        char *stop = nullptr;
        const long long v = std::strtoll(item.c_str() + eq + 1, &stop, 10);
        if (!stop || *stop != '\0') die("bad shape value: ", item.c_str());
        s.kv.emplace_back(item.substr(0, eq), static_cast<int64_t>(v));
        pos = end + 1;
    }
    return s;
}

/* ---- one problem: its buffers and its call --------------------------------------------------- */

struct Problem {
    std::string op;
    tk_dtype dt = TK_F32;
    size_t es = 4;
    cudaStream_t stream = nullptr;
    /* elementwise / relu_mask */
    int64_t n = 0;
    void *in[3] = {nullptr, nullptr, nullptr};
    void *out = nullptr;
    uint32_t *mask = nullptr;
    void *y = nullptr; /* relu_bwd without mask: y */
    tk_elementwise_config ec{};
    tk_relu_mask_config rc{};
    /* index_add */
    int ndim = 0, dim = 0;
    int64_t shape[TK_INDEX_ADD_MAX_DIMS] = {0};
    int64_t n_index = 0;
    void *index = nullptr;
    tk_index_type itype = TK_INDEX_I64;
    int64_t *status = nullptr;
    tk_index_add_config ic{};
};

/* The config text into the family's struct (no GPU needed: `tk_gap check`). */
void parse_config(Problem &p, const std::string &family, const char *config)
{
    static const char *const ops[] = {"elementwise.relu",       "elementwise.gelu",
                                      "elementwise.mul",        "elementwise.add",
                                      "elementwise.fma",        "relu_mask.relu_fwd",
                                      "relu_mask.add_relu_fwd", "relu_mask.relu_bwd",
                                      "relu_mask.add_relu_bwd", "index_add.add"};
    bool known = false;
    for (const char *o : ops) known = known || p.op == o;
    if (!known) die("unknown op ", p.op.c_str());
    if (family == "elementwise") TK(tk_elementwise_config_from_text(config, &p.ec));
    else if (family == "relu_mask") TK(tk_relu_mask_config_from_text(config, &p.rc));
    else if (family == "index_add") TK(tk_index_add_config_from_text(config, &p.ic));
    else die("unknown family of ", p.op.c_str());
}

void setup_elementwise(Problem &p, const Shape &s)
{
    p.n = s.get("n", 0);
    const int64_t off = s.get("offset", 0);
    if (p.n <= 0) die("elementwise needs n > 0", nullptr);
    const int inputs = p.op == "elementwise.fma" ? 3
                       : (p.op == "elementwise.mul" || p.op == "elementwise.add") ? 2
                       : (p.op == "elementwise.relu" || p.op == "elementwise.gelu") ? 1 : 0;
    if (!inputs) die("unknown op ", p.op.c_str());
    for (int k = 0; k < inputs; k++) {
        p.in[k] = alloc_at(static_cast<size_t>(p.n), p.es, off);
        fill(p.dt, p.in[k], static_cast<size_t>(p.n), 11u + k, -4.0f, 4.0f, p.stream);
    }
    p.out = alloc_at(static_cast<size_t>(p.n), p.es, off);
    fill(p.dt, p.out, static_cast<size_t>(p.n), 99u, -4.0f, 4.0f, p.stream);
}

void setup_relu_mask(Problem &p, const Shape &s)
{
    p.n = s.get("n", 0);
    const int64_t off = s.get("offset", 0);
    const bool with_mask = s.get("with_mask", 1) != 0;
    if (p.n <= 0) die("relu_mask needs n > 0", nullptr);
    const bool add = p.op == "relu_mask.add_relu_fwd" || p.op == "relu_mask.add_relu_bwd";
    const bool bwd = p.op == "relu_mask.relu_bwd" || p.op == "relu_mask.add_relu_bwd";
    if (!add && p.op != "relu_mask.relu_fwd" && p.op != "relu_mask.relu_bwd") die("unknown op ", p.op.c_str());
    const size_t n = static_cast<size_t>(p.n);
    p.in[0] = alloc_at(n, p.es, off); /* x (fwd) or dy (bwd) */
    fill(p.dt, p.in[0], n, 21u, -4.0f, 4.0f, p.stream);
    p.out = alloc_at(n, p.es, off);    /* y (fwd) or dx (bwd) */
    fill(p.dt, p.out, n, 22u, -4.0f, 4.0f, p.stream);
    if (add) { /* the addend (fwd), or the addend's gradient in its own buffer (bwd) */
        p.in[1] = alloc_at(n, p.es, off);
        fill(p.dt, p.in[1], n, 24u, -4.0f, 4.0f, p.stream);
    }
    if (with_mask) {
        void *m = nullptr;
        CK(cudaMalloc(&m, static_cast<size_t>(tk_relu_mask_words(p.n)) * 4 + 64));
        g_allocs.push_back(m);
        p.mask = static_cast<uint32_t *>(m);
    }
    if (bwd) {
        /* the forward of another random x gives the bwd its mask, or its y (scheme none) */
        void *x = alloc_at(n, p.es, off);
        fill(p.dt, x, n, 23u, -4.0f, 4.0f, p.stream);
        p.y = alloc_at(n, p.es, off);
        TK(tk_relu_fwd(p.dt, p.n, x, p.y, p.mask, &p.rc, p.stream));
        if (p.mask) p.y = nullptr;
    }
}

void setup_index_add(Problem &p, const Shape &s)
{
    if (p.op != "index_add.add") die("unknown op ", p.op.c_str());
    static const char *const names[TK_INDEX_ADD_MAX_DIMS] = {"self0", "self1", "self2", "self3",
                                                             "self4", "self5", "self6", "self7"};
    for (int k = 0; k < TK_INDEX_ADD_MAX_DIMS; k++) {
        const int64_t v = s.get(names[k], 0);
        if (v == 0) break;
        p.shape[p.ndim++] = v;
    }
    if (p.ndim == 0) die("index_add needs self0", nullptr);
    p.dim = static_cast<int>(s.get("dim", 0));
    if (p.dim < 0 || p.dim >= p.ndim) die("dim out of range", nullptr);
    p.n_index = s.get("n_index", 1);
    int64_t range = s.get("index_range", 0);
    if (range <= 0) range = p.shape[p.dim];
    p.itype = s.get("idx64", 1) ? TK_INDEX_I64 : TK_INDEX_I32;
    const int64_t off = s.get("offset", 0);
    int64_t self_el = 1, src_el = 1;
    for (int k = 0; k < p.ndim; k++) {
        self_el *= p.shape[k];
        src_el *= k == p.dim ? p.n_index : p.shape[k];
    }
    p.out = alloc_at(static_cast<size_t>(self_el), p.es, off); /* self */
    fill(p.dt, p.out, static_cast<size_t>(self_el), 31u, -1.0f, 1.0f, p.stream);
    p.in[0] = alloc_at(static_cast<size_t>(src_el), p.es, off); /* source */
    fill(p.dt, p.in[0], static_cast<size_t>(src_el), 32u, -1.0f, 1.0f, p.stream);
    /* indices: splitmix64 draws (gpu_fill_mix64 of a Weyl sequence), uniform in [0, range) */
    std::vector<int64_t> idx(static_cast<size_t>(p.n_index));
    uint64_t st = 0x1d8e4e27c47d124full;
    for (auto &v : idx) {
        v = static_cast<int64_t>(gpu_fill_mix64(st) % static_cast<uint64_t>(range));
        st += 0x9E3779B97F4A7C15ull;
    }
    const size_t isz = p.itype == TK_INDEX_I64 ? 8 : 4;
    CK(cudaMalloc(&p.index, static_cast<size_t>(p.n_index) * isz + 16));
    g_allocs.push_back(p.index);
    if (p.itype == TK_INDEX_I64) {
        CK(cudaMemcpy(p.index, idx.data(), idx.size() * 8, cudaMemcpyHostToDevice));
    } else {
        std::vector<int32_t> i32(idx.begin(), idx.end());
        CK(cudaMemcpy(p.index, i32.data(), i32.size() * 4, cudaMemcpyHostToDevice));
    }
    void *w = nullptr;
    CK(cudaMalloc(&w, sizeof(int64_t)));
    g_allocs.push_back(w);
    p.status = static_cast<int64_t *>(w);
}

/* One call of the problem's op, queued on p.stream. */
void call(const Problem &p)
{
    const std::string &op = p.op;
    if (op == "elementwise.relu") TK(tk_elementwise_unary(TK_RELU, p.dt, p.n, p.in[0], p.out, &p.ec, p.stream));
    else if (op == "elementwise.gelu") TK(tk_elementwise_unary(TK_GELU, p.dt, p.n, p.in[0], p.out, &p.ec, p.stream));
    else if (op == "elementwise.mul") TK(tk_elementwise_binary(TK_MUL, p.dt, p.n, p.in[0], p.in[1], p.out, &p.ec, p.stream));
    else if (op == "elementwise.add") TK(tk_elementwise_binary(TK_ADD, p.dt, p.n, p.in[0], p.in[1], p.out, &p.ec, p.stream));
    else if (op == "elementwise.fma") TK(tk_elementwise_fma(p.dt, p.n, p.in[0], p.in[1], p.in[2], p.out, &p.ec, p.stream));
    else if (op == "relu_mask.relu_fwd") TK(tk_relu_fwd(p.dt, p.n, p.in[0], p.out, p.mask, &p.rc, p.stream));
    else if (op == "relu_mask.add_relu_fwd") TK(tk_add_relu_fwd(p.dt, p.n, p.in[0], p.in[1], p.out, p.mask, &p.rc, p.stream));
    else if (op == "relu_mask.relu_bwd") TK(tk_relu_bwd(p.dt, p.n, p.in[0], p.mask, p.y, p.out, &p.rc, p.stream));
    else if (op == "relu_mask.add_relu_bwd")
        TK(tk_add_relu_bwd(p.dt, p.n, p.in[0], p.mask, p.y, p.out, p.in[1], &p.rc, p.stream));
    else if (op == "index_add.add")
        TK(tk_index_add(p.dt, p.out, p.ndim, p.shape, p.dim, p.index, p.itype, p.n_index, p.in[0],
                        0.75, p.status, &p.ic, p.stream));
    else die("unknown op ", op.c_str());
}

/* The problem's buffers and config, on `stream`, filled and ready (the stream synchronized). */
Problem *open_problem(const char *op, const char *dtype, const char *shape, const char *config,
                      cudaStream_t stream)
{
    Problem *p = new Problem;
    p->op = op;
    const int d = tk_dtype_parse(dtype);
    if (d < 0) die("unknown dtype ", dtype);
    p->dt = static_cast<tk_dtype>(d);
    p->es = tk_dtype_size(p->dt);
    const Shape s = parse_shape(shape);
    const std::string family = p->op.substr(0, p->op.find('.'));
    parse_config(*p, family, config);
    p->stream = stream;
    if (family == "elementwise") setup_elementwise(*p, s);
    else if (family == "relu_mask") setup_relu_mask(*p, s);
    else setup_index_add(*p, s);
    CK(cudaStreamSynchronize(p->stream));
    return p;
}

} // namespace

#ifdef TK_GAP_SHARED
/* The same problems as a shared library, for bench/pytorch_gap/judge.py (ctypes), which times
 * tunekit's call and PyTorch's alternately in one process on PyTorch's stream. A bad argument
 * ends the process with tk_gap's message, as the program does. */
extern "C" {
void *tk_gap_open(const char *op, const char *dtype, const char *shape, const char *config,
                  void *stream)
{
    return open_problem(op, dtype, shape, config, static_cast<cudaStream_t>(stream));
}
void tk_gap_call(void *h) { call(*static_cast<Problem *>(h)); }
/* 0 when the calls so far left index_add's status at -1 (always 0 for the other families). */
int tk_gap_status_ok(void *h)
{
    const Problem &p = *static_cast<Problem *>(h);
    if (!p.status) return 1;
    int64_t v = 0;
    CK(cudaStreamSynchronize(p.stream));
    CK(cudaMemcpy(&v, p.status, sizeof v, cudaMemcpyDeviceToHost));
    return v == -1;
}
/* Frees every buffer tk_gap allocated (one problem open at a time). */
void tk_gap_close(void *h)
{
    Problem *p = static_cast<Problem *>(h);
    CK(cudaStreamSynchronize(p->stream));
    for (void *a : g_allocs) CK(cudaFree(a));
    g_allocs.clear();
    delete p;
}
}
#else

/* index_add: the status word must say -1 (every index in range). */
static void check_status(const Problem &p)
{
    if (!p.status) return;
    int64_t v = 0;
    CK(cudaMemcpy(&v, p.status, sizeof v, cudaMemcpyDeviceToHost));
    if (v != -1) {
        std::fprintf(stderr, "tk_gap: index_add status %lld, expected -1\n", static_cast<long long>(v));
        std::exit(3);
    }
}

int main(int argc, char **argv)
{
    if (argc < 6 || (std::strcmp(argv[1], "time") != 0 && std::strcmp(argv[1], "profile") != 0 &&
                     std::strcmp(argv[1], "check") != 0)) {
        std::fprintf(stderr, "usage: tk_gap time|profile|check FAMILY.OP DTYPE SHAPE CONFIG [N]\n");
        return 2;
    }
    const bool timing = std::strcmp(argv[1], "time") == 0;
    const char *config = argv[5];
    const int count = argc > 6 ? std::atoi(argv[6]) : (timing ? 60 : 1);
    if (count < 1) die("bad count ", argv[6]);
    if (std::strcmp(argv[1], "check") == 0) { /* arguments only, no GPU */
        Problem c;
        c.op = argv[2];
        if (tk_dtype_parse(argv[3]) < 0) die("unknown dtype ", argv[3]);
        parse_shape(argv[4]);
        parse_config(c, c.op.substr(0, c.op.find('.')), config);
        std::printf("tk_gap: ok %s %s %s %s\n", c.op.c_str(), argv[3], argv[4], config);
        return 0;
    }
    CK(cudaSetDevice(0));
    cudaStream_t stream = nullptr;
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    Problem &p = *open_problem(argv[2], argv[3], argv[4], config, stream);

    for (int k = 0; k < 3; k++) call(p); /* warm-up: module load, first-touch */
    CK(cudaStreamSynchronize(p.stream));
    check_status(p);

    if (!timing) {
        CK(cudaProfilerStart());
        for (int k = 0; k < count; k++) call(p);
        CK(cudaStreamSynchronize(p.stream));
        CK(cudaProfilerStop());
        check_status(p);
        std::printf("tk_gap: profiled %d call(s) of %s %s %s\n", count, p.op.c_str(), argv[3], argv[4]);
    } else {
        int l2 = 0;
        CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
        const size_t flush_bytes = 2 * static_cast<size_t>(l2 > 0 ? l2 : (50 << 20));
        void *flush = nullptr;
        CK(cudaMalloc(&flush, flush_bytes));
        cudaEvent_t e0, e1;
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));
        std::vector<float> us;
        for (int k = 0; k < count; k++) {
            CK(cudaMemsetAsync(flush, (k + 1) & 0xff, flush_bytes, p.stream)); /* cache: cold */
            CK(cudaEventRecord(e0, p.stream));
            call(p);
            CK(cudaEventRecord(e1, p.stream));
            CK(cudaEventSynchronize(e1));
            float ms = 0;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            us.push_back(ms * 1000.0f);
        }
        check_status(p);
        std::sort(us.begin(), us.end());
        const size_t m = us.size();
        const double med = m % 2 ? us[m / 2] : 0.5 * (us[m / 2 - 1] + us[m / 2]);
        std::printf("tk %s %s %s median_us=%.3f min_us=%.3f p90_us=%.3f runs=%zu\n", p.op.c_str(),
                    argv[3], argv[4], med, us.front(), us[(m * 9) / 10 < m ? (m * 9) / 10 : m - 1], m);
        CK(cudaFree(flush));
    }
    for (void *a : g_allocs) CK(cudaFree(a));
    CK(cudaStreamDestroy(p.stream));
    return 0;
}
#endif /* TK_GAP_SHARED */
