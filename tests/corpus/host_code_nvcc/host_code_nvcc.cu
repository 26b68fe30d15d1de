// host_code_nvcc.cu: a complete program, built with `nvcc -O2 -o bias_relu host_code_nvcc.cu`.
// out[r][c] = max(in[r][c] + bias[c], 0) for a row-major rows x cols matrix: one block per row,
// BLOCK_DIM threads striding along it. main() checks the GPU against the CPU and prints the time.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <vector>
#include <cuda_runtime.h>

#ifndef BLOCK_DIM
#define BLOCK_DIM 256
#endif

#define CUDA_CHECK(call)                                                                        \
    do {                                                                                        \
        cudaError_t err_ = (call);                                                              \
        if (err_ != cudaSuccess) {                                                              \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

__global__ void add_bias_relu(float *out, const float *in, const float *bias, int rows, int cols)
{
    const int row = blockIdx.x;
    if (row >= rows)
        return;
    const float *src = in + (size_t)row * cols;
    float *dst = out + (size_t)row * cols;
    for (int c = threadIdx.x; c < cols; c += BLOCK_DIM)
        dst[c] = fmaxf(src[c] + bias[c], 0.0f);
}

int main(int argc, char **argv)
{
    const int rows = argc > 1 ? atoi(argv[1]) : 8192;
    const int cols = argc > 2 ? atoi(argv[2]) : 1024;
    const size_t n = (size_t)rows * cols;

    std::vector<float> h_in(n), h_bias(cols), h_out(n);
    for (size_t i = 0; i < n; i++)
        h_in[i] = (float)((i * 7919) % 2001) / 1000.0f - 1.0f;
    for (int c = 0; c < cols; c++)
        h_bias[c] = (float)(c % 17) / 16.0f - 0.5f;

    float *d_in, *d_bias, *d_out;
    CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_bias, cols * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_bias, h_bias.data(), cols * sizeof(float), cudaMemcpyHostToDevice));

    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start));
    add_bias_relu<<<rows, BLOCK_DIM>>>(d_out, d_in, d_bias, rows, cols);
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    CUDA_CHECK(cudaMemcpy(h_out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));

    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        float want = h_in[i] + h_bias[i % cols];
        want = want > 0.0f ? want : 0.0f;
        if (h_out[i] != want && bad++ < 5)
            std::cerr << "mismatch at " << i << ": " << h_out[i] << " != " << want << "\n";
    }
    printf("add_bias_relu %d x %d, BLOCK_DIM %d: %.3f ms, %s\n", rows, cols, BLOCK_DIM, ms,
           bad ? "FAILED" : "ok");

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_bias));
    CUDA_CHECK(cudaFree(d_out));
    return bad ? 1 : 0;
}
