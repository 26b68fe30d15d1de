/* app.c: a program that runs the softmax of examples/softmax through libtunekit's run-time API
 * (docs/runtime.md), for measuring tuning at run time (bench/online/README.md). It launches the
 * f32 softmax of a rows x cols matrix `launches` times on one stream, reading the config in use
 * every 200 launches (tk_kernel_config), then checks the last result against the host's.
 * With "unknown", the descriptor's table loses this GPU's own entries (the GPU is then one the
 * table does not know: another GPU's winners are all it has). Tuning is on or off as
 * $TUNEKIT_TUNE says. Prints when the config changes and one last line:
 * "app: GPU f32 RxC: L launches in W s (first launch F ms), failed N, wrong E, config C". */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tunekit_runtime.h"
#include "softmax_tuned.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc < 4) {
        fprintf(stderr, "usage: app ROWS COLS LAUNCHES [unknown]\n");
        return 2;
    }
    int rows = atoi(argv[1]), cols = atoi(argv[2]);
    long launches = atol(argv[3]);
    int unknown = argc > 4 && strcmp(argv[4], "unknown") == 0;
    if (rows < 1 || cols < 1 || launches < 1) {
        fprintf(stderr, "app: rows, cols and launches must be positive\n");
        return 2;
    }
    double t0 = now();
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
        fprintf(stderr, "app: no CUDA device\n");
        return 1;
    }
    tk_kernel_desc d = softmax_softmax_desc;
    tk_kernel_entry *kept = malloc((size_t)(d.n_entries + 1) * sizeof *kept);
    int n_kept = 0;
    for (int i = 0; i < d.n_entries; i++)
        if (!unknown || strcmp(d.entries[i].device, prop.name) != 0)
            kept[n_kept++] = d.entries[i];
    d.entries = kept;
    d.n_entries = n_kept;
    tk_kernel *k;
    if (tk_kernel_open(&k, &d) != TK_OK) {
        fprintf(stderr, "app: %s\n", tk_kernel_error());
        return 1;
    }
    size_t n = (size_t)rows * (size_t)cols;
    float *hx = malloc(n * sizeof *hx), *out = malloc(n * sizeof *out);
    float *x, *y;
    if (!hx || !out || cudaMalloc((void **)&x, n * 4) != cudaSuccess ||
        cudaMalloc((void **)&y, n * 4) != cudaSuccess)
        return 1;
    srand(7);
    for (size_t i = 0; i < n; i++)
        hx[i] = 4.0f * (float)rand() / (float)RAND_MAX - 2.0f;
    cudaMemcpy(x, hx, n * 4, cudaMemcpyHostToDevice);
    void *args[] = {&y, &x, &rows, &cols};
    long long problem[2] = {rows, cols};
    long failed = 0;
    char config[256] = "", last[256] = "";
    double first_ms = 0, start = now();
    for (long i = 0; i < launches; i++) {
        double t = now();
        if (tk_kernel_launch_dtype(k, "f32", problem, args, 0) != TK_OK) {
            failed++;
            fprintf(stderr, "app: launch %ld: %s\n", i, tk_kernel_error());
        }
        if (i == 0) {
            cudaDeviceSynchronize();
            first_ms = 1e3 * (now() - t);
        }
        if (i % 200 == 0) {
            int tuning = 0;
            tk_kernel_config(k, "f32", problem, config, sizeof config, &tuning);
            if (strcmp(config, last) != 0) {
                printf("app: %.2f s, launch %ld: config %s%s\n", now() - start, i, config,
                       tuning ? " (a tuner runs)" : "");
                snprintf(last, sizeof last, "%s", config);
            }
        }
    }
    cudaDeviceSynchronize();
    double wall = now() - t0;
    cudaMemcpy(out, y, n * 4, cudaMemcpyDeviceToHost);
    long long wrong = 0;
    for (int r = 0; r < rows; r++) {
        const float *xr = hx + (size_t)r * cols;
        double m = xr[0], s = 0;
        for (int c = 1; c < cols; c++)
            m = xr[c] > m ? xr[c] : m;
        for (int c = 0; c < cols; c++)
            s += exp(xr[c] - m);
        for (int c = 0; c < cols; c++) {
            double want = exp(xr[c] - m) / s, got = out[(size_t)r * cols + c];
            wrong += fabs(got - want) > 1e-7 + 1e-3 * want;
        }
    }
    printf("app: %s f32 %dx%d: %ld launches in %.3f s (first launch %.1f ms), failed %ld, "
           "wrong %lld, config %s\n", prop.name, rows, cols, launches, wall, first_ms, failed,
           wrong, config);
    tk_kernel_close(k);
    return failed || wrong;
}
