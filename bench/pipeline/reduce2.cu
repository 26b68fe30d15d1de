// reduce2.cu: the two kernels of a classic sum reduction as an application runs them: the first
// pass writes one partial sum per block (a grid-stride loop, so the number of blocks is free),
// the second sums the partials in one block. bench/pipeline/*.yaml tune them as a pipeline and
// each alone (README.md).
#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef FINAL
#define FINAL 256
#endif

__global__ void partial_sums(const float *in, float *partial, long long n)
{
    __shared__ float s[BLOCK];
    float acc = 0.0f;
    for (long long i = (long long)blockIdx.x * BLOCK + threadIdx.x; i < n;
         i += (long long)gridDim.x * BLOCK)
        acc += in[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int w = BLOCK / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

__global__ void final_sum(const float *partial, float *out, int blocks)
{
    __shared__ float s[FINAL];
    float acc = 0.0f;
    for (int i = threadIdx.x; i < blocks; i += FINAL)
        acc += partial[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int w = FINAL / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) *out = s[0];
}
