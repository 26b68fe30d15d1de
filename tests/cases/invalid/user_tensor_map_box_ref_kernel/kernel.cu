// kernel.cu: the kernel of a malformed user-kernel space (tests/cases/invalid): a TMA kernel.
#include <cuda.h>
extern "C" __global__ void copy(const __grid_constant__ CUtensorMap m, float *y, int rows, int cols)
{
    if (threadIdx.x == 0) y[blockIdx.x] = 0.0f;
}
