/* saxpy.c: y = a * x + y through libtunekit's run-time API (docs/runtime.md): the kernel of
 * examples/vector/saxpy.cu, launched with the config tuned for this GPU and this n, compiled at
 * run time with NVRTC (or found in the compile cache the tuner fills). The descriptor comes from
 *     tuner header --space examples/vector/saxpy.yaml -o saxpy_tuned.h
 * and the program builds with
 *     cc -std=c11 -I<this header's folder> -Ikernels -I$CUDA_HOME/include saxpy.c \
 *        build/libtunekit.a -L$CUDA_HOME/lib64 -lcudart_static -lstdc++ -lm -ldl -lpthread -lrt
 * It checks every element against the host's result and prints the config it ran. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "tunekit_runtime.h"   /* first: the header below then defines its descriptor */
#include "saxpy_tuned.h"

#define CHECK(call)                                                                       \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "saxpy: %s: %s\n", #call, cudaGetErrorString(e_));            \
            return 1;                                                                     \
        }                                                                                 \
    } while (0)

int main(int argc, char **argv)
{
    long long n = argc > 1 ? atoll(argv[1]) : 16777216;
    if (n < 1) {
        fprintf(stderr, "saxpy: n must be positive\n");
        return 2;
    }
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("saxpy: no CUDA device: nothing to run\n");
        return 0;
    }
    tk_kernel *k;
    if (tk_kernel_open(&k, &vector_saxpy_desc) != TK_OK) {
        fprintf(stderr, "saxpy: %s\n", tk_kernel_error());
        return 1;
    }
    float *hx = malloc((size_t)n * sizeof *hx), *hy = malloc((size_t)n * sizeof *hy);
    float *out = malloc((size_t)n * sizeof *out), a = 2.5f;
    if (!hx || !hy || !out)
        return 1;
    for (long long i = 0; i < n; i++) {
        hx[i] = (float)((i * 7919) % 1000) / 500.0f - 1.0f;
        hy[i] = (float)((i * 104729) % 1000) / 500.0f - 1.0f;
    }
    float *x, *y;
    CHECK(cudaMalloc((void **)&x, (size_t)n * sizeof *x));
    CHECK(cudaMalloc((void **)&y, (size_t)n * sizeof *y));
    CHECK(cudaMemcpy(x, hx, (size_t)n * sizeof *x, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(y, hy, (size_t)n * sizeof *y, cudaMemcpyHostToDevice));
    /* the arguments in the space's order: y, x, a, n */
    void *args[] = {&y, &x, &a, &n};
    if (tk_kernel_launch(k, (const long long[]){n}, args, 0) != TK_OK) {
        fprintf(stderr, "saxpy: %s\n", tk_kernel_error());
        return 1;
    }
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(out, y, (size_t)n * sizeof *out, cudaMemcpyDeviceToHost));
    long long bad = 0;
    for (long long i = 0; i < n; i++)
        bad += fabsf(out[i] - (a * hx[i] + hy[i])) > 1e-6f;
    struct cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    char config[256];
    tk_kernel_prepare(k, prop.name, prop.major, prop.minor, prop.multiProcessorCount, "f32",
                      (const long long[]){n}, config, sizeof config);
    printf("saxpy: n=%lld on %s with %s: %lld of %lld elements wrong\n", n, prop.name, config,
           bad, n);
    tk_kernel_close(k);
    cudaFree(x);
    cudaFree(y);
    free(hx);
    free(hy);
    free(out);
    return bad != 0;
}
