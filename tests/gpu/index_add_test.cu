/* index_add_test.cu: GPU test of the index_add family (kernels/index_add.cu, tk_index_add).
 *
 * Exact cases: self and source hold small non-zero integers (|v| <= 4; bf16 <= 2) and alpha is
 * 1, 0.5 or -2, so with at most ~60 contributions per element every product and running sum
 * is exactly representable (bf16: integers below 256, halves below 128; f16: below 2048), and
 * the result must equal the double reference bit for bit whatever order the atomics land in.
 * For f32/f16/bf16 x int32/int64 indices x shapes of 1 to 8
 * dimensions (every dim of several; duplicate-heavy index lists; a size-1 dimension; inner
 * sizes that do and do not divide the pack) x the three kernels (large: threshold 0; small
 * owner and small spread: threshold 4096) x block sizes, grid caps and packs x self and source
 * aligned or shifted one element: the status word must read -1 and self must match exactly.
 * Then: out-of-range indices (D, -1, huge; first, middle, last position) on the small and the
 * large path: self keeps every bit and the status word names the first bad position; the
 * synchronous form (status NULL) returns TK_ERR_OUT_OF_RANGE / TK_OK; n_index 0 and empty
 * tensors; duplicate-heavy f32 sums beyond 16-bit range; contention: many indices into few rows
 * (H100 run 8's 4096 indices into 8 rows of 4096, two rows, 1-D, 3-D, inner 36, odd shifted
 * rows), up to 2048 contributions per element, each dtype x every kernel, mode, pack, grid cap 1
 * to 32 and block 32 to 1024, three runs each, +-1 values so that every sum is exact and one lost
 * or doubled update shows; self beyond 2^31 elements (64-bit
 * index arithmetic); NULL-config calls (the tuned config, threshold included, is printed for the
 * write-up's five shapes, then timed: "index_add <shape>: <us> us"); bad arguments and configs.
 * Prints "N passed, N failed" last; exits non-zero on failure; skips without a GPU. */
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>
#include <cuda_runtime.h>
#include "tk_check.h"
#include "tunekit.h"
#include "gpu_check.h"

