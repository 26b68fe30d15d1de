/* cuda_launch.h: one kernel launch with what a plain <<<grid, block>>> cannot give: a thread
 * block cluster dimension and the cooperative flag, as the host code of such kernels asks with
 * cudaLaunchKernelEx or cudaLaunchCooperativeKernel. The tuner's worker (user kernels: every
 * variant, reference and check kernel) and libtunekit's run-time API launch through it. */
#pragma once
#include <stddef.h>
#include <cuda_runtime_api.h>

/* The launch attributes for a cluster of cluster.x * .y * .z blocks (cluster.x 0: none) and a
 * cooperative launch, into attr (room for 2). Returns how many. */
unsigned cuda_launch_attributes(dim3 cluster, int cooperative, cudaLaunchAttribute attr[2]);

/* Before the first launch of fn with clusters of more than the portable 8 blocks: the kernel's
 * consent to the non-portable sizes (up to 16 on Hopper). cudaSuccess when none is needed. */
cudaError_t cuda_launch_allow_cluster(const void *fn, dim3 cluster);

/* Readies fn for a launch of grid x block with shared bytes of dynamic shared memory, a cluster
 * (cluster.x 0: none) and the cooperative flag on the current device, or says why it cannot:
 * dynamic shared memory past 48 KiB (the kernel's limit raised to it, never lowered) and a
 * non-portable cluster size are asked for, a cluster
 * must fit on the device at once (cudaOccupancyMaxActiveClusters), a cooperative grid must be
 * resident whole. 0 ready; 1 unsupported, why said; -1 a CUDA failure, why said. The tuner's
 * worker (every variant, reference and check kernel) and libtunekit's plans both ask here. */
int cuda_launch_ready(const void *fn, dim3 grid, dim3 block, size_t shared, dim3 cluster,
                      int cooperative, char *why, size_t len);

/* Launches fn: with cudaLaunchKernelExC and those attributes where there are any, else with
 * cudaLaunchKernel. */
cudaError_t cuda_launch(const void *fn, dim3 grid, dim3 block, size_t shared, dim3 cluster,
                        int cooperative, void **params, cudaStream_t stream);
