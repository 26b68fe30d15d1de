/* test_nvrtc_headers.c: kernels written the way people write them for nvcc, unedited, through the
 * NVRTC compiler (compiler_open("nvrtc")) with the in-memory standard headers of
 * nvrtc_headers.c: <stdio.h>, <cstdint>, <float.h>, <climits>, <math.h>, <cmath>, <assert.h>
 * (with and without NDEBUG), <cub/cub.cuh>, <stddef.h> and the C++ headers with a libcu++ form
 * (<type_traits>, <limits>, <utility>, <algorithm>, ...; refused below C++17 with a message)
 * compile; so does a device-only file that includes a CUDA library's host API (<cublas_v2.h>)
 * and uses glibc's uint as nvcc lets it, while host code calling cuBLAS is refused with the
 * hint; <vector> and Thrust are refused with the hint to use nvcc first in the log; a syntax
 * error and a missing header of the user's own are refused without it. Also the hint on logs alone and the headers' digest. The
 * compiles need NVRTC (the CUDA toolkit), not a GPU; without NVRTC they are skipped. */
#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "build/compiler.h"
#include "build/nvrtc_headers.h"
#include "build/nvrtc_options.h"

static const char hint_start[] = "this kernel needs host code, which NVRTC does not compile (";
static char dir[256];

/* Compiles src (one kernel, name expression kernel) for sm_90 with the n options opts. The
 * answer (CC_OK, CC_REFUSED, ...); *log gets the log (malloc'd, may be NULL). */
