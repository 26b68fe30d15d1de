/* space_user_eval.c: evaluating a user kernel's expressions for a binding and a config
 * (space_user.h): counts, scalars, each launch's geometry and its device limits, the
 * compile options and name expressions of a variant, the bytes, elements and flops of a
 * problem, the bytes an argument takes by value, and the tolerance an output is compared with
 * for a dtype. Whether a config fits the device (space_user_fits) and the checks once the device
 * is known are space_user_check.c's. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "build/compile_form.h"
#include "core/device.h"
#include "space_user_internal.h"

int space_user_eval(const space *sp, const space_binding *b, const int *choice, const su_expr *x,
                    value *out, char *err, size_t len)
{
    value local[64];
    int n = space_slot_count(sp);
    value *slots = n <= 64 ? local : malloc((size_t)n * sizeof *slots);
    if (!slots) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    for (int p = 0; p < sp->n_params; p++)
        slots[p] = sp->params[p].values[choice ? choice[p] : 0];
    space_fill_fixed_slots(sp, b, slots);
    expr_error e;
    int rc = expr_eval(x->e, slots, out, &e);
    if (rc != 0)
        space_errorf(err, len, sp->path, x->line, x->col + e.offset, "%s", e.message);
    if (slots != local)
        free(slots);
    return rc;
}

int space_user_eval_int(const space *sp, const space_binding *b, const int *choice,
                        const su_expr *x, int64_t lo, int64_t hi, const char *what, int64_t *out,
                        char *err, size_t len)
{
    value v;
    if (space_user_eval(sp, b, choice, x, &v, err, len) != 0)
        return -1;
    if (v.kind != VALUE_INT) {
        space_errorf(err, len, sp->path, x->line, x->col, "%s: '%s' gives %s, not an integer",
                     what, x->text, v.kind == VALUE_FLOAT ? "a float" : "a string");
        return -1;
    }
    if (v.i < lo || v.i > hi) {
        char where[512] = "", cfg[400] = "";
        if (choice)
            space_config_text(sp, choice, cfg, sizeof cfg);
        if (b->problem)
            snprintf(where, sizeof where, " (%s %s%s%s)", b->dtype ? b->dtype : "",
                     b->problem->text, choice ? ", config " : "", cfg);
        space_errorf(err, len, sp->path, x->line, x->col,
                     "%s: '%s' is %" PRId64 ", %s %" PRId64 "%s", what, x->text, v.i,
                     v.i < lo ? "below the least allowed," : "above the most allowed,",
                     v.i < lo ? lo : hi, where);
        return -1;
    }
    *out = v.i;
    return 0;
}

/* ---- geometry ---- */

int space_user_geometry(const space *sp, const space_binding *b, const int *choice,
                        const su_launch_spec *l, su_geometry *out, char *err, size_t len)
{
    static const char *const axis[] = {"x", "y", "z"};
    char what[64];
    for (int i = 0; i < 3; i++) {
        out->grid[i] = out->block[i] = 1;
        if (i < l->grid_dims) {
            snprintf(what, sizeof what, "grid.%s", axis[i]);
            if (space_user_eval_int(sp, b, choice, &l->grid[i], 1, INT64_MAX, what,
                                    &out->grid[i], err, len) != 0)
                return -1;
        }
        if (i < l->block_dims) {
            snprintf(what, sizeof what, "block.%s", axis[i]);
            if (space_user_eval_int(sp, b, choice, &l->block[i], 1, INT64_MAX, what,
                                    &out->block[i], err, len) != 0)
                return -1;
        }
    }
    out->shared = 0;
    if (l->has_shared &&
        space_user_eval_int(sp, b, choice, &l->shared, 0, INT64_MAX, "shared_bytes",
                            &out->shared, err, len) != 0)
        return -1;
    for (int i = 0; i < 3; i++) {
        out->cluster[i] = l->cluster_dims ? 1 : 0;
        if (i < l->cluster_dims) {
            snprintf(what, sizeof what, "cluster.%s", axis[i]);
            if (space_user_eval_int(sp, b, choice, &l->cluster[i], 1, INT64_MAX, what,
                                    &out->cluster[i], err, len) != 0)
                return -1;
        }
    }
    out->cooperative = l->cooperative;
    return 0;
}

int su_geometry_fits(const su_geometry *g, const device_info *dev, char *why, size_t len)
{
    return su_geometry_fits_at(g, dev, NULL, why, len);
}

