// Block-wise sums with CUB: each block loads BLOCK_THREADS * ITEMS_PER_THREAD floats (striped, so
// the loads coalesce), reduces them with cub::BlockReduce and writes one sum per block. The host
// sums the per-block results (or launches a second pass).
//
//   block_sum<BLOCK_THREADS, ITEMS_PER_THREAD><<<ceil(n / (BLOCK_THREADS * ITEMS_PER_THREAD)),
//                                               BLOCK_THREADS>>>(d_in, d_block_sums, n);
#include <cub/cub.cuh>

template <int BLOCK_THREADS, int ITEMS_PER_THREAD>
__global__ void __launch_bounds__(BLOCK_THREADS)
block_sum(const float *__restrict__ d_in, float *__restrict__ d_block_sums, int n)
{
    typedef cub::BlockReduce<float, BLOCK_THREADS> BlockReduceT;
    __shared__ typename BlockReduceT::TempStorage temp_storage;

    const int tile = BLOCK_THREADS * ITEMS_PER_THREAD;
    const int block_offset = blockIdx.x * tile;
    const int valid = min(tile, n - block_offset);

    float items[ITEMS_PER_THREAD];
    cub::LoadDirectStriped<BLOCK_THREADS>(threadIdx.x, d_in + block_offset, items, valid, 0.0f);

    float block_total = BlockReduceT(temp_storage).Sum(items);
    if (threadIdx.x == 0)
        d_block_sums[blockIdx.x] = block_total;
}
