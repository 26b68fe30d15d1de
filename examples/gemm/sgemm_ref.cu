// sgemm_ref.cu: the reference the tuner validates sgemm.cu against: one thread per element of
// C = A * B (row-major, A M x K, B K x N), a plain FP32 dot product over k in order.
// Launch: grid (ceil(N / 16), ceil(M / 16)), block (16, 16); the same arguments as sgemm.

extern "C" __global__ void sgemm_ref(float *C, const float *A, const float *B, int M, int N, int K)
{
    int n = blockIdx.x * 16 + threadIdx.x;
    int m = blockIdx.y * 16 + threadIdx.y;
    if (m >= M || n >= N)
        return;
    float sum = 0.0f;
    for (int k = 0; k < K; k++)
        sum = fmaf(A[(long long)m * K + k], B[(long long)k * N + n], sum);
    C[(long long)m * N + n] = sum;
}