static int compile_with(compiler *c, const char *src, const char *kernel,
                        const char *const *opts, int n, char **log)
{
    char path[300];
    snprintf(path, sizeof path, "%s/kernel.cu", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return CC_BROKEN;
    fputs(src, f);
    fclose(f);
    const char *kernels[] = {kernel};
    cc_input in = {.source = path, .n_kernels = 1, .kernels = kernels, .n_options = n,
                   .options = (const char **)opts, .arch = "sm_90", .work_dir = dir};
    cc_output out;
    int rc = c->vt->compile(c, &in, &out);
    *log = out.log;
    out.log = NULL;
    cc_output_clear(&out);
    unlink(path);
    return rc;
}

/* Compiles with opts and checks the answer; on a surprise prints the log. */
static void expect_with(compiler *c, int want, const char *what, const char *src,
                        const char *kernel, const char *const *opts, int n, char **log_out)
{
    char *log = NULL;
    int rc = compile_with(c, src, kernel, opts, n, &log);
    if (rc != want)
        fprintf(stderr, "%s: got %d, want %d; log:\n%s\n", what, rc, want, log ? log : "(none)");
    CHECK(rc == want);
    if (log_out)
        *log_out = log;
    else
        free(log);
}

/* The same with -std=c++17, or the -std option opt gives, and opt. */
static void expect(compiler *c, int want, const char *what, const char *src, const char *kernel,
                   const char *opt, char **log_out)
{
    const char *options[] = {"-std=c++17", opt};
    int n_options = !opt ? 1 : strncmp(opt, "-std=", 5) == 0 ? 1 : 2;
    if (opt && n_options == 1)
        options[0] = opt;
    expect_with(c, want, what, src, kernel, options, n_options, log_out);
}

static const char k_stdio[] =
    "#include <stdio.h>\n"
    "__global__ void hello(int n) { if (threadIdx.x == 0) printf(\"n = %d\\n\", n); }\n";

static const char k_cstdint[] =
    "#include <cstdint>\n"
    "__global__ void hash(const uint8_t *in, uint32_t *out, std::size_t n) {\n"
    "    uint32_t h = 2166136261u;\n"
    "    for (std::size_t i = 0; i < n; i++) h = (h ^ in[i]) * 16777619u;\n"
    "    std::int64_t wide = INT64_MAX; std::uint16_t s = UINT16_MAX;\n"
    "    out[0] = h == UINT32_MAX ? 0u : h + (uint32_t)(wide & s) + UINT32_C(1);\n"
    "}\n";

static const char k_float[] =
    "#include <float.h>\n"
    "__global__ void block_max(const float *x, float *out, int n) {\n"
    "    __shared__ float s[256];\n"
    "    float m = -FLT_MAX;\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x) m = fmaxf(m, x[i]);\n"
    "    s[threadIdx.x] = m;\n"
    "    __syncthreads();\n"
    "    for (int k = blockDim.x / 2; k > 0; k /= 2) {\n"
    "        if (threadIdx.x < k) s[threadIdx.x] = fmaxf(s[threadIdx.x], s[threadIdx.x + k]);\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (threadIdx.x == 0) out[blockIdx.x] = s[0] < FLT_EPSILON ? DBL_MIN : s[0];\n"
    "}\n";

static const char k_climits[] =
    "#include <climits>\n"
    "__global__ void argmin(const int *x, int *out, int n) {\n"
    "    int best = INT_MAX;\n"
    "    for (int i = 0; i < n; i++) best = min(best, x[i]);\n"
    "    out[0] = best == INT_MAX ? INT_MIN : best + (CHAR_BIT == 8) + (LLONG_MAX > 0);\n"
    "}\n";

static const char k_math[] =
    "#include <math.h>\n"
    "__global__ void gelu(const float *x, float *y, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n) return;\n"
    "    float v = x[i];\n"
    "    float t = tanhf(sqrtf(2.0f / (float)M_PI) * (v + 0.044715f * v * v * v));\n"
    "    float m = -INFINITY;\n"
    "    y[i] = fmaxf(m, 0.5f * v * (1.0f + t)) + expf(-v) * 0.0f + (isinf(HUGE_VALF) ? 0.f : NAN);\n"
    "}\n";

static const char k_cmath[] =
    "#include <cmath>\n"
    "__global__ void norms(const float *x, const double *d, float *fo, double *dout) {\n"
    "    fo[0] = std::sqrt(x[0]) + std::exp(x[1]) + std::fabs(x[2]) + std::pow(x[3], 2.0f);\n"
    "    dout[0] = std::sqrt(d[0]) + std::exp(d[1]) + std::log(d[2]) + std::fmax(d[3], 1.0);\n"
    "    fo[1] = std::isnan(x[4]) ? 0.0f : std::floor(x[4]);\n"
    "}\n";

static const char k_assert[] =
    "#include <assert.h>\n"
    "__global__ void checked(const int *x, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    assert(i < n || n == 0);\n"
    "    assert(x[i] >= 0 && \"negative input\");\n"
    "}\n";

/* NDEBUG defined in the source before <cassert>: assert must become a no-op, so its expression
 * (a function declared nowhere) is never compiled; without NDEBUG the same kernel is refused. */
static const char k_ndebug[] =
    "#define NDEBUG\n"
    "#include <cassert>\n"
    "__global__ void unchecked(int *x) { assert(declared_nowhere(x) == 1); x[0] = 1; }\n";
/* and <assert.h> again after #undef NDEBUG brings assert back (no include guard) */
static const char k_ndebug_undone[] =
    "#define NDEBUG\n"
    "#include <cassert>\n"
    "#undef NDEBUG\n"
    "#include <assert.h>\n"
    "__global__ void unchecked(int *x) { assert(declared_nowhere(x) == 1); x[0] = 1; }\n";

static const char k_cub[] =
    "#include <cub/cub.cuh>\n"
    "template <int BLOCK>\n"
    "__global__ void k(const float *x, float *out) {\n"
    "    typedef cub::BlockReduce<float, BLOCK> BlockReduce;\n"
    "    typedef cub::WarpReduce<float> WarpReduce;\n"
    "    __shared__ typename BlockReduce::TempStorage block_tmp;\n"
    "    __shared__ typename WarpReduce::TempStorage warp_tmp[BLOCK / 32];\n"
    "    float v = x[blockIdx.x * BLOCK + threadIdx.x];\n"
    "    float w = WarpReduce(warp_tmp[threadIdx.x / 32]).Sum(v);\n"
    "    float s = BlockReduce(block_tmp).Sum(v);\n"
    "    if (threadIdx.x == 0) out[blockIdx.x] = s + w;\n"
    "}\n";

static const char k_stddef[] =
    "#include <stddef.h>\n"
    "struct pair { int key; double value; };\n"
    "__global__ void fill(double *out, size_t n) {\n"
    "    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    ptrdiff_t off = offsetof(pair, value);\n"
    "    if (i < n && out != NULL) out[i] = (double)off;\n"
    "}\n";

/* A kernel templated over its element type, as written for nvcc: it switches on std::is_same,
 * enables an overload with std::enable_if_t, reads std::numeric_limits and swaps with
 * std::swap, and sums with CUB; <cstdint> comes with it. */
static const char k_traits[] =
    "#include <cstdint>\n"
    "#include <limits>\n"
    "#include <type_traits>\n"
    "#include <utility>\n"
    "#include <cuda_fp16.h>\n"
    "#include <cub/cub.cuh>\n"
    "template <typename T>\n"
    "__device__ std::enable_if_t<std::is_floating_point<T>::value, float> widen(T v) { return (float)v; }\n"
    "template <typename T>\n"
    "__device__ std::enable_if_t<!std::is_floating_point<T>::value, float> widen(T v) {\n"
    "    return __half2float(v);\n"
    "}\n"
    "template <typename T, int BLOCK>\n"
    "__global__ void col_max(const T *x, float *out, std::size_t n) {\n"
    "    static_assert(std::is_same<T, float>::value || std::is_same<T, __half>::value, \"T\");\n"
    "    using Reduce = cub::BlockReduce<float, BLOCK>;\n"
    "    __shared__ typename Reduce::TempStorage tmp;\n"
    "    float m = std::numeric_limits<float>::lowest();\n"
    "    for (std::size_t i = threadIdx.x; i < n; i += BLOCK) m = fmaxf(m, widen(x[i]));\n"
    "    float a = m, b = (float)std::numeric_limits<std::int32_t>::max();\n"
    "    if (a > b) std::swap(a, b);\n"
    "    std::pair<float, int> p = std::make_pair(a, 1);\n"
    "    float r = Reduce(tmp).Sum(p.first);\n"
    "    if (threadIdx.x == 0) out[blockIdx.x] = std::is_same<T, __half>::value ? -r : r;\n"
    "}\n";

/* `using namespace std;` over several of them, and the names it makes unqualified: size_t, the
 * traits, and the CUDA built-in min of two ints, none ambiguous. */
static const char k_using_std[] =
    "#include <cstddef>\n"
    "#include <limits>\n"
    "#include <tuple>\n"
    "#include <type_traits>\n"
    "#include <utility>\n"
    "#include <array>\n"
    "using namespace std;\n"
    "template <typename T>\n"
    "__global__ void k(T *x, size_t n) {\n"
    "    typedef typename conditional<sizeof(T) == 8, long long, int>::type I;\n"
    "    array<I, 2> a = {{(I)n, (I)numeric_limits<int>::max()}};\n"
    "    tuple<int, T> t(min(3, 4), x[0]);\n"
    "    x[0] = get<1>(t) + (T)a[0] + (T)(is_integral<I>::value ? 1 : 0);\n"
    "}\n";

/* A team's helper as nvcc with --expt-relaxed-constexpr takes it: a constexpr function without
 * __device__, called from the kernel. */
static const char k_relaxed[] =
    "constexpr int round_up(int a, int b) { return (a + b - 1) / b * b; }\n"
    "__global__ void k(int *x, int n) { x[0] = round_up(n, 32); }\n";

/* a __device__ lambda, which needs nvcc's --extended-lambda */
static const char k_lambda[] =
    "__global__ void k(int *x) { auto f = [] __device__ (int a) { return a + 1; }; x[0] = f(1); }\n";

/* `using namespace std;` with <cmath>, CUB (which brings <cuda/std/cmath>) and the C++ headers:
 * the unqualified math built-ins stay unambiguous */
static const char k_using_math[] =
    "#include <cmath>\n"
    "#include <cstdlib>\n"
    "#include <cub/cub.cuh>\n"
    "#include <type_traits>\n"
    "#include <functional>\n"
    "#include <array>\n"
    "#include <limits>\n"
    "using namespace std;\n"
    "extern \"C\" __global__ void k(float *x, int *y, double *z) {\n"
    "    x[0] = sqrt(x[1]) + fmaxf(x[2], x[3]) + abs(x[4]) + std::sqrt(x[5]) + exp(x[6]);\n"
    "    y[0] = abs(y[1]) + min(y[2], y[3]) + max(y[4], y[5]) + (int)is_same_v<int, int>;\n"
    "    z[0] = sqrt(z[1]) + std::abs(z[2]) + numeric_limits<double>::max() + plus<double>()(1, 2);\n"
    "}\n";

/* std::numbers (C++20) and std::bit_cast from the libcu++ forms */
static const char k_numbers[] =
    "#include <numbers>\n"
    "#include <bit>\n"
    "#include <cstdint>\n"
    "__global__ void k(double *x, std::uint32_t *u) {\n"
    "    x[0] = std::numbers::pi; u[0] = std::bit_cast<std::uint32_t>(1.0f) + std::popcount(u[1]);\n"
    "}\n";

static const char k_vector[] =
    "#include <vector>\n"
    "__global__ void k(float *x) { x[0] = 1.0f; }\n";

static const char k_thrust[] =
    "#include <thrust/device_vector.h>\n"
    "__global__ void k(float *x) { x[0] = 1.0f; }\n";

static const char k_syntax[] =
    "__global__ void k(float *x) { x[0] = 1.0f }\n";

static const char k_local[] =
    "#include \"missing_local.cuh\"\n"
    "__global__ void k(float *x) { x[0] = 1.0f; }\n";

static void test_compiles(compiler *c)
{
    expect(c, CC_OK, "stdio.h", k_stdio, "hello", NULL, NULL);
    expect(c, CC_OK, "cstdint", k_cstdint, "hash", NULL, NULL);
    expect(c, CC_OK, "float.h", k_float, "block_max", NULL, NULL);
    expect(c, CC_OK, "climits", k_climits, "argmin", NULL, NULL);
    expect(c, CC_OK, "math.h", k_math, "gelu", NULL, NULL);
    /* C++11: no libcu++ there (CUDA 13's refuses it); the headers define the same themselves */
    char *log = NULL;
    expect(c, CC_OK, "math.h, C++11", k_math, "gelu", "-std=c++11", NULL);
    expect(c, CC_OK, "cstdint, C++11", k_cstdint, "hash", "-std=c++11", NULL);
    expect(c, CC_OK, "cmath", k_cmath, "norms", NULL, NULL);
    expect(c, CC_OK, "assert.h", k_assert, "checked", NULL, NULL);
    expect(c, CC_OK, "assert.h, -DNDEBUG", k_assert, "checked", "-DNDEBUG", NULL);
    expect(c, CC_OK, "NDEBUG, cassert", k_ndebug, "unchecked", NULL, NULL);
    expect(c, CC_REFUSED, "NDEBUG undone", k_ndebug_undone, "unchecked", NULL, &log);
    CHECK(log && strstr(log, "declared_nowhere") && !strstr(log, "kernel.compiler"));
    free(log);
    expect(c, CC_OK, "stddef.h", k_stddef, "fill", NULL, NULL);
    expect(c, CC_OK, "cub/cub.cuh", k_cub, "k<128>", NULL, &log);
    free(log);
    expect(c, CC_OK, "type_traits, limits, utility, f32", k_traits, "col_max<float, 128>", NULL,
           NULL);
    expect(c, CC_OK, "type_traits, limits, utility, f16", k_traits, "col_max<__half, 256>", NULL,
           NULL);
    expect(c, CC_OK, "type_traits, C++20", k_traits, "col_max<float, 128>", "-std=c++20", NULL);
    expect(c, CC_OK, "using namespace std", k_using_std, "k<double>", NULL, NULL);
    expect(c, CC_OK, "using namespace std, math with CUB", k_using_math, "k", NULL, NULL);
    expect(c, CC_OK, "numbers, bit (C++20)", k_numbers, "k", "-std=c++20", NULL);
    /* each of them alone, in C++17 (the default) */
    static const char *const forms[] = {
        "algorithm", "array", "bit", "functional", "initializer_list", "iterator", "limits",
        "numbers", "numeric", "optional", "ratio", "span", "tuple", "type_traits", "utility",
        "variant", "cublas_v2.h", "cufft.h", "nvtx3/nvToolsExt.h",
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        char src[200];
        snprintf(src, sizeof src, "#include <%s>\n__global__ void k(std::size_t *x) { x[0] = 1; }\n",
                 forms[i]);
        expect(c, CC_OK, forms[i], src, "k", NULL, NULL);
    }
    /* a kernel that ships its own <type_traits> for NVRTC (in an -I folder) gets its own, in
     * C++14 too, where the standard one would refuse */
    char own[400], opt[420];
    snprintf(own, sizeof own, "%s/own", dir);
    mkdir(own, 0755);
    snprintf(opt, sizeof opt, "%s/type_traits", own);
    FILE *f = fopen(opt, "w");
    if (f) {
        fputs("#pragma once\nnamespace std { template <class A, class B> struct is_same { "
              "static const bool value = false; }; template <class A> struct is_same<A, A> { "
              "static const bool value = true; }; }\n", f);
        fclose(f);
    }
    char inc[420];
    snprintf(inc, sizeof inc, "-I%s", own);
    const char *own_opts[] = {"-std=c++14", inc};
    expect_with(c, CC_OK, "own type_traits",
                "#include <type_traits>\ntemplate <class T> __global__ void k(T *x) { "
                "x[0] = std::is_same<T, float>::value ? 1 : 2; }\n",
                "k<float>", own_opts, 2, NULL);
    snprintf(opt, sizeof opt, "%s/type_traits", own);
    unlink(opt);
    rmdir(own);
    /* below C++17 libcu++ (CUDA 13) has no form: the header says what to do instead */
    expect(c, CC_REFUSED, "type_traits, C++14", k_traits, "col_max<float, 128>", "-std=c++14",
           &log);
    CHECK(log && strstr(log, "<limits> under NVRTC is libcu++'s <cuda/std/limits>, which needs "
                             "-std=c++17 or later"));
    free(log);
}

/* A device-only file as SGEMM_CUDA's kernels are: <algorithm> (std::min, std::max, std::clamp in
 * device code), <cublas_v2.h> and <cuda_profiler_api.h> for the host code elsewhere, and glibc's
 * uint that nvcc's implicit cuda_runtime.h brings. Host code that calls cuBLAS is refused, with
 * the hint naming the function. */
static const char k_sgemm_style[] =
    "#include <algorithm>\n"
    "#include <cassert>\n"
    "#include <cstdio>\n"
    "#include <cstdlib>\n"
    "#include <cublas_v2.h>\n"
    "#include <cuda_profiler_api.h>\n"
    "#include <cuda_runtime.h>\n"
    "__device__ float tile(const uint row, const uint col, const float *a) {\n"
    "    return std::clamp(a[row * 8 + col], -1.0f, 1.0f);\n"
    "}\n"
    "__global__ void k(float *y, const float *a, ushort n) {\n"
    "    uint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] = std::max(tile(i / 8, i % 8, a), std::min(0.5f, y[i]));\n"
    "}\n";
static const char k_calls_cublas[] =
    "#include <cublas_v2.h>\n"
    "__global__ void k(float *y) { y[0] = 1.0f; }\n"
    "#ifndef NO_HOST\n"
    "__host__ void gemm(float *c) { cublasHandle_t h; cublasCreate(&h); }\n"
    "#endif\n";

static void test_host_parts(compiler *c)
{
    char *log = NULL;
    expect(c, CC_OK, "sgemm style: <algorithm>, <cublas_v2.h>, uint", k_sgemm_style, "k", NULL,
           &log);
    free(log);
    expect(c, CC_OK, "a typedef of uint of the kernel's own",
           "typedef unsigned int uint;\n__global__ void k(uint *y) { y[0] = 1; }\n", "k", NULL,
           NULL);
    expect(c, CC_OK, "cuBLAS only in host code NVRTC skips", k_calls_cublas, "k", "-DNO_HOST",
           NULL);
    /* a project header's host prototypes beside the kernel (cuda-samples' FDTD3d): compiled as
     * nvcc does, as declarations nothing calls; a host function with a body is still refused */
    expect(c, CC_OK, "host prototypes",
           "bool runOnGpu(float *out, const float *in, int n);\nint count(void);\n"
           "__global__ void k(float *y) { y[0] = 1.0f; }\n", "k", NULL, NULL);
    expect(c, CC_REFUSED, "a host function with a body",
           "bool runOnGpu(float *out, const float *in, int n);\n"
           "int host_only(int n) { return n + 1; }\n"
           "__global__ void k(float *y) { y[0] = 1.0f; }\n", "k", NULL, &log);
    CHECK(log && strncmp(log, hint_start, strlen(hint_start)) == 0);
    free(log);
    expect(c, CC_REFUSED, "host code that calls cuBLAS", k_calls_cublas, "k", NULL, &log);
    CHECK(log && strncmp(log, hint_start, strlen(hint_start)) == 0);
    free(log);
    CHECK_STR(nvrtc_headers_host_hint("k.cu(4): error: identifier \"cublasCreate_v2\" is undefined\n"),
              "this kernel needs host code, which NVRTC does not compile (cublasCreate_v2 is "
              "cuBLAS's host API, whose header NVRTC gets empty): set kernel.compiler: nvcc in "
              "the space file");
    CHECK(!nvrtc_headers_host_hint("k.cu(4): error: identifier \"curand_uniform\" is undefined\n"));
    /* cuRAND's device API includes <curand.h>: it stays the toolkit's */
    expect(c, CC_OK, "curand_kernel.h",
           "#include <curand_kernel.h>\n__global__ void k(float *y, unsigned long long seed) {\n"
           "    curandState s; curand_init(seed, threadIdx.x, 0, &s); y[threadIdx.x] = "
           "curand_uniform(&s); }\n", "k", NULL, NULL);
}

static void test_refusals(compiler *c)
{
    char *log = NULL;
    expect(c, CC_REFUSED, "vector", k_vector, "k", NULL, &log);
    CHECK(log && strncmp(log, hint_start, strlen(hint_start)) == 0);
    CHECK(log && strstr(log, "(<vector> is a host header): set kernel.compiler: nvcc"));
    CHECK(log && strstr(log, "cannot open source file \"vector\""));   /* NVRTC's log follows */
    free(log);

    expect(c, CC_REFUSED, "thrust", k_thrust, "k", NULL, &log);
    CHECK(log && strncmp(log, hint_start, strlen(hint_start)) == 0);
    CHECK(log && strstr(log, "set kernel.compiler: nvcc in the space file\n"));
    free(log);

    expect(c, CC_REFUSED, "syntax error", k_syntax, "k", NULL, &log);
    CHECK(log && !strstr(log, "kernel.compiler") && strstr(log, "error"));
    free(log);

    expect(c, CC_REFUSED, "missing local header", k_local, "k", NULL, &log);
    CHECK(log && !strstr(log, "kernel.compiler") && strstr(log, "missing_local.cuh"));
    free(log);
}

/* The hint on logs alone (no NVRTC needed). */
static void test_hint(void)
{
    const char *h = nvrtc_headers_host_hint(
        "k.cu(1): catastrophic error: cannot open source file \"iostream\"\n  #include <iostream>\n");
    CHECK_STR(h, "this kernel needs host code, which NVRTC does not compile (<iostream> is a host "
                 "header): set kernel.compiler: nvcc in the space file");
    h = nvrtc_headers_host_hint("/cuda/include/cccl/thrust/detail/memory_wrapper.h(39): "
                                "catastrophic error: cannot open source file \"memory\"\n");
    CHECK(h && strstr(h, "(<memory> is a host header, included by thrust/detail/memory_wrapper.h)"));
    h = nvrtc_headers_host_hint("k.cu(2): catastrophic error: cannot open source file "
                                "\"thrust/sort.h\"\n");
    CHECK(h && strstr(h, "(<thrust/sort.h> is Thrust's host code)"));
    h = nvrtc_headers_host_hint("/cuda/include/cccl/thrust/system/cuda/detail/core/x.h(61): error: "
                                "A function explicitly marked as a __host__ function is not allowed "
                                "in JIT mode\n");
    CHECK(h && strstr(h, "(Thrust's host code)"));
    h = nvrtc_headers_host_hint("k.cu(3): error: A function explicitly marked as a __host__ "
                                "function is not allowed in JIT mode\n");
    CHECK(h && strstr(h, "(a __host__ function)"));
    h = nvrtc_headers_host_hint("k.cu(1): catastrophic error: cannot open source file "
                                "\"type_traits\"\n");
    CHECK(h && strstr(h, "<cuda/std/type_traits>"));
    /* not host code: the user's header, a toolkit header not found, a plain error, nothing */
    CHECK(!nvrtc_headers_host_hint("k.cu(1): catastrophic error: cannot open source file "
                                   "\"missing_local.cuh\"\n"));
    CHECK(!nvrtc_headers_host_hint("k.cu(1): catastrophic error: cannot open source file "
                                   "\"mylib/vector.h\"\n"));
    CHECK(!nvrtc_headers_host_hint("k.cu(1): catastrophic error: cannot open source file "
                                   "\"cuda_fp16.h\"\n"));
    CHECK(!nvrtc_headers_host_hint("k.cu(1): error: expected a \";\"\n"));
    /* a host variable (llm.c's common.h: extern cudaDeviceProp deviceProp;), named with its
     * place; a function without __device__ likewise */
    CHECK_STR(nvrtc_headers_host_hint("/src/common.h(9): error: A namespace scope variable without "
                                      "memory space annotations ... host variables are not "
                                      "allowed in JIT mode.\n"),
              "this kernel needs host code, which NVRTC does not compile (a variable without "
              "__device__ at common.h(9)): set kernel.compiler: nvcc in the space file");
    h = nvrtc_headers_host_hint("api.h(3): error: A function without execution space ... host "
                                "functions are not allowed in JIT mode.\n");
    CHECK(h && strstr(h, "(a function without __device__ at api.h(3); if device code"));
    CHECK(!nvrtc_headers_host_hint(""));
    CHECK(!nvrtc_headers_host_hint(NULL));
}

/* One option list through the rules; the result joined with spaces. */
static void translate(const char *const *in, int n, char *out, size_t len)
{
    char **v = NULL;
    int k = 0;
    out[0] = 0;
    CHECK(nvrtc_options_from_nvcc(in, n, &v, &k) == 0);
    for (int i = 0; i < k; i++)
        snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? " " : "", v[i]);
    nvrtc_options_free(v, k);
}

