/* current_device.c: the CUDA device the calling thread launches on, cheaply (current_device.h).
 *
 * cudaGetDevice costs about 40 ns of host time (measured on an H100 host, bench/probe.cu),
 * and every library call needs the device twice (the tuned lookup and the grid rule). The
 * driver's current context answers the same question for less: the runtime launches on the
 * context current to the thread when there is one, so its device is the launch device. The two
 * driver entry points come from cudaGetDriverEntryPointByVersion, once per process, so the
 * library does not link libcuda. With no context current yet (a thread that has not touched
 * CUDA), or without the entry points, it asks cudaGetDevice. */
#include <pthread.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include "current_device.h"

typedef CUresult (*ctx_get_current_fn)(CUcontext *ctx);
typedef CUresult (*ctx_get_device_fn)(CUdevice *dev);

static pthread_once_t entry_once = PTHREAD_ONCE_INIT;
static ctx_get_current_fn ctx_get_current;
static ctx_get_device_fn ctx_get_device;

static void load_entry_points(void)
{
    void *cur = NULL, *dev = NULL;
    enum cudaDriverEntryPointQueryResult q1 = cudaDriverEntryPointSymbolNotFound, q2 = q1;
    /* 12000: the versions of the two symbols that CUDA 12 and later export */
    if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &cur, 12000, cudaEnableDefault, &q1) !=
            cudaSuccess ||
        cudaGetDriverEntryPointByVersion("cuCtxGetDevice", &dev, 12000, cudaEnableDefault, &q2) !=
            cudaSuccess ||
        q1 != cudaDriverEntryPointSuccess || q2 != cudaDriverEntryPointSuccess || !cur || !dev) {
        cudaGetLastError(); /* not sticky; leave no error behind for the caller's checks */
        return;
    }
    ctx_get_current = (ctx_get_current_fn)cur;
    ctx_get_device = (ctx_get_device_fn)dev;
}

int tk_current_device(int *dev)
{
    if (pthread_once(&entry_once, load_entry_points) == 0 && ctx_get_current) {
        CUcontext ctx = NULL;
        CUdevice d = 0;
        if (ctx_get_current(&ctx) == CUDA_SUCCESS && ctx && ctx_get_device(&d) == CUDA_SUCCESS) {
            *dev = (int)d;
            return 0;
        }
    }
    return cudaGetDevice(dev) == cudaSuccess ? 0 : -1;
}
