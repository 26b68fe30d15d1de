/* test_compiler_nvcc.c: nvcc behind the compiler interface, on the CPU (nvcc -cubin needs no
 * GPU): kernels found in nvcc's PTX by their name expressions (extern "C", templates with CUB,
 * unsigned and bool template arguments, __device__ functions as template arguments, a
 * namespace, an anonymous namespace, two kernels at once) with their parameters' sizes and
 * launch bounds; a source with host code (main, std::vector, cudaMemcpyToSymbol) and its
 * __constant__ and namespaced variables; refusals (a syntax error, a name that is no kernel, a
 * missing variable, a failing or missing nvcc); the probe (version, a fake nvcc without the
 * architecture, $TUNEKIT_NVCC that is not there). Skipped, and said so, without an nvcc that
 * compiles for sm_90. */
#include "check.h"

#include <dirent.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "build/compiler.h"

static char dir[64];

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* CPU seconds of the processes this one has waited for (nvcc and what it ran), so far. */
static double children_cpu_s(void)
{
    struct rusage u;
    getrusage(RUSAGE_CHILDREN, &u);
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

/* dir/name with text; mode 0755 when exec. */
static void put(const char *name, const char *text, int exec)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs(text, f);
    fclose(f);
    if (exec)
        chmod(path, 0755);
}

/* Compiles dir/src for sm_90 with -std=c++17 and extra options, in a fresh work folder under
 * dir (tool: NULL for the one found). The compile's answer, out filled. */
static int compile(const char *src, int nk, const char *const *kernels, int ns,
                   const char *const *symbols, const char *extra, const char *tool, cc_output *out)
{
    static int serial;
    char path[256], work[256], err[1024];
    snprintf(path, sizeof path, "%s/%s", dir, src);
    snprintf(work, sizeof work, "%s/work%d", dir, serial++);
    mkdir(work, 0700);
    const char *opts[2] = {"-std=c++17", extra};
    cc_input in = {.source = path, .n_kernels = nk, .kernels = kernels, .n_symbols = ns,
                   .symbols = symbols, .n_options = extra ? 2 : 1, .options = opts,
                   .arch = "sm_90", .tool = tool, .work_dir = work};
    compiler *c = compiler_open("nvcc", err, sizeof err);
    CHECK(c != NULL);
    if (!c) {
        fprintf(stderr, "%s\n", err);
        memset(out, 0, sizeof *out);
        return CC_BROKEN;
    }
    CHECK_STR(c->vt->name, "nvcc");
    int rc = c->vt->compile(c, &in, out);
    c->vt->close(c);
    return rc;
}

/* CHECKs that a compile went through; says why not when it did not. */
static int ok(int rc, const cc_output *out)
{
    CHECK(rc == CC_OK);
    if (rc != CC_OK)
        fprintf(stderr, "compile: %d: %.2000s\n", rc, out->log ? out->log : "(no log)");
    return rc == CC_OK;
}

static const char saxpy_src[] =
    "extern \"C\" __global__ void saxpy(float *y, const float *x, float a, long long n)\n"
    "{\n"
    "    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] += SCALE * a * x[i];\n"
    "}\n";

static void test_extern_c(void)
{
    cc_output out;
    const char *k[] = {"saxpy"};
    double t0 = now_s(), cpu0 = children_cpu_s();
    int rc = compile("saxpy.cu", 1, k, 0, NULL, "-DSCALE=2.0f", NULL, &out);
    double took = now_s() - t0, cpu = children_cpu_s() - cpu0;
    if (ok(rc, &out)) {
        CHECK(out.cubin_n > 4 && memcmp(out.cubin, "\x7f" "ELF", 4) == 0);
        CHECK_STR(out.lowered[0], "saxpy");
        CHECK(out.n_params[0] == 4);
        CHECK(out.param_sizes[0][0] == 8 && out.param_sizes[0][1] == 8 &&
              out.param_sizes[0][2] == 4 && out.param_sizes[0][3] == 8);
    }
    printf("a small nvcc compile (saxpy, sm_90): %.2f s, %.2f s of CPU\n", took, cpu);
    cc_output_clear(&out);

    /* a name that is no kernel: refused, naming it and the kernels there are */
    const char *wrong[] = {"saxpyy"};
    CHECK(compile("saxpy.cu", 1, wrong, 0, NULL, "-DSCALE=1", NULL, &out) == CC_REFUSED);
    CHECK(out.log && strstr(out.log, "saxpyy is not a kernel of") && strstr(out.log, "saxpy)"));
    cc_output_clear(&out);

    /* a variable that is not there */
    const char *sym[] = {"c_missing"};
    CHECK(compile("saxpy.cu", 1, k, 1, sym, "-DSCALE=1", NULL, &out) == CC_REFUSED);
    CHECK(out.log && strstr(out.log, "no variable c_missing in"));
    cc_output_clear(&out);

    /* without the -D the source does not compile */
    CHECK(compile("saxpy.cu", 1, k, 0, NULL, NULL, NULL, &out) == CC_REFUSED);
    CHECK(out.log && strstr(out.log, "SCALE") && strstr(out.log, "error"));
    cc_output_clear(&out);
}

