// sgemm.cu: tiled FP32 matrix product C = A * B (row-major; A is M x K, B is K x N, C is M x N)
// on the CUDA cores, every tiling choice a compile-time macro so that the tuner can search them.
//
// A block computes a BM x BN tile of C, walking K in steps of BK. Its warps tile the block tile
// with WM x WN warp tiles; inside a warp the 32 threads form a (WM / TM) x (WN / TN) grid and each
// thread accumulates TM x TN outputs, held as (TM / 4) x (TN / 4) sub-tiles of 4 x 4 spaced one
// warp-row of sub-tiles apart, so that the fragments a thread reads from shared memory are float4
// and a warp's reads of one row are contiguous (no bank conflicts, broadcast across the warp).
//
// Macros (all required):
//   BM BN BK     block tile and k-tile
//   WM WN        warp tile (WM / TM * WN / TN == 32)
//   TM TN        thread tile, multiples of 4
//   STAGES       shared-memory stages (2 = double buffering, 3, 4)
//   LOAD         0: global -> registers (float4) -> shared memory, the next tile's loads issued
//                   before the current tile's arithmetic (needs STAGES == 2);
//                1: cp.async straight into shared memory, STAGES - 1 tiles in flight
//   A_T          1: A's tile stored transposed (k-major) so a thread reads its A fragment as
//                   float4; 0: stored as in memory (m-major), A fragment read one float at a time
//   PAD_A        floats of padding after each row of the A tile (against bank conflicts when it
//                is written transposed; B's tile rows are written and read as whole float4 rows)
//   GROUP        block raster: GROUP block-rows of C are swept together (L2 reuse of B)
//   MINB         minimum resident blocks per SM for __launch_bounds__ (caps the registers)
// Launch: grid (M / BM) * (N / BN), block 32 * (BM / WM) * (BN / WN), dynamic shared memory
// 4 * STAGES * (BK * (BM + PAD_A) + BK * BN) bytes (for A_T 0: 4 * STAGES * (BM * (BK + PAD_A) + BK * BN)).
// M % BM == 0, N % BN == 0, K % BK == 0 are the caller's to keep (the space's constraints do).

#if !defined(BM) || !defined(BN) || !defined(BK) || !defined(WM) || !defined(WN) || \
    !defined(TM) || !defined(TN) || !defined(STAGES) || !defined(LOAD) || !defined(A_T) || \
    !defined(PAD_A) || !defined(GROUP) || !defined(MINB)
#error "sgemm.cu needs -D BM BN BK WM WN TM TN STAGES LOAD A_T PAD_A GROUP MINB"
#endif

#define TX (WN / TN)                      // threads of a warp along N
#define TY (WM / TM)                      // threads of a warp along M
#define WARPS_N (BN / WN)
#define NT ((BM / WM) * (BN / WN) * 32)   // threads per block
#define LDA_S (A_T ? BM + PAD_A : BK + PAD_A)   // row pitch of the A tile in shared memory
#define LDB_S BN                           // B's tile rows are read and written whole
#define A_STAGE (A_T ? BK * LDA_S : BM * LDA_S) // floats per stage
#define B_STAGE (BK * LDB_S)
#define A_VECS (BM * BK / 4 / NT)         // float4 of A per thread per tile
#define B_VECS (BK * BN / 4 / NT)         // float4 of B per thread per tile

static_assert(TX * TY == 32, "a warp tile must hold 32 threads");
static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must tile the block tile");
static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0, "TM, TN and BK are multiples of 4");
static_assert((BM * BK / 4) % NT == 0 && (BK * BN / 4) % NT == 0,
              "every thread loads the same number of float4 of each tile");
static_assert(PAD_A % 4 == 0, "padding keeps rows 16-byte aligned");
static_assert(LOAD == 1 || STAGES == 2, "register staging is double buffering");
static_assert(STAGES >= 2 && STAGES <= 4, "2 to 4 stages");

__device__ __forceinline__ unsigned smem_addr(const void *p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void cp_async16(float *s, const float *g)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr(s)), "l"(g)
                 : "memory");
}

__device__ __forceinline__ void cp_async4(float *s, const float *g)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(smem_addr(s)), "l"(g)
                 : "memory");
}