/* nvcc's options as builds pass them, in NVRTC's form (no NVRTC needed). */
static void test_options(void)
{
    char got[1024];
    const char *build[] = {"-O3", "--expt-relaxed-constexpr", "-Xcompiler", "-fPIC",
                           "-Xptxas", "-v", "-lineinfo", "--use_fast_math", "-std", "c++17",
                           "-Wno-deprecated-gpu-targets", "--threads", "0", "-res-usage", "-g",
                           "--extended-lambda", "-DTILE=32", "-I", "include", "-Werror",
                           "all-warnings", "-Xcompiler=-Wall", "-t=4", "--default-stream",
                           "per-thread", "-maxrregcount", "64", "-expt-relaxed-constexpr", "-G"};
    translate(build, (int)(sizeof build / sizeof build[0]), got, sizeof got);
    CHECK_STR(got, "-default-device -Xptxas -v -lineinfo --use_fast_math -std=c++17 -DTILE=32 "
                   "-I include -maxrregcount 64 -G");
    /* nothing to change: the same list; options that only look like a rule's are kept */
    const char *plain[] = {"-DN=4", "--fmad=false", "-gencode-like", "-w", "-std=c++20",
                           "-diag-suppress", "177"};
    translate(plain, 7, got, sizeof got);
    CHECK_STR(got, "-DN=4 --fmad=false -gencode-like -w -std=c++20 -diag-suppress 177");
    /* -Ofc=max is NVRTC's too; nvcc's --W... switches go; a lone -Werror keeps the next option */
    const char *more[] = {"-Ofc=max", "--Wno-deprecated-declarations", "--Wreorder", "-Werror",
                          "-lineinfo", "-O2"};
    translate(more, 6, got, sizeof got);
    CHECK_STR(got, "-Ofc=max -lineinfo");
    /* a Makefile's link flags go, in every form; -lineinfo stays */
    const char *link[] = {"-lcublas", "-l", "cublasLt", "-L/opt/cuda/lib64", "-L", "lib",
                          "--library", "m", "--library-path=/x", "-lineinfo"};
    translate(link, 10, got, sizeof got);
    CHECK_STR(got, "-lineinfo");
    /* a value-taking option last, with its value missing: left out, nothing read past the end */
    const char *last[] = {"-DX", "-Xcompiler"};
    translate(last, 2, got, sizeof got);
    CHECK_STR(got, "-DX");
    translate(NULL, 0, got, sizeof got);
    CHECK_STR(got, "");

    const char *d = nvrtc_options_digest();
    CHECK(d && strlen(d) == 64 && strspn(d, "0123456789abcdef") == 64);
    CHECK_STR(nvrtc_options_hint("nvrtc: error: unrecognized option --frobnicate found\n"),
              "NVRTC does not take the option --frobnicate: leave it out of kernel.options, or "
              "set kernel.compiler: nvcc in the space file");
    CHECK(!nvrtc_options_hint("k.cu(1): error: expected a \";\"\n"));
    CHECK(!nvrtc_options_hint(NULL));
}

