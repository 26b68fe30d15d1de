/* atomic_bounds_test.cu: the fast atomic add (kernels/atomic_add.cuh) never touches memory
 * outside its buffer [base, base + length), meant to run under
 *     compute-sanitizer --tool memcheck build/tests/gpu/atomic_bounds_test
 * First, on the CPU (no GPU needed): fast_atomic_pair_start over both 2-byte alignments of base,
 * lengths 1..9 and every index: the pair it picks lies inside the buffer, holds the element, and
 * is used whenever the partner exists. Then on the GPU, for f16 and bf16, buffers of every
 * length 1..9 that end exactly where their cudaMalloc allocation ends (so memcheck reports a
 * touch past the end) and start either at the allocation (4-byte aligned) or one element into
 * it (odd 2-byte boundary; the element before holds a NaN with a payload, checked bit for bit
 * afterwards, which a stray -0 add would canonicalise): every element gets 64 concurrent fast
 * adds of small integers (exact in every order), and the result must be exact with the
 * partners' concurrent updates intact. The same layouts through the dot product
 * (tk_atomic_dot: fast, block_reduce, half2_pack where a partner exists, half): odd offsets,
 * the last element, length 1. Prints "N passed, N failed"; exits non-zero on failure. */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include "atomic_add.cuh"
#include "tk_check.h"
#include "tunekit.h"
#include "gpu_check.h"

namespace {

constexpr int kMaxLen = 9;
constexpr int kAddsPerElement = 64;
/* NaN patterns with a payload (not the canonical 0x7fff) for the guard element. */
constexpr uint16_t kGuardBits[2] = {0x7e5a, 0x7fda};

/* ---- the rule, on the CPU ------------------------------------------------------------------ */

void test_pair_rule()
{
    alignas(4) static __half storage[16];
    for (int shift = 0; shift < 2; shift++) {
        const __half *base = storage + shift;   /* shift 1: base on an odd 2-byte boundary */
        for (int64_t len = 1; len <= kMaxLen; len++) {
            for (int64_t i = 0; i < len; i++) {
                const int64_t p = tk::fast_atomic_pair_start(base, i, len);
                const bool aligned = (reinterpret_cast<uintptr_t>(base + i) & 3) == 0;
                const int64_t partner = aligned ? i + 1 : i - 1;
                const bool partner_in = partner >= 0 && partner < len;
                if (partner_in) {
                    expect(p == (aligned ? i : i - 1) && p >= 0 && p + 1 < len,
                           "rule: shift %d len %lld index %lld: pair start %lld", shift,
                           (long long)len, (long long)i, (long long)p);
                    expect((reinterpret_cast<uintptr_t>(base + p) & 3) == 0,
                           "rule: pair at %lld is not 4-byte aligned", (long long)p);
                } else {
                    expect(p == -1, "rule: shift %d len %lld index %lld: pair start %lld "
                           "reaches outside the buffer", shift, (long long)len, (long long)i,
                           (long long)p);
                }
            }
        }
    }
}

/* ---- the helper on the GPU ----------------------------------------------------------------- */

/* Thread t adds (t % 3 + 1) to base[t / kAddsPerElement]. */
template <typename T>
__global__ void fast_add_kernel(T *base, int64_t length)
{
    const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= length * kAddsPerElement) return;
    tk::fast_atomic_add(base, t / kAddsPerElement, length,
                        tk::from_float<T>(static_cast<float>(t % 3 + 1)));
}

/* The sum every element receives: sum over k < kAddsPerElement of ((e * 64 + k) % 3 + 1). */
double expected_sum(int64_t element)
{
    double s = 0;
    for (int k = 0; k < kAddsPerElement; k++) s += static_cast<double>((element * kAddsPerElement + k) % 3 + 1);
    return s;
}

/* A buffer of len elements at the end of its own allocation, starting `shift` elements in; the
 * allocation's first element is a NaN guard when shift is 1. The caller frees alloc. */