__device__ __forceinline__ void cp_async_commit()
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

template <int N> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// One k-tile of A (rows bm0.., columns k0..) and B into a shared-memory stage with cp.async.
__device__ __forceinline__ void load_tile_async(float *As, float *Bs, const float *A,
                                                const float *B, int N, int K, int k0, int tid)
{
    if (A_T) {
        // 4-byte copies into the transposed tile, element e = (m, k) to As[k][m]: a warp reads
        // whole rows of the tile (full sectors) and, with PAD_A 4, writes 32 distinct banks
#pragma unroll
        for (int v = 0; v < 4 * A_VECS; v++) {
            int e = tid + v * NT;
            int m = e / BK, k = e % BK;
            cp_async4(As + k * LDA_S + m, A + (long long)m * K + k0 + k);
        }
    } else {
#pragma unroll
        for (int v = 0; v < A_VECS; v++) {
            int f = tid + v * NT;             // float4 index in the tile, row-major
            int m = f / (BK / 4), k4 = (f % (BK / 4)) * 4;
            cp_async16(As + m * LDA_S + k4, A + (long long)m * K + k0 + k4);
        }
    }
#pragma unroll
    for (int v = 0; v < B_VECS; v++) {
        int f = tid + v * NT;
        int k = f / (BN / 4), n4 = (f % (BN / 4)) * 4;
        cp_async16(Bs + k * LDB_S + n4, B + (long long)(k0 + k) * N + n4);
    }
}

