// user_gpu.cu: fill, poison, compare and reduce kernels for user-kernel buffers (user_gpu.h). One kernel
// template per job, instantiated for every su_type (space_user.h): f64 f32 f16 bf16 i8 i16 i32
// i64 u8 u16 u32 u64. The random generator is splitmix64 of (seed, index): no state, any order,
// the same value for the same index whatever the buffer's size.
#include "user_gpu.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

namespace {

// The order of su_type.
enum { T_F64, T_F32, T_F16, T_BF16, T_I8, T_I16, T_I32, T_I64, T_U8, T_U16, T_U32, T_U64 };

template <typename T> struct conv {
    __host__ __device__ static double to(T v) { return (double)v; }
    __device__ static T from(double d) { return (T)d; }
};
template <> struct conv<__half> {
    __device__ static double to(__half v) { return (double)__half2float(v); }
    __device__ static __half from(double d) { return __double2half(d); }
};
template <> struct conv<__nv_bfloat16> {
    __device__ static double to(__nv_bfloat16 v) { return (double)__bfloat162float(v); }
    __device__ static __nv_bfloat16 from(double d) { return __double2bfloat16(d); }
};

__device__ __forceinline__ uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

template <typename T, bool IS_FLOAT>
__global__ void fill_kernel(T *p, int64_t n, int how, double a, double b, uint64_t seed)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        double v;
        if (how == UG_CONSTANT) {
            v = a;
        } else if (how == UG_ARANGE) {
            v = a + (double)i * b;
        } else {
            double u = (double)(mix(seed ^ mix((uint64_t)i)) >> 11) * 0x1.0p-53;   // [0, 1)
            v = IS_FLOAT ? a + (b - a) * u : a + floor(u * (b - a + 1.0));
            if (!IS_FLOAT && v > b) v = b;
        }
        p[i] = conv<T>::from(v);
    }
}

// Failing indices: a counter and the first CAP of them in arrival order.
enum { CAP = 4096 };

template <typename T>
__global__ void compare_kernel(const T *got, const T *exp, int64_t n, double atol, double rtol,
                               unsigned long long *n_bad, int64_t *bad)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        double g = conv<T>::to(got[i]), e = conv<T>::to(exp[i]);
        bool ok;
        if (isnan(e)) ok = isnan(g);
        else if (isinf(e) || isinf(g)) ok = g == e;
        else ok = fabs(g - e) <= atol + rtol * fabs(e);   // NaN in g fails here
        if (!ok) {
            unsigned long long k = atomicAdd(n_bad, 1ull);
            if (k < CAP) bad[k] = i;
        }
    }
}

// One double per block: the sum, min or max of its share of p[0, n), and whether it met a NaN
// (a poisoned element the variant did not write). The host finishes over the blocks.
template <typename T>
__global__ void reduce_kernel(const T *p, int64_t n, int op, double *partial, int *nan_seen)
{
    __shared__ double acc[256];
    double v = op == UG_SUM ? 0.0 : op == UG_MIN ? __longlong_as_double(0x7ff0000000000000ll)
                                                 : -__longlong_as_double(0x7ff0000000000000ll);
    bool nan = false;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        double x = conv<T>::to(p[i]);
        nan |= isnan(x);
        v = op == UG_SUM ? v + x : op == UG_MIN ? fmin(v, x) : fmax(v, x);
    }
    if (nan) *nan_seen = 1;
    acc[threadIdx.x] = v;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if ((int)threadIdx.x < w) {
            double a = acc[threadIdx.x], b = acc[threadIdx.x + w];
            acc[threadIdx.x] = op == UG_SUM ? a + b : op == UG_MIN ? fmin(a, b) : fmax(a, b);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = acc[0];
}

template <typename T>
cudaError_t reduce_as(const void *p, int64_t n, int op, double *partial, int *nan_seen,
                      int blocks, cudaStream_t s)
{
    reduce_kernel<T><<<blocks, 256, 0, s>>>((const T *)p, n, op, partial, nan_seen);
    return cudaGetLastError();
}

int grid_for(int64_t n)
{
    int64_t blocks = (n + 255) / 256;
    return (int)(blocks < 65536 ? (blocks > 0 ? blocks : 1) : 65536);
}

