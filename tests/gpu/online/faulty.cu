// faulty.cu: y = a * x, with variants that are deliberately broken, for tuning at run time on a
// GPU the results do not know (tests/gpu/online_test.sh): the tuner a program starts must
// isolate them, and the program must never see them. MODE 0 is right; 1 computes a wrong value;
// 2 writes far outside every allocation (an illegal address: the context is lost); 3 spins
// until the tuner's watchdog kills its worker.
#ifndef MODE
#error "faulty.cu needs -D MODE"
#endif

extern "C" __global__ void scale(float *y, const float *x, float a, long long n)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
#if MODE == 1
    y[i] = a * x[i] + 1.0f;
#elif MODE == 2
    y[i + (1LL << 40)] = a * x[i];
#elif MODE == 3
    const volatile float *spin = x + i;   // a read the compiler must repeat: no loop removal
    while (*spin < 1e30f)
        ;
    y[i] = a * x[i];
#else
    y[i] = a * x[i];
#endif
}