int su_geometry_fits_at(const su_geometry *g, const device_info *dev, int *what, char *why,
                        size_t len)
{
    int ignored;
    if (!what)
        what = &ignored;
    static const char *const axis[] = {"x", "y", "z"};
    /* the limits of every GPU since compute capability 3.0 */
    static const int64_t grid_max[] = {2147483647, 65535, 65535};
    static const int64_t block_max[] = {1024, 1024, 64};
    for (int i = 0; i < 3; i++) {
        if (g->block[i] > block_max[i]) {
            *what = SU_LIMIT_BLOCK + i;
            snprintf(why, len, "block.%s is %" PRId64 ": a block may be at most %" PRId64
                     " threads along %s", axis[i], g->block[i], block_max[i], axis[i]);
            return 0;
        }
        if (g->grid[i] > grid_max[i]) {
            *what = SU_LIMIT_GRID + i;
            snprintf(why, len, "grid.%s is %" PRId64 ": a grid may be at most %" PRId64
                     " blocks along %s", axis[i], g->grid[i], grid_max[i], axis[i]);
            return 0;
        }
    }
    int64_t threads = g->block[0] * g->block[1] * g->block[2];
    int64_t max_threads = dev && dev->max_threads_per_block > 0 ? dev->max_threads_per_block
                                                                : 1024;
    if (threads > max_threads) {
        *what = SU_LIMIT_BLOCK;
        snprintf(why, len, "a block of %" PRId64 " x %" PRId64 " x %" PRId64 " = %" PRId64
                 " threads: the device allows %" PRId64, g->block[0], g->block[1], g->block[2],
                 threads, max_threads);
        return 0;
    }
    int64_t smem_max = dev ? device_smem_per_block(dev->cc_major, dev->cc_minor) : 48 * 1024;
    if (g->shared > smem_max) {
        *what = SU_LIMIT_SHARED;
        snprintf(why, len, "%" PRId64 " bytes of dynamic shared memory: a block may have at most "
                 "%" PRId64 " on the device", g->shared, smem_max);
        return 0;
    }
    if (!g->cluster[0])
        return 1;
    int at = device_cluster_check(dev ? dev->cc_major : -1, dev ? dev->cc_minor : 0, g->grid,
                                  g->cluster, why, len);
    if (at < 0)
        return 1;
    *what = SU_LIMIT_CLUSTER + (at < 3 ? at : 0);
    return 0;
}

const su_expr *su_limit_expr(const su_launch_spec *l, int what)
{
    if (what >= SU_LIMIT_GRID && what < SU_LIMIT_GRID + l->grid_dims)
        return &l->grid[what - SU_LIMIT_GRID];
    if (what >= SU_LIMIT_BLOCK && what < SU_LIMIT_BLOCK + l->block_dims)
        return &l->block[what - SU_LIMIT_BLOCK];
    if (what == SU_LIMIT_SHARED && l->has_shared)
        return &l->shared;
    if (what >= SU_LIMIT_CLUSTER && what < SU_LIMIT_CLUSTER + l->cluster_dims)
        return &l->cluster[what - SU_LIMIT_CLUSTER];
    return &l->block[0];
}

/* ---- compiling ---- */

void su_compile_clear(su_compile *c)
{
    for (int i = 0; i < c->n_options; i++)
        free(c->options[i]);
    free(c->options);
    for (int i = 0; i < c->n_kernels; i++)
        free(c->kernels[i]);
    free(c->kernels);
    for (int i = 0; i < c->n_symbols; i++)
        free(c->symbols[i]);
    free(c->symbols);
    memset(c, 0, sizeof *c);
}

/* The space's side of compile_form.h: the expressions evaluated for a binding and a config. */
typedef struct {
    const space *sp;
    const space_binding *b;
    const int *choice;
    const su_kernel *k;
} form_ctx;

static int form_holds(void *ctx, int i, int *holds, char *err, size_t len)
{
    const form_ctx *f = ctx;
    int64_t v = 1;
    if (f->k->define_conds && f->k->define_conds[i].text &&
        space_user_eval_int(f->sp, f->b, f->choice, &f->k->define_conds[i], INT64_MIN, INT64_MAX,
                            "a define's condition", &v, err, len) != 0)
        return -1;
    *holds = v != 0;
    return 0;
}

static int form_text(const form_ctx *f, const su_expr *x, char *text, size_t cap, char *err,
                     size_t len)
{
    value v;
    if (space_user_eval(f->sp, f->b, f->choice, x, &v, err, len) != 0)
        return -1;
    value_format(v, text, cap);
    return 0;
}

static int form_value(void *ctx, int i, int *has, char *text, size_t cap, char *err, size_t len)
{
    const form_ctx *f = ctx;
    *has = f->k->define_values[i].text != NULL;
    return *has ? form_text(f, &f->k->define_values[i], text, cap, err, len) : 0;
}

static const char *form_function(void *ctx, int step)
{
    return ((const form_ctx *)ctx)->k->launches[step].function;
}

