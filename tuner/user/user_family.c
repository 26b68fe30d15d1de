/* user_family.c: the family of a user kernel (user_family.h). Parent side: problem sizes from
 * the space's buffers. Worker side: the buffers the space lists, allocated and filled on the GPU
 * (user_gpu.cu), the reference outputs computed once per problem (the kernel at a reference
 * config, another kernel, or files), the variant loaded from its cubin through the runtime's
 * library-management calls, checked against the kernel's own limits (threads per block its
 * registers allow, shared memory), launched with the config's geometry, and its outputs compared
 * with the reference's on the GPU. */
#include "user_family.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "ops/harness.h"
#include "ops/ops.h"
#include "space/space_user.h"
#include "user_gpu.h"

typedef struct user_family {
    op_family base;          /* first: the members get back here from self */
    const space *sp;
    int has_dev;
    device_info dev;
} user_family;

static const user_family *uf_of(const op_family *self)
{
    return (const user_family *)self;
}

/* ---- parent side ---- */

static int uf_check_problem(OP_SELF, const char *op, const char *dtype, const problem *p,
                            char *err, size_t len)
{
    (void)op, (void)dtype, (void)p, (void)err, (void)len;
    return 0;   /* a user kernel's problems are checked by space_user_check */
}

static space_binding parent_binding(const user_family *uf, const char *dtype, const problem *p)
{
    space_binding b = {uf->sp->ops[0], dtype ? dtype : uf->sp->dtypes[0], p,
                       uf->has_dev ? &uf->dev : NULL};
    return b;
}

static int64_t uf_bytes_moved(OP_SELF, const char *op, const char *dtype, const problem *p)
{
    (void)op;
    char err[512];
    const user_family *uf = uf_of(self);
    space_binding b = parent_binding(uf, dtype, p);
    int64_t v = space_user_bytes(uf->sp, &b, NULL, err, sizeof err);
    return v < 0 ? 0 : v;
}

static int64_t uf_flops(OP_SELF, const char *op, const char *dtype, const problem *p)
{
    (void)op;
    char err[512];
    const user_family *uf = uf_of(self);
    space_binding b = parent_binding(uf, dtype, p);
    int64_t v = space_user_flops(uf->sp, &b, err, sizeof err);
    return v < 0 ? 0 : v;
}

static int64_t uf_elements(OP_SELF, const problem *p)
{
    char err[512];
    const user_family *uf = uf_of(self);
    space_binding b = parent_binding(uf, NULL, p);
    int64_t v = space_user_elements(uf->sp, &b, NULL, err, sizeof err);
    return v < 0 ? 0 : v;
}

static int64_t uf_size_key(OP_SELF, const problem *p)
{
    return uf_elements(self, p);
}

