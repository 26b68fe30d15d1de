// dtype_by_macro.cu: a fused residual add + activation written the way a training code base
// writes its kernels for nvcc. Its habits:
//   - the element type is picked by whether a macro is defined (-DENABLE_BF16, -DENABLE_FP16),
//     not by a template parameter, so one source builds one precision at a time;
//   - the activation is a __device__ function passed as a template argument, and a bool
//     template argument says whether the residual is added; the host code instantiates the
//     combinations it uses (so nvcc's PTX holds several instances of the kernel);
//   - cuBLAS is included for the host code of the file, and the launcher takes a block_size
//     variable (a parameter named block_size must not become a macro here);
//   - glibc's uint is used without an include, as nvcc's implicit cuda_runtime.h allows.
// The host code is compiled by nvcc only (the space says compiler: nvcc).
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdio.h>

#if defined(ENABLE_BF16)
typedef __nv_bfloat16 floatX;
#elif defined(ENABLE_FP16)
typedef half floatX;
#else
typedef float floatX;
#endif

__device__ float act_gelu(float x)
{
    const float k = 0.7978845608f;
    return 0.5f * x * (1.0f + tanhf(k * (x + 0.044715f * x * x * x)));
}

__device__ float act_silu(float x) { return x / (1.0f + expf(-x)); }

typedef float (*act_fn)(float);

// out[i] = act(inp[i] + (RESIDUAL ? res[i] : 0)), one element a thread, x4 unrolled
template <act_fn ACT, bool RESIDUAL>
__global__ void residual_act_kernel(floatX *out, const floatX *inp, const floatX *res, uint n)
{
    uint base = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
#pragma unroll
    for (uint k = 0; k < 4; k++) {
        uint i = base + k;
        if (i < n) {
            float v = (float)inp[i];
            if (RESIDUAL)
                v += (float)res[i];
            out[i] = (floatX)ACT(v);
        }
    }
}

// the launchers the training loop calls
template <act_fn ACT, bool RESIDUAL>
void residual_act(floatX *out, const floatX *inp, const floatX *res, int n, int block_size)
{
    int grid = (n + 4 * block_size - 1) / (4 * block_size);
    residual_act_kernel<ACT, RESIDUAL><<<grid, block_size>>>(out, inp, res, (uint)n);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        printf("residual_act: %s\n", cudaGetErrorString(e));
}

void residual_gelu(floatX *out, const floatX *inp, const floatX *res, int n, int block_size)
{
    residual_act<act_gelu, true>(out, inp, res, n, block_size);
}

void gelu_only(floatX *out, const floatX *inp, int n, int block_size)
{
    residual_act<act_gelu, false>(out, inp, nullptr, n, block_size);
}

void residual_silu(floatX *out, const floatX *inp, const floatX *res, int n, int block_size)
{
    residual_act<act_silu, true>(out, inp, res, n, block_size);
}
