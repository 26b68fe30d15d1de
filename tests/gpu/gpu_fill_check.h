/* gpu_fill_check.h: the GPU tests' check of the tuner's GPU input generator (tuner/ops/gpu_fill.h)
 * against its host twin: gpu_fill_uniform's stored bits must equal gpu_fill_value rounded on the
 * host by tk_host_from_double, element for element. The elementwise and reduce tests call it with
 * their harness's range; the device buffer is filled, copied back and compared in full. */
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#include "gpu_check.h"
#include "ops/gpu_fill.h"
#include "tk_check.h"

/* Fills n elements of dtype on the GPU from (seed, stream, [lo, hi)) and compares them bit for bit
 * with the host twin; returns the device buffer (the caller frees it) for reference checks. */
inline void *check_gpu_fill_matches_twin(tk_dtype dtype, int64_t n, uint64_t seed, int stream,
                                         double lo, double hi)
{
    const size_t es = tk_dtype_size(dtype);
    void *d = nullptr;
    CUDA_OK(cudaMalloc(&d, (size_t)n * es));
    char err[512] = "";
    const int rc = gpu_fill_uniform(dtype, d, n, seed, stream, lo, hi, err, sizeof err);
    expect(rc == 0, "gpu_fill_uniform(dtype %d, n %lld): %s", (int)dtype, (long long)n, err);
    std::vector<unsigned char> got((size_t)n * es), want((size_t)n * es);
    CUDA_OK(cudaMemcpy(got.data(), d, got.size(), cudaMemcpyDeviceToHost));
    std::vector<double> v((size_t)n);
    for (int64_t i = 0; i < n; i++) v[(size_t)i] = gpu_fill_value(seed, stream, i, lo, hi);
    tk_host_from_double(dtype, v.data(), want.data(), n);
    int64_t differ = 0, first = -1;
    for (int64_t i = 0; i < n; i++)
        if (std::memcmp(&got[(size_t)i * es], &want[(size_t)i * es], es) != 0) {
            if (first < 0) first = i;
            differ++;
        }
    expect(differ == 0,
           "GPU fill vs host twin, dtype %d stream %d [%g, %g): %lld of %lld elements differ, "
           "first [%lld] host %.17g", (int)dtype, stream, lo, hi, (long long)differ,
           (long long)n, (long long)first, first >= 0 ? v[(size_t)first] : 0.0);
    return d;
}
