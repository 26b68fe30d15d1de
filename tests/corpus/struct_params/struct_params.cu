// struct_params.cu: rows scaled in place, written the way larger code bases pass arguments: one
// templated parameter struct by value (pointers, sizes, a leading dimension, a flag) and a
// scalar of the element type. Rows are padded: row r starts at r * ld, ld >= cols.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

namespace ops {

template <typename T>
struct RowScaleParams {
    const T *__restrict__ in;           // rows x cols, leading dimension ld
    T *__restrict__ out;                // the same layout; read too when add_residual
    const float *__restrict__ scale;    // one factor per row
    int rows, cols;
    long long ld;
    float eps;
    bool add_residual;
};

template <typename T, int THREADS, int VEC>
__global__ void __launch_bounds__(THREADS) row_scale(const RowScaleParams<T> p, T beta)
{
    const int row = blockIdx.x;
    if (row >= p.rows)
        return;
    const float s = p.scale[row] + p.eps;
    const T *src = p.in + row * p.ld;
    T *dst = p.out + row * p.ld;
    for (int c = threadIdx.x * VEC; c < p.cols; c += THREADS * VEC) {
#pragma unroll
        for (int v = 0; v < VEC; v++) {
            if (c + v < p.cols) {
                float y = s * static_cast<float>(src[c + v]);
                if (p.add_residual)
                    y += static_cast<float>(beta) * static_cast<float>(dst[c + v]);
                dst[c + v] = static_cast<T>(y);
            }
        }
    }
}

}  // namespace ops
