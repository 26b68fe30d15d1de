/* user_views.c: the views of a buffer a user kernel's arguments ask the tuner to make, worker
 * side: tensor maps (docs/user-kernels.md, "Tensor maps"), the CUtensorMap a TMA kernel takes
 * by value, encoded with cuTensorMapEncodeTiled over the buffer's current address each time the
 * values are stored (a host call, cheap); and texture objects ("Textures"). One dimension: a linear resource over the buffer itself, which the
 * kernel reads with tex1Dfetch. Two or three: a CUDA array the buffer's contents are copied into
 * (the buffer holds the image row by row, as the program's cudaMemcpy2DToArray would take it),
 * with the space's filter, address mode, coordinates and read mode. The object is made when the
 * texture is first bound and again only when its buffer moved, was filled again or its size
 * changed; it is 8 bytes passed by value, like any scalar. */
#include <stdio.h>
#include <string.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include "user_module.h"

void uk_texture_release(utex *t)
{
    if (t->obj)
        cudaDestroyTextureObject(t->obj);
    if (t->array)
        cudaFreeArray(t->array);
    memset(t, 0, sizeof *t);
}

/* The channel format of a texel: channels elements of type. */
static struct cudaChannelFormatDesc channel_desc(int type, int channels)
{
    int bits = (int)su_type_size(type) * 8;
    enum cudaChannelFormatKind kind = type == SU_F32 || type == SU_F16 ? cudaChannelFormatKindFloat
                                      : type == SU_I8 || type == SU_I16 || type == SU_I32
                                          ? cudaChannelFormatKindSigned
                                          : cudaChannelFormatKindUnsigned;
    return cudaCreateChannelDesc(bits, channels >= 2 ? bits : 0, channels == 4 ? bits : 0,
                                 channels == 4 ? bits : 0, kind);
}

int uk_texture_bind(op_instance *in, int i, const int *choice, char *err, size_t len)
{
    const space *sp = in->uf->sp;
    const su_arg *a = &sp->user->args[i];
    const su_texture *x = a->texture;
    const ubuf *b = &in->bufs[x->buffer];
    utex *t = &in->tex[i];
    int64_t dims[3];
    if (space_user_texture_dims(sp, &in->bind, choice, a, dims, err, len) != 0)
        return -1;
    if (!t->obj || t->from != b->dev || t->fills != b->fills ||
        memcmp(t->dims, dims, sizeof dims) != 0) {
        uk_texture_release(t);
        int type = b->type;   /* the buffer's, resolved for the dtype */
        size_t texel = su_type_size(type) * (size_t)x->channels;
        struct cudaChannelFormatDesc cd = channel_desc(type, x->channels);
        struct cudaResourceDesc rd;
        memset(&rd, 0, sizeof rd);
        cudaError_t e = cudaSuccess;
        if (x->n_dims == 1) {
            rd.resType = cudaResourceTypeLinear;
            rd.res.linear.devPtr = b->dev;
            rd.res.linear.desc = cd;
            rd.res.linear.sizeInBytes = (size_t)dims[0] * texel;
        } else {
            struct cudaExtent ext = {(size_t)dims[0], (size_t)dims[1],
                                     x->n_dims == 3 ? (size_t)dims[2] : 0};
            e = cudaMalloc3DArray(&t->array, &cd, ext, 0);
            if (e == cudaSuccess) {
                struct cudaMemcpy3DParms p;
                memset(&p, 0, sizeof p);
                p.srcPtr = (struct cudaPitchedPtr){b->dev, (size_t)dims[0] * texel,
                                                   (size_t)dims[0], (size_t)dims[1]};
                p.dstArray = t->array;
                p.extent = (struct cudaExtent){(size_t)dims[0], (size_t)dims[1], (size_t)dims[2]};
                p.kind = cudaMemcpyDeviceToDevice;
                e = cudaMemcpy3D(&p);
            }
            rd.resType = cudaResourceTypeArray;
            rd.res.array.array = t->array;
        }
        struct cudaTextureDesc td;
        memset(&td, 0, sizeof td);
        for (int d = 0; d < 3; d++)
            td.addressMode[d] = (enum cudaTextureAddressMode)x->address;
        td.filterMode = x->linear_filter ? cudaFilterModeLinear : cudaFilterModePoint;
        td.readMode = x->read_normalized ? cudaReadModeNormalizedFloat : cudaReadModeElementType;
        td.normalizedCoords = x->normalized_coords;
        if (e == cudaSuccess)
            e = cudaCreateTextureObject(&t->obj, &rd, &td, NULL);
        if (e == cudaSuccess)
            e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            char what[200];
            snprintf(what, sizeof what, "making texture %s (%lld x %lld x %lld texels over %s)",
                     a->name, (long long)dims[0], (long long)dims[1], (long long)dims[2],
                     x->target);
            uk_texture_release(t);
            return uk_cuda_fail(e, what, err, len);
        }
        t->from = b->dev;
        t->fills = b->fills;
        memcpy(t->dims, dims, sizeof dims);
    }
    unsigned char *dst = uk_value_slot(in, a, &in->values[i], &in->value_cap[i], err, len);
    if (!dst)
        return -1;
    unsigned long long h = (unsigned long long)t->obj;
    memcpy(dst, &h, 8);
    return 0;
}

