/* space_user_eval.c: evaluating a user kernel's expressions for a binding and a config
 * (space_user.h): counts, scalars, each launch's geometry and whether it fits the device, the
 * compile options and name expressions of a variant, the bytes, elements and flops of a
 * problem, the tolerance an output is compared with for a dtype, and the checks `tuner run`
 * makes once the device is known. Geometry beyond the
 * device's limits is not an error of the space: the variant is unsupported there, and
 * space_user_fits says why. */
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

/* The expression a limit code (su_geometry_fits_at) is about. */
static const su_expr *limit_expr(const su_launch_spec *l, int what)
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

int space_user_fits(const space *sp, const space_binding *b, const int *choice, char *why,
                    size_t why_len, char *err, size_t len)
{
    return space_user_fits_at(sp, b, choice, NULL, why, why_len, err, len);
}

int space_user_fits_at(const space *sp, const space_binding *b, const int *choice,
                       const su_expr **at, char *why, size_t why_len, char *err, size_t len)
{
    const su_kernel *k = &sp->user->kernel;
    for (int i = 0; i < k->n_launches; i++) {
        su_geometry g;
        if (space_user_geometry(sp, b, choice, &k->launches[i], &g, err, len) != 0)
            return -1;
        char w[400];
        int what = 0;
        if (!su_geometry_fits_at(&g, b->device, &what, w, sizeof w)) {
            if (at)
                *at = limit_expr(&k->launches[i], what);
            if (k->n_launches > 1)
                snprintf(why, why_len, "launch %d (%s): %s", i, k->launches[i].function, w);
            else
                snprintf(why, why_len, "%s", w);
            return 0;
        }
    }
    return 1;
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

/* The type of a buffer or scalar for a binding's dtype. */
static int arg_type(const su_arg *a, const space_binding *b)
{
    return a->type == SU_DTYPE ? su_type_parse(b->dtype) : a->type;
}

int space_user_arg_bytes(const space *sp, const space_binding *b, const int *choice,
                         const su_arg *a, int64_t *count, int64_t *bytes, char *err, size_t len)
{
    char what[160];
    snprintf(what, sizeof what, "kernel.args %s.count", a->name);
    int64_t size = (int64_t)su_type_size(arg_type(a, b));
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

/* ---- the checks once the device is known ---- */

/* Checks a scalar's value fits its type. */
/* Checks that x's value fits type t (resolved; boolean: a bool, 0 or 1); what names it in
 * messages. */
static int value_check(const space *sp, const space_binding *b, const int *choice, int t,
                       int boolean, const su_expr *x, const char *what, char *err, size_t len)
{
    value v;
    if (space_user_eval(sp, b, choice, x, &v, err, len) != 0)
        return -1;
    if (v.kind == VALUE_STRING) {
        space_errorf(err, len, sp->path, x->line, x->col, "%s: '%s' gives a string, not a "
                     "number", what, x->text);
        return -1;
    }
    if (su_type_is_float(t)) {
        /* the largest finite value of each float type */
        double max = t == SU_F16 ? 65504.0 : t == SU_BF16 ? 3.3895313892515355e38
                   : t == SU_F32 ? 3.4028234663852886e38 : INFINITY;
        double d = v.kind == VALUE_INT ? (double)v.i : v.f;
        if (!isfinite(d) || fabs(d) > max) {
            space_errorf(err, len, sp->path, x->line, x->col, "%s: %g does not fit in %s", what,
                         d, su_type_name(t));
            return -1;
        }
        return 0;
    }
    if (v.kind != VALUE_INT) {
        space_errorf(err, len, sp->path, x->line, x->col, "%s: '%s' gives a float; %s needs an "
                     "integer", what, x->text, su_type_name(t));
        return -1;
    }
    int64_t lo = 0, hi = INT64_MAX;
    switch (t) {
    case SU_I8: lo = INT8_MIN; hi = INT8_MAX; break;
    case SU_I16: lo = INT16_MIN; hi = INT16_MAX; break;
    case SU_I32: lo = INT32_MIN; hi = INT32_MAX; break;
    case SU_I64: lo = INT64_MIN; break;
    case SU_U8: hi = UINT8_MAX; break;
    case SU_U16: hi = UINT16_MAX; break;
    case SU_U32: hi = UINT32_MAX; break;
    default: break;
    }
    if (boolean)
        hi = 1;
    if (v.i < lo || v.i > hi) {
        space_errorf(err, len, sp->path, x->line, x->col, "%s: %" PRId64 " does not fit in %s",
                     what, v.i, boolean ? "bool (0 or 1)" : su_type_name(t));
        return -1;
    }
    return 0;
}

typedef struct field_check {
    const space *sp;
    const space_binding *b;
    const int *choice;
    const su_arg *a;
    char *err;
    size_t len;
} field_check;

static int check_leaf(void *ctx, const su_field *f, int element, int type, size_t offset)
{
    (void)offset;
    field_check *c = ctx;
    if (f->kind != SU_FIELD_VALUE)
        return 0;
    char what[200], index[24] = "";
    if (f->is_array)
        snprintf(index, sizeof index, "[%d]", element);
    snprintf(what, sizeof what, "kernel.args %s.struct%s%s%s", c->a->name, f->name ? " " : "",
             f->name ? f->name : "", index);
    return value_check(c->sp, c->b, c->choice, type, f->is_bool, &f->values[element], what, c->err,
                       c->len) ? -2 : 0;
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

int space_user_scalar_check(const space *sp, const space_binding *b, const int *choice,
                            const su_arg *a, char *err, size_t len)
{
    size_t size;
    if (space_user_value_size(sp, b, a, &size, err, len) != 0)
        return -1;
    if (a->texture) {
        int64_t dims[3];
        return space_user_texture_dims(sp, b, choice, a, dims, err, len);
    }
    if (a->tensor_map) {
        uint64_t dims[5], strides[4];
        uint32_t box[5];
        return space_user_tensor_map_geometry(sp, b, choice, a, dims, strides, box, err, len);
    }
    if (a->record) {
        field_check c = {sp, b, choice, a, err, len};
        size_t align;
        return su_struct_layout(a->record, su_type_parse(b->dtype), &size, &align, check_leaf,
                                &c) == 0 ? 0 : -1;
    }
    char what[160];
    snprintf(what, sizeof what, "kernel.args %s.value", a->name);
    return value_check(sp, b, choice, arg_type(a, b), a->is_bool, &a->value, what, err, len);
}

/* A check kernel's expressions for a config: its scalars, its result's count, its geometry. */
static int check_plan(const space *sp, const space_binding *b, const int *choice,
                      const su_arg *a, char *err, size_t len)
{
    if (a->compare == SU_CMP_REDUCE && a->has_cmp_count) {
        int64_t n, count, bytes;
        if (space_user_arg_bytes(sp, b, choice, a, &count, &bytes, err, len) != 0)
            return -1;
        char what[200];
        snprintf(what, sizeof what, "kernel.args %s.compare.count", a->name);
        return space_user_eval_int(sp, b, choice, &a->cmp_count, 1, count, what, &n, err, len);
    }
    if (a->compare != SU_CMP_CHECK)
        return 0;
    const su_check *ck = a->check;
    for (int i = 0; i < ck->n_scalars; i++)
        if (space_user_scalar_check(sp, b, choice, &ck->scalars[i], err, len) != 0)
            return -1;
    int64_t count, bytes;
    su_geometry g;
    if (space_user_arg_bytes(sp, b, choice, &ck->result, &count, &bytes, err, len) != 0 ||
        space_user_geometry(sp, b, choice, &ck->kernel.launches[0], &g, err, len) != 0)
        return -1;
    char why[400];
    if (!su_geometry_fits(&g, b->device, why, sizeof why)) {
        const su_launch_spec *l = &ck->kernel.launches[0];
        space_errorf(err, len, sp->path, l->line, l->col, "kernel.args %s.compare.check: %s "
                     "(%s %s)", a->name, why, b->dtype, b->problem->text);
        return -1;
    }
    return 0;
}

/* Everything about one (binding, config): sizes against memory, scalars, geometry that
 * evaluates (whether it fits the device is the variant's business, not the space's). */
static int check_variant(const space *sp, const space_binding *b, const int *choice, char *err,
                         size_t len)
{
    const space_user *u = sp->user;
    int64_t total = 0, largest = -1;
    int largest_arg = -1;
    for (int i = 0; i < u->n_args; i++) {
        const su_arg *a = &u->args[i];
        if (!a->is_buffer) {
            if (space_user_scalar_check(sp, b, choice, a, err, len) != 0)
                return -1;
            continue;
        }
        int64_t count, bytes;
        if (space_user_buffer_bytes(sp, b, choice, i, &count, &bytes, err, len) != 0 ||
            check_plan(sp, b, choice, a, err, len) != 0)
            return -1;
        /* an output also needs the reference's copy (and an initialised one its pristine copy) */
        int copies = a->output ? (a->init != SU_INIT_NONE ? 3 : 2) : 1;
        if (a->symbol && a->init != SU_INIT_NONE)
            copies++;   /* the contents the variable is filled from */
        if (bytes > INT64_MAX / 4 || total > INT64_MAX - 4 * bytes) {
            total = INT64_MAX;
        } else {
            total += bytes * copies;
        }
        if (bytes > largest) {
            largest = bytes;
            largest_arg = i;
        }
    }
    if (b->device && b->device->mem_bytes > 0 && total > b->device->mem_bytes) {
        const su_arg *a = &u->args[largest_arg];
        char cfg[400] = "";
        if (choice)
            space_config_text(sp, choice, cfg, sizeof cfg);
        space_errorf(err, len, sp->path, a->count.line, a->count.col,
                     "kernel.args: the buffers need %.2f GB (with the reference's copies of the "
                     "outputs; the largest, %s, %.2f GB), the GPU has %.2f GB (%s %s%s%s)",
                     (double)total / 1e9, a->name, (double)largest / 1e9,
                     (double)b->device->mem_bytes / 1e9, b->dtype, b->problem->text,
                     choice ? ", config " : "", cfg);
        return -1;
    }
    char why[400];
    return space_user_fits(sp, b, choice, why, sizeof why, err, len) < 0 ? -1 : 0;
}

/* What each_config calls: per binding first (may be NULL), then per config the constraints
 * allow. 0 to go on, -1 with err to stop. */
typedef struct config_visit {
    int (*binding)(const space *sp, const space_binding *b, void *ctx, char *err, size_t len);
    int (*config)(const space *sp, const space_binding *b, const int *choice, void *ctx,
                  char *err, size_t len);
    void *ctx;
} config_visit;

/* Visits every dtype and problem of sp on dev, and every config of each. 0, or -1 with err. */
static int each_config(const space *sp, const device_info *dev, const config_visit *v, char *err,
                       size_t len)
{
    int *choice = calloc((size_t)sp->n_params + 1, sizeof *choice);
    if (!choice) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    int rc = 0;
    for (int d = 0; d < sp->n_dtypes && rc == 0; d++)
        for (int p = 0; p < sp->n_problems && rc == 0; p++) {
            space_binding b = {sp->ops[0], sp->dtypes[d], &sp->problems[p], dev};
            if (v->binding && v->binding(sp, &b, v->ctx, err, len) != 0) {
                rc = -1;
                break;
            }
            space_iter it;
            space_iter_init(&it, sp, &b);
            int r;
            while (rc == 0 && (r = space_iter_next(&it, choice)) == 1)
                rc = v->config(sp, &b, choice, v->ctx, err, len);
            if (r < 0 && rc == 0) {
                if (it.err_constraint >= 0)
                    space_constraint_error(sp, it.err_constraint, &it.err, err, len);
                else
                    snprintf(err, len, "%s", it.err.message);
                rc = -1;
            }
            space_iter_free(&it);
        }
    free(choice);
    return rc;
}

/* Once per binding: the reference (a kernel, or the kernel at its config) must fit the device. */
static int check_reference(const space *sp, const space_binding *b, void *ctx, char *err,
                           size_t len)
{
    (void)ctx;
    const space_user *u = sp->user;
    char why[400];
    if (u->ref == SU_REF_KERNEL) {
        su_geometry g;
        const su_launch_spec *l = &u->ref_kernel.launches[0];
        int what = 0;
        if (space_user_geometry(sp, b, NULL, l, &g, err, len) != 0)
            return -1;
        if (!su_geometry_fits_at(&g, b->device, &what, why, sizeof why)) {
            /* the reference must run: a reference beyond the device is the space's */
            const su_expr *x = limit_expr(l, what);
            space_errorf(err, len, sp->path, x->line, x->col, "reference.kernel: %s (%s %s): the "
                         "reference must run", why, b->dtype, b->problem->text);
            return -1;
        }
    }
    if (u->ref == SU_REF_CONFIG) {
        char cfg[400];
        const su_expr *x = NULL;
        int fits = check_variant(sp, b, u->ref_choice, err, len) != 0
                       ? -1
                       : space_user_fits_at(sp, b, u->ref_choice, &x, why, sizeof why, err, len);
        space_config_text(sp, u->ref_choice, cfg, sizeof cfg);
        if (fits == 0)
            space_errorf(err, len, sp->path, x->line, x->col, "%s (%s %s, the reference config "
                         "%s: the reference must run)", why, b->dtype, b->problem->text, cfg);
        if (fits != 1)
            return -1;
    }
    return 0;
}

static int check_config(const space *sp, const space_binding *b, const int *choice, void *ctx,
                        char *err, size_t len)
{
    (void)ctx;
    return check_variant(sp, b, choice, err, len);
}

int space_user_check(const space *sp, const device_info *dev, char *err, size_t len)
{
    char arch[32];
    int cc = dev->cc_major * 10 + dev->cc_minor;
    if (space_user_arch(sp->user, sp->path, cc, arch, sizeof arch, err, len) != 0)
        return -1;
    for (int i = 0; i < sp->user->n_args && cc < 90; i++) {
        const su_tensor_map *t = sp->user->args[i].tensor_map;
        if (t) {
            space_errorf(err, len, sp->path, t->line, t->col, "kernel.args %s: tensor maps (TMA) "
                         "need compute capability 9.0; this GPU is %d.%d",
                         sp->user->args[i].name, dev->cc_major, dev->cc_minor);
            return -1;
        }
    }
    config_visit v = {check_reference, check_config, NULL};
    return each_config(sp, dev, &v, err, len);
}

/* The count of configs beyond the device, and the first. */
typedef struct excluded_count {
    int64_t excluded, total;
    char *first_why;
    size_t why_len;
} excluded_count;

static int count_excluded(const space *sp, const space_binding *b, const int *choice, void *ctx,
                          char *err, size_t len)
{
    excluded_count *x = ctx;
    char why[400];
    int fits = space_user_fits(sp, b, choice, why, sizeof why, err, len);
    if (fits < 0)
        return -1;
    x->total++;
    if (fits == 0) {
        if (x->excluded == 0 && x->first_why && x->why_len) {
            char cfg[512];
            space_config_text(sp, choice, cfg, sizeof cfg);
            snprintf(x->first_why, x->why_len, "%s %s %s: %s", b->dtype, b->problem->text, cfg,
                     why);
        }
        x->excluded++;
    }
    return 0;
}

int space_user_excluded(const space *sp, const device_info *dev, int64_t *excluded,
                        int64_t *total, char *first_why, size_t why_len, char *err, size_t len)
{
    excluded_count x = {0, 0, first_why, why_len};
    if (first_why && why_len)
        first_why[0] = 0;
    config_visit v = {NULL, count_excluded, &x};
    int rc = each_config(sp, dev, &v, err, len);
    *excluded = x.excluded;
    *total = x.total;
    return rc;
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
