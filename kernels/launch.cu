/* launch.cu: the per-device cache behind tk::device_limits (launch.cuh). One 64-bit atomic per
 * device ordinal holds (sm_count << 32 | max_threads_per_sm), 0 until first queried; readers take
 * no lock (a racing first query on two threads stores the same value twice). Ordinals beyond the
 * cache are queried on every call. */
#include <atomic>
#include <cstdint>
#include <cuda_runtime_api.h>
#include "current_device.h"
#include "launch.cuh"

namespace tk {
namespace {

constexpr int kCachedDevices = 64;
std::atomic<uint64_t> g_device_limits[kCachedDevices];

} // namespace

tk_status device_limits(DeviceLimits *out)
{
    int dev = 0;
    if (tk_current_device(&dev) != 0) return TK_ERR_CUDA;
    const bool cached = dev >= 0 && dev < kCachedDevices;
    if (cached) {
        const uint64_t v = g_device_limits[dev].load(std::memory_order_acquire);
        if (v != 0) {
            out->sm_count = static_cast<int>(v >> 32);
            out->max_threads_per_sm = static_cast<int>(v & 0xffffffffu);
            return TK_OK;
        }
    }
    int sm_count = 0, tpm = 0;
    if (cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&tpm, cudaDevAttrMaxThreadsPerMultiProcessor, dev) != cudaSuccess ||
        sm_count <= 0 || tpm <= 0)
        return TK_ERR_CUDA;
    if (cached)
        g_device_limits[dev].store(static_cast<uint64_t>(sm_count) << 32 |
                                       static_cast<uint32_t>(tpm),
                                   std::memory_order_release);
    out->sm_count = sm_count;
    out->max_threads_per_sm = tpm;
    return TK_OK;
}

} // namespace tk