static const char bsum_src[] =
    "#include <cub/cub.cuh>\n"
    "template <int B, typename T> __global__ void bsum(const T *in, T *out, int n)\n"
    "{\n"
    "    typedef cub::BlockReduce<T, B> R;\n"
    "    __shared__ typename R::TempStorage tmp;\n"
    "    int i = blockIdx.x * B + threadIdx.x;\n"
    "    T s = R(tmp).Sum(i < n ? in[i] : T(0));\n"
    "    if (threadIdx.x == 0) out[blockIdx.x] = s;\n"
    "}\n";

static void test_cub_template(void)
{
    cc_output out;
    char first[256] = "";
    const char *k1[] = {"bsum<256, float>"};
    double t0 = now_s(), cpu0 = children_cpu_s();
    int rc = compile("bsum.cu", 1, k1, 0, NULL, NULL, NULL, &out);
    double took = now_s() - t0, cpu = children_cpu_s() - cpu0;
    if (ok(rc, &out)) {
        CHECK(strncmp(out.lowered[0], "_Z", 2) == 0);
        CHECK(strstr(out.lowered[0], "4bsum") != NULL);     /* not CUB's EmptyKernel */
        CHECK(out.n_params[0] == 3);
        CHECK(out.param_sizes[0][0] == 8 && out.param_sizes[0][1] == 8 &&
              out.param_sizes[0][2] == 4);
        snprintf(first, sizeof first, "%s", out.lowered[0]);
    }
    printf("an nvcc compile with CUB (bsum<256, float>, sm_90): %.2f s, %.2f s of CPU\n", took,
           cpu);
    cc_output_clear(&out);

    /* another instance, named twice (as a pipeline would, spelled differently): both found */
    const char *k2[] = {"bsum<128, double>", "::bsum<128,double>"};
    rc = compile("bsum.cu", 2, k2, 0, NULL, NULL, NULL, &out);
    if (ok(rc, &out)) {
        CHECK(strncmp(out.lowered[0], "_Z", 2) == 0 && strcmp(out.lowered[0], first) != 0);
        CHECK_STR(out.lowered[1], out.lowered[0]);
        CHECK(out.n_params[0] == 3 && out.n_params[1] == 3);
    }
    cc_output_clear(&out);
}

static const char host_src[] =
    "#include <stdio.h>\n"
    "#include <vector>\n"
    "__constant__ float c_filter[16];\n"
    "namespace ns {\n"
    "__device__ int table[4];\n"
    "__global__ void apply(float *y, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] *= c_filter[i % 16] + table[i % 4];\n"
    "}\n"
    "}\n"
    "int main()\n"
    "{\n"
    "    std::vector<float> f(16, 1.0f);\n"
    "    cudaMemcpyToSymbol(c_filter, f.data(), f.size() * sizeof(float));\n"
    "    printf(\"%zu\\n\", f.size());\n"
    "    return 0;\n"
    "}\n";

static void test_host_code(void)
{
    cc_output out;
    const char *k[] = {"ns::apply"};
    const char *s[] = {"c_filter", "ns::table"};
    int rc = compile("host.cu", 1, k, 2, s, NULL, NULL, &out);
    if (ok(rc, &out)) {
        CHECK_STR(out.lowered[0], "_ZN2ns5applyEPfi");
        CHECK(out.n_params[0] == 2 && out.param_sizes[0][0] == 8 && out.param_sizes[0][1] == 4);
        CHECK_STR(out.symbol_lowered[0], "c_filter");
        CHECK_STR(out.symbol_lowered[1], "_ZN2ns5tableE");
    }
    cc_output_clear(&out);
}

static const char unsigned_src[] =
    "template <unsigned N> __global__ void __launch_bounds__(N) k(int *p) { p[threadIdx.x] = N; }\n"
    "namespace {\n"
    "__global__ void helper(int *p, short s) { int set_only; set_only = 1; p[0] = s; }\n"
    "}\n";

