/* gpu_fill.cu: the kernels of gpu_fill.h: the counter-based input fill (gpu_fill_value rounded
 * to the dtype), the elementwise reference in double, the reduce input's double sums (per-block
 * partials, then one block over the partials), and the relu_mask forward (a warp's ballot makes
 * each mask word) and backward references. Grid-stride loops over 64-bit indices;
 * every entry point waits for its kernels and reports a launch or execution error in err. */
#include "gpu_fill.h"

#include <math.h>
#include <stdio.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace {

constexpr int kBlock = 256;
constexpr int kMaxBlocks = 4096;   /* grid-stride beyond: 1 Mi threads keep any GPU's memory busy */
constexpr int kSumBlocks = 1024;   /* partials of gpu_ref_sums; one block of kSumBlocks combines them */

__device__ __forceinline__ double widen(float v) { return (double)v; }
__device__ __forceinline__ double widen(__half v) { return (double)__half2float(v); }
__device__ __forceinline__ double widen(__nv_bfloat16 v) { return (double)__bfloat162float(v); }

/* Round to nearest even straight from double (never through float: no double rounding), as
 * tk_host_from_double does on the host. */
template <typename T> __device__ __forceinline__ T narrow(double v);
template <> __device__ __forceinline__ float narrow<float>(double v) { return __double2float_rn(v); }
template <> __device__ __forceinline__ __half narrow<__half>(double v) { return __double2half(v); }
template <> __device__ __forceinline__ __nv_bfloat16 narrow<__nv_bfloat16>(double v)
{
    return __double2bfloat16(v);
}

unsigned blocks_for(int64_t n, int cap)
{
    int64_t b = (n + kBlock - 1) / kBlock;
    return (unsigned)(b < 1 ? 1 : b > cap ? cap : b);
}

template <typename T>
__global__ void __launch_bounds__(kBlock)
    fill_kernel(T *x, int64_t n, uint64_t seed, int stream, double lo, double hi)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
        x[i] = narrow<T>(gpu_fill_value(seed, stream, i, lo, hi));
}

template <typename T>
__global__ void __launch_bounds__(kBlock)
    ew_ref_kernel(gpu_ew_op op, int64_t n, const T *x, const T *y, const T *z, double *ref)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        const double a = widen(x[i]);
        double r;
        switch (op) {
        case GPU_EW_RELU: r = a > 0 ? a : 0.0; break;
        /* = 0.5 x (1 + erf(x / sqrt 2)), without the cancellation of 1 + erf for negative x */
        case GPU_EW_GELU: r = 0.5 * a * erfc(-a * M_SQRT1_2); break;
        case GPU_EW_MUL: r = a * widen(y[i]); break;
        case GPU_EW_ADD: r = a + widen(y[i]); break;
        /* exact either way: a product of two inputs of at most 24 bits fits a double */
        case GPU_EW_FMA: r = a * widen(y[i]) + widen(z[i]); break;
        default: r = NAN; break;
        }
        ref[i] = r;
    }
}

__device__ __forceinline__ double nan_max(double a, double b) { return a > b || a != a ? a : b; }
__device__ __forceinline__ double nan_min(double a, double b) { return a < b || a != a ? a : b; }

/* Combines the block's per-thread sums (s[4] each) into thread 0's; blockDim.x a power of 2. */
template <int B>
__device__ void block_combine(double (*sh)[B], double s[4])
{
    for (int k = 0; k < 4; k++) sh[k][threadIdx.x] = s[k];
    __syncthreads();
    for (int w = B / 2; w > 0; w /= 2) {
        if ((int)threadIdx.x < w) {
            const int o = threadIdx.x + w;
            sh[0][threadIdx.x] += sh[0][o];
            sh[1][threadIdx.x] += sh[1][o];
            sh[2][threadIdx.x] = nan_max(sh[2][threadIdx.x], sh[2][o]);
            sh[3][threadIdx.x] = nan_min(sh[3][threadIdx.x], sh[3][o]);
        }
        __syncthreads();
    }
    for (int k = 0; k < 4; k++) s[k] = sh[k][0];
}

