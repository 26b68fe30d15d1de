// faults.cu: a user kernel that misbehaves on purpose, for the GPU test of user kernels
// (tests/gpu/user_test.sh): y = x, except that BUG selects a defect. 0: correct; 1: one element
// wrong; 2: writes far outside its buffers (a fault: the worker loses its context and is
// restarted); 3: leaves the last element unwritten (poisoning catches it); 4: does not compile;
// 5: declares a 128-thread limit, so a larger block cannot launch (recorded as unsupported
// without running); 6: never ends (the watchdog kills it).
extern "C" __global__ void
#if BUG == 5
__launch_bounds__(128)
#endif
copy_bug(float *y, const float *x, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
#if BUG == 1
    y[i] = i == n / 2 ? x[i] + 1.0f : x[i];
#elif BUG == 2
    if (i == 0) y[(long long)1 << 40] = 1.0f;
    y[i] = x[i];
#elif BUG == 3
    if (i != n - 1) y[i] = x[i];
#elif BUG == 4
    this does not compile;
#elif BUG == 6
    volatile float *spin = y;
    for (;;) spin[i] = x[i];   // a store every turn: a loop the compiler must keep
#else
    y[i] = x[i];
#endif
}
