// texture_forms.cu: every kind of texture argument the tuner makes, read back (tests/gpu/user_test.sh).
// texels reads each texture at texel centres; reference reads the same buffers through plain
// pointers (the same argument list: `pointer:` arguments pass the buffers the textures are over)
// and computes what the texture must return. One thread per voxel of the volume.
//   rgba:   u8 x 4, 2-D, read normalized (float4 in [0, 1])
//   vol:    i16, 3-D, read as stored
//   wrapped: f16, 2-D, normalized coordinates, wrap addressing (sampled one width to the right)
//   ints:   i32, 1-D over the buffer itself (tex1Dfetch)
#include <cuda_fp16.h>

#define FORMS_ARGS                                                                          \
    cudaTextureObject_t rgba, cudaTextureObject_t vol, cudaTextureObject_t wrapped,         \
        cudaTextureObject_t ints, const unsigned char *rgba_p, const short *vol_p,          \
        const __half *half_p, const int *ints_p, float *out_rgba, float *out_vol,           \
        float *out_wrap, float *out_ints, int w, int h, int d

extern "C" __global__ void texels(FORMS_ARGS)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= w * h * d)
        return;
    int x = i % w, y = (i / w) % h, z = i / (w * h);
    out_vol[i] = (float)tex3D<short>(vol, x + 0.5f, y + 0.5f, z + 0.5f);
    out_ints[i] = (float)tex1Dfetch<int>(ints, i);
    if (z == 0) {
        float4 c = tex2D<float4>(rgba, x + 0.5f, y + 0.5f);
        out_rgba[4 * i + 0] = c.x;
        out_rgba[4 * i + 1] = c.y;
        out_rgba[4 * i + 2] = c.z;
        out_rgba[4 * i + 3] = c.w;
        out_wrap[i] = tex2D<float>(wrapped, (x + w + 0.5f) / w, (y + 0.5f) / h);
    }
}

extern "C" __global__ void reference(FORMS_ARGS)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= w * h * d)
        return;
    out_vol[i] = (float)vol_p[i];
    out_ints[i] = (float)ints_p[i];
    if (i < w * h) {
        for (int k = 0; k < 4; k++)
            out_rgba[4 * i + k] = rgba_p[4 * i + k] / 255.0f;
        out_wrap[i] = __half2float(half_p[i]);
    }
}