struct Layout {
    void *alloc = nullptr;
    char *base = nullptr;
};

Layout make_layout(tk_dtype dt, int64_t len, int shift, const std::vector<double> &start)
{
    Layout l;
    const size_t es = tk_dtype_size(dt);
    CUDA_OK(cudaMalloc(&l.alloc, static_cast<size_t>(len + shift) * es));
    l.base = static_cast<char *>(l.alloc) + shift * es;
    std::vector<unsigned char> host(static_cast<size_t>(len + shift) * es);
    if (shift) std::memcpy(host.data(), &kGuardBits[dt == TK_BF16], 2);
    tk_host_from_double(dt, start.data(), host.data() + shift * es, len);
    CUDA_OK(cudaMemcpy(l.alloc, host.data(), host.size(), cudaMemcpyHostToDevice));
    return l;
}

/* Copies the layout back: the values of the buffer and whether the guard kept its bits. */
void read_layout(tk_dtype dt, const Layout &l, int64_t len, int shift, std::vector<double> *vals,
                 bool *guard_ok)
{
    const size_t es = tk_dtype_size(dt);
    std::vector<unsigned char> host(static_cast<size_t>(len + shift) * es);
    CUDA_OK(cudaMemcpy(host.data(), l.alloc, host.size(), cudaMemcpyDeviceToHost));
    vals->resize(len);
    tk_host_to_double(dt, host.data() + shift * es, vals->data(), len);
    *guard_ok = !shift || std::memcmp(host.data(), &kGuardBits[dt == TK_BF16], 2) == 0;
}

template <typename T>
void test_helper(tk_dtype dt)
{
    const char *name = tk_dtype_name(dt);
    for (int shift = 0; shift < 2; shift++) {
        for (int64_t len = 1; len <= kMaxLen; len++) {
            std::vector<double> start(len);
            for (int64_t i = 0; i < len; i++) start[i] = static_cast<double>((i * 7) % 5) - 2.0;
            Layout l = make_layout(dt, len, shift, start);
            const int64_t threads = len * kAddsPerElement;
            fast_add_kernel<T><<<static_cast<unsigned>((threads + 127) / 128), 128>>>(
                reinterpret_cast<T *>(l.base), len);
            CUDA_OK(cudaGetLastError());
            CUDA_OK(cudaDeviceSynchronize());
            std::vector<double> got;
            bool guard_ok = false;
            read_layout(dt, l, len, shift, &got, &guard_ok);
            for (int64_t i = 0; i < len; i++)
                expect(got[i] == start[i] + expected_sum(i),
                       "fast add %s shift %d len %lld: element %lld is %g, expected %g", name,
                       shift, (long long)len, (long long)i, got[i], start[i] + expected_sum(i));
            expect(guard_ok, "fast add %s shift %d len %lld: the element before the buffer "
                   "changed", name, shift, (long long)len);
            CUDA_OK(cudaFree(l.alloc));
        }
    }
}

/* ---- the dot product's output at the buffer's edges ---------------------------------------- */

/* x = +-1, y = +-1: the products are +-1 and every partial sum an integer below 2^8 in
 * magnitude for n <= 200, exact in f16 and bf16 in any order. */