static int form_n_template(void *ctx, int step)
{
    return ((const form_ctx *)ctx)->k->launches[step].n_template;
}

static int form_targ(void *ctx, int step, int j, char *text, size_t cap, char *err, size_t len)
{
    const form_ctx *f = ctx;
    return form_text(f, &f->k->launches[step].templ[j], text, cap, err, len);
}

static cf_source form_source(form_ctx *f)
{
    const su_kernel *k = f->k;
    return (cf_source){
        .ctx = f, .source_dir = k->source_dir,
        .n_include_dirs = k->n_include_dirs, .include_dirs = (const char *const *)k->include_dirs,
        .n_defines = k->n_defines, .define_names = (const char *const *)k->define_names,
        .define_holds = form_holds, .define_value = form_value,
        .n_options = k->n_options, .options = (const char *const *)k->options,
        .n_steps = k->n_launches, .step_function = form_function,
        .step_n_template = form_n_template, .template_arg = form_targ};
}

int space_user_compile(const space *sp, const space_binding *b, const int *choice,
                       const su_kernel *k, int with_symbols, su_compile *out, char *err,
                       size_t len)
{
    memset(out, 0, sizeof *out);
    form_ctx f = {sp, b, choice, k};
    cf_source src = form_source(&f);
    cf_lists l;
    if (compile_form(&src, &l, err, len) != 0)
        return -1;
    out->n_options = l.n_options, out->options = l.options;
    out->n_kernels = l.n_kernels, out->kernels = l.kernels;
    free(l.step_kernel);
    for (int i = 0; with_symbols && i < sp->user->n_args; i++) {
        const char *sym = sp->user->args[i].symbol;
        if (!sym)
            continue;
        char **p = realloc(out->symbols, (size_t)(out->n_symbols + 1) * sizeof *p);
        if (!p || !(p[out->n_symbols] = strdup(sym))) {
            if (p)
                out->symbols = p;
            snprintf(err, len, "out of memory");
            su_compile_clear(out);
            return -1;
        }
        out->symbols = p;
        out->n_symbols++;
    }
    return 0;
}

int su_compile_kernel_index(const space *sp, const space_binding *b, const int *choice,
                            const su_kernel *k, const su_compile *c, int launch, char *err,
                            size_t len)
{
    form_ctx f = {sp, b, choice, k};
    cf_source src = form_source(&f);
    char *name = compile_form_name(&src, launch, err, len);
    if (!name)
        return -1;
    int at = -1;
    for (int j = 0; j < c->n_kernels && at < 0; j++)
        if (strcmp(c->kernels[j], name) == 0)
            at = j;
    free(name);
    if (at < 0)
        snprintf(err, len, "launch %d is not among the compiled kernels", launch);
    return at;
}

/* ---- sizes ---- */

int su_arg_type(const su_arg *a, const space_binding *b)
{
    return a->type == SU_DTYPE ? su_type_parse(b->dtype) : a->type;
}

int space_user_arg_bytes(const space *sp, const space_binding *b, const int *choice,
                         const su_arg *a, int64_t *count, int64_t *bytes, char *err, size_t len)
{
    char what[160];
    snprintf(what, sizeof what, "kernel.args %s.count", a->name);
    int64_t size = (int64_t)su_type_size(su_arg_type(a, b));
    if (space_user_eval_int(sp, b, choice, &a->count, 1, INT64_MAX / (size ? size : 1), what,
                            count, err, len) != 0)
        return -1;
    *bytes = *count * size;
    return 0;
}

int space_user_buffer_bytes(const space *sp, const space_binding *b, const int *choice, int arg,
                            int64_t *count, int64_t *bytes, char *err, size_t len)
{
    return space_user_arg_bytes(sp, b, choice, &sp->user->args[arg], count, bytes, err, len);
}

int64_t space_user_bytes(const space *sp, const space_binding *b, const int *choice, char *err,
                         size_t len)
{
    const space_user *u = sp->user;
    if (u->has_bytes) {
        int64_t v;
        return space_user_eval_int(sp, b, choice, &u->bytes, 0, INT64_MAX, "kernel.bytes", &v,
                                   err, len) == 0 ? v : -1;
    }
    int64_t total = 0;
    for (int i = 0; i < u->n_args; i++) {
        const su_arg *a = &u->args[i];
        int64_t count, bytes;
        if (!a->is_buffer)
            continue;
        if (space_user_buffer_bytes(sp, b, choice, i, &count, &bytes, err, len) != 0)
            return -1;
        int times = a->output && a->init != SU_INIT_NONE ? 2 : 1;
        if (__builtin_mul_overflow(bytes, times, &bytes) ||
            __builtin_add_overflow(total, bytes, &total)) {
            space_errorf(err, len, sp->path, a->count.line, a->count.col,
                         "kernel.args %s.count: the buffers' bytes overflow", a->name);
            return -1;
        }
    }
    return total;
}