template <typename T>
__global__ void __launch_bounds__(kBlock) sums_partial_kernel(int64_t n, const T *x, double *part)
{
    __shared__ double sh[4][kBlock];
    double s[4] = { 0.0, 0.0, -INFINITY, INFINITY };
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        const double v = widen(x[i]);
        s[0] += v;
        s[1] += fabs(v);
        s[2] = nan_max(s[2], v);
        s[3] = nan_min(s[3], v);
    }
    block_combine<kBlock>(sh, s);
    if (threadIdx.x == 0)
        for (int k = 0; k < 4; k++) part[(size_t)k * gridDim.x + blockIdx.x] = s[k];
}

/* One block of kSumBlocks threads: thread t takes partial t (the identities past n_part). */
__global__ void __launch_bounds__(kSumBlocks) sums_final_kernel(int n_part, double *part)
{
    __shared__ double sh[4][kSumBlocks];
    const int t = threadIdx.x;
    double s[4] = { 0.0, 0.0, -INFINITY, INFINITY };
    if (t < n_part)
        for (int k = 0; k < 4; k++) s[k] = part[(size_t)k * n_part + t];
    __syncthreads();   /* every read of part is done before thread 0 overwrites its head */
    block_combine<kSumBlocks>(sh, s);
    if (t == 0)
        for (int k = 0; k < 4; k++) part[k] = s[k];
}

/* Element i of the relu_mask forward: the loop runs over whole words (n rounded up to 32, the
 * grid's step a multiple of 32), so every lane of a warp takes part in each ballot and lane k of
 * the warp holds element 32 w + k of word w. */
template <typename T>
__global__ void __launch_bounds__(kBlock) relu_mask_ref_kernel(int64_t n, const T *x, const T *a,
                                                               double *y_ref, T *y_store,
                                                               uint32_t *mask)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    const int64_t end = (n + 31) / 32 * 32;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < end; i += step) {
        bool pass = false;
        if (i < n) {
            double s = widen(x[i]);
            if (a) s = widen(narrow<T>(__dadd_rn(s, widen(a[i]))));   /* one rounding */
            pass = !(s <= 0.0);
            const double y = pass ? s : 0.0;
            if (y_ref) y_ref[i] = y;
            if (y_store) y_store[i] = narrow<T>(y);
        }
        const unsigned bits = __ballot_sync(0xffffffffu, pass);
        if (mask && (threadIdx.x & 31) == 0) mask[i / 32] = bits;
    }
}

template <typename T>
__global__ void __launch_bounds__(kBlock)
    relu_grad_ref_kernel(int64_t n, const T *dy, const uint32_t *mask, double *dx)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
        dx[i] = mask[i / 32] >> (i % 32) & 1u ? widen(dy[i]) : 0.0;
}

/* Waits for the device and turns a failed launch or kernel into err. */
int finish(const char *what, char *err, size_t len)
{
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e == cudaSuccess) return 0;
    snprintf(err, len, "%s: %s", what, cudaGetErrorString(e));
    return -1;
}

int bad_dtype(const char *what, tk_dtype dtype, char *err, size_t len)
{
    snprintf(err, len, "%s: unknown dtype %d", what, (int)dtype);
    return -1;
}

} // namespace

extern "C" int gpu_fill_uniform(tk_dtype dtype, void *x, int64_t n, uint64_t seed, int stream,
                                double lo, double hi, char *err, size_t len)
{
    if (n <= 0) return 0;
    const unsigned g = blocks_for(n, kMaxBlocks);
    switch (dtype) {
    case TK_F32: fill_kernel<<<g, kBlock>>>((float *)x, n, seed, stream, lo, hi); break;
    case TK_F16: fill_kernel<<<g, kBlock>>>((__half *)x, n, seed, stream, lo, hi); break;
    case TK_BF16: fill_kernel<<<g, kBlock>>>((__nv_bfloat16 *)x, n, seed, stream, lo, hi); break;
    default: return bad_dtype("gpu_fill_uniform", dtype, err, len);
    }
    return finish("filling the inputs on the GPU", err, len);
}

