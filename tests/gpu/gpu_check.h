/* gpu_check.h: the GPU tests' shared harness (tests/gpu/<name>_test.cu): expect() counts a passed or failed
 * check and prints the first 40 failures, CUDA_OK() aborts the test on a failed CUDA call (the
 * test cannot go on without the GPU), gpu_check_start() says which GPU and header the test runs
 * with (or that there is no GPU), for_each_tuned_entry() walks the header's entries for this GPU
 * (each family checks that a NULL-config call gets the entry's config), and gpu_check_done()
 * prints "N passed, N failed" for tests/gpu/run.sh to add up and returns the exit status. A
 * test that crashes prints its stack's return addresses first.
 *
 * The small mode, TK_GPU_TEST_SMALL=1 (scripts/sanitize_gpu.sh, where compute-sanitizer makes
 * every launch and access many times slower): the config sweeps run one config in
 * TK_GPU_TEST_SAMPLE (default 8; rotating, so every value of every parameter still runs, the
 * largest configs included) on inputs of at most gpu_test_max_n() elements (the tails and
 * offsets stay: 1, 7, 31, 8191, 65537, ...), and the parts that only measure time or need
 * more than 2^31 elements (GPU_TEST_FULL_ONLY) are skipped, each saying so. */
#pragma once
#include <csignal>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <execinfo.h>
#include <unistd.h>
#include <cuda_runtime.h>
#include "tuned_lookup.h"
#include "tuned_configs.h"

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

/* Whether there is a GPU to test on: prints "<test>: no CUDA device, GPU part skipped" when not,
 * else the device and the compiled-in header's size; *prop (when not NULL) gets device 0. */
/* cudaMemset that has finished when it returns: cudaMemset is asynchronous on the legacy
 * default stream, which does not order itself with the tests' non-blocking streams, so a kernel
 * launched next on such a stream could run before the memset (compute-sanitizer's racecheck,
 * by slowing the GPU, made check_test's poison test see its output zeroed after the poison). */
inline cudaError_t memset_sync(void *p, int value, size_t bytes)
{
    const cudaError_t e = cudaMemset(p, value, bytes);
    return e == cudaSuccess ? cudaDeviceSynchronize() : e;
}

/* A crash of the test's own host code says where: the signal and the return addresses
 * (binary+offset: `addr2line -e BINARY OFFSET` on the machine that built it), then dies of it. */
inline void gpu_check_on_crash(int sig)
{
    char line[64];
    const int len = std::snprintf(line, sizeof line, "\ncrashed: signal %d; stack:\n", sig);
    if (len > 0 && write(2, line, static_cast<size_t>(len)) < 0) {}
    void *frames[48];
    backtrace_symbols_fd(frames, backtrace(frames, 48), 2);
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

inline bool gpu_check_start(const char *test, cudaDeviceProp *prop = nullptr)
{
    /* line-buffered even into a file or pipe: a run cut by a time limit (compute-sanitizer's,
     * the GPU machine's) still shows how far it got */
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(sig, gpu_check_on_crash);
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        std::printf("%s: no CUDA device, GPU part skipped\n", test);
        return false;
    }
    cudaDeviceProp p;
    CUDA_OK(cudaGetDeviceProperties(&p, 0));
    std::printf("device: %s (sm_%d%d, %d SMs); tuned header: %d devices, %d entries\n", p.name,
                p.major, p.minor, p.multiProcessorCount, tk_tuned_device_count(),
                tk_tuned_entry_count());
    if (prop) *prop = p;
    return true;
}

/* Calls check(entry, index) for every entry the compiled-in header holds for device 0 (matched
 * as the library matches it) whose op starts with prefix, or unknown() when the header does not
 * know this GPU; prints how many it checked. Returns that count, or -1 for an unknown GPU. */
template <typename Check, typename Unknown>
int for_each_tuned_entry(const char *prefix, Check check, Unknown unknown)
{
    cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    const int dev = tk_tuned_match_device(tk_tuned_devices, TK_TUNED_N_DEVICES, prop.name,
                                          prop.major, prop.minor, prop.multiProcessorCount);
    int checked = 0;
    if (dev >= 0) {
        const tk_tuned_device &d = tk_tuned_devices[dev];
        for (int i = d.first; i < d.first + d.count; i++) {
            const tk_tuned_entry &e = tk_tuned_entries[i];
            if (!e.op || !e.dtype || !e.config || std::strncmp(e.op, prefix, std::strlen(prefix)) != 0)
                continue;
            check(e, i);
            checked++;
        }
    } else {
        unknown();
    }
    std::printf("tuned header on %s: %s, %d %s entries checked\n", prop.name,
                dev >= 0 && tk_tuned_devices[dev].name ? tk_tuned_devices[dev].name
                                                       : "no matching device (defaults)",
                checked, prefix);
    return dev >= 0 ? checked : -1;
}

/* The small mode (above). */
inline bool gpu_test_small()
{
    const char *v = std::getenv("TK_GPU_TEST_SMALL");
    return v && *v && std::strcmp(v, "0") != 0;
}
/* The largest input a sweep takes: unlimited, or in the small mode 2^17 + 3 elements, or
 * TK_GPU_TEST_MAX_N (racecheck, which instruments every shared-memory access, wants smaller). */
inline int64_t gpu_test_max_n()
{
    static int64_t max_n = 0;   /* read once, as gpu_test_sample reads its setting */
    if (max_n == 0) {
        const char *v = std::getenv("TK_GPU_TEST_MAX_N");
        max_n = !gpu_test_small() ? INT64_MAX
                : v && std::atoll(v) > 0 ? std::atoll(v) : (int64_t{1} << 17) + 3;
    }
    return max_n;
}
/* Whether the sweep runs its next config: always, or one in TK_GPU_TEST_SAMPLE in the small
 * mode (a counter over the whole test, so that which configs run rotates from size to size). */
inline bool gpu_test_sample()
{
    static long counter = 0;
    static long every = -1;
    if (every < 0) {
        const char *v = std::getenv("TK_GPU_TEST_SAMPLE");
        every = gpu_test_small() ? (v && std::atol(v) > 0 ? std::atol(v) : 8) : 1;
    }
    return counter++ % every == 0;
}
/* Runs a part of a test, except in the small mode, where it says it skipped it. */
#define GPU_TEST_FULL_ONLY(call)                                                               \
    do {                                                                                       \
        if (gpu_test_small())                                                                  \
            std::printf("small mode: %s skipped\n", #call);                                     \
        else                                                                                   \
            call;                                                                              \
    } while (0)

/* Prints the summary line; the exit status for main. */
inline int gpu_check_done()
{
    std::printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed ? 1 : 0;
}