int64_t space_user_elements(const space *sp, const space_binding *b, const int *choice, char *err,
                            size_t len)
{
    const space_user *u = sp->user;
    int64_t v;
    if (u->has_elements)
        return space_user_eval_int(sp, b, choice, &u->elements, 0, INT64_MAX, "kernel.elements",
                                   &v, err, len) == 0 ? v : -1;
    for (int i = 0; i < u->n_args; i++)
        if (u->args[i].is_buffer && u->args[i].output) {
            int64_t bytes;
            return space_user_buffer_bytes(sp, b, choice, i, &v, &bytes, err, len) == 0 ? v : -1;
        }
    return 0;
}

int64_t space_user_flops(const space *sp, const space_binding *b, char *err, size_t len)
{
    const space_user *u = sp->user;
    int64_t v;
    if (!u->has_flops)
        return 0;
    return space_user_eval_int(sp, b, NULL, &u->flops, 0, INT64_MAX, "kernel.flops", &v, err,
                               len) == 0 ? v : -1;
}

int space_user_value_size(const space *sp, const space_binding *b, const su_arg *a,
                          size_t *size, char *err, size_t len)
{
    int dt = b && b->dtype ? su_type_parse(b->dtype) : -1;
    if (a->is_buffer || a->texture) {   /* a pointer, a cudaTextureObject_t */
        *size = 8;
        return 0;
    }
    if (a->tensor_map) {                /* a CUtensorMap */
        *size = 128;
        return 0;
    }
    if (a->record) {
        size_t align;
        if (su_struct_layout(a->record, dt, size, &align, NULL, NULL) == 0)
            return 0;
    } else if ((*size = su_type_size(a->type == SU_DTYPE ? dt : a->type)) > 0) {
        return 0;
    }
    space_errorf(err, len, sp->path, a->line, a->col, "kernel.args %s: of type dtype, but the "
                 "dtype %s is not an element type", a->name, b && b->dtype ? b->dtype : "(none)");
    return -1;
}

/* ---- the tolerance a loaded output has ---- */

void space_user_tolerance(const su_arg *a, const char *dtype, double *atol, double *rtol)
{
    int t = su_type_parse(dtype);
    if (t >= 0 && a->has_tol_by[t]) {
        *atol = a->tol_by[t][0];
        *rtol = a->tol_by[t][1];
        return;
    }
    if (a->has_tol || a->type != SU_DTYPE) {
        *atol = a->atol;
        *rtol = a->rtol;
        return;
    }
    su_default_tolerance(su_type_parse(dtype), atol, rtol);
}

int space_user_init_values(const space *sp, const space_binding *b, const su_arg *a, double *lo,
                           double *hi, char *err, size_t len)
{
    double v[2] = {a->a, a->b};
    for (int k = 0; k < 2; k++) {
        value x;
        if (!a->init_x[k].text)
            continue;
        if (space_user_eval(sp, b, NULL, &a->init_x[k], &x, err, len) != 0)
            return -1;
        if (x.kind != VALUE_STRING)
            v[k] = x.kind == VALUE_INT ? (double)x.i : x.f;
        if (x.kind == VALUE_STRING || !isfinite(v[k])) {
            space_errorf(err, len, sp->path, a->init_x[k].line, a->init_x[k].col,
                         "kernel.args %s: init: '%s' is not a finite number (%s %s)", a->name,
                         a->init_x[k].text, b->dtype, b->problem->text);
            return -1;
        }
    }
    if (a->init == SU_INIT_RANDOM && (a->init_x[0].text || a->init_x[1].text)) {
        int t = a->type == SU_DTYPE ? su_type_parse(b->dtype) : a->type;
        const su_expr *x = a->init_x[0].text ? &a->init_x[0] : &a->init_x[1];
        if (!(v[0] <= v[1])) {
            space_errorf(err, len, sp->path, x->line, x->col, "kernel.args %s: init.random: lo "
                         "(%g) is greater than hi (%g) (%s %s)", a->name, v[0], v[1], b->dtype,
                         b->problem->text);
            return -1;
        }
        if (!su_type_is_float(t) && (v[0] != floor(v[0]) || v[1] != floor(v[1]))) {
            space_errorf(err, len, sp->path, x->line, x->col, "kernel.args %s: init.random: an "
                         "integer buffer needs integer bounds, got [%g, %g] (%s %s)", a->name,
                         v[0], v[1], b->dtype, b->problem->text);
            return -1;
        }
    }
    *lo = v[0];
    *hi = v[1];
    return 0;
}
