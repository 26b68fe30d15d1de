/* test_nvrtc_headers.c: kernels written the way people write them for nvcc, unedited, through the
 * NVRTC compiler (compiler_open("nvrtc")) with the in-memory standard headers of
 * nvrtc_headers.c: <stdio.h>, <cstdint>, <float.h>, <climits>, <math.h>, <cmath>, <assert.h>
 * (with and without NDEBUG), <cub/cub.cuh> and <stddef.h> compile; <vector> and Thrust are
 * refused with the hint to use nvcc first in the log; a syntax error and a missing header of the
 * user's own are refused without it. Also the hint on logs alone and the headers' digest. The
 * compiles need NVRTC (the CUDA toolkit), not a GPU; without NVRTC they are skipped. */
#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "build/compiler.h"
#include "build/nvrtc_headers.h"

static const char hint_start[] = "this kernel needs host code, which NVRTC does not compile (";
static char dir[256];

/* Compiles src (one kernel, name expression kernel) for sm_90 with -std=c++17, or the -std
 * option opt gives, and opt. The answer (CC_OK, CC_REFUSED, ...); *log gets the log (malloc'd,
 * may be NULL). */
static int compile(compiler *c, const char *src, const char *kernel, const char *opt, char **log)
{
    char path[300];
    snprintf(path, sizeof path, "%s/kernel.cu", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return CC_BROKEN;
    fputs(src, f);
    fclose(f);
    const char *kernels[] = {kernel};
    const char *options[] = {"-std=c++17", opt};
    int n_options = !opt ? 1 : strncmp(opt, "-std=", 5) == 0 ? 1 : 2;
    if (opt && n_options == 1)
        options[0] = opt;
    cc_input in = {.source = path, .n_kernels = 1, .kernels = kernels, .n_options = n_options,
                   .options = options, .arch = "sm_90", .work_dir = dir};
    cc_output out;
    int rc = c->vt->compile(c, &in, &out);
    *log = out.log;
    out.log = NULL;
    cc_output_clear(&out);
    unlink(path);
    return rc;
}

/* Compiles and checks the answer; on a surprise prints the log. */
static void expect(compiler *c, int want, const char *what, const char *src, const char *kernel,
                   const char *opt, char **log_out)
{
    char *log = NULL;
    int rc = compile(c, src, kernel, opt, &log);
    if (rc != want)
        fprintf(stderr, "%s: got %d, want %d; log:\n%s\n", what, rc, want, log ? log : "(none)");
    CHECK(rc == want);
    if (log_out)
        *log_out = log;
    else
        free(log);
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
    CHECK(!nvrtc_headers_host_hint("k.cu(4): error: A namespace scope variable without memory "
                                   "space annotations ... host variables are not allowed in JIT "
                                   "mode.\n"));
    CHECK(!nvrtc_headers_host_hint(""));
    CHECK(!nvrtc_headers_host_hint(NULL));
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
    c->vt->close(c);
    rmdir(dir);
    return CHECK_DONE();
}
