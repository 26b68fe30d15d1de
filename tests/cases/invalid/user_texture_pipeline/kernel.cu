// kernel.cu: the kernel of a malformed user-kernel space (tests/cases/invalid): a pipeline whose
// first launch writes the buffer its second reads through a 2-D texture.
extern "C" __global__ void produce(float *tmp, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x < w * h) tmp[x] = 0.5f * x;
}
extern "C" __global__ void consume(cudaTextureObject_t t, float *y, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x < w) y[x] = tex2D<float>(t, x + 0.5f, 0.5f);
}
