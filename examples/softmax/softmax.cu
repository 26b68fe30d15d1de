// softmax.cu: row-wise softmax y = exp(x - max(x)) / sum(exp(x - max(x))) over each row of a
// row-major rows x cols matrix, for T = float or __half (arithmetic in float), reading and writing
// device memory once: a row is either held in registers (PASSES 1) or streamed twice through L2
// (PASSES 2, for rows too long to hold).
//
// TPR threads share a row (TPR <= 32: a slice of a warp, reduced with shuffles; TPR > 32: whole
// warps, reduced with shuffles and then through shared memory) and a block of BLOCK threads holds
// BLOCK / TPR rows. A thread loads ITEMS vectors of VEC elements at a time, vector c of the row
// going to thread c % TPR (coalesced).
//
// Macros (all required):
//   TPR      threads per row (a power of two, 8 .. 1024)
//   BLOCK    threads per block (a multiple of TPR)
//   VEC      elements per vector access (VEC * sizeof(T) is 4, 8 or 16 bytes)
//   ITEMS    vectors per thread: the whole row (PASSES 1: cols <= TPR * VEC * ITEMS) or one chunk
//   PASSES   1: the row held in registers; 2: streamed in chunks, (max, sum) kept online in a
//            first pass, the row read again (from L2) and written in a second
//   ONLINE   0: reduce the maximum, then the sum of exp(x - max) (two reductions);
//            1: one reduction of (max, sum) pairs, each thread's sum taken against its own
//               maximum and rescaled (exp(m_thread - m_row)) when combined (PASSES 2 needs it)
//   CS       1: the streaming (evict-first) cache hint on the last read and on the write; 0: plain
// Launch: grid ceil(rows / (BLOCK / TPR)), block BLOCK; cols % VEC == 0, rows and cols below 2^31.

#include <cuda_fp16.h>

#if !defined(TPR) || !defined(BLOCK) || !defined(VEC) || !defined(ITEMS) || !defined(ONLINE) || \
    !defined(CS) || !defined(PASSES)
#error "softmax.cu needs -D TPR BLOCK VEC ITEMS ONLINE CS PASSES"
#endif

static_assert((TPR & (TPR - 1)) == 0 && TPR >= 1 && TPR <= 1024, "TPR is a power of two");
static_assert(BLOCK % TPR == 0 && BLOCK <= 1024, "a block holds whole rows");
static_assert(TPR <= 32 || TPR % 32 == 0, "rows of several warps take whole warps");

#define NEG_INF __int_as_float(0xff800000u)
#define RPB (BLOCK / TPR)                   // rows per block
#define WPR (TPR > 32 ? TPR / 32 : 1)       // warps per row

template <int BYTES> struct raw_vec;
template <> struct raw_vec<4> { typedef unsigned int type; };
template <> struct raw_vec<8> { typedef uint2 type; };
template <> struct raw_vec<16> { typedef uint4 type; };

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
template <typename T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_float<__half>(float v) { return __float2half(v); }

template <typename R> __device__ __forceinline__ R load_vec(const R *p)
{
    return CS ? __ldcs(p) : *p;
}

template <typename R> __device__ __forceinline__ void store_vec(R *p, R v)
{
    if (CS)
        __stcs(p, v);
    else
        *p = v;
}

// (max, sum) of two partial rows, each sum taken against its own max; an empty part is
// (-inf, 0) and must not turn the result into NaN
__device__ __forceinline__ void combine(float &m, float &s, float m2, float s2)
{
    float mm = fmaxf(m, m2);
    float a = m == NEG_INF ? 0.0f : s * __expf(m - mm);
    float b = m2 == NEG_INF ? 0.0f : s2 * __expf(m2 - mm);
    m = mm;
    s = a + b;
}

// Reductions across the TPR threads of a row. red is RPB * WPR floats of shared memory, a
// separate array per use (so no barrier is needed before its next use).
__device__ __forceinline__ float row_max(float v, float *red)
{
#pragma unroll
    for (int o = (TPR < 32 ? TPR : 32) / 2; o > 0; o /= 2)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    if (TPR > 32) {
        const int r = threadIdx.x / TPR, w = (threadIdx.x % TPR) / 32;
        if (threadIdx.x % 32 == 0)
            red[r * WPR + w] = v;
        __syncthreads();
        v = red[r * WPR];
#pragma unroll
        for (int k = 1; k < WPR; k++)
            v = fmaxf(v, red[r * WPR + k]);
    }
    return v;
}

