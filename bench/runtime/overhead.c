/* overhead.c: what tk_kernel_launch costs on the host, against a plain cuLaunchKernel (driver
 * API) and cudaLaunchKernel (runtime API) of the same cubin (bench/runtime/README.md).
 *   overhead launches N   the median host time of N launches of each, one by one, with a
 *                         synchronisation every 1000 so that the queue never fills
 *   overhead first        the host time of tk_kernel_open plus the first tk_kernel_launch in
 *                         this process (the CUDA context made before the clock starts)
 * The descriptor comes from `tuner header --space bench/runtime/empty.yaml -o empty_tuned.h`;
 * the cubin of the plain launches is the one the library compiled into $TUNEKIT_CACHE (the only
 * one there: run it with a cache of its own). Build: see README.md. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda.h>
#include "tunekit_runtime.h"
#include "empty_tuned.h"

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static dim3 dim3_of(unsigned x)
{
    dim3 d = {x, 1, 1};
    return d;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: overhead launches N | first\n");
        return 2;
    }
    int *flag;
    int n = 1;
    if (cudaFree(0) != cudaSuccess || cudaMalloc((void **)&flag, 64 * sizeof(int)) != cudaSuccess) {
        fprintf(stderr, "overhead: no CUDA device\n");
        return 1;
    }
    void *args[] = {&flag, &n};
    const long long problem[1] = {1};
    tk_kernel *k;
    if (strcmp(argv[1], "first") == 0) {
        double t0 = now_us();
        tk_status st = tk_kernel_open(&k, &runtime_bench_empty_desc);
        if (st == TK_OK)
            st = tk_kernel_launch(k, problem, args, 0);
        double t1 = now_us();
        if (st != TK_OK || cudaDeviceSynchronize() != cudaSuccess) {
            fprintf(stderr, "overhead: %s\n", tk_kernel_error());
            return 1;
        }
        printf("first launch: %.3f ms (tk_kernel_open and the first tk_kernel_launch)\n",
               (t1 - t0) / 1e3);
        return 0;
    }
    int count = argc > 2 ? atoi(argv[2]) : 100000;
    double *t = malloc((size_t)count * sizeof *t);
    if (!t || tk_kernel_open(&k, &runtime_bench_empty_desc) != TK_OK ||
        tk_kernel_launch(k, problem, args, 0) != TK_OK) {
        fprintf(stderr, "overhead: %s\n", tk_kernel_error());
        return 1;
    }
    /* the same cubin, for the plain launches: the one entry of the cache */
    const char *dir = getenv("TUNEKIT_CACHE");
    char path[4096] = "";
    int cubins = 0;
    DIR *dd = dir ? opendir(dir) : NULL;
    for (struct dirent *e; dd && (e = readdir(dd));)
        if (strstr(e->d_name, ".cubin") && strlen(strstr(e->d_name, ".cubin")) == 6) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            cubins++;
        }
    if (dd)
        closedir(dd);
    if (cubins != 1) {
        fprintf(stderr, "overhead: $TUNEKIT_CACHE holds %d cubins, not 1\n", cubins);
        return 1;
    }
    CUmodule mod;
    CUfunction fn;
    cudaLibrary_t lib;
    cudaKernel_t kern;
    if (cuModuleLoad(&mod, path) != CUDA_SUCCESS || cuModuleGetFunction(&fn, mod, "empty") !=
        CUDA_SUCCESS || cudaLibraryLoadFromFile(&lib, path, NULL, NULL, 0, NULL, NULL, 0) !=
        cudaSuccess || cudaLibraryGetKernel(&kern, lib, "empty") != cudaSuccess) {
        fprintf(stderr, "overhead: cannot load %s\n", path);
        return 1;
    }
    /* the geometry the library chose: the config the table gives this GPU */
    struct cudaDeviceProp prop;
    char config[256];
    cudaGetDeviceProperties(&prop, 0);
    tk_kernel_prepare(k, prop.name, prop.major, prop.minor, prop.multiProcessorCount, NULL,
                      problem, config, sizeof config);
    unsigned block = (unsigned)atoi(strchr(config, '=') + 1);
    void *params[] = {&flag, &n};
    for (int pass = 0; pass < 3; pass++) {
        for (int i = -1000; i < count; i++) {   /* 1000 untimed first */
            double t0 = now_us();
            int bad = pass == 0 ? tk_kernel_launch(k, problem, args, 0) != TK_OK
                      : pass == 1 ? cuLaunchKernel(fn, 1, 1, 1, block, 1, 1, 0, 0, params, NULL) !=
                                        CUDA_SUCCESS
                                  : cudaLaunchKernel((const void *)kern, dim3_of(1), dim3_of(block),
                                                     params, 0, 0) != cudaSuccess;
            double t1 = now_us();
            if (bad) {
                fprintf(stderr, "overhead: launch %d of pass %d failed: %s\n", i, pass,
                        tk_kernel_error());
                return 1;
            }
            if (i >= 0)
                t[i] = t1 - t0;
            if ((i + 1001) % 1000 == 0)
                cudaDeviceSynchronize();
        }
        cudaDeviceSynchronize();
        static const char *const what[] = {"tk_kernel_launch", "cuLaunchKernel", "cudaLaunchKernel"};
        printf("%-18s median %.3f us over %d launches (config %s)\n", what[pass],
               median(t, count), count, config);
    }
    return 0;
}
