// tma_scale.cu: y = 2 x over a row-major matrix (rows x cols, leading dimension ld), each block
// copying its BX x BY tile into shared memory with the Hopper tensor memory accelerator, the way
// TMA kernels are written: a `const __grid_constant__ CUtensorMap` parameter the host encoded
// with cuTensorMapEncodeTiled, an mbarrier the copy completes (expect_tx), then the tile from
// shared memory. Tiles past the edge are filled by the TMA unit (zeros) and not stored
// (tests/gpu/user_test.sh; the tuner encodes the map from `tensor_map:`).
//
//   tma_scale<<<dim3(ceil(cols / BX), ceil(rows / BY)), dim3(32, THREADS_Y)>>>(tmap, d_y, rows, cols);
#include <cuda.h>
#ifndef BX
#define BX 32
#endif
#ifndef BY
#define BY 8
#endif
extern "C" __global__ void tma_scale(const __grid_constant__ CUtensorMap tmap, float *y, int rows, int cols)
{
    __shared__ alignas(128) float tile[BY][BX];
    __shared__ alignas(8) unsigned long long bar;
    const int x0 = blockIdx.x * BX, y0 = blockIdx.y * BY;
    const unsigned bar_addr = (unsigned)__cvta_generic_to_shared(&bar);
    const unsigned tile_addr = (unsigned)__cvta_generic_to_shared(&tile[0][0]);
    const bool leader = threadIdx.x == 0 && threadIdx.y == 0;
    if (leader) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_addr));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (leader) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar_addr),
                     "r"((unsigned)(BX * BY * sizeof(float))) : "memory");
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3}], [%4];" ::"r"(tile_addr), "l"((unsigned long long)&tmap),
                     "r"(x0), "r"(y0), "r"(bar_addr) : "memory");
    }
    asm volatile("{\n .reg .pred p;\n WAIT_%=:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n @!p bra WAIT_%=;\n}\n" ::"r"(bar_addr) : "memory");
    for (int j = threadIdx.y; j < BY; j += blockDim.y)
        for (int i = threadIdx.x; i < BX; i += blockDim.x) {
            int r = y0 + j, c = x0 + i;
            if (r < rows && c < cols)
                y[(long long)r * cols + c] = 2.0f * tile[j][i];
        }
}
