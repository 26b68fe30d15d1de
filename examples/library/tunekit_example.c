/* tunekit_example.c: a complete program calling libtunekit's C API (docs/library.md).
 *
 * First the calls that need no GPU: status strings, dtypes, what the compiled-in tuned header
 * holds, parameter spaces, config text parsed into a config struct, a config checked against
 * the library, the conv1d size key, the relu mask's size and the upsample backward's error
 * bound. Then, when cudaGetDeviceCount finds a GPU, five families' kernels with NULL configs
 * (the config tuned for this GPU and size), each result compared with the same computation on
 * the CPU: elementwise mul, reduce sum, relu forward with its bitmask and the backward that
 * reads it, nearest 2x upsampling, a full 1-D convolution, and the README's example (a dot
 * product from an elementwise mul and a reduce sum). The inputs are small integers
 * (or multiples of 1/4), so every result is exact in f32 whatever order the GPU adds in, and
 * the comparisons are for equality.
 *
 * Without a GPU it says so and exits 0 (tests/cli/library.sh checks that line); with one it
 * exits 1 when any result differs (tests/gpu/library_test.sh runs it there).
 *
 * Build (from the repository root, after `make`):
 *     cc -std=c17 -Ikernels -I$CUDA_HOME/include examples/library/tunekit_example.c \
 *        build/libtunekit.a -L$CUDA_HOME/lib64 -lcudart_static -lstdc++ -lm -ldl -lpthread -lrt \
 *        -o build/tunekit_example */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>
#include "tunekit.h"
#include "tuned_lookup.h"

static int failures;

/* Prints what a check found and counts a failure. */
static void expect(int ok, const char *what)
{
    printf("%s: %s\n", ok ? "ok  " : "FAIL", what);
    if (!ok) failures++;
}

/* ---- the calls that need no GPU ---- */

static void without_gpu(void)
{
    printf("status %d is \"%s\"; status %d is \"%s\"\n", TK_OK, tk_status_string(TK_OK),
           TK_ERR_UNSUPPORTED_CONFIG, tk_status_string(TK_ERR_UNSUPPORTED_CONFIG));
    int bf16 = tk_dtype_parse("bf16");
    printf("dtype bf16 is %d, %s, %zu bytes\n", bf16, tk_dtype_name((tk_dtype)bf16),
           tk_dtype_size((tk_dtype)bf16));
    printf("the tuned header holds %d GPU models and %d entries\n", tk_tuned_device_count(),
           tk_tuned_entry_count());

    /* A family's parameter space: each parameter, its values (or range) and its default. */
    const tk_config_space *space = tk_elementwise_config_space();
    printf("%s parameters:", space->family);
    for (int k = 0; k < space->n_params; k++) printf(" %s", space->params[k].name);
    printf("\n");

    /* Config text, as the tuner stores it and the header holds it, into a config struct. */
    const char *text = "block_size=128,cache_hint=normal,loop=grid_stride,pack_size=4,unroll=2,"
                       "waves=8";
    tk_elementwise_config ec;
    tk_status st = tk_elementwise_config_from_text(text, &ec);
    printf("parsed \"%s\": %s, block_size %d, waves %d, pack_size %d, unroll %d\n", text,
           tk_status_string(st), ec.block_size, ec.waves, ec.pack_size, ec.unroll);
    st = tk_elementwise_config_from_text("block_size=100,cache_hint=normal,loop=grid_stride,"
                                         "pack_size=4,unroll=1,waves=8", &ec);
    printf("block_size=100 gives \"%s\" (block sizes are multiples of 32)\n",
           tk_status_string(st));

    tk_reduce_config rc = tk_reduce_default_config(TK_F32);
    char buf[256];
    tk_reduce_config_to_text(&rc, buf, sizeof buf);
    printf("reduce's default for f32: %s (supported: %d)\n", buf,
           tk_reduce_config_supported(&rc, TK_F32));

    printf("conv1d size key of a 4096-sample signal and a 33-tap filter: %" PRId64 "\n",
           tk_conv1d_size_key(4096, 33));
    printf("a relu mask for 1000 elements takes %" PRId64 " 32-bit words\n",
           tk_relu_mask_words(1000));
    double rtol, atol;
    tk_upsample_nearest_bwd_error_bound(TK_F16, 2, 2, 4.0, &rtol, &atol);
    printf("upsample backward, f16, 2x2, |dy| <= 4: rtol %.3g, atol %.3g\n", rtol, atol);
}

/* ---- the kernels, on the GPU ---- */

#define CUDA_OK(call)                                                                          \
    do {                                                                                       \
        cudaError_t e_ = (call);                                                               \
        if (e_ != cudaSuccess) {                                                               \
            fprintf(stderr, "tunekit_example: %s: %s\n", #call, cudaGetErrorString(e_));       \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

/* Reports a library call's status; 1 when it is TK_OK. */
static int called(tk_status st, const char *what)
{
    if (st != TK_OK) {
        printf("FAIL: %s: %s\n", what, tk_status_string(st));
        failures++;
    }
    return st == TK_OK;
}

static void *host_alloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "tunekit_example: out of memory\n");
        exit(1);
    }
    return p;
}