size_t type_size(int type)
{
    static const size_t sizes[] = {8, 4, 2, 2, 1, 2, 4, 8, 1, 2, 4, 8};
    return type >= 0 && type <= T_U64 ? sizes[type] : 0;
}

template <typename T, bool F>
cudaError_t fill_as(void *p, int64_t n, int how, double a, double b, uint64_t seed,
                    cudaStream_t s)
{
    fill_kernel<T, F><<<grid_for(n), 256, 0, s>>>((T *)p, n, how, a, b, seed);
    return cudaGetLastError();
}

template <typename T>
cudaError_t compare_as(const void *g, const void *e, int64_t n, double atol, double rtol,
                       unsigned long long *n_bad, int64_t *bad, cudaStream_t s)
{
    compare_kernel<T><<<grid_for(n), 256, 0, s>>>((const T *)g, (const T *)e, n, atol, rtol,
                                                  n_bad, bad);
    return cudaGetLastError();
}

int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

}  // namespace

extern "C" cudaError_t ug_fill(int type, void *ptr, int64_t n, int how, double a, double b,
                               uint64_t seed, cudaStream_t s)
{
    if (n <= 0) return cudaSuccess;
    switch (type) {
    case T_F64: return fill_as<double, true>(ptr, n, how, a, b, seed, s);
    case T_F32: return fill_as<float, true>(ptr, n, how, a, b, seed, s);
    case T_F16: return fill_as<__half, true>(ptr, n, how, a, b, seed, s);
    case T_BF16: return fill_as<__nv_bfloat16, true>(ptr, n, how, a, b, seed, s);
    case T_I8: return fill_as<int8_t, false>(ptr, n, how, a, b, seed, s);
    case T_I16: return fill_as<int16_t, false>(ptr, n, how, a, b, seed, s);
    case T_I32: return fill_as<int32_t, false>(ptr, n, how, a, b, seed, s);
    case T_I64: return fill_as<int64_t, false>(ptr, n, how, a, b, seed, s);
    case T_U8: return fill_as<uint8_t, false>(ptr, n, how, a, b, seed, s);
    case T_U16: return fill_as<uint16_t, false>(ptr, n, how, a, b, seed, s);
    case T_U32: return fill_as<uint32_t, false>(ptr, n, how, a, b, seed, s);
    case T_U64: return fill_as<uint64_t, false>(ptr, n, how, a, b, seed, s);
    }
    return cudaErrorInvalidValue;
}

extern "C" cudaError_t ug_poison(int type, void *ptr, int64_t n, cudaStream_t s)
{
    if (n <= 0) return cudaSuccess;
    switch (type) {
    case T_F64: return fill_as<double, true>(ptr, n, UG_CONSTANT, __builtin_nan(""), 0, 0, s);
    case T_F32: return fill_as<float, true>(ptr, n, UG_CONSTANT, __builtin_nan(""), 0, 0, s);
    case T_F16: return fill_as<__half, true>(ptr, n, UG_CONSTANT, __builtin_nan(""), 0, 0, s);
    case T_BF16:
        return fill_as<__nv_bfloat16, true>(ptr, n, UG_CONSTANT, __builtin_nan(""), 0, 0, s);
    default:
        if (!type_size(type)) return cudaErrorInvalidValue;
        return cudaMemsetAsync(ptr, 0xA5, (size_t)n * type_size(type), s);
    }
}

extern "C" cudaError_t ug_poison_extreme(int type, void *ptr, int64_t n, int high,
                                         cudaStream_t s)
{
    if (n <= 0) return cudaSuccess;
    size_t size = type_size(type);
    if (!size) return cudaErrorInvalidValue;
    if (type == T_F64 || type == T_F32 || type == T_F16 || type == T_BF16)
        return ug_poison(type, ptr, n, s);
    bool is_signed = type == T_I8 || type == T_I16 || type == T_I32 || type == T_I64;
    /* little-endian: 0x7f..7f is not INT_MAX but within a byte of it, large enough; 0xff..ff
     * is the unsigned maximum, 0x80..80 near the signed minimum, 0 the unsigned minimum */
    int byte = high ? (is_signed ? 0x7f : 0xff) : (is_signed ? 0x80 : 0x00);
    return cudaMemsetAsync(ptr, byte, (size_t)n * size, s);
}

