// block_partials.cu: first stage of a sum. A fixed number of blocks (a few per SM) walks the whole
// array with a grid-stride loop; each block reduces its threads' sums in shared memory (a tree,
// halving the active threads each step: blockDim.x must be a power of two) and writes one
// partial sum. The caller adds up the gridDim.x partials.
//
//   partial_sums<<<blocks, threads, threads * sizeof(float)>>>(d_x, d_partial, n);

__global__ void partial_sums(const float *x, float *partial, long long n)
{
    extern __shared__ float sdata[];

    float sum = 0.0f;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)blockDim.x * gridDim.x)
        sum += x[i];
    sdata[threadIdx.x] = sum;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            sdata[threadIdx.x] += sdata[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        partial[blockIdx.x] = sdata[0];
}