static int uf_default_config(OP_SELF, const char *dtype, char *buf, size_t len)
{
    (void)dtype;
    const user_family *uf = uf_of(self);
    const space *sp = uf->sp;
    int zeros[256] = {0};
    if (sp->n_params > 256)
        return -1;
    const int *choice = sp->user->ref == SU_REF_CONFIG ? sp->user->ref_choice : zeros;
    int n = space_config_text(sp, choice, buf, len);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* ---- worker side ---- */

typedef struct ubuf {
    int type;                /* su_type, resolved for the dtype */
    void *dev;
    int64_t count;           /* elements the current variant uses */
    size_t cap;              /* bytes allocated */
    void *pristine;          /* an initialised output's initial contents (cap bytes) */
    void *ref;               /* an output's reference contents */
    int64_t ref_count;
    uint64_t seed;
} ubuf;

/* A loaded module and its kernel. */
typedef struct umod {
    char *path;
    cudaLibrary_t lib;
    cudaKernel_t fn;
    struct cudaFuncAttributes attr;
} umod;

struct op_instance {
    const user_family *uf;
    space_binding bind;
    problem problem;         /* the request's problem (the binding points here) */
    char *dtype, *op;
    uint64_t seed;
    double tol_scale;
    ubuf *bufs;              /* one per argument; scalars unused */
    void **params;           /* the launch's argument pointers */
    uint64_t *scalars;       /* scalars' storage, 8 bytes each */
    int *choice;             /* the bound variant's config */
    umod variant;
    su_launch launch;
    int bound;
    int ref_ready;
};

static void mod_unload(umod *m)
{
    if (m->lib)
        cudaLibraryUnload(m->lib);
    free(m->path);
    memset(m, 0, sizeof *m);
}

/* Reads the lowered (mangled) name the compiler wrote beside a cubin (<key>.meta). */
static int read_lowered(const char *cubin, char *name, size_t len, char *err, size_t elen)
{
    size_t n = strlen(cubin);
    char meta[4096];
    if (n < 6 || strcmp(cubin + n - 6, ".cubin") != 0 || n + 1 > sizeof meta) {
        snprintf(err, elen, "module %s: not a cubin from the compile cache", cubin);
        return -1;
    }
    snprintf(meta, sizeof meta, "%.*s.meta", (int)(n - 6), cubin);
    FILE *f = fopen(meta, "r");
    if (!f) {
        snprintf(err, elen, "module %s: %s", meta, strerror(errno));
        return -1;
    }
    char line[8192];
    int found = 0;
    while (!found && fgets(line, sizeof line, f))
        if (strncmp(line, "lowered ", 8) == 0) {
            line[strcspn(line, "\n")] = 0;
            snprintf(name, len, "%s", line + 8);
            found = 1;
        }
    fclose(f);
    if (!found)
        snprintf(err, elen, "module %s: no lowered name", meta);
    return found ? 0 : -1;
}

static int mod_load(umod *m, const char *path, char *err, size_t len)
{
    if (m->path && strcmp(m->path, path) == 0)
        return 0;
    mod_unload(m);
    char name[4096];
    if (read_lowered(path, name, sizeof name, err, len) != 0)
        return -1;
    cudaError_t e = cudaLibraryLoadFromFile(&m->lib, path, NULL, NULL, 0, NULL, NULL, 0);
    if (e == cudaSuccess)
        e = cudaLibraryGetKernel(&m->fn, m->lib, name);
    if (e == cudaSuccess)
        e = cudaFuncGetAttributes(&m->attr, (const void *)m->fn);
    if (e != cudaSuccess) {
        snprintf(err, len, "loading %s (%s): %s", path, name, cudaGetErrorString(e));
        cudaGetLastError();
        if (m->lib)
            cudaLibraryUnload(m->lib);
        memset(m, 0, sizeof *m);
        return -1;
    }
    if (!(m->path = strdup(path))) {
        snprintf(err, len, "out of host memory");
        mod_unload(m);
        return -1;
    }
    return 0;
}

static void uf_release(op_instance *in)
{
    if (!in)
        return;
    const space_user *u = in->uf->sp->user;
    for (int i = 0; in->bufs && i < u->n_args; i++) {
        cudaFree(in->bufs[i].dev);
        cudaFree(in->bufs[i].pristine);
        cudaFree(in->bufs[i].ref);
    }
    mod_unload(&in->variant);
    problem_clear(&in->problem);
    free(in->bufs);
    free(in->params);
    free(in->scalars);
    free(in->choice);
    free(in->dtype);
    free(in->op);
    free(in);
}

static int cuda_fail(cudaError_t e, const char *what, char *err, size_t len)
{
    snprintf(err, len, "%s: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
    return -1;
}

/* Replaces {field} and {dtype} in a file pattern by the problem's values. */
static int expand_pattern(const op_instance *in, const char *pattern, char *out, size_t len)
{
    size_t o = 0;
    for (const char *p = pattern; *p; p++) {
        const char *close = *p == '{' ? strchr(p, '}') : NULL;
        char text[128] = "";
        if (close && close - p - 1 < 64) {
            char name[64];
            memcpy(name, p + 1, (size_t)(close - p - 1));
            name[close - p - 1] = 0;
            const value *v = problem_get(&in->problem, name);
            if (strcmp(name, "dtype") == 0)
                snprintf(text, sizeof text, "%s", in->dtype);
            else if (v)
                value_format(*v, text, sizeof text);
            else
                close = NULL;
        }
        if (close) {
            o += (size_t)snprintf(out + o, o < len ? len - o : 0, "%s", text);
            p = close;
        } else if (o + 1 < len) {
            out[o++] = *p;
        }
        if (o >= len)
            return -1;
    }
    out[o < len ? o : len - 1] = 0;
    return 0;
}

/* Reads a raw file of exactly bytes bytes into device memory dev. */
static int upload_file(const op_instance *in, const char *pattern, void *dev, int64_t bytes,
                       const char *what, char *err, size_t len)
{
    char path[4096];
    if (expand_pattern(in, pattern, path, sizeof path) != 0) {
        snprintf(err, len, "%s: file name too long", what);
        return -1;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, len, "%s: %s: %s", what, path, strerror(errno));
        return -1;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (size != bytes) {
        fclose(f);
        snprintf(err, len, "%s: %s holds %ld bytes, the buffer %" PRId64, what, path, size,
                 bytes);
        return -1;
    }
    void *host = malloc((size_t)bytes ? (size_t)bytes : 1);
    size_t got = host ? fread(host, 1, (size_t)bytes, f) : 0;
    fclose(f);
    int rc = 0;
    if (!host || got != (size_t)bytes) {
        snprintf(err, len, "%s: cannot read %s", what, path);
        rc = -1;
    }
    else if (cudaMemcpy(dev, host, (size_t)bytes, cudaMemcpyHostToDevice) != cudaSuccess)
        rc = cuda_fail(cudaGetLastError(), "uploading a file", err, len);
    free(host);
    return rc;
}

/* Fills buffer i (count elements) with its initial contents. */
static int fill_buffer(op_instance *in, int i, char *err, size_t len)
{
    const su_arg *a = &in->uf->sp->user->args[i];
    ubuf *b = &in->bufs[i];
    size_t bytes = (size_t)b->count * su_type_size(b->type);
    cudaError_t e = cudaSuccess;
    switch (a->init) {
    case SU_INIT_NONE:
        return 0;
    case SU_INIT_ZEROS:
        e = cudaMemset(b->dev, 0, bytes);
        break;
    case SU_INIT_RANDOM:
        e = ug_fill(b->type, b->dev, b->count, UG_RANDOM, a->a, a->b, b->seed, 0);
        break;
    case SU_INIT_CONSTANT:
        e = ug_fill(b->type, b->dev, b->count, UG_CONSTANT, a->a, 0, b->seed, 0);
        break;
    case SU_INIT_ARANGE:
        e = ug_fill(b->type, b->dev, b->count, UG_ARANGE, a->a, a->b, b->seed, 0);
        break;
    case SU_INIT_FILE: {
        char what[160];
        snprintf(what, sizeof what, "buffer %s", a->name);
        if (upload_file(in, a->file, b->dev, (int64_t)bytes, what, err, len) != 0)
            return -1;
        break;
    }
    }
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    if (e != cudaSuccess)
        return cuda_fail(e, "filling a buffer", err, len);
    if (a->output && b->pristine &&
        (e = cudaMemcpy(b->pristine, b->dev, bytes, cudaMemcpyDeviceToDevice)) != cudaSuccess)
        return cuda_fail(e, "keeping an output's initial contents", err, len);
    return 0;
}

/* Sizes every buffer for config choice (NULL: the parameters' first values), growing and
 * refilling those that need more room. */
static int size_buffers(op_instance *in, const int *choice, char *err, size_t len)
{
    const space *sp = in->uf->sp;
    const space_user *u = sp->user;
    for (int i = 0; i < u->n_args; i++) {
        if (!u->args[i].is_buffer)
            continue;
        ubuf *b = &in->bufs[i];
        int64_t count, bytes;
        if (space_user_buffer_bytes(sp, &in->bind, choice, i, &count, &bytes, err, len) != 0)
            return -1;
        b->count = count;
        if ((size_t)bytes <= b->cap)
            continue;
        cudaFree(b->dev);
        cudaFree(b->pristine);
        b->dev = b->pristine = NULL;
        b->cap = 0;
        cudaError_t e = cudaMalloc(&b->dev, (size_t)bytes);
        if (e == cudaSuccess && u->args[i].output && u->args[i].init != SU_INIT_NONE)
            e = cudaMalloc(&b->pristine, (size_t)bytes);
        if (e != cudaSuccess) {
            char what[160];
            snprintf(what, sizeof what, "allocating buffer %s (%" PRId64 " bytes)",
                     u->args[i].name, bytes);
            return cuda_fail(e, what, err, len);
        }
        b->cap = (size_t)bytes;
        if (fill_buffer(in, i, err, len) != 0)
            return -1;
    }
    return 0;
}

/* The scalars' values for config choice. */
static int set_scalars(op_instance *in, const int *choice, char *err, size_t len)
{
    const space *sp = in->uf->sp;
    const space_user *u = sp->user;
    for (int i = 0; i < u->n_args; i++) {
        const su_arg *a = &u->args[i];
        if (a->is_buffer) {
            in->params[i] = &in->bufs[i].dev;
            continue;
        }
        value v;
        if (space_user_eval(sp, &in->bind, choice, &a->value, &v, err, len) != 0)
            return -1;
        double d = v.kind == VALUE_INT ? (double)v.i : v.f;
        int64_t i64 = v.kind == VALUE_INT ? v.i : (int64_t)v.f;
        void *slot = &in->scalars[i];
        switch (a->type) {
        case SU_F32: { float f = (float)d; memcpy(slot, &f, 4); break; }
        case SU_F64: memcpy(slot, &d, 8); break;
        case SU_I32: case SU_U32: { int32_t x = (int32_t)i64; memcpy(slot, &x, 4); break; }
        default: memcpy(slot, &i64, 8); break;
        }
        in->params[i] = slot;
    }
    return 0;
}

/* Poison the pure outputs, restore the initialised ones. */
static int prepare_outputs(op_instance *in, char *err, size_t len)
{
    const space_user *u = in->uf->sp->user;
    for (int i = 0; i < u->n_args; i++) {
        const su_arg *a = &u->args[i];
        ubuf *b = &in->bufs[i];
        if (!a->is_buffer || !a->output)
            continue;
        size_t bytes = (size_t)b->count * su_type_size(b->type);
        cudaError_t e = a->init == SU_INIT_NONE
                            ? ug_poison(b->type, b->dev, b->count, 0)
                            : cudaMemcpy(b->dev, b->pristine, bytes, cudaMemcpyDeviceToDevice);
        if (e == cudaSuccess)
            e = cudaDeviceSynchronize();
        if (e != cudaSuccess)
            return cuda_fail(e, "poisoning the outputs", err, len);
    }
    return 0;
}

/* Prepares a kernel's launch (dynamic shared memory above 48 KiB needs the kernel's consent). */
static cudaError_t allow_shared(const umod *m, int64_t shared)
{
    if (shared <= 48 * 1024)
        return cudaSuccess;
    return cudaFuncSetAttribute((const void *)m->fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)shared);
}

static cudaError_t launch_with(const umod *m, const su_launch *l, void **params,
                               cudaStream_t stream)
{
    dim3 grid = {(unsigned)l->grid[0], (unsigned)l->grid[1], (unsigned)l->grid[2]};
    dim3 block = {(unsigned)l->block[0], (unsigned)l->block[1], (unsigned)l->block[2]};
    return cudaLaunchKernel((const void *)m->fn, grid, block, params, (size_t)l->shared, stream);
}

/* Computes the reference outputs once per problem. -1 with err: the run must stop. */
static int compute_reference(op_instance *in, const char *ref_module, char *err, size_t len)
{
    const space *sp = in->uf->sp;
    const space_user *u = sp->user;
    char why[768];
    if (u->ref == SU_REF_FILE) {
        if (size_buffers(in, NULL, why, sizeof why) != 0)
            goto fail;
        for (int i = 0; i < u->n_args; i++) {
            ubuf *b = &in->bufs[i];
            if (!u->args[i].output)
                continue;
            int64_t bytes = b->count * (int64_t)su_type_size(b->type);
            cudaError_t e = cudaMalloc(&b->ref, (size_t)bytes);
            if (e != cudaSuccess) {
                cuda_fail(e, "allocating a reference", why, sizeof why);
                goto fail;
            }
            char what[160];
            snprintf(what, sizeof what, "reference of %s", u->args[i].name);
            if (upload_file(in, u->ref_files[i], b->ref, bytes, what, why, sizeof why) != 0)
                goto fail;
            b->ref_count = b->count;
        }
        in->ref_ready = 1;
        return 0;
    }
    if (!ref_module) {
        snprintf(why, sizeof why, "no compiled reference was given");
        goto fail;
    }
    const int *choice = u->ref == SU_REF_CONFIG ? u->ref_choice : NULL;
    const su_kernel *k = u->ref == SU_REF_CONFIG ? &u->kernel : &u->ref_kernel;
    umod m = {0};
    su_launch l;
    if (size_buffers(in, choice, why, sizeof why) != 0 ||
        set_scalars(in, choice, why, sizeof why) != 0 ||
        space_user_launch(sp, &in->bind, choice, k, &l, why, sizeof why) != 0 ||
        prepare_outputs(in, why, sizeof why) != 0 || mod_load(&m, ref_module, why, sizeof why))
        goto fail;
    cudaError_t e = allow_shared(&m, l.shared);
    if (e == cudaSuccess)
        e = launch_with(&m, &l, in->params, 0);
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    for (int i = 0; e == cudaSuccess && i < u->n_args; i++) {
        ubuf *b = &in->bufs[i];
        if (!u->args[i].output)
            continue;
        size_t bytes = (size_t)b->count * su_type_size(b->type);
        if ((e = cudaMalloc(&b->ref, bytes)) == cudaSuccess)
            e = cudaMemcpy(b->ref, b->dev, bytes, cudaMemcpyDeviceToDevice);
        b->ref_count = b->count;
    }
    mod_unload(&m);
    if (e != cudaSuccess) {
        cuda_fail(e, "running it", why, sizeof why);
        goto fail;
    }
    in->ref_ready = 1;
    return 0;
fail:
    if (u->ref == SU_REF_CONFIG) {
        char cfg[512];
        space_config_text(sp, u->ref_choice, cfg, sizeof cfg);
        snprintf(err, len, "%s:%d:%d: reference (config %s) for %s %s: %s", sp->path, u->ref_line,
                 u->ref_col, cfg, in->dtype, in->problem.text, why);
    } else {
        snprintf(err, len, "%s:%d:%d: reference for %s %s: %s", sp->path, u->ref_line,
                 u->ref_col, in->dtype, in->problem.text, why);
    }
    return -1;
}

static int uf_prepare(OP_SELF, const char *op, const char *dtype, const problem *p,
                      uint64_t seed, op_instance **out, char *err, size_t len)
{
    const user_family *uf = uf_of(self);
    const space_user *u = uf->sp->user;
    op_instance *in = calloc(1, sizeof *in);
    *out = NULL;
    if (!in || !(in->bufs = calloc((size_t)u->n_args, sizeof *in->bufs)) ||
        !(in->params = calloc((size_t)u->n_args, sizeof *in->params)) ||
        !(in->scalars = calloc((size_t)u->n_args, sizeof *in->scalars)) ||
        !(in->choice = calloc((size_t)uf->sp->n_params + 1, sizeof *in->choice)) ||
        !(in->dtype = strdup(dtype)) || !(in->op = strdup(op)) ||
        problem_parse(&in->problem, p->text) != 0) {
        if (in) {
            in->uf = uf;
            uf_release(in);
        }
        snprintf(err, len, "out of host memory");
        return -1;
    }
    in->uf = uf;
    in->seed = harness_seed(seed, op, dtype, p);
    in->tol_scale = 1;
    in->bind = (space_binding){in->op, in->dtype, &in->problem, uf->has_dev ? &uf->dev : NULL};
    for (int i = 0; i < u->n_args; i++) {
        in->bufs[i].type = u->args[i].type == SU_DTYPE ? su_type_parse(dtype) : u->args[i].type;
        in->bufs[i].seed = in->seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(i + 1));
    }
    if (size_buffers(in, NULL, err, len) != 0) {
        uf_release(in);
        return -1;
    }
    *out = in;
    return 0;
}

