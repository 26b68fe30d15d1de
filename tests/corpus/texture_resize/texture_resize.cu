// texture_resize.cu: bilinear image resize followed by a tone curve, written the way image
// pipelines use texture objects: the source image is a cudaTextureObject_t over a CUDA array
// with cudaFilterModeLinear (the texture unit interpolates) and clamped addressing, sampled at
// the destination pixel's centre in source texel coordinates; the tone curve is a 256-entry
// table read with tex1Dfetch. The host side makes both objects:
//
//   cudaMallocArray(&arr, &desc, src_w, src_h); cudaMemcpy2DToArray(arr, ...);
//   res.resType = cudaResourceTypeArray; tex.filterMode = cudaFilterModeLinear; ...
//   cudaCreateTextureObject(&src, &res, &tex, NULL);
//   resize_tone<<<dim3(ceil(dst_w / BX), ceil(dst_h / BY)), dim3(BX, BY)>>>(src, curve, d_dst,
//                                                                         dst_w, dst_h, sx, sy);
#ifndef HALF_PIXEL
#define HALF_PIXEL 1
#endif

__global__ void resize_tone(cudaTextureObject_t src, cudaTextureObject_t curve, float *dst,
                            int dst_w, int dst_h, float sx, float sy)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dst_w || y >= dst_h)
        return;
#if HALF_PIXEL
    const float u = (x + 0.5f) * sx, v = (y + 0.5f) * sy;   // pixel centres
#else
    const float u = x * sx, v = y * sy;                     // corners: half a pixel off
#endif
    const float p = tex2D<float>(src, u, v);
    const int level = min(max(__float2int_rd(p * 255.0f), 0), 255);
    dst[y * dst_w + x] = tex1Dfetch<float>(curve, level);
}