/* ---- tensor maps ---- */

typedef CUresult (*encode_tiled_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *,
                                    const cuuint64_t *, const cuuint64_t *, const cuuint32_t *,
                                    const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,
                                    CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

static CUtensorMapDataType tma_type(int t)
{
    switch (t) {
    case SU_F64: return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
    case SU_F32: return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    case SU_F16: return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case SU_BF16: return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    case SU_I8: case SU_U8: return CU_TENSOR_MAP_DATA_TYPE_UINT8;
    case SU_I16: case SU_U16: return CU_TENSOR_MAP_DATA_TYPE_UINT16;
    case SU_I32: return CU_TENSOR_MAP_DATA_TYPE_INT32;
    case SU_U32: return CU_TENSOR_MAP_DATA_TYPE_UINT32;
    case SU_I64: return CU_TENSOR_MAP_DATA_TYPE_INT64;
    default: return CU_TENSOR_MAP_DATA_TYPE_UINT64;
    }
}

int uk_tensor_map_bind(op_instance *in, int i, const int *choice, char *err, size_t len)
{
    static encode_tiled_fn encode;
    const space *sp = in->uf->sp;
    const su_arg *a = &sp->user->args[i];
    const su_tensor_map *x = a->tensor_map;
    if (!encode) {
        void *fn = NULL;
        enum cudaDriverEntryPointQueryResult q;
        cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                                         cudaEnableDefault, &q);
        if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !fn) {
            cudaGetLastError();
            snprintf(err, len, "tensor map %s: the driver has no cuTensorMapEncodeTiled (%s)",
                     a->name, e != cudaSuccess ? cudaGetErrorString(e) : "not found");
            return -1;
        }
        encode = (encode_tiled_fn)fn;
    }
    uint64_t dims[5], strides[4];
    uint32_t box[5];
    if (space_user_tensor_map_geometry(sp, &in->bind, choice, a, dims, strides, box, NULL,
                                       err, len) != 0)
        return -1;   /* an unsupported box is never bound: space_user_fits kept it from running */
    int type = in->bufs[x->buffer].type;
    cuuint64_t gd[5], gs[4];
    cuuint32_t bd[5], es[5];
    for (int d = 0; d < x->rank; d++) {
        gd[d] = dims[d];
        bd[d] = box[d];
        es[d] = 1;
        if (d)
            gs[d - 1] = strides[d - 1];
    }
    CUtensorMap map;   /* 64-byte aligned, as the encoder wants it */
    memset(&map, 0, sizeof map);
    CUtensorMapSwizzle sw = x->swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                            : x->swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                            : x->swizzle == 128 ? CU_TENSOR_MAP_SWIZZLE_128B
                                                : CU_TENSOR_MAP_SWIZZLE_NONE;
    CUresult r = encode(&map, tma_type(type), (cuuint32_t)x->rank, in->bufs[x->buffer].dev, gd,
                        gs, bd, es, CU_TENSOR_MAP_INTERLEAVE_NONE, sw,
                        CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                        x->oob_nan ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                                   : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        snprintf(err, len, "tensor map %s over %s: cuTensorMapEncodeTiled refused it (CUresult "
                 "%d)", a->name, x->target, (int)r);
        return -1;
    }
    unsigned char *dst = uk_value_slot(in, a, &in->values[i], &in->value_cap[i], err, len);
    if (!dst)
        return -1;
    memcpy(dst, &map, sizeof map);
    return 0;
}