static void uf_set_tolerance_scale(op_instance *in, double scale)
{
    in->tol_scale = scale > 0 ? scale : 1;
}

static int uf_poison(op_instance *in, char *err, size_t len)
{
    return prepare_outputs(in, err, len);
}

static tk_status uf_bind_variant(op_instance *in, const char *config, const char *module,
                                 const char *ref_module, char *err, size_t len)
{
    const space *sp = in->uf->sp;
    in->bound = 0;
    if (!in->ref_ready && compute_reference(in, ref_module, err, len) != 0)
        return TK_ERR_CUDA;
    if (space_config_parse(sp, config, in->choice) != 0) {
        snprintf(err, len, "config %s is not in the space", config);
        return TK_ERR_INVALID_ARGUMENT;
    }
    if (size_buffers(in, in->choice, err, len) != 0 || set_scalars(in, in->choice, err, len) != 0 ||
        space_user_launch(sp, &in->bind, in->choice, &sp->user->kernel, &in->launch, err, len) != 0)
        return TK_ERR_INVALID_ARGUMENT;
    if (mod_load(&in->variant, module, err, len) != 0)
        return TK_ERR_LAUNCH;
    const struct cudaFuncAttributes *a = &in->variant.attr;
    int64_t threads = in->launch.block[0] * in->launch.block[1] * in->launch.block[2];
    if (threads > a->maxThreadsPerBlock) {
        snprintf(err, len, "a block of %" PRId64 " threads: the compiled kernel allows at most %d "
                 "(%d registers per thread)", threads, a->maxThreadsPerBlock, a->numRegs);
        return TK_ERR_UNSUPPORTED_CONFIG;
    }
    int64_t smem_max = in->uf->has_dev ? device_smem_per_block(in->uf->dev.cc_major,
                                                               in->uf->dev.cc_minor)
                                       : 48 * 1024;
    if ((int64_t)a->sharedSizeBytes + in->launch.shared > smem_max) {
        snprintf(err, len, "%zu bytes of static and %" PRId64 " of dynamic shared memory: a block "
                 "may have at most %" PRId64, a->sharedSizeBytes, in->launch.shared, smem_max);
        return TK_ERR_UNSUPPORTED_CONFIG;
    }
    cudaError_t e = allow_shared(&in->variant, in->launch.shared);
    if (e != cudaSuccess) {
        cudaGetLastError();
        snprintf(err, len, "%" PRId64 " bytes of dynamic shared memory refused: %s",
                 in->launch.shared, cudaGetErrorString(e));
        return TK_ERR_UNSUPPORTED_CONFIG;
    }
    in->bound = 1;
    return TK_OK;
}