__device__ __forceinline__ float row_sum(float v, float *red)
{
#pragma unroll
    for (int o = (TPR < 32 ? TPR : 32) / 2; o > 0; o /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    if (TPR > 32) {
        const int r = threadIdx.x / TPR, w = (threadIdx.x % TPR) / 32;
        if (threadIdx.x % 32 == 0)
            red[r * WPR + w] = v;
        __syncthreads();
        v = red[r * WPR];
#pragma unroll
        for (int k = 1; k < WPR; k++)
            v += red[r * WPR + k];
    }
    return v;
}

__device__ __forceinline__ void row_max_sum(float &m, float &s, float *red_m, float *red_s)
{
#pragma unroll
    for (int o = (TPR < 32 ? TPR : 32) / 2; o > 0; o /= 2)
        combine(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
    if (TPR > 32) {
        const int r = threadIdx.x / TPR, w = (threadIdx.x % TPR) / 32;
        if (threadIdx.x % 32 == 0) {
            red_m[r * WPR + w] = m;
            red_s[r * WPR + w] = s;
        }
        __syncthreads();
        m = red_m[r * WPR];
        s = red_s[r * WPR];
#pragma unroll
        for (int k = 1; k < WPR; k++)
            combine(m, s, red_m[r * WPR + k], red_s[r * WPR + k]);
    }
}

// PASSES 1: the row held in registers, ITEMS vectors per thread, every load issued before any
// is used; one pass over memory.
template <typename T, typename R>
__device__ __forceinline__ void softmax_held(R *dst, const R *src, int lane, bool live, int nvec,
                                             float *red_a, float *red_b)
{
    R raw[ITEMS];
#pragma unroll
    for (int it = 0; it < ITEMS; it++) {
        int c = lane + it * TPR;
        raw[it] = live && c < nvec ? load_vec(src + c) : R();
    }
    float v[ITEMS][VEC];
    float m = NEG_INF;
#pragma unroll
    for (int it = 0; it < ITEMS; it++) {
        const bool ok = live && lane + it * TPR < nvec;
        const T *t = reinterpret_cast<const T *>(&raw[it]);
#pragma unroll
        for (int q = 0; q < VEC; q++) {
            v[it][q] = ok ? to_float(t[q]) : NEG_INF;
            m = fmaxf(m, v[it][q]);
        }
    }

    float scale, s = 0.0f;
    if (ONLINE) {
        // exp against this thread's own maximum, one (max, sum) reduction, then rescale
        const float mine = m;
#pragma unroll
        for (int it = 0; it < ITEMS; it++)
#pragma unroll
            for (int q = 0; q < VEC; q++) {
                v[it][q] = mine == NEG_INF ? 0.0f : __expf(v[it][q] - mine);
                s += v[it][q];
            }
        row_max_sum(m, s, red_a, red_b);
        scale = mine == NEG_INF ? 0.0f : __expf(mine - m) / s;
    } else {
        m = row_max(m, red_a);
#pragma unroll
        for (int it = 0; it < ITEMS; it++)
#pragma unroll
            for (int q = 0; q < VEC; q++) {
                v[it][q] = __expf(v[it][q] - m);
                s += v[it][q];
            }
        s = row_sum(s, red_b);
        scale = 1.0f / s;
    }

#pragma unroll
    for (int it = 0; it < ITEMS; it++) {
        int c = lane + it * TPR;
        if (live && c < nvec) {
            R out;
            T *t = reinterpret_cast<T *>(&out);
#pragma unroll
            for (int q = 0; q < VEC; q++)
                t[q] = from_float<T>(v[it][q] * scale);
            store_vec(dst + c, out);
        }
    }
}

// PASSES 2: the row streamed in chunks of ITEMS vectors per thread. The first pass keeps a running
// (max, sum) per thread (online softmax), the second reads the row again and writes it. A block's
// row was read moments before, so the second read is served by L2 (a row of 32768 f32 is 128 KiB;
// every SM's rows in flight together stay well inside L2): device memory still sees the row read
// once and written once, and a thread holds only ITEMS * VEC values, so an SM can overlap the
// reading and the writing of several rows. The first pass loads with the default cache policy (the
// data must stay in L2), the second with CS's streaming hint (its last use).
template <typename T, typename R>
__device__ __forceinline__ void softmax_streamed(R *dst, const R *src, int lane, bool live, int nvec,
                                                 float *red_a, float *red_b)
{
    float m = NEG_INF, s = 0.0f;
#pragma unroll 1
    for (int c0 = 0; c0 < nvec; c0 += TPR * ITEMS) {
        R raw[ITEMS];
#pragma unroll
        for (int it = 0; it < ITEMS; it++) {
            int c = c0 + lane + it * TPR;
            raw[it] = live && c < nvec ? src[c] : R();
        }
        float v[ITEMS][VEC];
        float cm = NEG_INF;
#pragma unroll
        for (int it = 0; it < ITEMS; it++) {
            const bool ok = live && c0 + lane + it * TPR < nvec;
            const T *t = reinterpret_cast<const T *>(&raw[it]);
#pragma unroll
            for (int q = 0; q < VEC; q++) {
                v[it][q] = ok ? to_float(t[q]) : NEG_INF;
                cm = fmaxf(cm, v[it][q]);
            }
        }
        const float mm = fmaxf(m, cm);
        if (mm != NEG_INF) {
            float acc = 0.0f;
#pragma unroll
            for (int it = 0; it < ITEMS; it++)
#pragma unroll
                for (int q = 0; q < VEC; q++)
                    acc += __expf(v[it][q] - mm);   // an empty slot is -inf: exp gives 0
            s = (m == NEG_INF ? 0.0f : s * __expf(m - mm)) + acc;
            m = mm;
        }
    }
    row_max_sum(m, s, red_a, red_b);
    const float inv = 1.0f / s;
#pragma unroll 1
    for (int c0 = 0; c0 < nvec; c0 += TPR * ITEMS) {
        R raw[ITEMS];
#pragma unroll
        for (int it = 0; it < ITEMS; it++) {
            int c = c0 + lane + it * TPR;
            raw[it] = live && c < nvec ? load_vec(src + c) : R();
        }
#pragma unroll
        for (int it = 0; it < ITEMS; it++) {
            int c = c0 + lane + it * TPR;
            if (live && c < nvec) {
                const T *t = reinterpret_cast<const T *>(&raw[it]);
                R out;
                T *o = reinterpret_cast<T *>(&out);
#pragma unroll
                for (int q = 0; q < VEC; q++)
                    o[q] = from_float<T>(__expf(to_float(t[q]) - m) * inv);
                store_vec(dst + c, out);
            }
        }
    }
}

template <typename T>
__global__ void __launch_bounds__(BLOCK) softmax(T *__restrict__ y, const T *__restrict__ x,
                                                 int rows, int cols)
{
    static_assert(VEC * sizeof(T) == 4 || VEC * sizeof(T) == 8 || VEC * sizeof(T) == 16,
                  "a vector is 4, 8 or 16 bytes");
    static_assert(PASSES == 1 || (PASSES == 2 && ONLINE == 1), "a streamed row needs ONLINE 1");
    typedef typename raw_vec<VEC * sizeof(T)>::type R;
    __shared__ float red_a[RPB * WPR], red_b[RPB * WPR];

    const long long row = (long long)blockIdx.x * RPB + threadIdx.x / TPR;
    const bool live = row < rows;           // no early return: the reductions may use barriers
    const R *src = reinterpret_cast<const R *>(x + (live ? row : 0) * cols);
    R *dst = reinterpret_cast<R *>(y + (live ? row : 0) * cols);
    if (PASSES == 1)
        softmax_held<T>(dst, src, threadIdx.x % TPR, live, cols / VEC, red_a, red_b);
    else
        softmax_streamed<T>(dst, src, threadIdx.x % TPR, live, cols / VEC, red_a, red_b);
}