extern "C" int gpu_ref_elementwise(gpu_ew_op op, tk_dtype dtype, int64_t n,
                                   const void *const in[3], double *ref, char *err, size_t len)
{
    if (n <= 0) return 0;
    const unsigned g = blocks_for(n, kMaxBlocks);
    switch (dtype) {
#define TK_EW_REF(T)                                                                            \
    ew_ref_kernel<<<g, kBlock>>>(op, n, (const T *)in[0], (const T *)in[1], (const T *)in[2], ref)
    case TK_F32: TK_EW_REF(float); break;
    case TK_F16: TK_EW_REF(__half); break;
    case TK_BF16: TK_EW_REF(__nv_bfloat16); break;
#undef TK_EW_REF
    default: return bad_dtype("gpu_ref_elementwise", dtype, err, len);
    }
    return finish("the elementwise reference on the GPU", err, len);
}

extern "C" int gpu_ref_sums(tk_dtype dtype, int64_t n, const void *x, gpu_sums *out, char *err,
                            size_t len)
{
    *out = (gpu_sums){ 0.0, 0.0, -INFINITY, INFINITY };
    if (n <= 0) return 0;
    const unsigned g = blocks_for(n, kSumBlocks);
    double *part = NULL;
    cudaError_t e = cudaMalloc((void **)&part, (size_t)4 * g * sizeof *part);
    if (e != cudaSuccess) {
        snprintf(err, len, "cudaMalloc of the reduce reference's partials: %s", cudaGetErrorString(e));
        return -1;
    }
    int rc = 0;
    switch (dtype) {
    case TK_F32: sums_partial_kernel<<<g, kBlock>>>(n, (const float *)x, part); break;
    case TK_F16: sums_partial_kernel<<<g, kBlock>>>(n, (const __half *)x, part); break;
    case TK_BF16: sums_partial_kernel<<<g, kBlock>>>(n, (const __nv_bfloat16 *)x, part); break;
    default: rc = bad_dtype("gpu_ref_sums", dtype, err, len); break;
    }
    if (rc == 0) {
        sums_final_kernel<<<1, kSumBlocks>>>((int)g, part);
        rc = finish("the reduce reference on the GPU", err, len);
    }
    double r[4];
    if (rc == 0 && (e = cudaMemcpy(r, part, sizeof r, cudaMemcpyDeviceToHost)) != cudaSuccess) {
        snprintf(err, len, "reading the reduce reference: %s", cudaGetErrorString(e));
        rc = -1;
    }
    if (rc == 0) *out = (gpu_sums){ r[0], r[1], r[2], r[3] };
    cudaFree(part);
    return rc;
}

extern "C" int gpu_ref_relu_mask(tk_dtype dtype, int64_t n, const void *x, const void *a,
                                 double *y_ref, void *y_store, uint32_t *mask, char *err,
                                 size_t len)
{
    if (n <= 0) return 0;
    const unsigned g = blocks_for(n, kMaxBlocks);
    switch (dtype) {
#define TK_RM_REF(T)                                                                            \
    relu_mask_ref_kernel<<<g, kBlock>>>(n, (const T *)x, (const T *)a, y_ref, (T *)y_store, mask)
    case TK_F32: TK_RM_REF(float); break;
    case TK_F16: TK_RM_REF(__half); break;
    case TK_BF16: TK_RM_REF(__nv_bfloat16); break;
#undef TK_RM_REF
    default: return bad_dtype("gpu_ref_relu_mask", dtype, err, len);
    }
    return finish("the relu_mask reference on the GPU", err, len);
}

extern "C" int gpu_ref_relu_grad(tk_dtype dtype, int64_t n, const void *dy, const uint32_t *mask,
                                 double *dx, char *err, size_t len)
{
    if (n <= 0) return 0;
    const unsigned g = blocks_for(n, kMaxBlocks);
    switch (dtype) {
    case TK_F32: relu_grad_ref_kernel<<<g, kBlock>>>(n, (const float *)dy, mask, dx); break;
    case TK_F16: relu_grad_ref_kernel<<<g, kBlock>>>(n, (const __half *)dy, mask, dx); break;
    case TK_BF16:
        relu_grad_ref_kernel<<<g, kBlock>>>(n, (const __nv_bfloat16 *)dy, mask, dx);
        break;
    default: return bad_dtype("gpu_ref_relu_grad", dtype, err, len);
    }
    return finish("the relu_mask backward reference on the GPU", err, len);
}
