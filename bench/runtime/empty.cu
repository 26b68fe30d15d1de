// empty.cu: a kernel that does nothing (its one store never happens), for timing what a launch
// costs on the host: tk_kernel_launch against a plain cuLaunchKernel of the same cubin
// (bench/runtime/README.md).
extern "C" __global__ void empty(int *flag, int n)
{
    if (n < 0)
        flag[threadIdx.x] = n;
}