extern "C" cudaError_t ug_compare(int type, const void *got, const void *exp, int64_t n,
                                  double atol, double rtol, int64_t *n_bad, int64_t *bad,
                                  int max_bad, cudaStream_t s)
{
    unsigned long long *d_n = NULL;
    int64_t *d_bad = NULL;
    cudaError_t e;
    *n_bad = 0;
    if ((e = cudaMalloc(&d_n, sizeof *d_n)) != cudaSuccess) return e;
    if ((e = cudaMalloc(&d_bad, CAP * sizeof *d_bad)) != cudaSuccess) goto done;
    if ((e = cudaMemsetAsync(d_n, 0, sizeof *d_n, s)) != cudaSuccess) goto done;
    switch (type) {
    case T_F64: e = compare_as<double>(got, exp, n, atol, rtol, d_n, d_bad, s); break;
    case T_F32: e = compare_as<float>(got, exp, n, atol, rtol, d_n, d_bad, s); break;
    case T_F16: e = compare_as<__half>(got, exp, n, atol, rtol, d_n, d_bad, s); break;
    case T_BF16: e = compare_as<__nv_bfloat16>(got, exp, n, atol, rtol, d_n, d_bad, s); break;
    case T_I8: e = compare_as<int8_t>(got, exp, n, atol, rtol, d_n, d_bad, s); break;
    case T_I16: e = compare_as<int16_t>(got, exp, n, atol, rtol, d_n, d_bad, s); break;
    case T_I32: e = compare_as<int32_t>(got, exp, n, atol, rtol, d_n, d_bad, s); break;
    case T_I64: e = compare_as<int64_t>(got, exp, n, atol, rtol, d_n, d_bad, s); break;
    case T_U8: e = compare_as<uint8_t>(got, exp, n, atol, rtol, d_n, d_bad, s); break;
    case T_U16: e = compare_as<uint16_t>(got, exp, n, atol, rtol, d_n, d_bad, s); break;
    case T_U32: e = compare_as<uint32_t>(got, exp, n, atol, rtol, d_n, d_bad, s); break;
    case T_U64: e = compare_as<uint64_t>(got, exp, n, atol, rtol, d_n, d_bad, s); break;
    default: e = cudaErrorInvalidValue;
    }
    if (e != cudaSuccess) goto done;
    {
        unsigned long long count = 0;
        if ((e = cudaMemcpyAsync(&count, d_n, sizeof count, cudaMemcpyDeviceToHost, s)) !=
                cudaSuccess ||
            (e = cudaStreamSynchronize(s)) != cudaSuccess)
            goto done;
        *n_bad = (int64_t)count;
        size_t kept = count < (unsigned long long)CAP ? (size_t)count : (size_t)CAP;
        if (kept && max_bad > 0) {
            int64_t *all = (int64_t *)malloc(kept * sizeof *all);
            if (!all) { e = cudaErrorMemoryAllocation; goto done; }
            if ((e = cudaMemcpy(all, d_bad, kept * sizeof *all, cudaMemcpyDeviceToHost)) ==
                cudaSuccess) {
                qsort(all, kept, sizeof *all, cmp_i64);
                for (size_t k = 0; k < kept && k < (size_t)max_bad; k++) bad[k] = all[k];
            }
            free(all);
        }
    }
done:
    cudaFree(d_n);
    cudaFree(d_bad);
    return e;
}

