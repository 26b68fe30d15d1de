// conv2d_ref.cu: the reference the tuner validates conv2d.cu against: one thread per output,
// out[y][x] = sum over i, j < R of in[y + i][x + j] * filt[i][j] (cross-correlation, "valid";
// in is (H + R - 1) x (W + R - 1)), summed over i, then j, in order.
// Launch: grid (ceil(W / 16), ceil(H / 16)), block (16, 16), -D FR=R; the same arguments as conv2d.

#ifndef FR
#error "conv2d_ref.cu needs -D FR (the filter size)"
#endif

extern "C" __global__ void conv2d_ref(float *out, const float *in, const float *filt, int H, int W)
{
    int x = blockIdx.x * 16 + threadIdx.x;
    int y = blockIdx.y * 16 + threadIdx.y;
    if (x >= W || y >= H)
        return;
    const int win = W + FR - 1;
    float sum = 0.0f;
    for (int i = 0; i < FR; i++)
        for (int j = 0; j < FR; j++)
            sum = fmaf(in[(long long)(y + i) * win + x + j], filt[i * FR + j], sum);
    out[(long long)y * W + x] = sum;
}
