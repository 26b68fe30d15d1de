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

/* Appends a malloc'd string to a list. */
static int add_to(char ***list, int *n, char *s)
{
    if (!s)
        return -1;
    char **p = realloc(*list, (size_t)(*n + 1) * sizeof *p);
    if (!p) {
        free(s);
        return -1;
    }
    *list = p;
    (*list)[(*n)++] = s;
    return 0;
}

static char *printf_dup(const char *fmt, const char *a, const char *b)
{
    size_t n = strlen(fmt) + strlen(a) + (b ? strlen(b) : 0) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, fmt, a, b ? b : "");
    return s;
}

/* The name expression of a launch: the function with its template arguments. */
static char *name_expr(const space *sp, const space_binding *b, const int *choice,
                       const su_launch_spec *l, char *err, size_t len)
{
    size_t cap = strlen(l->function) + 3, n = 0;
    char *name = malloc(cap);
    if (!name) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    n = (size_t)snprintf(name, cap, "%s", l->function);
    for (int i = 0; i < l->n_template; i++) {
        value v;
        char text[512];
        if (space_user_eval(sp, b, choice, &l->templ[i], &v, err, len) != 0) {
            free(name);
            return NULL;
        }
        value_format(v, text, sizeof text);
        size_t need = n + strlen(text) + 4;
        if (need > cap) {
            char *p = realloc(name, need * 2);
            if (!p) {
                free(name);
                snprintf(err, len, "out of memory");
                return NULL;
            }
            name = p;
            cap = need * 2;
        }
        n += (size_t)snprintf(name + n, cap - n, "%s%s", i == 0 ? "<" : ", ", text);
    }
    if (l->n_template)
        snprintf(name + n, cap - n, ">");
    return name;
}

int space_user_compile(const space *sp, const space_binding *b, const int *choice,
                       const su_kernel *k, int with_symbols, su_compile *out, char *err,
                       size_t len)
{
    memset(out, 0, sizeof *out);
    int has_std = 0;
    for (int i = 0; i < k->n_options; i++)
        has_std |= strncmp(k->options[i], "-std=", 5) == 0 || strncmp(k->options[i], "--std", 5) == 0;
    if ((!has_std && add_to(&out->options, &out->n_options, strdup("-std=c++17")) != 0) ||
        add_to(&out->options, &out->n_options,
               printf_dup("-I%s%s", *k->source_dir ? k->source_dir : ".", NULL)) != 0)
        goto oom;
    for (int i = 0; i < k->n_include_dirs; i++)
        if (add_to(&out->options, &out->n_options, printf_dup("-I%s%s", k->include_dirs[i], NULL)))
            goto oom;
    for (int i = 0; i < k->n_defines; i++) {
        value v;
        char text[512];
        if (k->define_conds && k->define_conds[i].text) {
            int64_t holds;
            if (space_user_eval_int(sp, b, choice, &k->define_conds[i], INT64_MIN, INT64_MAX,
                                    "a define's condition", &holds, err, len) != 0)
                goto fail;
            if (!holds)
                continue;
        }
        if (!k->define_values[i].text) {
            if (add_to(&out->options, &out->n_options, printf_dup("-D%s%s", k->define_names[i], NULL)))
                goto oom;
            continue;
        }
        if (space_user_eval(sp, b, choice, &k->define_values[i], &v, err, len) != 0)
            goto fail;
        value_format(v, text, sizeof text);
        if (add_to(&out->options, &out->n_options, printf_dup("-D%s=%s", k->define_names[i], text)))
            goto oom;
    }
    for (int i = 0; i < k->n_options; i++)
        if (add_to(&out->options, &out->n_options, strdup(k->options[i])) != 0)
            goto oom;
    for (int i = 0; i < k->n_launches; i++) {
        char *name = name_expr(sp, b, choice, &k->launches[i], err, len);
        if (!name)
            goto fail;
        /* launches of one function with the same arguments share its kernel */
        int dup = 0;
        for (int j = 0; j < out->n_kernels && !dup; j++)
            dup = strcmp(out->kernels[j], name) == 0;
        if (dup)
            free(name);
        else if (add_to(&out->kernels, &out->n_kernels, name) != 0)
            goto oom;
    }
    for (int i = 0; with_symbols && i < sp->user->n_args; i++)
        if (sp->user->args[i].symbol &&
            add_to(&out->symbols, &out->n_symbols, strdup(sp->user->args[i].symbol)) != 0)
            goto oom;
    return 0;
oom:
    snprintf(err, len, "out of memory");
fail:
    su_compile_clear(out);
    return -1;
}

int su_compile_kernel_index(const space *sp, const space_binding *b, const int *choice,
                            const su_kernel *k, const su_compile *c, int launch, char *err,
                            size_t len)
{
    char *name = name_expr(sp, b, choice, &k->launches[launch], err, len);
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
