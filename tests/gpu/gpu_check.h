/* gpu_check.h: the GPU tests' shared harness (tests/gpu/<name>_test.cu): expect() counts a passed or failed
 * check and prints the first 40 failures, CUDA_OK() aborts the test on a failed CUDA call (the
 * test cannot go on without the GPU), and gpu_check_done() prints "N passed, N failed" for
 * tests/gpu/run.sh to add up and returns the exit status. */
#pragma once
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

inline int g_passed = 0, g_failed = 0;

inline void expect(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
inline void expect(bool ok, const char *fmt, ...)
{
    if (ok) {
        g_passed++;
        return;
    }
    if (++g_failed <= 40) {
        va_list ap;
        va_start(ap, fmt);
        std::fprintf(stderr, "FAIL: ");
        std::vfprintf(stderr, fmt, ap);
        std::fprintf(stderr, "\n");
        va_end(ap);
    }
}

#define CUDA_OK(call)                                                                          \
    do {                                                                                       \
        cudaError_t e_ = (call);                                                               \
        if (e_ != cudaSuccess) {                                                               \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                  \
                         cudaGetErrorString(e_));                                              \
            std::exit(2);                                                                      \
        }                                                                                      \
    } while (0)

/* Prints the summary line; the exit status for main. */
inline int gpu_check_done()
{
    std::printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed ? 1 : 0;
}