extern "C" cudaError_t ug_reduce(int type, const void *ptr, int64_t n, int op, double *out,
                                 cudaStream_t s)
{
    enum { BLOCKS = 1024 };
    double *d_part = NULL, part[BLOCKS];
    int *d_nan = NULL, nan = 0;
    int blocks = grid_for(n) < BLOCKS ? grid_for(n) : BLOCKS;
    cudaError_t e;
    if ((e = cudaMalloc(&d_part, BLOCKS * sizeof *d_part)) != cudaSuccess) return e;
    if ((e = cudaMalloc(&d_nan, sizeof *d_nan)) != cudaSuccess) goto done;
    if ((e = cudaMemsetAsync(d_nan, 0, sizeof *d_nan, s)) != cudaSuccess) goto done;
    switch (type) {
    case T_F64: e = reduce_as<double>(ptr, n, op, d_part, d_nan, blocks, s); break;
    case T_F32: e = reduce_as<float>(ptr, n, op, d_part, d_nan, blocks, s); break;
    case T_F16: e = reduce_as<__half>(ptr, n, op, d_part, d_nan, blocks, s); break;
    case T_BF16: e = reduce_as<__nv_bfloat16>(ptr, n, op, d_part, d_nan, blocks, s); break;
    case T_I8: e = reduce_as<int8_t>(ptr, n, op, d_part, d_nan, blocks, s); break;
    case T_I16: e = reduce_as<int16_t>(ptr, n, op, d_part, d_nan, blocks, s); break;
    case T_I32: e = reduce_as<int32_t>(ptr, n, op, d_part, d_nan, blocks, s); break;
    case T_I64: e = reduce_as<int64_t>(ptr, n, op, d_part, d_nan, blocks, s); break;
    case T_U8: e = reduce_as<uint8_t>(ptr, n, op, d_part, d_nan, blocks, s); break;
    case T_U16: e = reduce_as<uint16_t>(ptr, n, op, d_part, d_nan, blocks, s); break;
    case T_U32: e = reduce_as<uint32_t>(ptr, n, op, d_part, d_nan, blocks, s); break;
    case T_U64: e = reduce_as<uint64_t>(ptr, n, op, d_part, d_nan, blocks, s); break;
    default: e = cudaErrorInvalidValue;
    }
    if (e != cudaSuccess) goto done;
    if ((e = cudaMemcpyAsync(part, d_part, (size_t)blocks * sizeof *part, cudaMemcpyDeviceToHost,
                             s)) != cudaSuccess ||
        (e = cudaMemcpyAsync(&nan, d_nan, sizeof nan, cudaMemcpyDeviceToHost, s)) !=
            cudaSuccess ||
        (e = cudaStreamSynchronize(s)) != cudaSuccess)
        goto done;
    {
        double v = part[0];
        for (int i = 1; i < blocks; i++)
            v = op == UG_SUM ? v + part[i] : op == UG_MIN ? fmin(v, part[i]) : fmax(v, part[i]);
        *out = nan ? __builtin_nan("") : v;
    }
done:
    cudaFree(d_part);
    cudaFree(d_nan);
    return e;
}

extern "C" cudaError_t ug_element(int type, const void *ptr, int64_t i, double *out)
{
    unsigned char b[8];
    size_t size = type_size(type);
    if (!size) return cudaErrorInvalidValue;
    cudaError_t e = cudaMemcpy(b, (const char *)ptr + (size_t)i * size, size,
                               cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) return e;
    switch (type) {
    case T_F64: { double v; memcpy(&v, b, 8); *out = v; break; }
    case T_F32: { float v; memcpy(&v, b, 4); *out = v; break; }
    case T_F16: { __half v; memcpy(&v, b, 2); *out = (double)__half2float(v); break; }
    case T_BF16: { __nv_bfloat16 v; memcpy(&v, b, 2); *out = (double)__bfloat162float(v); break; }
    case T_I8: { int8_t v; memcpy(&v, b, 1); *out = v; break; }
    case T_I16: { int16_t v; memcpy(&v, b, 2); *out = v; break; }
    case T_I32: { int32_t v; memcpy(&v, b, 4); *out = v; break; }
    case T_I64: { int64_t v; memcpy(&v, b, 8); *out = (double)v; break; }
    case T_U8: *out = b[0]; break;
    case T_U16: { uint16_t v; memcpy(&v, b, 2); *out = v; break; }
    case T_U32: { uint32_t v; memcpy(&v, b, 4); *out = v; break; }
    case T_U64: { uint64_t v; memcpy(&v, b, 8); *out = (double)v; break; }
    }
    return cudaSuccess;
}
