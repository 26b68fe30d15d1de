// blocks_2d.cu: out = in^T for a row-major rows x cols matrix of floats, through a shared-memory
// tile (padded by one column against bank conflicts) so that both the reads and the writes
// coalesce. A block of TILE_DIM x BLOCK_ROWS threads moves one TILE_DIM x TILE_DIM tile, each
// thread TILE_DIM / BLOCK_ROWS elements.
//
//   dim3 grid((cols + TILE_DIM - 1) / TILE_DIM, (rows + TILE_DIM - 1) / TILE_DIM);
//   dim3 block(TILE_DIM, BLOCK_ROWS);
//   transpose_tiled<<<grid, block>>>(d_out, d_in, rows, cols);
#ifndef TILE_DIM
#define TILE_DIM 32
#endif
#ifndef BLOCK_ROWS
#define BLOCK_ROWS 8
#endif

__global__ void transpose_tiled(float *out, const float *in, int rows, int cols)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];

    int x = blockIdx.x * TILE_DIM + threadIdx.x;   // column of in
    int y = blockIdx.y * TILE_DIM + threadIdx.y;   // row of in
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < cols && y + j < rows)
            tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x];

    __syncthreads();

    x = blockIdx.y * TILE_DIM + threadIdx.x;       // column of out (a row of in)
    y = blockIdx.x * TILE_DIM + threadIdx.y;       // row of out (a column of in)
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < rows && y + j < cols)
            out[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
