// coop_groups.cu: per-block sums of squares (the first stage of a norm) with cooperative groups:
// each tile of TILE threads reduces with shfl_down, the tile leaders meet in shared memory and
// the first tile reduces their sums; one result per block. Each thread reads ITEMS elements,
// blockDim.x apart.
//
//   sumsq_blocks<32><<<ceil(n / (threads * ITEMS)), threads>>>(d_x, d_block_sums, n);
//
// Note: the shuffle loop starts at offset 16, written for TILE = 32 (a warp); it is only right
// for that tile size.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#ifndef ITEMS
#define ITEMS 1
#endif
#define MAX_BLOCK 1024

template <typename Group>
__device__ __forceinline__ float tile_sum(const Group &g, float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += g.shfl_down(v, offset);
    return v;   // valid in thread_rank() 0
}

template <int TILE>
__global__ void sumsq_blocks(const float *__restrict__ x, float *__restrict__ block_sums, int n)
{
    cg::thread_block block = cg::this_thread_block();
    auto tile = cg::tiled_partition<TILE>(block);
    __shared__ float tile_sums[MAX_BLOCK / TILE];

    const long long base = (long long)block.group_index().x * block.size() * ITEMS + block.thread_rank();
    float v = 0.0f;
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        long long i = base + (long long)k * block.size();
        if (i < n)
            v += x[i] * x[i];
    }

    v = tile_sum(tile, v);
    if (tile.thread_rank() == 0)
        tile_sums[tile.meta_group_rank()] = v;
    block.sync();

    if (tile.meta_group_rank() == 0) {
        float s = 0.0f;
        for (unsigned t = tile.thread_rank(); t < tile.meta_group_size(); t += TILE)
            s += tile_sums[t];
        s = tile_sum(tile, s);
        if (tile.thread_rank() == 0)
            block_sums[block.group_index().x] = s;
    }
}
