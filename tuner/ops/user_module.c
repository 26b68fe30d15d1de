/* user_module.c: the low-level helpers of a user kernel's worker side (user_module.h), below
 * the family (user_kernel.c) and its comparison plans (user_validate.c), which both use them: a
 * compiled module loaded from its cubin through the runtime's library-management calls (each
 * launch's kernel by the lowered name the module's metadata records, its attributes and launch
 * bounds, and the module variables the arguments fill) and unloaded, the text of a CUDA failure, and an
 * argument passed by value (a scalar of any element type, or a struct with its pointers) stored
 * as the kernel takes it, and the one launch (clusters and cooperative launches included) with
 * what it needs of the device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "core/cuda_launch.h"
#include "core/module_meta.h"
#include "tk_check.h"
#include "user_module.h"

int uk_cuda_fail(cudaError_t e, const char *what, char *err, size_t len)
{
    snprintf(err, len, "%s: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
    return -1;
}

void uk_mod_unload(umod *m)
{
    if (m->lib)
        cudaLibraryUnload(m->lib);
    free(m->path);
    free(m->var);
    free(m->var_bytes);
    memset(m, 0, sizeof *m);
}

int uk_mod_load(op_instance *in, umod *m, const char *path, const su_kernel *k,
                const int *choice, int with_vars, char *err, size_t len)
{
    if (m->path && strcmp(m->path, path) == 0)
        return 0;
    uk_mod_unload(m);
    const space *sp = in->uf->sp;
    const space_user *u = sp->user;
    module_meta mm;
    su_compile sc;
    memset(&sc, 0, sizeof sc);
    if (module_meta_read(path, &mm, err, len) != 0)
        return -1;
    if (k->n_launches > 16) {
        snprintf(err, len, "more than 16 launches");
        goto fail_meta;
    }
    if (space_user_compile(sp, &in->bind, choice, k, with_vars, &sc, err, len) != 0)
        goto fail_meta;
    cudaError_t e = cudaLibraryLoadFromFile(&m->lib, path, NULL, NULL, 0, NULL, NULL, 0);
    if (e != cudaSuccess) {
        snprintf(err, len, "loading %s: %s", path, cudaGetErrorString(e));
        goto fail;
    }
    m->n_launches = k->n_launches;
    for (int i = 0; i < k->n_launches; i++) {
        int ki = su_compile_kernel_index(sp, &in->bind, choice, k, &sc, i, err, len);
        if (ki < 0)
            goto fail;
        if (ki >= mm.n_kernels) {
            snprintf(err, len, "module %s records %d kernels, launch %d needs kernel %d", path,
                     mm.n_kernels, i, ki);
            goto fail;
        }
        m->max_threads[i] = mm.max_threads[ki];
        e = cudaLibraryGetKernel(&m->fn[i], m->lib, mm.lowered[ki]);
        if (e == cudaSuccess)
            e = cudaFuncGetAttributes(&m->attr[i], (const void *)m->fn[i]);
        if (e != cudaSuccess) {
            snprintf(err, len, "loading %s (%s): %s", path, mm.lowered[ki], cudaGetErrorString(e));
            goto fail;
        }
    }
    if (with_vars && u->n_symbols) {
        m->var = calloc((size_t)u->n_args, sizeof *m->var);
        m->var_bytes = calloc((size_t)u->n_args, sizeof *m->var_bytes);
        if (!m->var || !m->var_bytes) {
            snprintf(err, len, "out of host memory");
            goto fail;
        }
        for (int i = 0, s = 0; i < u->n_args; i++) {
            if (!u->args[i].symbol)
                continue;
            if (s >= mm.n_symbols) {
                snprintf(err, len, "module %s records no variable %s", path, u->args[i].symbol);
                goto fail;
            }
            e = cudaLibraryGetGlobal(&m->var[i], &m->var_bytes[i], m->lib, mm.symbols[s++]);
            if (e != cudaSuccess) {
                snprintf(err, len, "the variable %s of %s: %s", u->args[i].symbol, path,
                         cudaGetErrorString(e));
                goto fail;
            }
        }
    }
    if (!(m->path = strdup(path))) {
        snprintf(err, len, "out of host memory");
        goto fail;
    }
    su_compile_clear(&sc);
    module_meta_clear(&mm);
    return 0;
fail:
    cudaGetLastError();
    su_compile_clear(&sc);
    uk_mod_unload(m);
fail_meta:
    module_meta_clear(&mm);
    return -1;
}

/* Value v stored as element type t at dst. */
static void store_as(int t, const value *v, void *dst)
{
    double d = v->kind == VALUE_INT ? (double)v->i : v->f;
    int64_t i = v->kind == VALUE_INT ? v->i : (int64_t)v->f;
    switch (t) {
    case SU_F64: memcpy(dst, &d, 8); break;
    case SU_F32: { float f = (float)d; memcpy(dst, &f, 4); break; }
    case SU_F16: tk_host_from_double(TK_F16, &d, dst, 1); break;
    case SU_BF16: tk_host_from_double(TK_BF16, &d, dst, 1); break;
    case SU_I8: case SU_U8: { uint8_t x = (uint8_t)i; memcpy(dst, &x, 1); break; }
    case SU_I16: case SU_U16: { uint16_t x = (uint16_t)i; memcpy(dst, &x, 2); break; }
    case SU_I32: case SU_U32: { uint32_t x = (uint32_t)i; memcpy(dst, &x, 4); break; }
    default: memcpy(dst, &i, 8); break;
    }
}

