/* cuda_device.c: opens a CUDA device and reads its description (cuda_device.h), for the worker
 * and for libtunekit's run-time API. Clocks come from cudaDeviceGetAttribute: CUDA 13 removed
 * clockRate and memoryClockRate from cudaDeviceProp. */
#include "cuda_device.h"

#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>

void cuda_device_format_uuid(const unsigned char b[16], char *out, size_t len)
{
    snprintf(out, len,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
             b[13], b[14], b[15]);
}

static int attr(int ordinal, enum cudaDeviceAttr a, const char *what, int *out, char *err,
                size_t len)
{
    cudaError_t e = cudaDeviceGetAttribute(out, a, ordinal);
    if (e != cudaSuccess) {
        snprintf(err, len, "cudaDeviceGetAttribute(%s) on device %d: %s", what, ordinal,
                 cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

int cuda_device_describe(int ordinal, device_info *out, char *err, size_t len)
{
    memset(out, 0, sizeof *out);
    struct cudaDeviceProp prop;
    cudaError_t e = cudaGetDeviceProperties(&prop, ordinal);
    if (e != cudaSuccess) {
        snprintf(err, len, "cudaGetDeviceProperties(%d): %s", ordinal, cudaGetErrorString(e));
        return -1;
    }
    snprintf(out->name, sizeof out->name, "%s", prop.name);
    cuda_device_format_uuid((const unsigned char *)prop.uuid.bytes, out->uuid, sizeof out->uuid);
    out->cc_major = prop.major;
    out->cc_minor = prop.minor;
    out->sm_count = prop.multiProcessorCount;
    out->max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
    out->max_threads_per_block = prop.maxThreadsPerBlock;
    out->regs_per_sm = prop.regsPerMultiprocessor;
    out->smem_per_sm = (int64_t)prop.sharedMemPerMultiprocessor;
    out->l2_bytes = prop.l2CacheSize;
    out->mem_bytes = (int64_t)prop.totalGlobalMem;
    if (attr(ordinal, cudaDevAttrClockRate, "clock rate", &out->sm_clock_khz, err, len) ||
        attr(ordinal, cudaDevAttrMemoryClockRate, "memory clock rate", &out->mem_clock_khz, err,
             len) ||
        attr(ordinal, cudaDevAttrGlobalMemoryBusWidth, "memory bus width", &out->mem_bus_bits,
             err, len))
        return -1;
    return 0;
}

int cuda_device_open(int ordinal, device_info *out, char *err, size_t len)
{
    memset(out, 0, sizeof *out);
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        snprintf(err, len, "no CUDA device found (cudaGetDeviceCount: %s)", cudaGetErrorString(e));
        return -1;
    }
    if (count == 0) {
        snprintf(err, len, "no CUDA device found (cudaGetDeviceCount: 0 devices)");
        return -1;
    }
    if (ordinal < 0 || ordinal >= count) {
        snprintf(err, len, "CUDA device %d not found (%d device%s)", ordinal, count,
                 count == 1 ? "" : "s");
        return -1;
    }
    e = cudaSetDevice(ordinal);
    if (e == cudaSuccess) e = cudaFree(NULL);   /* creates the context now, not mid-measurement */
    if (e != cudaSuccess) {
        snprintf(err, len, "cannot open CUDA device %d: %s", ordinal, cudaGetErrorString(e));
        return -1;
    }
    if (cuda_device_describe(ordinal, out, err, len) != 0)
        return -1;
    out->device_count = count;
    e = cudaDriverGetVersion(&out->driver_version);
    if (e == cudaSuccess) e = cudaRuntimeGetVersion(&out->runtime_version);
    if (e != cudaSuccess) {
        snprintf(err, len, "cannot read the CUDA versions: %s", cudaGetErrorString(e));
        return -1;
    }
    return 0;
}