/* The same through NVRTC: a build's options compile, --expt-relaxed-constexpr lets the kernel
 * call a constexpr helper without __device__, and a __device__ lambda is refused with the hint
 * to use nvcc. */
static void test_build_line(compiler *c)
{
    char *log = NULL;
    const char *opts[] = {"-O3", "--expt-relaxed-constexpr", "-Xcompiler", "-fPIC", "-Xptxas",
                          "-v", "-std", "c++17", "-Wno-deprecated-gpu-targets", "-res-usage",
                          "-g", "--extended-lambda", "--threads", "0", "-lineinfo"};
    int n = (int)(sizeof opts / sizeof opts[0]);
    expect_with(c, CC_OK, "build line", k_relaxed, "k", opts, n, NULL);
    expect_with(c, CC_REFUSED, "device lambda", k_lambda, "k", opts, n, &log);
    CHECK(log && strstr(log, "__device__ lambdas") && strstr(log, "kernel.compiler: nvcc"));
    free(log);
    /* without the flag the helper is host code, and the hint says so */
    expect(c, CC_REFUSED, "constexpr helper without the flag", k_relaxed, "k", NULL, &log);
    CHECK(log && strncmp(log, hint_start, strlen(hint_start)) == 0);
    free(log);
    /* an option NVRTC does not know goes through, and the refusal names it */
    expect(c, CC_REFUSED, "unknown option", k_relaxed, "k", "--frobnicate", &log);
    CHECK(log && strstr(log, "NVRTC does not take the option --frobnicate"));
    free(log);
}