static void test_names(void)
{
    cc_output out;
    /* "k<64>" is "void k<64u>(int*)" demangled; "helper" is in an anonymous namespace */
    const char *k[] = {"k<64>", "helper"};
    int rc = compile("unsigned.cu", 2, k, 0, NULL, NULL, NULL, &out);
    if (ok(rc, &out)) {
        CHECK_STR(out.lowered[0], "_Z1kILj64EEvPi");
        CHECK(out.n_params[0] == 1 && out.param_sizes[0][0] == 8);
        CHECK(strstr(out.lowered[1], "6helperEPis") != NULL);
        CHECK(out.n_params[1] == 2 && out.param_sizes[1][1] == 2);
        /* __launch_bounds__(N) of the instance, none for the other */
        CHECK(out.max_threads[0] == 64 && out.max_threads[1] == 0);
        /* a warning of a successful compile reaches the log (nvcc leaves out one kind for an
         * included file, as the source is: "function declared but never referenced") */
        CHECK(out.log && strstr(out.log, "warning") && strstr(out.log, "set_only"));
    }
    cc_output_clear(&out);
}

/* A kernel templated over a __device__ function, with host code that instantiates it twice (as
 * llm.c's trimat_forward.cu does): nvcc demangles the argument as &(op_mul(float*, int)); the
 * space names it op_mul or &op_mul, in a namespace or not. */
static const char fnptr_src[] =
    "using op_fn = void (*)(float *, int);\n"
    "namespace ops {\n"
    "__device__ void op_mul(float *y, int i) { y[i] *= 2.0f; }\n"
    "}\n"
    "__device__ void op_add(float *y, int i) { y[i] += y[i]; }\n"
    "template <op_fn OP, int N> __global__ void apply(float *y, int n)\n"
    "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) OP(y, i + N); }\n"
    "template <op_fn OP> void launch(float *y, int n) { apply<OP, 0><<<1, 32>>>(y, n); }\n"
    "void run_all(float *y, int n) { launch<ops::op_mul>(y, n); launch<op_add>(y, n); }\n"
    /* a bool template argument (cuda-samples' reduce6<T, blockSize, nIsPow2>), one instance
     * explicit in the source: the demangler writes true, the space 1 */
    "template <unsigned B, bool P> __global__ void sb(float *y) { if (P) y[threadIdx.x] = B; }\n"
    "template __global__ void sb<64, false>(float *);\n";

static void test_template_arguments(void)
{
    cc_output out;
    const char *k[] = {"apply<ops::op_mul, 0>", "apply<&op_add,0>", "apply<op_add, 1>"};
    int rc = compile("fnptr.cu", 3, k, 0, NULL, NULL, NULL, &out);
    if (ok(rc, &out)) {
        CHECK(strstr(out.lowered[0], "op_mul") && !strstr(out.lowered[0], "op_add"));
        CHECK(strstr(out.lowered[1], "op_add") && !strstr(out.lowered[1], "op_mul"));
        CHECK(strstr(out.lowered[2], "op_add") && strcmp(out.lowered[1], out.lowered[2]) != 0);
        CHECK(out.n_params[0] == 2 && out.param_sizes[0][0] == 8 && out.param_sizes[0][1] == 4);
    }
    cc_output_clear(&out);
    const char *b[] = {"sb<128, 1>", "sb<64,false>", "sb<64, 0>"};
    rc = compile("fnptr.cu", 3, b, 0, NULL, NULL, NULL, &out);
    if (ok(rc, &out)) {
        CHECK_STR(out.lowered[0], "_Z2sbILj128ELb1EEvPf");
        CHECK_STR(out.lowered[1], "_Z2sbILj64ELb0EEvPf");
        CHECK_STR(out.lowered[2], "_Z2sbILj64ELb0EEvPf");
    }
    cc_output_clear(&out);
    /* a function that is no argument of any instance is still refused */
    const char *none[] = {"apply<op_sub, 0>"};
    CHECK(compile("fnptr.cu", 1, none, 0, NULL, NULL, NULL, &out) == CC_REFUSED);
    cc_output_clear(&out);
}

static void test_syntax_error(void)
{
    cc_output out;
    const char *k[] = {"broken"};
    CHECK(compile("broken.cu", 1, k, 0, NULL, NULL, NULL, &out) == CC_REFUSED);
    CHECK(out.log && strstr(out.log, "error") && strstr(out.log, "broken.cu"));
    CHECK(out.cubin == NULL);
    cc_output_clear(&out);
}

