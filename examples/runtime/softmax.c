/* softmax.c: row softmax of a rows x cols f32 or f16 matrix through libtunekit's run-time API
 * (docs/runtime.md): the templated kernel of examples/softmax/softmax.cu, launched with the
 * config tuned for this GPU, dtype and shape. The descriptor comes from
 *     tuner header --space examples/softmax/softmax.yaml -o softmax_tuned.h
 * (built as examples/runtime/saxpy.c says). It checks the f32 result against the host's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "tunekit_runtime.h"
#include "softmax_tuned.h"

#define CHECK(call)                                                                       \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "softmax: %s: %s\n", #call, cudaGetErrorString(e_));          \
            return 1;                                                                     \
        }                                                                                 \
    } while (0)

int main(int argc, char **argv)
{
    int rows = argc > 1 ? atoi(argv[1]) : 8192, cols = argc > 2 ? atoi(argv[2]) : 4096;
    if (rows < 1 || cols < 1) {
        fprintf(stderr, "softmax: rows and cols must be positive\n");
        return 2;
    }
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("softmax: no CUDA device: nothing to run\n");
        return 0;
    }
    tk_kernel *k;
    if (tk_kernel_open(&k, &softmax_softmax_desc) != TK_OK) {
        fprintf(stderr, "softmax: %s\n", tk_kernel_error());
        return 1;
    }
    size_t n = (size_t)rows * (size_t)cols;
    float *hx = malloc(n * sizeof *hx), *out = malloc(n * sizeof *out);
    if (!hx || !out)
        return 1;
    for (size_t i = 0; i < n; i++)
        hx[i] = (float)((i * 2654435761u) % 4001) / 1000.0f - 2.0f;
    float *x, *y;
    CHECK(cudaMalloc((void **)&x, n * sizeof *x));
    CHECK(cudaMalloc((void **)&y, n * sizeof *y));
    CHECK(cudaMemcpy(x, hx, n * sizeof *x, cudaMemcpyHostToDevice));
    /* the arguments in the space's order: y, x, rows, cols; the problem's fields as the
     * descriptor lists them (the space's: rows, cols) */
    void *args[] = {&y, &x, &rows, &cols};
    long long problem[2] = {rows, cols};
    if (tk_kernel_launch_dtype(k, "f32", problem, args, 0) != TK_OK) {
        fprintf(stderr, "softmax: %s\n", tk_kernel_error());
        return 1;
    }
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(out, y, n * sizeof *out, cudaMemcpyDeviceToHost));
    long long bad = 0;
    for (int r = 0; r < rows; r++) {
        const float *xr = hx + (size_t)r * cols;
        double m = xr[0], s = 0;
        for (int c = 1; c < cols; c++)
            m = xr[c] > m ? xr[c] : m;
        for (int c = 0; c < cols; c++)
            s += exp(xr[c] - m);
        for (int c = 0; c < cols; c++) {
            double want = exp(xr[c] - m) / s, got = out[(size_t)r * cols + c];
            bad += fabs(got - want) > 1e-7 + 1e-3 * want;
        }
    }
    struct cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    char config[256];
    tk_kernel_prepare(k, prop.name, prop.major, prop.minor, prop.multiProcessorCount, "f32",
                      problem, config, sizeof config);
    printf("softmax: f32 %d x %d on %s with %s: %lld of %zu elements wrong\n", rows, cols,
           prop.name, config, bad, n);
    tk_kernel_close(k);
    cudaFree(x);
    cudaFree(y);
    free(hx);
    free(out);
    return bad != 0;
}
