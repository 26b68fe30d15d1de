// cluster_reduce.cu: a per-cluster sum on Hopper, as written for a launch with a cluster
// dimension (cudaLaunchKernelEx with cudaLaunchAttributeClusterDimension in the host code):
// every block reduces its tile into its own shared memory, the cluster synchronises, and the
// cluster's first block reads the other blocks' sums out of their shared memory (distributed
// shared memory, cluster.map_shared_rank) and writes one sum per cluster.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

template <int THREADS, int ITEMS>
__global__ void __launch_bounds__(THREADS)
cluster_sum(const float *__restrict__ x, float *__restrict__ cluster_sums, int n)
{
    cg::cluster_group cluster = cg::this_cluster();
    __shared__ float warp_sums[THREADS / 32];
    __shared__ float block_total;

    float v = 0.0f;
    const int base = blockIdx.x * THREADS * ITEMS + threadIdx.x;
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        int i = base + k * THREADS;
        if (i < n)
            v += x[i];
    }
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    if ((threadIdx.x & 31) == 0)
        warp_sums[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (int w = 0; w < THREADS / 32; w++)
            t += warp_sums[w];
        block_total = t;
    }
    cluster.sync();   // every block's total is in its shared memory
    if (cluster.block_rank() == 0 && threadIdx.x == 0) {
        float s = 0.0f;
        for (unsigned r = 0; r < cluster.num_blocks(); r++)
            s += *cluster.map_shared_rank(&block_total, r);
        cluster_sums[blockIdx.x / cluster.num_blocks()] = s;
    }
    cluster.sync();   // no block leaves while its shared memory may still be read
}