void test_dot_edges(tk_dtype dt)
{
    const char *name = tk_dtype_name(dt);
    const size_t es = tk_dtype_size(dt);
    const int64_t n_max = 200, x_off = 3;
    std::vector<double> xv(n_max + x_off), yv(n_max + x_off);
    for (int64_t i = 0; i < n_max + x_off; i++) {
        xv[i] = (i * 5 % 7) < 3 ? 1.0 : -1.0;
        yv[i] = (i * 3 % 11) < 6 ? 1.0 : -1.0;
    }
    std::vector<unsigned char> hx(xv.size() * es), hy(yv.size() * es);
    tk_host_from_double(dt, xv.data(), hx.data(), static_cast<int64_t>(xv.size()));
    tk_host_from_double(dt, yv.data(), hy.data(), static_cast<int64_t>(yv.size()));
    void *dx = nullptr, *dy = nullptr, *ws = nullptr;
    CUDA_OK(cudaMalloc(&dx, hx.size()));
    CUDA_OK(cudaMalloc(&dy, hy.size()));
    CUDA_OK(cudaMalloc(&ws, tk_atomic_dot_workspace_bytes()));
    CUDA_OK(cudaMemcpy(dx, hx.data(), hx.size(), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(dy, hy.data(), hy.size(), cudaMemcpyHostToDevice));

    const tk_atomic_strategy strategies[] = {TK_ATOMIC_FAST, TK_ATOMIC_BLOCK_REDUCE,
                                             TK_ATOMIC_HALF2_PACK, TK_ATOMIC_HALF};
    const int64_t sizes[] = {1, 9, 200};
    const int offsets[] = {0, 3};
    for (tk_atomic_strategy s : strategies) {
        for (int shift = 0; shift < 2; shift++) {
            for (int64_t len = 1; len <= 4; len++) {
                for (int64_t idx = 0; idx < len; idx++) {
                    for (int64_t n : sizes) {
                        for (int off : offsets) {
                            std::vector<double> start(len);
                            for (int64_t i = 0; i < len; i++) start[i] = static_cast<double>(i + 1);
                            Layout l = make_layout(dt, len, shift, start);
                            double dot = 0;
                            for (int64_t i = 0; i < n; i++) dot += xv[off + i] * yv[off + i];
                            /* both load hints, alternating over the cases */
                            tk_atomic_config c = {s, 64, 2,
                                                  (n + off) % 2 ? TK_CACHE_EVICT_FIRST
                                                                : TK_CACHE_NORMAL};
                            const bool has_partner =
                                tk::fast_atomic_pair_start(reinterpret_cast<__half *>(l.base), idx, len) >= 0;
                            const tk_status st = tk_atomic_dot(
                                dt, n, static_cast<char *>(dx) + off * es,
                                static_cast<char *>(dy) + off * es, l.base, len, idx, ws, &c, 0);
                            if (s == TK_ATOMIC_HALF2_PACK && !has_partner) {
                                expect(st == TK_ERR_UNSUPPORTED_CONFIG,
                                       "dot %s half2_pack without a partner: status %s", name,
                                       tk_status_string(st));
                            } else {
                                expect(st == TK_OK, "dot %s strategy %d: status %s", name, s,
                                       tk_status_string(st));
                            }
                            CUDA_OK(cudaDeviceSynchronize());
                            std::vector<double> got;
                            bool guard_ok = false;
                            read_layout(dt, l, len, shift, &got, &guard_ok);
                            const bool ran = st == TK_OK;
                            for (int64_t i = 0; i < len; i++) {
                                const double want = start[i] + (ran && i == idx ? dot : 0.0);
                                expect(got[i] == want,
                                       "dot %s strategy %d shift %d len %lld index %lld n %lld "
                                       "offset %d: element %lld is %g, expected %g",
                                       name, s, shift, (long long)len, (long long)idx,
                                       (long long)n, off, (long long)i, got[i], want);
                            }
                            expect(guard_ok, "dot %s strategy %d shift %d len %lld index %lld: "
                                   "the element before the buffer changed", name, s, shift,
                                   (long long)len, (long long)idx);
                            CUDA_OK(cudaFree(l.alloc));
                        }
                    }
                }
            }
        }
    }
    CUDA_OK(cudaFree(dx));
    CUDA_OK(cudaFree(dy));
    CUDA_OK(cudaFree(ws));
}

} // namespace

int main()
{
    test_pair_rule();
    if (gpu_check_start("atomic_bounds_test")) {
        test_helper<__half>(TK_F16);
        test_helper<__nv_bfloat16>(TK_BF16);
        test_dot_edges(TK_F16);
        test_dot_edges(TK_BF16);
    }
    return gpu_check_done();
}