static void test_tools(void)
{
    cc_output out;
    char path[256];
    const char *k[] = {"saxpy"};
    /* an nvcc that says no: refused with its words */
    snprintf(path, sizeof path, "%s/failing-nvcc", dir);
    CHECK(compile("saxpy.cu", 1, k, 0, NULL, NULL, path, &out) == CC_REFUSED);
    CHECK(out.log && strstr(out.log, "boom") != NULL);
    cc_output_clear(&out);
    /* one that cannot be started: the compiler is broken, not the variant */
    snprintf(path, sizeof path, "%s/no-such-nvcc", dir);
    CHECK(compile("saxpy.cu", 1, k, 0, NULL, NULL, path, &out) == CC_BROKEN);
    CHECK(out.log && strstr(out.log, "no-such-nvcc") != NULL);
    cc_output_clear(&out);
}

static void test_probe(void)
{
    compiler_info info;
    char err[1024], path[256];
    CHECK(compiler_probe("nvcc", 90, &info, err, sizeof err) == 0);
    CHECK_STR(info.kind, "nvcc");
    int a = -1, b = -1, c = -1, n = 0;
    CHECK(sscanf(info.version, "%d.%d.%d%n", &a, &b, &c, &n) == 3 && info.version[n] == 0);
    CHECK(a >= 11 && b >= 0 && c >= 0);
    CHECK(info.tool[0] == '/' && access(info.tool, X_OK) == 0);
    printf("nvcc %s (%s)\n", info.version, info.tool);

    char was[1024] = "";
    int had = getenv("TUNEKIT_NVCC") != NULL;
    if (had)
        snprintf(was, sizeof was, "%s", getenv("TUNEKIT_NVCC"));
    setenv("TUNEKIT_NVCC", "/nonexistent", 1);
    CHECK(compiler_probe("nvcc", 90, &info, err, sizeof err) == -1);
    CHECK(strstr(err, "/nonexistent") && strstr(err, "TUNEKIT_NVCC"));
    CHECK(compiler_open("nvcc", err, sizeof err) == NULL);
    CHECK(strstr(err, "/nonexistent") != NULL);
    /* an nvcc of a release without the architecture */
    snprintf(path, sizeof path, "%s/old-nvcc", dir);
    setenv("TUNEKIT_NVCC", path, 1);
    CHECK(compiler_probe("nvcc", 90, &info, err, sizeof err) == -1);
    CHECK(strstr(err, "nvcc 11.2.152 (") && strstr(err, "old-nvcc) cannot compile for sm_90"));
    CHECK(compiler_probe("nvcc", 80, &info, err, sizeof err) == 0);
    CHECK_STR(info.version, "11.2.152");
    CHECK_STR(info.tool, path);
    if (had)
        setenv("TUNEKIT_NVCC", was, 1);
    else
        unsetenv("TUNEKIT_NVCC");
}

/* Only the sources, the fake programs and the work folders are left in dir. */
static void test_nothing_else_written(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int others = 0;
    while (d && (e = readdir(d))) {
        const char *n = e->d_name;
        if (strcmp(n, ".") && strcmp(n, "..") && strncmp(n, "work", 4) && !strstr(n, ".cu") &&
            !strstr(n, "-nvcc")) {
            fprintf(stderr, "unexpected file %s\n", n);
            others++;
        }
    }
    if (d)
        closedir(d);
    CHECK(others == 0);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

int main(void)
{
    compiler_info info;
    char err[1024];
    if (compiler_probe("nvcc", 90, &info, err, sizeof err) != 0) {
        printf("skipped: %s\n", err);
        return CHECK_DONE();
    }
    snprintf(dir, sizeof dir, "/tmp/test_compiler_nvcc.XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    put("saxpy.cu", saxpy_src, 0);
    put("bsum.cu", bsum_src, 0);
    put("host.cu", host_src, 0);
    put("unsigned.cu", unsigned_src, 0);
    put("fnptr.cu", fnptr_src, 0);
    put("broken.cu", "__global__ void broken(int *p) { p[0] = ; }\n", 0);
    put("failing-nvcc", "#!/bin/sh\necho boom >&2\nexit 1\n", 1);
    put("old-nvcc", "#!/bin/sh\n"
        "case \"$1\" in\n"
        "--version) echo 'Cuda compilation tools, release 11.2, V11.2.152' ;;\n"
        "--list-gpu-arch) printf 'compute_35\\ncompute_80\\ncompute_86\\n' ;;\n"
        "*) exit 1 ;;\n"
        "esac\n", 1);

    test_probe();
    test_extern_c();
    test_cub_template();
    test_host_code();
    test_names();
    test_template_arguments();
    test_syntax_error();
    test_tools();
    test_nothing_else_written();

    nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    return CHECK_DONE();
}
