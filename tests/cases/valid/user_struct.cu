// user_struct.cu: a kernel taking structs by value whose layout depends on the element type and
// on an alignment of its own (tests/cases/valid/user_struct.yaml, tests/unit/test_user.c).
#include <cuda_fp16.h>
struct __align__(16) Coeffs { float c[3]; };
template <typename T>
struct Args {
    char tag;                 // 1 byte, then padding to T
    T alpha;
    struct { short lo; long long hi; } range;   // 2, padding, 8: 16 bytes aligned to 8
    Coeffs k;                 // 16 bytes aligned to 16
    const T *x;
    T *y;
    int n;
};
template <typename T>
__global__ void apply(Args<T> a, unsigned char flag, T beta)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < a.n)
        a.y[i] = (T)((float)a.alpha * (float)a.x[i] + (flag ? (float)beta : a.k.c[0]));
}
