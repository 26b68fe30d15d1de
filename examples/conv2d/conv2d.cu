// conv2d.cu: single-channel 2-D convolution in FP32 as deep-learning libraries define it (a
// cross-correlation, "valid"): out[y][x] = sum over i, j < FR of in[y + i][x + j] * filt[i][j],
// with out H x W and in (H + FR - 1) x (W + FR - 1), all row-major. The tiling is compile-time
// macros so that the tuner can search it.
//
// A block computes a BY x BX tile of outputs; each thread an OY x OX patch of it (OX consecutive
// outputs in each of OY consecutive rows). The filter is staged in shared memory once per block
// (its rows padded to a multiple of 4 floats so a thread reads a filter row as float4, the same
// address across the block: a broadcast). For every filter row i the thread holds that row's
// FR weights in registers and, for each of its OY output rows, the OX + FR - 1 input values that
// row needs, then does OX * FR multiply-adds from registers. Every output is summed over i, then
// j, in order, as the reference does.
//
// Macros (all required):
//   FR          filter size (FR x FR); (FR - 1) % 4 == 0 so that input rows stay float4-aligned
//   BX BY       output tile per block
//   OX OY       outputs per thread along x and y; OX % 4 == 0
//   SMEM_IN     1: the block's (BY + FR - 1) x (BX + FR - 1) input tile is staged in shared
//               memory first; 0: every thread reads its input rows from global memory (L1)
//   PAD         floats of padding after each row of the staged input tile (bank conflicts)
//   UNROLL      unroll factor of the loop over filter rows
// Launch: grid (W / BX, H / BY), block (BX / OX) * (BY / OY), dynamic shared memory
// 4 * (FR * FRP + (SMEM_IN ? (BY + FR - 1) * (BX + FR - 1 + PAD) : 0)) bytes, FRP = FR rounded
// up to a multiple of 4. W % BX == 0, H % BY == 0 and W % 4 == 0 are the caller's to keep.

#if !defined(FR) || !defined(BX) || !defined(BY) || !defined(OX) || !defined(OY) || \
    !defined(SMEM_IN) || !defined(PAD) || !defined(UNROLL)
#error "conv2d.cu needs -D FR BX BY OX OY SMEM_IN PAD UNROLL"
#endif

#define FRP ((FR + 3) / 4 * 4)             // filter row pitch in shared memory
#define TILE_W (BX + FR - 1)               // staged input tile
#define TILE_H (BY + FR - 1)
#define LDT (TILE_W + PAD)                 // its row pitch
#define SEG (OX + FR - 1)                  // input values one output row of a thread needs
#define NTH ((BX / OX) * (BY / OY))        // threads per block

static_assert((FR - 1) % 4 == 0, "input rows of the tile must stay 16-byte aligned");
static_assert(OX % 4 == 0 && BX % OX == 0 && BY % OY == 0, "thread patches tile the block");
static_assert(PAD % 4 == 0, "padding keeps rows 16-byte aligned");
static_assert(SEG % 4 == 0, "a thread's input segment is whole float4");

#define STR(x) #x
#define PRAGMA_UNROLL(n) _Pragma(STR(unroll n))

extern "C" __global__ void __launch_bounds__(NTH)
conv2d(float *__restrict__ out, const float *__restrict__ in, const float *__restrict__ filt,
       int H, int W)
{
    extern __shared__ __align__(16) float smem[];
    float *fs = smem;                       // FR rows of FRP floats
    float *ts = smem + FR * FRP;            // the input tile, when SMEM_IN
    const int win = W + FR - 1;             // input row length
    const int bx0 = blockIdx.x * BX, by0 = blockIdx.y * BY;
    const int tid = threadIdx.x;
    const int x0 = (tid % (BX / OX)) * OX, y0 = (tid / (BX / OX)) * OY;   // in the tile

    for (int e = tid; e < FR * FRP; e += NTH) {
        int i = e / FRP, j = e % FRP;
        fs[e] = j < FR ? filt[i * FR + j] : 0.0f;
    }
    if (SMEM_IN) {
        const float *src = in + (long long)by0 * win + bx0;
        for (int e = tid; e < TILE_H * (TILE_W / 4); e += NTH) {
            int r = e / (TILE_W / 4), c = (e % (TILE_W / 4)) * 4;
            *reinterpret_cast<float4 *>(ts + r * LDT + c) =
                __ldg(reinterpret_cast<const float4 *>(src + (long long)r * win + c));
        }
    }
    __syncthreads();

    float acc[OY][OX];
#pragma unroll
    for (int oy = 0; oy < OY; oy++)
#pragma unroll
        for (int ox = 0; ox < OX; ox++)
            acc[oy][ox] = 0.0f;

    PRAGMA_UNROLL(UNROLL)
    for (int i = 0; i < FR; i++) {
        float w[FRP];
#pragma unroll
        for (int j = 0; j < FRP; j += 4) {
            float4 t = *reinterpret_cast<const float4 *>(fs + i * FRP + j);
            w[j] = t.x;
            w[j + 1] = t.y;
            w[j + 2] = t.z;
            w[j + 3] = t.w;
        }
#pragma unroll
        for (int oy = 0; oy < OY; oy++) {
            float seg[SEG];
            const float *row = SMEM_IN ? ts + (y0 + oy + i) * LDT + x0
                                       : in + (long long)(by0 + y0 + oy + i) * win + bx0 + x0;
#pragma unroll
            for (int c = 0; c < SEG; c += 4) {
                float4 t = SMEM_IN ? *reinterpret_cast<const float4 *>(row + c)
                                   : __ldg(reinterpret_cast<const float4 *>(row + c));
                seg[c] = t.x;
                seg[c + 1] = t.y;
                seg[c + 2] = t.z;
                seg[c + 3] = t.w;
            }
#pragma unroll
            for (int j = 0; j < FR; j++)
#pragma unroll
                for (int ox = 0; ox < OX; ox++)
                    acc[oy][ox] = fmaf(seg[ox + j], w[j], acc[oy][ox]);
        }
    }

#pragma unroll
    for (int oy = 0; oy < OY; oy++) {
        float *o = out + (long long)(by0 + y0 + oy) * W + bx0 + x0;
#pragma unroll
        for (int ox = 0; ox < OX; ox += 4)
            *reinterpret_cast<float4 *>(o + ox) =
                make_float4(acc[oy][ox], acc[oy][ox + 1], acc[oy][ox + 2], acc[oy][ox + 3]);
    }
}