static tk_status uf_launch(op_instance *in, const char *config, cudaStream_t stream, char *err,
                           size_t len)
{
    (void)config;
    if (!in->bound) {
        snprintf(err, len, "no variant is bound");
        return TK_ERR_INVALID_ARGUMENT;
    }
    cudaError_t e = launch_with(&in->variant, &in->launch, in->params, stream);
    if (e != cudaSuccess) {
        snprintf(err, len, "cudaLaunchKernel: %s: %s", cudaGetErrorName(e), cudaGetErrorString(e));
        return TK_ERR_LAUNCH;
    }
    return TK_OK;
}

static int uf_validate(op_instance *in, char *err, size_t len)
{
    const space_user *u = in->uf->sp->user;
    int bad_outputs = 0;
    size_t at = 0;
    err[0] = 0;
    for (int i = 0; i < u->n_args; i++) {
        const su_arg *a = &u->args[i];
        ubuf *b = &in->bufs[i];
        if (!a->is_buffer || !a->output)
            continue;
        if (b->count != b->ref_count) {
            at += (size_t)snprintf(err + at, at < len ? len - at : 0, "%s%s: %" PRId64
                                   " elements, the reference %" PRId64, bad_outputs ? "; " : "",
                                   a->name, b->count, b->ref_count);
            bad_outputs++;
            continue;
        }
        double atol, rtol;
        space_user_tolerance(a, in->dtype, &atol, &rtol);
        int64_t n_bad = 0, first[3];
        cudaError_t e = ug_compare(b->type, b->dev, b->ref, b->count, atol * in->tol_scale,
                                   rtol * in->tol_scale, &n_bad, first, 3, 0);
        if (e != cudaSuccess) {
            cuda_fail(e, "comparing the outputs", err, len);
            return -1;
        }
        if (n_bad == 0)
            continue;
        at += (size_t)snprintf(err + at, at < len ? len - at : 0,
                               "%s%s: %" PRId64 " of %" PRId64 " elements differ; first:",
                               bad_outputs ? "; " : "", a->name, n_bad, b->count);
        for (int k = 0; k < 3 && k < n_bad; k++) {
            double got = 0, want = 0;
            if (ug_element(b->type, b->dev, first[k], &got) != cudaSuccess ||
                ug_element(b->type, b->ref, first[k], &want) != cudaSuccess)
                return cuda_fail(cudaGetLastError(), "reading a mismatch", err, len);
            at += (size_t)snprintf(err + at, at < len ? len - at : 0,
                                   " [%" PRId64 "] got %.9g expected %.9g", first[k], got, want);
        }
        bad_outputs++;
    }
    return bad_outputs ? 1 : 0;
}