static void *device_copy(const void *host, size_t bytes)
{
    void *d;
    CUDA_OK(cudaMalloc(&d, bytes));
    if (host) CUDA_OK(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
    return d;
}

static void host_copy(void *host, const void *device, size_t bytes, cudaStream_t stream)
{
    CUDA_OK(cudaStreamSynchronize(stream));
    CUDA_OK(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost));
}

/* y = a * b over n floats, the config tuned for this GPU and n. */
static void run_elementwise(cudaStream_t stream)
{
    const int64_t n = 1 << 20;
    float *a = host_alloc(n * sizeof *a), *b = host_alloc(n * sizeof *b);
    float *y = host_alloc(n * sizeof *y);
    for (int64_t i = 0; i < n; i++) {
        a[i] = (float)(i % 17 - 8) * 0.25f;
        b[i] = (float)(i % 5 - 2);
    }
    float *da = device_copy(a, n * sizeof *a), *db = device_copy(b, n * sizeof *b);
    float *dy = device_copy(NULL, n * sizeof *dy);
    tk_elementwise_config used;
    if (called(tk_elementwise_tuned_config("elementwise.mul", TK_F32, n, &used),
               "tk_elementwise_tuned_config"))
        printf("elementwise.mul f32 n=%" PRId64 " runs block_size=%d, waves=%d, pack_size=%d\n",
               n, used.block_size, used.waves, used.pack_size);
    if (called(tk_elementwise_binary(TK_MUL, TK_F32, n, da, db, dy, NULL, stream),
               "tk_elementwise_binary")) {
        host_copy(y, dy, n * sizeof *y, stream);
        int64_t bad = 0;
        for (int64_t i = 0; i < n; i++) bad += y[i] != a[i] * b[i];
        expect(bad == 0, "tk_elementwise_binary(TK_MUL): y = a * b");
    }
    cudaFree(da); cudaFree(db); cudaFree(dy);
    free(a); free(b); free(y);
}

/* The sum of n floats into one float on the GPU. */
static void run_reduce(cudaStream_t stream)
{
    const int64_t n = 3000001;
    float *x = host_alloc(n * sizeof *x);
    double want = 0;
    for (int64_t i = 0; i < n; i++) {
        x[i] = (float)(i % 7 - 3);
        want += x[i];
    }
    float *dx = device_copy(x, n * sizeof *x), *dout = device_copy(NULL, sizeof(float)), got;
    if (called(tk_reduce_sum(TK_F32, n, dx, dout, NULL, stream), "tk_reduce_sum")) {
        host_copy(&got, dout, sizeof got, stream);
        expect(got == (float)want, "tk_reduce_sum: the sum of 3000001 small integers");
    }
    cudaFree(dx); cudaFree(dout);
    free(x);
    called(tk_reduce_release_workspaces(), "tk_reduce_release_workspaces");
}

/* y = relu(x) with its bitmask, then dx = dy where x passed, reading the mask. */
static void run_relu_mask(cudaStream_t stream)
{
    const int64_t n = 100003, words = tk_relu_mask_words(n);
    float *x = host_alloc(n * sizeof *x), *dy = host_alloc(n * sizeof *dy);
    float *y = host_alloc(n * sizeof *y), *dx = host_alloc(n * sizeof *dx);
    for (int64_t i = 0; i < n; i++) {
        x[i] = (float)(i % 11 - 5) + 0.5f;
        dy[i] = (float)(i % 3 + 1);
    }
    float *dxd = device_copy(x, n * sizeof *x), *dyd = device_copy(dy, n * sizeof *dy);
    float *yd = device_copy(NULL, n * sizeof *yd), *dxo = device_copy(NULL, n * sizeof *dxo);
    uint32_t *mask = device_copy(NULL, (size_t)words * sizeof *mask);
    if (called(tk_relu_fwd(TK_F32, n, dxd, yd, mask, NULL, stream), "tk_relu_fwd") &&
        called(tk_relu_bwd(TK_F32, n, dyd, mask, NULL, dxo, NULL, stream), "tk_relu_bwd")) {
        host_copy(y, yd, n * sizeof *y, stream);
        host_copy(dx, dxo, n * sizeof *dx, stream);
        int64_t bad_y = 0, bad_dx = 0;
        for (int64_t i = 0; i < n; i++) {
            bad_y += y[i] != (x[i] > 0 ? x[i] : 0.0f);
            bad_dx += dx[i] != (x[i] > 0 ? dy[i] : 0.0f);
        }
        expect(bad_y == 0, "tk_relu_fwd: y = relu(x), and the mask");
        expect(bad_dx == 0, "tk_relu_bwd: dx = dy where the mask says x passed");
    }
    cudaFree(dxd); cudaFree(dyd); cudaFree(yd); cudaFree(dxo); cudaFree(mask);
    free(x); free(dy); free(y); free(dx);
}