static void test_digest(void)
{
    const char *d = nvrtc_headers_digest();
    CHECK(d && strlen(d) == 64 && strspn(d, "0123456789abcdef") == 64);
    char first[65];
    snprintf(first, sizeof first, "%s", d ? d : "");
    CHECK_STR(nvrtc_headers_digest(), first);
    /* every name has a source, and the names a kernel includes are there */
    int n = nvrtc_headers_count();
    const char *const *names = nvrtc_headers_names();
    const char *const *sources = nvrtc_headers_sources();
    int seen = 0;
    for (int i = 0; i < n; i++) {
        CHECK(names[i] && sources[i] && sources[i][0]);
        if (strcmp(names[i], "cub/cub.cuh") == 0 || strcmp(names[i], "cstdint") == 0 ||
            strcmp(names[i], "math.h") == 0)
            seen++;
    }
    CHECK(seen == 3);
}

int main(void)
{
    test_hint();
    test_digest();
    test_options();
    char err[1024];
    compiler *c = compiler_open("nvrtc", err, sizeof err);
    if (!c) {
        printf("NVRTC not found, compiles skipped: %s\n", err);
        return CHECK_DONE();
    }
    snprintf(dir, sizeof dir, "/tmp/test_nvrtc_headers.XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_compiles(c);
    test_refusals(c);
    test_host_parts(c);
    test_build_line(c);
    c->vt->close(c);
    rmdir(dir);
    return CHECK_DONE();
}
