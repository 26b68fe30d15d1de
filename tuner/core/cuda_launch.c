/* cuda_launch.c: a kernel launch with a cluster dimension or as a cooperative launch
 * (cuda_launch.h). */
#include "cuda_launch.h"

#include <stdio.h>
#include "device.h"

unsigned cuda_launch_attributes(dim3 cluster, int cooperative, cudaLaunchAttribute attr[2])
{
    unsigned n = 0;
    if (cluster.x) {
        attr[n].id = cudaLaunchAttributeClusterDimension;
        attr[n].val.clusterDim.x = cluster.x;
        attr[n].val.clusterDim.y = cluster.y;
        attr[n].val.clusterDim.z = cluster.z;
        n++;
    }
    if (cooperative) {
        attr[n].id = cudaLaunchAttributeCooperative;
        attr[n].val.cooperative = 1;
        n++;
    }
    return n;
}

cudaError_t cuda_launch_allow_cluster(const void *fn, dim3 cluster)
{
    if (cluster.x * cluster.y * cluster.z <= DEVICE_CLUSTER_PORTABLE)
        return cudaSuccess;
    return cudaFuncSetAttribute(fn, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
}

int cuda_launch_ready(const void *fn, dim3 grid, dim3 block, size_t shared, dim3 cluster,
                      int cooperative, char *why, size_t len)
{
    cudaError_t e = cudaSuccess;
    /* raised, never lowered: one kernel serves plans and launches of several sizes, and a
     * limit set for a smaller one must not break a larger one readied before */
    struct cudaFuncAttributes fa;
    if (shared > 48 * 1024 && (e = cudaFuncGetAttributes(&fa, fn)) == cudaSuccess &&
        (size_t)fa.maxDynamicSharedSizeBytes < shared)
        e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared);
    if (shared > 48 * 1024 && e != cudaSuccess) {
        cudaGetLastError();
        snprintf(why, len, "%zu bytes of dynamic shared memory refused: %s", shared,
                 cudaGetErrorString(e));
        return 1;
    }
    unsigned threads = block.x * block.y * block.z;
    if (cluster.x) {
        unsigned blocks = cluster.x * cluster.y * cluster.z;
        if ((e = cuda_launch_allow_cluster(fn, cluster)) != cudaSuccess) {
            cudaGetLastError();
            snprintf(why, len, "a cluster of %u blocks: the non-portable cluster size was "
                     "refused: %s", blocks, cudaGetErrorString(e));
            return 1;
        }
        cudaLaunchAttribute attr[2];
        unsigned n = cuda_launch_attributes(cluster, 0, attr);
        cudaLaunchConfig_t cfg = {grid, block, shared, 0, attr, n};
        int clusters = 0;
        if ((e = cudaOccupancyMaxActiveClusters(&clusters, fn, &cfg)) != cudaSuccess) {
            cudaGetLastError();
            snprintf(why, len, "a cluster of %u blocks: %s", blocks, cudaGetErrorString(e));
            return 1;
        }
        if (clusters < 1) {
            snprintf(why, len, "a cluster of %u blocks of %u threads (%zu bytes of dynamic "
                     "shared memory each) cannot be resident on the device at once", blocks,
                     threads, shared);
            return 1;
        }
    }
    if (cooperative) {
        int per_sm = 0, device = 0, sm_count = 0;
        if ((e = cudaGetDevice(&device)) != cudaSuccess ||
            (e = cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device)) !=
                cudaSuccess) {
            cudaGetLastError();
            snprintf(why, len, "the device's multiprocessors: %s", cudaGetErrorString(e));
            return -1;
        }
        if ((e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, (int)threads,
                                                               shared)) != cudaSuccess) {
            cudaGetLastError();
            snprintf(why, len, "the occupancy of a cooperative launch: %s", cudaGetErrorString(e));
            return -1;
        }
        unsigned long long blocks = (unsigned long long)grid.x * grid.y * grid.z;
        if (blocks > (unsigned long long)per_sm * (unsigned long long)sm_count) {
            snprintf(why, len, "a cooperative grid of %llu blocks: at most %d (%d a "
                     "multiprocessor x %d) can be resident at once", blocks, per_sm * sm_count,
                     per_sm, sm_count);
            return 1;
        }
    }
    return 0;
}

cudaError_t cuda_launch(const void *fn, dim3 grid, dim3 block, size_t shared, dim3 cluster,
                        int cooperative, void **params, cudaStream_t stream)
{
    cudaLaunchAttribute attr[2];
    unsigned n = cuda_launch_attributes(cluster, cooperative, attr);
    if (!n)
        return cudaLaunchKernel(fn, grid, block, params, shared, stream);
    cudaLaunchConfig_t cfg = {grid, block, shared, stream, attr, n};
    return cudaLaunchKernelExC(&cfg, fn, params);
}
