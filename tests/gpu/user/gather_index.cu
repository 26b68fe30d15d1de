// gather_index.cu: a gather through an index buffer (tests/gpu/user_test.sh). The indices are
// drawn in [0, m - 1] and the weights are 1 / m, both written in the space as expressions of the
// problem; an index out of range, or a weight that is not 1 / m, traps (the config faults).
__global__ void gather(float *y, const int *idx, const float *x, const float *w, int n, int m)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int j = idx[i];
    if (j < 0 || j >= m || w[i] * (float)m < 0.999f || w[i] * (float)m > 1.001f)
        __trap();
    y[i] = x[j] * w[i];
}