namespace {

const tk_dtype kDtypes[] = {TK_F32, TK_F16, TK_BF16};

struct Case {
    std::vector<int64_t> shape;
    int dim;
    int64_t n_index, range;   /* indices uniform in [0, range) */
};

struct Sizes {
    int64_t outer = 1, d = 0, inner = 1, self_n = 0, src_n = 0;
};

Sizes sizes_of(const Case &c)
{
    Sizes s;
    const int dim = c.dim < 0 ? c.dim + static_cast<int>(c.shape.size()) : c.dim;
    for (int k = 0; k < static_cast<int>(c.shape.size()); k++) {
        if (k < dim) s.outer *= c.shape[k];
        if (k > dim) s.inner *= c.shape[k];
    }
    s.d = c.shape[dim];
    s.self_n = s.outer * s.d * s.inner;
    s.src_n = s.outer * c.n_index * s.inner;
    return s;
}

std::string describe(const Case &c)
{
    std::string t = "(";
    for (size_t k = 0; k < c.shape.size(); k++) t += (k ? "," : "") + std::to_string(c.shape[k]);
    return t + ") dim " + std::to_string(c.dim) + " n_index " + std::to_string(c.n_index) +
           " range " + std::to_string(c.range);
}

/* Device copies of one case's tensors, each `shift` elements past an aligned allocation. */
struct Tensors {
    tk_dtype dt;
    tk_index_type it;
    int64_t shift = 0;
    void *self_alloc = nullptr, *src_alloc = nullptr, *index = nullptr;
    int64_t *status = nullptr;
    std::vector<double> self0, src;
    std::vector<int64_t> idx;
    std::vector<unsigned char> self0_bits;
    char *self() const { return static_cast<char *>(self_alloc) + shift * tk_dtype_size(dt); }
    char *source() const { return static_cast<char *>(src_alloc) + shift * tk_dtype_size(dt); }
};

/* Small non-zero integers in [-lim, lim]. */
double small_int(std::mt19937_64 &rng, int lim)
{
    const int v = static_cast<int>(rng() % (2 * lim)) - lim;
    return v >= 0 ? v + 1 : v;
}

/* t.idx to the device index buffer, as int64 or int32. */
void upload_indices(const Tensors &t)
{
    const int64_t n = static_cast<int64_t>(t.idx.size());
    if (t.it == TK_INDEX_I64) {
        CUDA_OK(cudaMemcpy(t.index, t.idx.data(), n * 8, cudaMemcpyHostToDevice));
    } else {
        std::vector<int32_t> i32(t.idx.begin(), t.idx.end());
        CUDA_OK(cudaMemcpy(t.index, i32.data(), n * 4, cudaMemcpyHostToDevice));
    }
}

void upload(Tensors &t, const Case &c, const Sizes &s, std::mt19937_64 &rng, int lim)
{
    const size_t es = tk_dtype_size(t.dt);
    t.self0.resize(s.self_n);
    t.src.resize(s.src_n);
    for (auto &v : t.self0) v = small_int(rng, lim);
    for (auto &v : t.src) v = small_int(rng, lim);
    t.idx.resize(c.n_index);
    for (auto &v : t.idx) v = c.range > 0 ? static_cast<int64_t>(rng() % c.range) : 0;
    CUDA_OK(cudaMalloc(&t.self_alloc, (s.self_n + t.shift + 8) * es));
    CUDA_OK(cudaMalloc(&t.src_alloc, (s.src_n + t.shift + 8) * es));
    CUDA_OK(cudaMalloc(&t.index, c.n_index * 8 + 8));
    CUDA_OK(cudaMalloc(&t.status, sizeof(int64_t)));
    t.self0_bits.assign(s.self_n * es, 0);
    tk_host_from_double(t.dt, t.self0.data(), t.self0_bits.data(), s.self_n);
    CUDA_OK(cudaMemcpy(t.self(), t.self0_bits.data(), s.self_n * es, cudaMemcpyHostToDevice));
    std::vector<unsigned char> bits(s.src_n * es);
    tk_host_from_double(t.dt, t.src.data(), bits.data(), s.src_n);
    CUDA_OK(cudaMemcpy(t.source(), bits.data(), s.src_n * es, cudaMemcpyHostToDevice));
    upload_indices(t);
}

void release(Tensors &t)
{
    CUDA_OK(cudaFree(t.self_alloc));
    CUDA_OK(cudaFree(t.src_alloc));
    CUDA_OK(cudaFree(t.index));
    CUDA_OK(cudaFree(t.status));
}

/* The double reference of self after the call. */
std::vector<double> reference(const Tensors &t, const Sizes &s, int64_t n_index, double alpha)
{
    std::vector<double> r = t.self0;
    for (int64_t o = 0; o < s.outer; o++)
        for (int64_t j = 0; j < n_index; j++)
            for (int64_t i = 0; i < s.inner; i++)
                r[(o * s.d + t.idx[j]) * s.inner + i] += alpha * t.src[(o * n_index + j) * s.inner + i];
    return r;
}

std::vector<double> read_self(const Tensors &t, const Sizes &s, std::vector<unsigned char> *bits)
{
    const size_t es = tk_dtype_size(t.dt);
    bits->assign(s.self_n * es, 0);
    CUDA_OK(cudaMemcpy(bits->data(), t.self(), bits->size(), cudaMemcpyDeviceToHost));
    std::vector<double> v(s.self_n);
    tk_host_to_double(t.dt, bits->data(), v.data(), s.self_n);
    return v;
}

int64_t read_status(const Tensors &t)
{
    int64_t w = 0;
    CUDA_OK(cudaMemcpy(&w, t.status, sizeof w, cudaMemcpyDeviceToHost));
    return w;
}

/* One exact case: returns false after reporting the first mismatch. */
void run_exact(tk_dtype dt, tk_index_type it, const Case &c, const tk_index_add_config &cfg,
               double alpha, int64_t shift, std::mt19937_64 &rng)
{
    const Sizes s = sizes_of(c);
    Tensors t;
    t.dt = dt;
    t.it = it;
    t.shift = shift;
    upload(t, c, s, rng, dt == TK_BF16 ? 2 : 4);
    CUDA_OK(memset_sync(t.status, 0x5a, sizeof(int64_t)));
    const tk_status st = tk_index_add(dt, t.self(), static_cast<int>(c.shape.size()), c.shape.data(),
                                      c.dim, t.index, it, c.n_index, t.source(), alpha, t.status,
                                      &cfg, 0);
    CUDA_OK(cudaDeviceSynchronize());
    char what[300];
    std::snprintf(what, sizeof what, "%s %s %s: threshold %d %s block %d grid_cap %d pack %d "
                  "alpha %g shift %lld", tk_dtype_name(dt), it == TK_INDEX_I64 ? "i64" : "i32",
                  describe(c).c_str(), cfg.threshold,
                  cfg.small_mode == TK_INDEX_SMALL_SPREAD ? "spread" : "owner", cfg.block_size,
                  cfg.grid_cap, cfg.pack_size, alpha, (long long)shift);
    expect(st == TK_OK, "%s: status %s", what, tk_status_string(st));
    expect(read_status(t) == -1, "%s: status word %lld", what, (long long)read_status(t));
    const std::vector<double> want = reference(t, s, c.n_index, alpha);
    std::vector<unsigned char> bits;
    const std::vector<double> got = read_self(t, s, &bits);
    int64_t bad = 0, first = -1;
    for (int64_t k = 0; k < s.self_n; k++)
        if (got[k] != want[k] && bad++ == 0) first = k;
    expect(bad == 0, "%s: %lld elements differ, first [%lld] got %g expected %g", what,
           (long long)bad, (long long)first, first >= 0 ? got[first] : 0.0,
           first >= 0 ? want[first] : 0.0);
    release(t);
}

std::vector<Case> exact_cases()
{
    return {
        {{1000}, 0, 37, 1000},
        {{7}, 0, 30, 7},                          /* duplicates */
        {{1}, 0, 3, 1},
        {{50, 33}, 0, 20, 50},
        {{50, 33}, 1, 40, 33},
        {{50, 33}, -1, 5, 33},
        {{4, 30, 16}, 1, 25, 30},                 /* inner 16: every pack fits */
        {{4, 30, 16}, 2, 9, 16},
        {{4, 30, 16}, 0, 6, 4},
        {{2, 3, 2, 4, 1, 2, 3, 2}, 3, 9, 4},      /* 8 dimensions */
        {{2, 3, 2, 4, 1, 2, 3, 2}, 7, 5, 2},
        {{2, 3, 2, 4, 1, 2, 3, 2}, 4, 3, 1},      /* a size-1 dimension */
        {{64, 1024}, 0, 300, 8},                  /* 37 duplicates per row on average */
        {{3, 1000, 37}, 1, 300, 1000},            /* odd inner */
    };
}

std::vector<tk_index_add_config> exact_configs(tk_dtype dt)
{
    std::vector<tk_index_add_config> v;
    const int max_pack = dt == TK_F32 ? 4 : 8;
    for (int threshold : {0, 4096})
        for (tk_index_add_small_mode m : {TK_INDEX_SMALL_OWNER, TK_INDEX_SMALL_SPREAD}) {
            if (threshold == 0 && m == TK_INDEX_SMALL_SPREAD) continue;
            for (int pack = 1; pack <= max_pack; pack *= 2) {
                v.push_back({threshold, 32, 1, pack, m});
                v.push_back({threshold, 256, 64, pack, m});
            }
            v.push_back({threshold, 96, 3, 2, m});
        }
    return v;
}

void test_exact(std::mt19937_64 &rng)
{
    for (tk_dtype dt : kDtypes)
        for (tk_index_type it : {TK_INDEX_I32, TK_INDEX_I64})
            for (const Case &c : exact_cases())
                for (const tk_index_add_config &cfg : exact_configs(dt)) {
                    if (!gpu_test_sample()) continue;   /* all but in the small mode */
                    run_exact(dt, it, c, cfg, 1.0, 0, rng);
                    if (cfg.pack_size > 1 && cfg.block_size == 256)
                        run_exact(dt, it, c, cfg, 0.5, 1, rng);   /* misaligned: scalar */
                }
    /* alpha -2 and the default config */
    const tk_index_add_config def = tk_index_add_default_config();
    for (tk_dtype dt : kDtypes)
        for (const Case &c : exact_cases()) run_exact(dt, TK_INDEX_I64, c, def, -2.0, 0, rng);
}

/* Out-of-range indices leave self alone and report the first bad position. */
void test_out_of_range(std::mt19937_64 &rng)
{
    const Case c = {{40, 24}, 0, 50, 40};
    const int64_t bad_values[] = {40, -1, int64_t{1} << 40};
    const int64_t positions[][2] = {{0, -1}, {25, 49}, {49, -1}};
    for (tk_dtype dt : kDtypes)
        for (tk_index_type it : {TK_INDEX_I32, TK_INDEX_I64})
            for (int threshold : {0, 4096})
                for (tk_index_add_small_mode m : {TK_INDEX_SMALL_OWNER, TK_INDEX_SMALL_SPREAD})
                    for (int64_t bv : bad_values)
                        for (const auto &pos : positions) {
                            if (it == TK_INDEX_I32 && bv > INT32_MAX) continue;
                            const Sizes s = sizes_of(c);
                            Tensors t;
                            t.dt = dt;
                            t.it = it;
                            upload(t, c, s, rng, 4);
                            for (int64_t p : pos) {
                                if (p < 0) continue;
                                t.idx[p] = bv;
                                if (it == TK_INDEX_I64)
                                    CUDA_OK(cudaMemcpy(static_cast<int64_t *>(t.index) + p, &bv, 8, cudaMemcpyHostToDevice));
                                else {
                                    const int32_t b32 = static_cast<int32_t>(bv);
                                    CUDA_OK(cudaMemcpy(static_cast<int32_t *>(t.index) + p, &b32, 4, cudaMemcpyHostToDevice));
                                }
                            }
                            tk_index_add_config cfg = {threshold, 128, 4, 2, m};
                            CUDA_OK(memset_sync(t.status, 0x5a, 8));
                            tk_status st = tk_index_add(dt, t.self(), 2, c.shape.data(), 0, t.index, it,
                                                        c.n_index, t.source(), 1.0, t.status, &cfg, 0);
                            CUDA_OK(cudaDeviceSynchronize());
                            char what[160];
                            std::snprintf(what, sizeof what, "%s %s threshold %d mode %d bad value %lld at %lld",
                                          tk_dtype_name(dt), it == TK_INDEX_I64 ? "i64" : "i32", threshold,
                                          m, (long long)bv, (long long)pos[0]);
                            expect(st == TK_OK, "%s: async call %s", what, tk_status_string(st));
                            expect(read_status(t) == pos[0], "%s: status word %lld", what,
                                   (long long)read_status(t));
                            std::vector<unsigned char> bits;
                            read_self(t, s, &bits);
                            expect(bits == t.self0_bits, "%s: self changed", what);
                            st = tk_index_add(dt, t.self(), 2, c.shape.data(), 0, t.index, it,
                                              c.n_index, t.source(), 1.0, nullptr, &cfg, 0);
                            expect(st == TK_ERR_OUT_OF_RANGE, "%s: sync call %s", what, tk_status_string(st));
                            read_self(t, s, &bits);
                            expect(bits == t.self0_bits, "%s: self changed (sync)", what);
                            release(t);
                        }
    /* the synchronous form on good indices */
    const Sizes s = sizes_of(c);
    Tensors t;
    t.dt = TK_F32;
    t.it = TK_INDEX_I64;
    upload(t, c, s, rng, 4);
    for (int threshold : {0, 4096}) {
        tk_index_add_config cfg = {threshold, 128, 4, 1, TK_INDEX_SMALL_OWNER};
        const tk_status st = tk_index_add(TK_F32, t.self(), 2, c.shape.data(), 0, t.index,
                                          TK_INDEX_I64, c.n_index, t.source(), 1.0, nullptr, &cfg, 0);
        expect(st == TK_OK, "sync call on good indices (threshold %d): %s", threshold, tk_status_string(st));
    }
    std::vector<unsigned char> bits;
    const std::vector<double> got = read_self(t, s, &bits);
    std::vector<double> want = reference(t, s, c.n_index, 1.0);
    for (int64_t k = 0; k < s.self_n; k++) want[k] += want[k] - t.self0[k];   /* added twice */
    expect(got == want, "two synchronous calls add twice");
    release(t);
}

/* n_index 0, a self dimension of size 0 (every index out of range), an empty inner part. */
void test_empty(std::mt19937_64 &rng)
{
    for (int threshold : {0, 4096}) {
        tk_index_add_config cfg = {threshold, 128, 4, 1, TK_INDEX_SMALL_OWNER};
        {
            const Case c = {{10, 4}, 0, 0, 10};
            const Sizes s = sizes_of(c);
            Tensors t;
            t.dt = TK_F32;
            t.it = TK_INDEX_I64;
            upload(t, c, s, rng, 4);
            CUDA_OK(memset_sync(t.status, 0x5a, 8));
            expect(tk_index_add(TK_F32, t.self(), 2, c.shape.data(), 0, t.index, TK_INDEX_I64, 0,
                                t.source(), 1.0, t.status, &cfg, 0) == TK_OK, "n_index 0");
            CUDA_OK(cudaDeviceSynchronize());
            expect(read_status(t) == -1, "n_index 0: status %lld", (long long)read_status(t));
            std::vector<unsigned char> bits;
            read_self(t, s, &bits);
            expect(bits == t.self0_bits, "n_index 0 changed self");
            expect(tk_index_add(TK_F32, t.self(), 2, c.shape.data(), 0, nullptr, TK_INDEX_I64, 0,
                                t.source(), 1.0, nullptr, &cfg, 0) == TK_OK, "n_index 0, sync");
            release(t);
        }
        int64_t *status = nullptr;
        CUDA_OK(cudaMalloc(&status, 8));
        int64_t *idx = nullptr;
        const int64_t h_idx[3] = {0, 2, 1};
        CUDA_OK(cudaMalloc(&idx, sizeof h_idx));
        CUDA_OK(cudaMemcpy(idx, h_idx, sizeof h_idx, cudaMemcpyHostToDevice));
        const int64_t zero_dim[2] = {0, 5}, zero_inner[2] = {5, 0};
        void *source = nullptr;   /* 3 x 5 elements; never read: every index is out of range */
        CUDA_OK(cudaMalloc(&source, 64));
        expect(tk_index_add(TK_F16, nullptr, 2, zero_dim, 0, idx, TK_INDEX_I64, 3, source, 1.0,
                            nullptr, &cfg, 0) == TK_ERR_OUT_OF_RANGE, "size-0 dim: out of range");
        CUDA_OK(cudaFree(source));
        expect(tk_index_add(TK_F16, nullptr, 2, zero_inner, 0, idx, TK_INDEX_I64, 3, nullptr, 1.0,
                            status, &cfg, 0) == TK_OK, "empty inner");
        int64_t w = 0;
        CUDA_OK(cudaMemcpy(&w, status, 8, cudaMemcpyDeviceToHost));
        expect(w == -1, "empty inner with good indices: status %lld", (long long)w);
        CUDA_OK(cudaFree(status));
        CUDA_OK(cudaFree(idx));
    }
}

/* Many duplicates in f32: sums far beyond the 16-bit types, exact in float (integers). */
void test_duplicates(std::mt19937_64 &rng)
{
    const Case cases[] = {{{4}, 0, 100000, 4}, {{16, 64}, 0, 3000, 16}};
    for (const Case &c : cases)
        for (int threshold : {0, 4096})
            for (tk_index_add_small_mode m : {TK_INDEX_SMALL_OWNER, TK_INDEX_SMALL_SPREAD})
                run_exact(TK_F32, TK_INDEX_I64, c, {threshold, 256, 8, 4, m}, 1.0, 0, rng);
}

/* ---- duplicate-heavy contention (H100 run 8's problem and relatives) ---- */

/* Every integer of magnitude <= this is exact in the dtype. */
int64_t exact_integers(tk_dtype dt)
{
    return dt == TK_BF16 ? 256 : dt == TK_F16 ? 2048 : int64_t{1} << 24;
}

/* Many indices into few rows: each of `rows` rows receives `per_row` contributions (fewer when
 * the dtype needs: see test_contention), in a random order of the index list. */
struct Contention {
    std::vector<int64_t> shape;
    int dim;
    int64_t rows, per_row, shift;
    tk_index_type it;
};

std::vector<Contention> contention_cases()
{
    return {
        {{64, 4096}, 0, 8, 512, 0, TK_INDEX_I64},     /* run 8: 4096 indices into 8 rows */
        {{16, 4096}, 0, 2, 2048, 0, TK_INDEX_I32},    /* two rows */
        {{4096}, 0, 16, 256, 0, TK_INDEX_I64},        /* 1-D: neighbours share atomic pairs */
        {{3, 8, 1000}, 1, 4, 512, 0, TK_INDEX_I32},   /* outer 3, inner 1000 */
        {{64, 36}, 0, 8, 512, 0, TK_INDEX_I64},       /* inner 36: pack 8 falls back */
        {{16, 1025}, 0, 8, 512, 1, TK_INDEX_I64},     /* odd rows, shifted: pairs cross rows */
        {{4096}, 0, 1, 2047, 0, TK_INDEX_I32},        /* one row: a warp's 32 adds are one sum
                                                         (the large path's warp aggregation),
                                                         a partial last warp of indices */
    };
}

/* Every kernel and small-index mode, every pack, grid caps from 1 block per SM (long
 * grid-stride loops) to 32, block sizes 32 to 1024. */
std::vector<tk_index_add_config> contention_configs(tk_dtype dt)
{
    const int shapes[][2] = {{32, 1}, {128, 2}, {256, 8}, {512, 32}, {1024, 4}};
    std::vector<tk_index_add_config> v;
    for (int threshold : {0, 4096})
        for (tk_index_add_small_mode m : {TK_INDEX_SMALL_OWNER, TK_INDEX_SMALL_SPREAD}) {
            if (threshold == 0 && m == TK_INDEX_SMALL_SPREAD) continue;
            for (int pack = 1; pack * static_cast<int>(tk_dtype_size(dt)) <= 16; pack *= 2)
                for (const auto &bs : shapes) v.push_back({threshold, bs[0], bs[1], pack, m});
        }
    return v;
}

/* self and source are +-1 and alpha +-1, so with per_row + 1 <= exact_integers(dt) every
 * running sum in any order is an exact integer: one lost or doubled update anywhere shows as a
 * difference of exactly one. Each config runs kRepeats times from the same start (a race is
 * intermittent), alternating alpha 1 and -1. */
void test_contention(std::mt19937_64 &rng)
{
    constexpr int kRepeats = 3;
    for (tk_dtype dt : kDtypes)
        for (const Contention &k : contention_cases()) {
            const int64_t per_row = std::min(k.per_row, exact_integers(dt) - 1);
            const Case c = {k.shape, k.dim, k.rows * per_row, k.rows};
            expect(c.n_index <= TK_INDEX_ADD_MAX_THRESHOLD && per_row + 1 <= exact_integers(dt),
                   "contention %s: n_index within the small kernels, sums exact", describe(c).c_str());
            const Sizes s = sizes_of(c);
            Tensors t;
            t.dt = dt;
            t.it = k.it;
            t.shift = k.shift;
            upload(t, c, s, rng, 1);
            for (int64_t j = 0; j < c.n_index; j++) t.idx[j] = j % k.rows;   /* per_row each */
            std::shuffle(t.idx.begin(), t.idx.end(), rng);
            upload_indices(t);
            const std::vector<double> want[2] = {reference(t, s, c.n_index, 1.0),
                                                 reference(t, s, c.n_index, -1.0)};
            const size_t bytes = s.self_n * tk_dtype_size(dt);
            for (const tk_index_add_config &cfg : contention_configs(dt))
                for (int rep = 0; rep < kRepeats; rep++) {
                    const double alpha = rep % 2 ? -1.0 : 1.0;
                    CUDA_OK(cudaMemcpy(t.self(), t.self0_bits.data(), bytes, cudaMemcpyHostToDevice));
                    CUDA_OK(memset_sync(t.status, 0x5a, sizeof(int64_t)));
                    const tk_status st = tk_index_add(dt, t.self(), static_cast<int>(c.shape.size()),
                                                      c.shape.data(), c.dim, t.index, t.it, c.n_index,
                                                      t.source(), alpha, t.status, &cfg, 0);
                    CUDA_OK(cudaDeviceSynchronize());
                    std::vector<unsigned char> bits;
                    const std::vector<double> got = read_self(t, s, &bits);
                    const std::vector<double> &w = want[rep % 2];
                    int64_t bad = 0, first = -1;
                    for (int64_t e = 0; e < s.self_n; e++)
                        if (got[e] != w[e] && bad++ == 0) first = e;
                    expect(st == TK_OK && read_status(t) == -1 && bad == 0,
                           "contention %s %s %s shift %lld: threshold %d %s block %d grid_cap %d "
                           "pack %d alpha %g, run %d: %s, status word %lld, %lld elements differ, "
                           "first [%lld] got %g expected %g", tk_dtype_name(dt),
                           k.it == TK_INDEX_I64 ? "i64" : "i32", describe(c).c_str(),
                           (long long)k.shift, cfg.threshold,
                           cfg.small_mode == TK_INDEX_SMALL_SPREAD ? "spread" : "owner",
                           cfg.block_size, cfg.grid_cap, cfg.pack_size, alpha, rep,
                           tk_status_string(st), (long long)read_status(t), (long long)bad,
                           (long long)first, first >= 0 ? got[first] : 0.0,
                           first >= 0 ? w[first] : 0.0);
                }
            release(t);
        }
}

/* self beyond 2^31 elements: 64-bit index arithmetic; indices at both ends. */
void test_huge()
{
    const int64_t n = (int64_t{1} << 31) + 64;
    size_t free_b = 0, total_b = 0;
    CUDA_OK(cudaMemGetInfo(&free_b, &total_b));
    if (free_b < static_cast<size_t>(n * 2) + (size_t{1} << 30)) {
        std::printf("self > 2^31 elements: skipped (not enough GPU memory)\n");
        return;
    }
    void *self = nullptr, *src = nullptr, *idx = nullptr;
    int64_t *status = nullptr;
    CUDA_OK(cudaMalloc(&self, n * 2));
    CUDA_OK(memset_sync(self, 0, n * 2));
    const int64_t m = 128;
    std::vector<int64_t> h_idx(m);
    std::vector<double> h_src(m);
    for (int64_t j = 0; j < m; j++) {
        h_idx[j] = j % 2 ? n - 1 - j / 2 : j / 2;
        h_src[j] = static_cast<double>(j % 7 + 1);
    }
    std::vector<unsigned char> bits(m * 2);
    tk_host_from_double(TK_F16, h_src.data(), bits.data(), m);
    CUDA_OK(cudaMalloc(&src, m * 2));
    CUDA_OK(cudaMalloc(&idx, m * 8));
    CUDA_OK(cudaMalloc(&status, 8));
    CUDA_OK(cudaMemcpy(src, bits.data(), m * 2, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(idx, h_idx.data(), m * 8, cudaMemcpyHostToDevice));
    for (int threshold : {0, 4096}) {
        CUDA_OK(memset_sync(self, 0, n * 2));
        tk_index_add_config cfg = {threshold, 256, 8, 1, TK_INDEX_SMALL_SPREAD};
        const tk_status st = tk_index_add(TK_F16, self, 1, &n, 0, idx, TK_INDEX_I64, m, src, 1.0,
                                          status, &cfg, 0);
        CUDA_OK(cudaDeviceSynchronize());
        int64_t w = 0;
        CUDA_OK(cudaMemcpy(&w, status, 8, cudaMemcpyDeviceToHost));
        std::vector<unsigned char> lo(2 * m), hi(2 * m);
        CUDA_OK(cudaMemcpy(lo.data(), self, 2 * m, cudaMemcpyDeviceToHost));
        CUDA_OK(cudaMemcpy(hi.data(), static_cast<char *>(self) + (n - m) * 2, 2 * m, cudaMemcpyDeviceToHost));
        std::vector<double> vlo(m), vhi(m);
        tk_host_to_double(TK_F16, lo.data(), vlo.data(), m);
        tk_host_to_double(TK_F16, hi.data(), vhi.data(), m);
        bool ok = st == TK_OK && w == -1;
        for (int64_t j = 0; j < m; j++) {
            const double want = h_src[j];
            const double g = h_idx[j] < m ? vlo[h_idx[j]] : vhi[h_idx[j] - (n - m)];
            ok = ok && g == want;
        }
        expect(ok, "self > 2^31 elements (threshold %d): %s, status %lld", threshold,
               tk_status_string(st), (long long)w);
    }
    std::printf("self > 2^31 elements: checked both ends\n");
    CUDA_OK(cudaFree(self));
    CUDA_OK(cudaFree(src));
    CUDA_OK(cudaFree(idx));
    CUDA_OK(cudaFree(status));
}

void test_bad_arguments()
{
    const int64_t shape[2] = {8, 4}, neg[2] = {8, -1};
    void *p = nullptr;
    int64_t *status = nullptr;
    CUDA_OK(cudaMalloc(&p, 1024));
    CUDA_OK(cudaMalloc(&status, 8));
    CUDA_OK(memset_sync(p, 0, 1024));
    const tk_index_add_config ok = tk_index_add_default_config();
    auto call = [&](tk_dtype dt, void *self, int ndim, const int64_t *sh, int dim, const void *idx,
                    tk_index_type it, int64_t n_index, const void *src, const tk_index_add_config *c) {
        return tk_index_add(dt, self, ndim, sh, dim, idx, it, n_index, src, 1.0, status, c, 0);
    };
    expect(call(static_cast<tk_dtype>(7), p, 2, shape, 0, p, TK_INDEX_I64, 2, p, &ok) == TK_ERR_INVALID_ARGUMENT, "dtype");
    expect(call(TK_F32, p, 0, shape, 0, p, TK_INDEX_I64, 2, p, &ok) == TK_ERR_INVALID_ARGUMENT, "ndim 0");
    expect(call(TK_F32, p, 9, shape, 0, p, TK_INDEX_I64, 2, p, &ok) == TK_ERR_INVALID_ARGUMENT, "ndim 9");
    expect(call(TK_F32, p, 2, shape, 2, p, TK_INDEX_I64, 2, p, &ok) == TK_ERR_INVALID_ARGUMENT, "dim 2");
    expect(call(TK_F32, p, 2, shape, -3, p, TK_INDEX_I64, 2, p, &ok) == TK_ERR_INVALID_ARGUMENT, "dim -3");
    expect(call(TK_F32, p, 2, neg, 0, p, TK_INDEX_I64, 2, p, &ok) == TK_ERR_INVALID_ARGUMENT, "negative size");
    expect(call(TK_F32, p, 2, nullptr, 0, p, TK_INDEX_I64, 2, p, &ok) == TK_ERR_INVALID_ARGUMENT, "NULL shape");
    expect(call(TK_F32, nullptr, 2, shape, 0, p, TK_INDEX_I64, 2, p, &ok) == TK_ERR_INVALID_ARGUMENT, "NULL self");
    expect(call(TK_F32, p, 2, shape, 0, nullptr, TK_INDEX_I64, 2, p, &ok) == TK_ERR_INVALID_ARGUMENT, "NULL index");
    expect(call(TK_F32, p, 2, shape, 0, p, TK_INDEX_I64, 2, nullptr, &ok) == TK_ERR_INVALID_ARGUMENT, "NULL source");
    expect(call(TK_F32, p, 2, shape, 0, p, static_cast<tk_index_type>(2), 2, p, &ok) == TK_ERR_INVALID_ARGUMENT, "index type");
    expect(call(TK_F32, p, 2, shape, 0, p, TK_INDEX_I64, -1, p, &ok) == TK_ERR_INVALID_ARGUMENT, "n_index < 0");
    const int64_t huge[2] = {int64_t{1} << 40, int64_t{1} << 40};
    expect(call(TK_F32, p, 2, huge, 0, p, TK_INDEX_I64, 2, p, &ok) == TK_ERR_INVALID_ARGUMENT, "overflowing sizes");
    const tk_index_add_config bad[] = {{5000, 128, 8, 1, TK_INDEX_SMALL_OWNER},
                                       {16, 48, 8, 1, TK_INDEX_SMALL_OWNER},
                                       {16, 128, 0, 1, TK_INDEX_SMALL_OWNER},
                                       {16, 128, 8, 3, TK_INDEX_SMALL_OWNER},
                                       {16, 128, 8, 8, TK_INDEX_SMALL_OWNER},   /* 32 bytes of f32 */
                                       {16, 128, 8, 1, static_cast<tk_index_add_small_mode>(2)},
                                       {-1, 128, 8, 1, TK_INDEX_SMALL_OWNER}};
    for (const auto &b : bad)
        expect(call(TK_F32, p, 2, shape, 0, p, TK_INDEX_I64, 2, p, &b) == TK_ERR_UNSUPPORTED_CONFIG,
               "unsupported config %d/%d/%d/%d/%d", b.threshold, b.block_size, b.grid_cap,
               b.pack_size, b.small_mode);
    tk_index_add_config parsed;
    expect(tk_index_add_config_from_text("block_size=64,grid_cap=3,pack_size=4,small_mode=spread,threshold=100",
                                         &parsed) == TK_OK &&
               parsed.block_size == 64 && parsed.grid_cap == 3 && parsed.pack_size == 4 &&
               parsed.small_mode == TK_INDEX_SMALL_SPREAD && parsed.threshold == 100,
           "config text");
    expect(tk_index_add_config_from_text("block_size=64,grid_cap=3,pack_size=4,small_mode=spread",
                                         &parsed) == TK_ERR_UNSUPPORTED_CONFIG, "config text without threshold");
    CUDA_OK(cudaFree(p));
    CUDA_OK(cudaFree(status));
}

/* The write-up's five shapes (f32, int64 indices) through the NULL config: the tuned config
 * is printed, the result checked (integer values: exact), and the call timed (cold-ish: median
 * of 20 after a 64 MB L2 overwrite each). */
void test_null_config(std::mt19937_64 &rng)
{
    const Case shapes[] = {
        {{33554432}, 0, 15, 1024},
        {{32768, 1024}, 0, 15, 1024},
        {{32, 1024, 1024}, 0, 15, 32},
        {{33554432}, 0, 1024, 1024},
        {{32768, 1024}, 0, 1024, 1024},
    };
    void *flush = nullptr;
    const size_t flush_bytes = size_t{128} << 20;
    CUDA_OK(cudaMalloc(&flush, flush_bytes));
    cudaEvent_t a, b;
    CUDA_OK(cudaEventCreate(&a));
    CUDA_OK(cudaEventCreate(&b));
    for (const Case &c : shapes) {
        const Sizes s = sizes_of(c);
        tk_index_add_config tuned;
        expect(tk_index_add_tuned_config(TK_F32, s.src_n, &tuned) == TK_OK, "tuned config");
        std::printf("index_add %s f32: tuned threshold=%d small_mode=%s block_size=%d grid_cap=%d "
                    "pack_size=%d (%s kernel)\n", describe(c).c_str(), tuned.threshold,
                    tuned.small_mode == TK_INDEX_SMALL_SPREAD ? "spread" : "owner",
                    tuned.block_size, tuned.grid_cap, tuned.pack_size,
                    c.n_index <= tuned.threshold ? "small-index" : "large-index");
        Tensors t;
        t.dt = TK_F32;
        t.it = TK_INDEX_I64;
        upload(t, c, s, rng, 4);
        tk_status st = tk_index_add(TK_F32, t.self(), static_cast<int>(c.shape.size()), c.shape.data(),
                                    0, t.index, TK_INDEX_I64, c.n_index, t.source(), 1.0, t.status,
                                    nullptr, 0);
        CUDA_OK(cudaDeviceSynchronize());
        expect(st == TK_OK && read_status(t) == -1, "NULL config %s: %s", describe(c).c_str(),
               tk_status_string(st));
        std::vector<unsigned char> bits;
        expect(read_self(t, s, &bits) == reference(t, s, c.n_index, 1.0), "NULL config %s: result",
               describe(c).c_str());
        std::vector<float> ms;
        for (int r = 0; r < 21; r++) {
            CUDA_OK(cudaMemsetAsync(flush, r, flush_bytes, 0));
            CUDA_OK(cudaEventRecord(a, 0));
            st = tk_index_add(TK_F32, t.self(), static_cast<int>(c.shape.size()), c.shape.data(), 0,
                              t.index, TK_INDEX_I64, c.n_index, t.source(), 1.0, t.status, nullptr, 0);
            CUDA_OK(cudaEventRecord(b, 0));
            CUDA_OK(cudaEventSynchronize(b));
            float e = 0;
            CUDA_OK(cudaEventElapsedTime(&e, a, b));
            if (r > 0) ms.push_back(e);
        }
        std::sort(ms.begin(), ms.end());
        std::printf("index_add %s f32 NULL config: %.1f us\n", describe(c).c_str(), 1000.0 * ms[ms.size() / 2]);
        release(t);
    }
    CUDA_OK(cudaEventDestroy(a));
    CUDA_OK(cudaEventDestroy(b));
    CUDA_OK(cudaFree(flush));
}

} // namespace

int main()
{
    if (!gpu_check_start("index_add_test")) return gpu_check_done();
    std::mt19937_64 rng(7);
    test_exact(rng);
    test_out_of_range(rng);
    test_empty(rng);
    test_duplicates(rng);
    test_contention(rng);
    test_bad_arguments();
    GPU_TEST_FULL_ONLY(test_huge());
    test_null_config(rng);
    return gpu_check_done();
}
