// struct_echo.cu: the GPU check of structs passed by value (tests/gpu/user_test.sh). echo writes
// back every field of its struct, a bool and a dtype scalar, through the struct's own output
// pointer, and whether a pointer parameter is the struct's x again and another is null;
// expected writes the values the space file gives, known here at compile time (N is the
// problem's n), through the same pointer. A field packed at the wrong offset, with the wrong
// width or conversion, makes the variant invalid.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

struct __align__(16) Coeffs { float c[3]; };

template <typename T>
struct Args {
    char tag;
    T alpha;
    struct { short lo; long long hi; } range;
    Coeffs k;
    const T *x;
    double *out;
    int n;
};

template <typename T>
__global__ void echo(Args<T> a, bool flag, T beta, const T *x_again, const float *none)
{
    if (blockIdx.x * blockDim.x + threadIdx.x != 0)
        return;
    double *o = a.out;
    o[0] = a.tag;
    o[1] = static_cast<float>(a.alpha);
    o[2] = a.range.lo;
    o[3] = static_cast<double>(a.range.hi);
    for (int i = 0; i < 3; i++)
        o[4 + i] = a.k.c[i];
    o[7] = flag ? 1.0 : 0.0;
    o[8] = static_cast<float>(beta);
    o[9] = a.n;
    o[10] = static_cast<float>(a.x[0]);
    o[11] = static_cast<float>(a.x[N - 1]);
    o[12] = x_again == a.x ? 1.0 : 0.0;
    o[13] = none == nullptr ? 1.0 : 0.0;
}

template <typename T>
__global__ void expected(Args<T> a, bool, T, const T *, const float *)
{
    if (blockIdx.x * blockDim.x + threadIdx.x != 0)
        return;
    const double want[14] = {-7, 1.5, -3, 2.0 * N + 4e12, 0.5, 0.25, -8, 1, -2, N, 0.75, 0.75, 1, 1};
    for (int i = 0; i < 14; i++)
        a.out[i] = want[i];
}
