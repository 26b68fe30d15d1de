// kernel.cu: the kernel of a malformed user-kernel space (tests/cases/invalid): a texture read.
extern "C" __global__ void fetch(cudaTextureObject_t t, float *y, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x < w) y[x] = tex2D<float>(t, x + 0.5f, 0.5f);
}