typedef struct packing {
    op_instance *in;
    const int *choice;
    unsigned char *dst;
    char *err;
    size_t len;
} packing;

static int pack_leaf(void *ctx, const su_field *f, int element, int type, size_t offset)
{
    packing *p = ctx;
    if (f->kind == SU_FIELD_POINTER) {
        void *ptr = f->buffer >= 0 ? p->in->bufs[f->buffer].dev : NULL;
        memcpy(p->dst + offset, &ptr, sizeof ptr);
        return 0;
    }
    value v;
    if (space_user_eval(p->in->uf->sp, &p->in->bind, p->choice, &f->values[element], &v, p->err,
                        p->len) != 0)
        return -1;
    store_as(type, &v, p->dst + offset);
    return 0;
}

unsigned char *uk_value_slot(op_instance *in, const su_arg *a, unsigned char **slot,
                             size_t *cap, char *err, size_t len)
{
    size_t size;
    if (space_user_value_size(in->uf->sp, &in->bind, a, &size, err, len) != 0)
        return NULL;
    if (size < 8)
        size = 8;
    if (size > *cap) {
        unsigned char *p = realloc(*slot, size);
        if (!p) {
            snprintf(err, len, "out of host memory");
            return NULL;
        }
        *slot = p;
        *cap = size;
    }
    memset(*slot, 0, size);   /* a struct's padding too: the same bytes every time */
    return *slot;
}

int uk_value_store(op_instance *in, const su_arg *a, const int *choice, unsigned char **slot,
                   size_t *cap, char *err, size_t len)
{
    if (!uk_value_slot(in, a, slot, cap, err, len))
        return -1;
    size_t size;
    if (a->record) {
        packing p = {in, choice, *slot, err, len};
        size_t align;
        return su_struct_layout(a->record, su_type_parse(in->dtype), &size, &align, pack_leaf,
                                &p) == 0 ? 0 : -1;
    }
    return uk_scalar_store(in, a, choice, (uint64_t *)(void *)*slot, err, len);
}

int uk_scalar_store(op_instance *in, const su_arg *a, const int *choice, uint64_t *slot,
                    char *err, size_t len)
{
    value v;
    if (space_user_eval(in->uf->sp, &in->bind, choice, &a->value, &v, err, len) != 0)
        return -1;
    *slot = 0;
    store_as(a->type == SU_DTYPE ? su_type_parse(in->dtype) : a->type, &v, slot);
    return 0;
}

/* g's grid, block and cluster as dim3s. */
static void dims(const su_geometry *g, dim3 *grid, dim3 *block, dim3 *cluster)
{
    *grid = (dim3){(unsigned)g->grid[0], (unsigned)g->grid[1], (unsigned)g->grid[2]};
    *block = (dim3){(unsigned)g->block[0], (unsigned)g->block[1], (unsigned)g->block[2]};
    *cluster = (dim3){(unsigned)g->cluster[0], (unsigned)g->cluster[1], (unsigned)g->cluster[2]};
}

cudaError_t uk_launch(cudaKernel_t fn, const su_geometry *g, void **params, cudaStream_t stream)
{
    dim3 grid, block, cluster;
    dims(g, &grid, &block, &cluster);
    return cuda_launch((const void *)fn, grid, block, (size_t)g->shared, cluster, g->cooperative,
                       params, stream);
}

tk_status uk_launch_ready(cudaKernel_t fn, const su_geometry *g, char *why, size_t len)
{
    dim3 grid, block, cluster;
    dims(g, &grid, &block, &cluster);
    int r = cuda_launch_ready((const void *)fn, grid, block, (size_t)g->shared, cluster,
                              g->cooperative, why, len);
    return r == 0 ? TK_OK : r > 0 ? TK_ERR_UNSUPPORTED_CONFIG : TK_ERR_CUDA;
}