/* y (N x C x 2H x 2W) = nearest upsampling of x (N x C x H x W). */
static void run_upsample(cudaStream_t stream)
{
    const int64_t N = 2, C = 3, H = 17, W = 20, in = N * C * H * W, out = 4 * in;
    float *x = host_alloc(in * sizeof *x), *y = host_alloc(out * sizeof *y);
    for (int64_t i = 0; i < in; i++) x[i] = (float)i;
    float *xd = device_copy(x, in * sizeof *x), *yd = device_copy(NULL, out * sizeof *yd);
    if (called(tk_upsample_nearest_fwd(TK_F32, N, C, H, W, 2, 2, xd, yd, NULL, stream),
               "tk_upsample_nearest_fwd")) {
        host_copy(y, yd, out * sizeof *y, stream);
        int64_t bad = 0;
        for (int64_t p = 0; p < N * C; p++)
            for (int64_t oh = 0; oh < 2 * H; oh++)
                for (int64_t ow = 0; ow < 2 * W; ow++)
                    bad += y[(p * 2 * H + oh) * 2 * W + ow] != x[(p * H + oh / 2) * W + ow / 2];
        expect(bad == 0, "tk_upsample_nearest_fwd: y[n,c,oh,ow] = x[n,c,oh/2,ow/2]");
    }
    cudaFree(xd); cudaFree(yd);
    free(x); free(y);
}

/* out = the full convolution of a (4096 samples) and b (33 taps). */
static void run_conv1d(cudaStream_t stream)
{
    const int64_t la = 4096, lb = 33, lo = la + lb - 1;
    float *a = host_alloc(la * sizeof *a), *b = host_alloc(lb * sizeof *b);
    float *out = host_alloc(lo * sizeof *out);
    for (int64_t i = 0; i < la; i++) a[i] = (float)(i % 5 - 2);
    for (int64_t i = 0; i < lb; i++) b[i] = (float)(i % 3 - 1);
    float *ad = device_copy(a, la * sizeof *a), *bd = device_copy(b, lb * sizeof *b);
    float *od = device_copy(NULL, lo * sizeof *od);
    if (called(tk_conv1d_full(ad, la, bd, lb, od, NULL, stream), "tk_conv1d_full")) {
        host_copy(out, od, lo * sizeof *out, stream);
        int64_t bad = 0;
        for (int64_t k = 0; k < lo; k++) {
            double s = 0;
            for (int64_t m = 0; m < lb; m++)
                if (k - m >= 0 && k - m < la) s += (double)a[k - m] * b[m];
            bad += out[k] != (float)s;
        }
        expect(bad == 0, "tk_conv1d_full: out = a * b (full convolution)");
    }
    cudaFree(ad); cudaFree(bd); cudaFree(od);
    free(a); free(b); free(out);
}

/* The README's example, as it is there: a dot product from two library calls. */
static void run_readme_example(cudaStream_t stream)
{
    const int64_t n = 4099;
    float *ha = host_alloc(n * sizeof *ha), *hb = host_alloc(n * sizeof *hb), got;
    double want = 0;
    for (int64_t i = 0; i < n; i++) {
        ha[i] = (float)(i % 9 - 4);
        hb[i] = (float)(i % 4 - 1);
        want += (double)ha[i] * hb[i];
    }
    float *a = device_copy(ha, n * sizeof *a), *b = device_copy(hb, n * sizeof *b);
    float *y = device_copy(NULL, n * sizeof *y), *sum = device_copy(NULL, sizeof *sum);

    /* a, b, y: device buffers of n floats; sum: one float on the device. NULL config: the
     * config tuned for this GPU and this n, from kernels/tuned_configs.h */
    tk_status st = tk_elementwise_binary(TK_MUL, TK_F32, n, a, b, y, NULL, stream);
    if (st == TK_OK)
        st = tk_reduce_sum(TK_F32, n, y, sum, NULL, stream);   /* *sum = a . b */
    if (st != TK_OK)
        fprintf(stderr, "tunekit: %s\n", tk_status_string(st));

    if (called(st, "the README's example")) {
        host_copy(&got, sum, sizeof got, stream);
        expect(got == (float)want, "the README's example: a . b from tk_elementwise_binary and "
                                   "tk_reduce_sum");
    }
    cudaFree(a); cudaFree(b); cudaFree(y); cudaFree(sum);
    free(ha); free(hb);
}

int main(void)
{
    printf("tunekit example: libtunekit's C API\n");
    without_gpu();

    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        printf("no CUDA device (cudaGetDeviceCount: %s): the calls above need none; the kernels "
               "were not run\n",
               e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
        return 0;
    }
    struct cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    printf("GPU 0: %s (compute capability %d.%d, %d SMs)\n", prop.name, prop.major, prop.minor,
           prop.multiProcessorCount);
    cudaStream_t stream;
    CUDA_OK(cudaStreamCreate(&stream));
    run_elementwise(stream);
    run_reduce(stream);
    run_relu_mask(stream);
    run_upsample(stream);
    run_conv1d(stream);
    run_readme_example(stream);
    CUDA_OK(cudaStreamDestroy(stream));
    printf("%s\n", failures ? "some results differ from the CPU's"
                            : "every result matches the CPU's");
    return failures ? 1 : 0;
}
