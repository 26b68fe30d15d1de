/* cuda_launch.c: a kernel launch with a cluster dimension or as a cooperative launch
 * (cuda_launch.h). */
#include "cuda_launch.h"
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
