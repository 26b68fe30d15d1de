/* cuda_device.h: device introspection: opens one CUDA device and describes it as a device_info
 * (tuner/core/device.h). The worker process opens its GPU with it, libtunekit's run-time API
 * (kernels/runtime.c) describes the current one; the tuner's parent never calls it. */
#pragma once
#include <stddef.h>
#include "core/device.h"

/* Makes ordinal the current device, creates its context and fills out with every device_info
 * field. Returns 0, or -1 with err: "no CUDA device found (cudaGetDeviceCount: ...)" when the
 * machine has none, "CUDA device N not found (M devices)" for a bad ordinal, or the failing
 * call. */
int cuda_device_open(int ordinal, device_info *out, char *err, size_t len);

/* Fills out with every device_info field of ordinal without making it current or creating a
 * context (device_count stays 0). 0, or -1 with err naming the failing call. */
int cuda_device_describe(int ordinal, device_info *out, char *err, size_t len);

/* Formats a 16-byte device UUID as "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (what nvidia-smi
 * shows). out needs 41 bytes. */
void cuda_device_format_uuid(const unsigned char bytes[16], char *out, size_t len);