extern "C" __global__ void __launch_bounds__(NT, MINB)
sgemm(float *__restrict__ C, const float *__restrict__ A, const float *__restrict__ B, int M,
      int N, int K)
{
    extern __shared__ __align__(16) float smem[];
    float *As = smem;                         // STAGES stages of A, then STAGES of B
    float *Bs = smem + STAGES * A_STAGE;

    // block raster: GROUP block-rows at a time, column by column inside the group
    const int tiles_m = M / BM, tiles_n = N / BN;
    const int pid = blockIdx.x;
    const int per_group = GROUP * tiles_n;
    const int first_m = (pid / per_group) * GROUP;
    const int rows = min(tiles_m - first_m, GROUP);
    const int bm = first_m + (pid % per_group) % rows;
    const int bn = (pid % per_group) / rows;

    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int wm0 = (warp / WARPS_N) * WM, wn0 = (warp % WARPS_N) * WN;
    const int ty = lane / TX, tx = lane % TX;
    const int am = wm0 + ty * 4;              // first A row of the thread's sub-tile 0
    const int bn_ = wn0 + tx * 4;             // first B column of the thread's sub-tile 0

    A += (long long)bm * BM * K;
    B += bn * BN;
    C += (long long)bm * BM * N + bn * BN;

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0.0f;

    const int KT = K / BK;

    // the arithmetic of one k-tile held in stage (As_s, Bs_s); fragments double-buffered
    auto compute = [&](const float *As_s, const float *Bs_s) {
        float a[2][TM], b[2][TN];
        auto frag = [&](int buf, int k) {
#pragma unroll
            for (int i = 0; i < TM / 4; i++) {
                if (A_T) {
                    float4 t = *reinterpret_cast<const float4 *>(As_s + k * LDA_S + am + i * TY * 4);
                    a[buf][4 * i + 0] = t.x;
                    a[buf][4 * i + 1] = t.y;
                    a[buf][4 * i + 2] = t.z;
                    a[buf][4 * i + 3] = t.w;
                } else {
#pragma unroll
                    for (int r = 0; r < 4; r++)
                        a[buf][4 * i + r] = As_s[(am + i * TY * 4 + r) * LDA_S + k];
                }
            }
#pragma unroll
            for (int j = 0; j < TN / 4; j++) {
                float4 t = *reinterpret_cast<const float4 *>(Bs_s + k * LDB_S + bn_ + j * TX * 4);
                b[buf][4 * j + 0] = t.x;
                b[buf][4 * j + 1] = t.y;
                b[buf][4 * j + 2] = t.z;
                b[buf][4 * j + 3] = t.w;
            }
        };
        frag(0, 0);
#pragma unroll
        for (int k = 0; k < BK; k++) {
            if (k + 1 < BK)
                frag((k + 1) & 1, k + 1);
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] = fmaf(a[k & 1][i], b[k & 1][j], acc[i][j]);
        }
    };

    if (LOAD == 1) {
        // cp.async pipeline: tiles kt+1 .. kt+STAGES-1 in flight while tile kt is computed
#pragma unroll
        for (int s = 0; s < STAGES - 1; s++) {
            if (s < KT)
                load_tile_async(As + s * A_STAGE, Bs + s * B_STAGE, A, B, N, K, s * BK, tid);
            cp_async_commit();
        }
        for (int kt = 0; kt < KT; kt++) {
            cp_async_wait<STAGES - 2>();      // tile kt has landed (for this thread)
            __syncthreads();                  // ... for every thread; stage kt-1 is free
            int next = kt + STAGES - 1;
            if (next < KT)
                load_tile_async(As + (next % STAGES) * A_STAGE, Bs + (next % STAGES) * B_STAGE,
                                A, B, N, K, next * BK, tid);
            cp_async_commit();                // an empty group keeps the count uniform
            compute(As + (kt % STAGES) * A_STAGE, Bs + (kt % STAGES) * B_STAGE);
        }
    } else {
        // register staging: load tile kt+1 into registers, compute tile kt, store kt+1
        float4 ra[A_VECS], rb[B_VECS];
        auto fetch = [&](int k0) {
#pragma unroll
            for (int v = 0; v < A_VECS; v++) {
                int f = tid + v * NT;
                int m = f / (BK / 4), k4 = (f % (BK / 4)) * 4;
                ra[v] = *reinterpret_cast<const float4 *>(A + (long long)m * K + k0 + k4);
            }
#pragma unroll
            for (int v = 0; v < B_VECS; v++) {
                int f = tid + v * NT;
                int k = f / (BN / 4), n4 = (f % (BN / 4)) * 4;
                rb[v] = *reinterpret_cast<const float4 *>(B + (long long)(k0 + k) * N + n4);
            }
        };
        auto store = [&](float *As_s, float *Bs_s) {
#pragma unroll
            for (int v = 0; v < A_VECS; v++) {
                int f = tid + v * NT;
                int m = f / (BK / 4), k4 = (f % (BK / 4)) * 4;
                if (A_T) {
                    As_s[(k4 + 0) * LDA_S + m] = ra[v].x;
                    As_s[(k4 + 1) * LDA_S + m] = ra[v].y;
                    As_s[(k4 + 2) * LDA_S + m] = ra[v].z;
                    As_s[(k4 + 3) * LDA_S + m] = ra[v].w;
                } else {
                    *reinterpret_cast<float4 *>(As_s + m * LDA_S + k4) = ra[v];
                }
            }
#pragma unroll
            for (int v = 0; v < B_VECS; v++) {
                int f = tid + v * NT;
                int k = f / (BN / 4), n4 = (f % (BN / 4)) * 4;
                *reinterpret_cast<float4 *>(Bs_s + k * LDB_S + n4) = rb[v];
            }
        };
        fetch(0);
        store(As, Bs);
        __syncthreads();
        for (int kt = 0; kt < KT; kt++) {
            int cur = kt & 1;
            if (kt + 1 < KT)
                fetch((kt + 1) * BK);          // in flight during the arithmetic
            compute(As + cur * A_STAGE, Bs + cur * B_STAGE);
            if (kt + 1 < KT)
                store(As + (cur ^ 1) * A_STAGE, Bs + (cur ^ 1) * B_STAGE);
            __syncthreads();
        }
    }

    // epilogue: each sub-tile row is one float4 store
#pragma unroll
    for (int i = 0; i < TM / 4; i++)
#pragma unroll
        for (int r = 0; r < 4; r++) {
            int m = am + i * TY * 4 + r;
#pragma unroll
            for (int j = 0; j < TN / 4; j++) {
                int n = bn_ + j * TX * 4;
                *reinterpret_cast<float4 *>(C + (long long)m * N + n) =
                    make_float4(acc[4 * i + r][4 * j + 0], acc[4 * i + r][4 * j + 1],
                                acc[4 * i + r][4 * j + 2], acc[4 * i + r][4 * j + 3]);
            }
        }
}
