/* user_kernel.c: the family of a user kernel (user_kernel.h). Parent side: problem sizes and
 * flops from the space. Worker side: the buffers the space lists, allocated and filled on the
 * GPU (user_gpu.cu), the variables of the module that some of them fill (constant memory:
 * filled again each time a module is bound, since each module has its own), the reference's
 * results computed once per problem (the kernel at a reference config, another kernel, or
 * files), the variant loaded from its cubin (user_module.c), each launch checked against its
 * kernel's own limits (threads per block its __launch_bounds__ or its registers allow, shared
 * memory), the launches run in order on one stream (a pipeline is timed as one), and the
 * outputs compared by their plans (user_validate.c). */
#include "user_kernel.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "core/module_meta.h"
#include "ops/harness.h"
#include "user_gpu.h"
#include "user_module.h"
#include "user_validate.h"

static const user_family *uf_of(const op_family *self)
{
    return (const user_family *)self;
}

/* ---- parent side ---- */

static int uf_check_problem(OP_SELF, const char *op, const char *dtype, const problem *p,
                            char *err, size_t len)
{
    (void)self, (void)op, (void)dtype, (void)p, (void)err, (void)len;
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

static void uf_release(op_instance *in)
{
    if (!in)
        return;
    const space_user *u = in->uf->sp->user;
    uk_plans_release(in);
    for (int i = 0; in->tex && i < u->n_args; i++)   /* before the buffers they read */
        uk_texture_release(&in->tex[i]);
    free(in->tex);
    for (int i = 0; in->bufs && i < u->n_args; i++) {
        if (!u->args[i].symbol)
            cudaFree(in->bufs[i].dev);
        cudaFree(in->bufs[i].pristine);
        cudaFree(in->bufs[i].ref);
    }
    uk_mod_unload(&in->variant);
    problem_clear(&in->problem);
    for (int l = 0; l < 16; l++)
        free(in->params[l]);
    free(in->bufs);
    for (int i = 0; in->values && i < u->n_args; i++)
        free(in->values[i]);
    free(in->values);
    free(in->value_cap);
    free(in->choice);
    free(in->dtype);
    free(in->op);
    free(in);
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
        rc = uk_cuda_fail(cudaGetLastError(), "uploading a file", err, len);
    free(host);
    return rc;
}

/* Fills buffer i (count elements) with its initial contents: an owned buffer in place (and its
 * pristine copy when it is an initialised output), a variable's contents in pristine. */
static int fill_buffer(op_instance *in, int i, char *err, size_t len)
{
    const su_arg *a = &in->uf->sp->user->args[i];
    ubuf *b = &in->bufs[i];
    void *to = a->symbol ? b->pristine : b->dev;
    size_t bytes = (size_t)b->count * su_type_size(b->type);
    cudaError_t e = cudaSuccess;
    double lo = a->a, hi = a->b;
    if (space_user_init_values(in->uf->sp, &in->bind, a, &lo, &hi, err, len) != 0)
        return -1;
    switch (a->init) {
    case SU_INIT_NONE:
        return 0;
    case SU_INIT_ZEROS:
        e = cudaMemset(to, 0, bytes);
        break;
    case SU_INIT_RANDOM:
        e = ug_fill(b->type, to, b->count, UG_RANDOM, lo, hi, b->seed, 0);
        break;
    case SU_INIT_CONSTANT:
        e = ug_fill(b->type, to, b->count, UG_CONSTANT, lo, 0, b->seed, 0);
        break;
    case SU_INIT_ARANGE:
        e = ug_fill(b->type, to, b->count, UG_ARANGE, lo, hi, b->seed, 0);
        break;
    case SU_INIT_FILE: {
        char what[160];
        snprintf(what, sizeof what, "buffer %s", a->name);
        if (upload_file(in, a->file, to, (int64_t)bytes, what, err, len) != 0)
            return -1;
        break;
    }
    }
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    if (e != cudaSuccess)
        return uk_cuda_fail(e, "filling a buffer", err, len);
    b->fills++;
    if (a->output && !a->symbol && b->pristine &&
        (e = cudaMemcpy(b->pristine, b->dev, bytes, cudaMemcpyDeviceToDevice)) != cudaSuccess)
        return uk_cuda_fail(e, "keeping an output's initial contents", err, len);
    return 0;
}

/* Sizes every buffer for config choice (NULL: the parameters' first values), growing and
 * refilling those that need more room. */
static int size_buffers(op_instance *in, const int *choice, char *err, size_t len)
{
    const space *sp = in->uf->sp;
    const space_user *u = sp->user;
    for (int i = 0; i < u->n_args; i++) {
        const su_arg *a = &u->args[i];
        if (!a->is_buffer)
            continue;
        ubuf *b = &in->bufs[i];
        int64_t count, bytes;
        if (space_user_buffer_bytes(sp, &in->bind, choice, i, &count, &bytes, err, len) != 0)
            return -1;
        b->count = count;
        if ((size_t)bytes <= b->cap)
            continue;
        if (!a->symbol)
            cudaFree(b->dev);
        cudaFree(b->pristine);
        if (!a->symbol)
            b->dev = NULL;
        b->pristine = NULL;
        b->cap = 0;
        cudaError_t e = cudaSuccess;
        if (!a->symbol)
            e = cudaMalloc(&b->dev, (size_t)bytes);
        if (e == cudaSuccess && a->init != SU_INIT_NONE && (a->output || a->symbol))
            e = cudaMalloc(&b->pristine, (size_t)bytes);
        if (e != cudaSuccess) {
            char what[160];
            snprintf(what, sizeof what, "allocating buffer %s (%" PRId64 " bytes)", a->name, bytes);
            return uk_cuda_fail(e, what, err, len);
        }
        b->cap = (size_t)bytes;
        if (fill_buffer(in, i, err, len) != 0)
            return -1;
    }
    return 0;
}

/* The values passed by value (scalars, structs with their buffers' addresses) for config
 * choice, and each launch's argument pointers. Again after a buffer moves. */
static int set_scalars(op_instance *in, const su_kernel *k, const int *choice, char *err,
                       size_t len)
{
    const space *sp = in->uf->sp;
    const space_user *u = sp->user;
    for (int i = 0; i < u->n_args; i++) {
        const su_arg *a = &u->args[i];
        if (a->is_buffer)
            continue;
        if (a->texture      ? uk_texture_bind(in, i, choice, err, len)
            : a->tensor_map ? uk_tensor_map_bind(in, i, choice, err, len)
                            : uk_value_store(in, a, choice, &in->values[i], &in->value_cap[i],
                                             err, len))
            return -1;
    }
    for (int l = 0; l < k->n_launches; l++) {
        const su_launch_spec *ls = &k->launches[l];
        for (int j = 0; j < ls->n_args; j++) {
            int i = ls->args[j];
            in->params[l][j] = u->args[i].is_buffer ? (void *)&in->bufs[i].dev
                                                    : (void *)in->values[i];
        }
    }
    return 0;
}

/* Each launch's geometry for config choice. */
static int set_geometry(op_instance *in, const su_kernel *k, const int *choice, char *err,
                        size_t len)
{
    for (int l = 0; l < k->n_launches; l++)
        if (space_user_geometry(in->uf->sp, &in->bind, choice, &k->launches[l],
                                &in->geometry[l], err, len) != 0)
            return -1;
    return 0;
}

/* Points the variables' buffers at module m's variables (checking each is large enough) and
 * fills the inputs among them from their contents. */
static int bind_vars(op_instance *in, const umod *m, char *err, size_t len)
{
    const space_user *u = in->uf->sp->user;
    for (int i = 0; i < u->n_args; i++) {
        const su_arg *a = &u->args[i];
        ubuf *b = &in->bufs[i];
        if (!a->symbol)
            continue;
        size_t bytes = (size_t)b->count * su_type_size(b->type);
        if (!m->var || !m->var[i]) {
            snprintf(err, len, "kernel.args %s: the module has no variable %s", a->name,
                     a->symbol);
            return -1;
        }
        if (bytes > m->var_bytes[i]) {
            snprintf(err, len, "kernel.args %s: %" PRId64 " elements (%zu bytes), but the "
                     "variable %s holds %zu bytes", a->name, b->count, bytes, a->symbol,
                     m->var_bytes[i]);
            return -1;
        }
        b->dev = m->var[i];
    }
    return 0;
}

/* Before a validating launch: poison the pure outputs, restore the initialised ones and the
 * variables' contents (a kernel may change a __device__ variable); vars_only: the variables
 * alone (a module was bound). */
static int prepare_outputs(op_instance *in, int vars_only, char *err, size_t len)
{
    const space_user *u = in->uf->sp->user;
    for (int i = 0; i < u->n_args; i++) {
        const su_arg *a = &u->args[i];
        ubuf *b = &in->bufs[i];
        if (!a->is_buffer || (!a->output && !a->symbol) || !b->dev || (vars_only && !a->symbol))
            continue;
        size_t bytes = (size_t)b->count * su_type_size(b->type);
        /* an output compared by its max or min is poisoned so that an unwritten element moves
         * it (NaN for floats; the type's extreme for integers) */
        int extreme = a->output && a->compare == SU_CMP_REDUCE && a->reduce != SU_REDUCE_SUM;
        cudaError_t e = a->init != SU_INIT_NONE
                            ? cudaMemcpy(b->dev, b->pristine, bytes, cudaMemcpyDeviceToDevice)
                        : extreme ? ug_poison_extreme(b->type, b->dev, b->count,
                                                      a->reduce == SU_REDUCE_MAX, 0)
                                  : ug_poison(b->type, b->dev, b->count, 0);
        if (e == cudaSuccess)
            e = cudaDeviceSynchronize();
        if (e != cudaSuccess)
            return uk_cuda_fail(e, "preparing the outputs", err, len);
    }
    return 0;
}



/* Every launch of the module in order on stream. */
static cudaError_t launch_all(op_instance *in, const umod *m, cudaStream_t stream)
{
    cudaError_t e = cudaSuccess;
    for (int l = 0; l < m->n_launches && e == cudaSuccess; l++)
        e = uk_launch(m->fn[l], &in->geometry[l], in->params[l], stream);
    return e;
}

/* Computes the reference's results once per problem. -1 with err: the run must stop. */
static int compute_reference(op_instance *in, const char *ref_module, const char *checks,
                             char *err, size_t len)
{
    const space *sp = in->uf->sp;
    const space_user *u = sp->user;
    char why[768];
    const int *choice = u->ref == SU_REF_CONFIG ? u->ref_choice : NULL;
    if (u->ref == SU_REF_FILE) {
        if (size_buffers(in, NULL, why, sizeof why) != 0 ||
            set_scalars(in, &u->kernel, NULL, why, sizeof why) != 0)
            goto fail;
        for (int i = 0; i < u->n_args; i++) {
            ubuf *b = &in->bufs[i];
            const su_arg *a = &u->args[i];
            if (!a->output)
                continue;
            if (a->symbol) {
                snprintf(why, sizeof why, "kernel.args %s fills a variable: its reference must "
                         "come from a kernel, not a file", a->name);
                goto fail;
            }
            char what[160];
            snprintf(what, sizeof what, "reference of %s", a->name);
            if (upload_file(in, u->ref_files[i], b->dev, b->count * (int64_t)su_type_size(b->type),
                            what, why, sizeof why) != 0)
                goto fail;
        }
        if (uk_plans_reference(in, NULL, checks, why, sizeof why) != 0)
            goto fail;
        in->ref_ready = 1;
        return 0;
    }
    if (!ref_module) {
        snprintf(why, sizeof why, "no compiled reference was given");
        goto fail;
    }
    const su_kernel *k = u->ref == SU_REF_CONFIG ? &u->kernel : &u->ref_kernel;
    umod m;
    memset(&m, 0, sizeof m);
    if (size_buffers(in, choice, why, sizeof why) != 0 ||
        set_scalars(in, k, choice, why, sizeof why) != 0 ||
        set_geometry(in, k, choice, why, sizeof why) != 0 ||
        uk_mod_load(in, &m, ref_module, k, choice, 1, why, sizeof why) != 0)
        goto fail;
    cudaError_t e = cudaSuccess;
    if (bind_vars(in, &m, why, sizeof why) != 0 || prepare_outputs(in, 0, why, sizeof why) != 0) {
        uk_mod_unload(&m);
        goto fail;
    }
    /* the reference must be able to run here, as a variant must */
    for (int l = 0; l < m.n_launches; l++)
        if (uk_launch_ready(m.fn[l], &in->geometry[l], why, sizeof why) != TK_OK) {
            uk_mod_unload(&m);
            goto fail;
        }
    e = launch_all(in, &m, 0);
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        uk_cuda_fail(e, "running it", why, sizeof why);
        uk_mod_unload(&m);
        goto fail;
    }
    int rc = uk_plans_reference(in, choice, checks, why, sizeof why);
    uk_mod_unload(&m);   /* the variables' buffers pointed into it */
    for (int i = 0; i < u->n_args; i++)
        if (u->args[i].symbol)
            in->bufs[i].dev = NULL;
    if (rc != 0)
        goto fail;
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
    int ok = in && (in->bufs = calloc((size_t)u->n_args, sizeof *in->bufs)) &&
             (in->values = calloc((size_t)u->n_args, sizeof *in->values)) &&
             (in->value_cap = calloc((size_t)u->n_args, sizeof *in->value_cap)) &&
             (in->tex = calloc((size_t)u->n_args, sizeof *in->tex)) &&
             (in->choice = calloc((size_t)uf->sp->n_params + 1, sizeof *in->choice)) &&
             (in->dtype = strdup(dtype)) && (in->op = strdup(op)) &&
             problem_parse(&in->problem, p->text) == 0;
    for (int l = 0; ok && l < u->kernel.n_launches; l++)
        ok = (in->params[l] = calloc((size_t)u->kernel.launches[l].n_args + 1,
                                     sizeof *in->params[l])) != NULL;
    if (!ok) {
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
    return prepare_outputs(in, 0, err, len);
}

static tk_status uf_bind_variant(op_instance *in, const char *config, const char *module,
                                 const char *ref_module, const char *checks, char *err,
                                 size_t len)
{
    const space *sp = in->uf->sp;
    const su_kernel *k = &sp->user->kernel;
    in->bound = 0;
    if (sp->user->ref != SU_REF_NONE && !in->ref_ready &&
        compute_reference(in, ref_module, checks, err, len) != 0)
        return TK_ERR_CUDA;
    if (space_config_parse(sp, config, in->choice) != 0) {
        snprintf(err, len, "config %s is not in the space", config);
        return TK_ERR_INVALID_ARGUMENT;
    }
    if (size_buffers(in, in->choice, err, len) != 0 ||
        set_scalars(in, k, in->choice, err, len) != 0 ||
        set_geometry(in, k, in->choice, err, len) != 0)
        return TK_ERR_INVALID_ARGUMENT;
    if (!module) {
        snprintf(err, len, "no compiled variant was given");
        return TK_ERR_LAUNCH;
    }
    if (uk_mod_load(in, &in->variant, module, k, in->choice, 1, err, len) != 0)
        return TK_ERR_LAUNCH;
    if (bind_vars(in, &in->variant, err, len) != 0)
        return TK_ERR_CUDA;   /* a variable smaller than its argument: the space must change */
    int64_t smem_max = in->uf->has_dev ? device_smem_per_block(in->uf->dev.cc_major,
                                                               in->uf->dev.cc_minor)
                                       : 48 * 1024;
    for (int l = 0; l < k->n_launches; l++) {
        const struct cudaFuncAttributes *a = &in->variant.attr[l];
        const su_geometry *g = &in->geometry[l];
        char who[160] = "";
        if (k->n_launches > 1)
            snprintf(who, sizeof who, "launch %d (%s): ", l, k->launches[l].function);
        int64_t threads = g->block[0] * g->block[1] * g->block[2];
        if (threads > a->maxThreadsPerBlock) {
            /* the kernel's __launch_bounds__ where they are the limit (the parent records such
             * a variant unsupported before it gets here), else its registers */
            char bounds[300];
            if (module_meta_beyond_bounds(in->variant.max_threads[l], k->launches[l].function,
                                          threads, bounds, sizeof bounds))
                snprintf(err, len, "%s%s", who, bounds);
            else
                snprintf(err, len, "%sa block of %" PRId64 " threads: the compiled kernel "
                         "allows at most %d (%d registers per thread)", who, threads,
                         a->maxThreadsPerBlock, a->numRegs);
            return TK_ERR_UNSUPPORTED_CONFIG;
        }
        if ((int64_t)a->sharedSizeBytes + g->shared > smem_max) {
            snprintf(err, len, "%s%zu bytes of static and %" PRId64 " of dynamic shared memory: "
                     "a block may have at most %" PRId64, who, a->sharedSizeBytes, g->shared,
                     smem_max);
            return TK_ERR_UNSUPPORTED_CONFIG;
        }
        char why[400];
        tk_status st = uk_launch_ready(in->variant.fn[l], g, why, sizeof why);
        if (st != TK_OK) {
            snprintf(err, len, "%s%s", who, why);
            return st;
        }
    }
    /* the variables' contents: the module is new (or the last validation changed them) */
    if (prepare_outputs(in, 1, err, len) != 0)
        return TK_ERR_CUDA;
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
    cudaError_t e = launch_all(in, &in->variant, stream);
    if (e != cudaSuccess) {
        snprintf(err, len, "cudaLaunchKernel: %s: %s", cudaGetErrorName(e), cudaGetErrorString(e));
        return TK_ERR_LAUNCH;
    }
    return TK_OK;
}

static int uf_validate(op_instance *in, char *err, size_t len)
{
    if (!in->ref_ready) {
        snprintf(err, len, "validation needs a reference: (the space has none)");
        return -1;
    }
    return uk_plans_validate(in, err, len);
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