/* ---- the family and the loader ---- */

space *user_space_load(const char *path, const device_info *dev, char *err, size_t len)
{
    space *sp = space_load(path, err, len);
    if (!sp || !sp->user)
        return sp;
    user_family *uf = calloc(1, sizeof *uf);
    if (!uf) {
        snprintf(err, len, "%s: error: out of memory", path);
        space_free(sp);
        return NULL;
    }
    uf->sp = sp;
    if (dev) {
        uf->dev = *dev;
        uf->has_dev = 1;
    }
    op_family *f = &uf->base;
    f->kernel = sp->kernel;
    f->n_ops = 1;
    f->ops = (const char *const *)sp->ops;
    f->n_dtypes = sp->n_dtypes;
    f->dtypes = (const char *const *)sp->dtypes;
    f->n_fields = sp->n_fields;
    f->fields = sp->fields;
    f->config_space = NULL;
    f->check_problem = uf_check_problem;
    f->bytes_moved = uf_bytes_moved;
    f->flops = sp->user->has_flops ? uf_flops : NULL;
    f->elements = uf_elements;
    f->size_key = uf_size_key;
    f->default_config = uf_default_config;
    f->prepare = uf_prepare;
    f->set_tolerance_scale = uf_set_tolerance_scale;
    f->poison = uf_poison;
    f->launch = uf_launch;
    f->validate = uf_validate;
    f->release = uf_release;
    f->bind_variant = uf_bind_variant;
    sp->family = f;
    return sp;
}

void user_space_free(space *sp)
{
    if (sp && sp->user)
        free((user_family *)sp->family);
    space_free(sp);
}
