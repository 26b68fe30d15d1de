/* space_user_check.c: whether a config of a user kernel fits the device (space_user_fits: its
 * launches' geometry, its tensor maps' boxes; beyond them the variant is unsupported, not an
 * error), and the checks `tuner run` and `tuner compile` make of the space once the device is
 * known (space_user_check, space_user_excluded), for every dtype, problem and
 * config the constraints allow: buffer counts and memory, scalar values and struct fields in
 * range of their types, textures and tensor maps (space_user_views.c) against their buffers,
 * comparison plans and check kernels, geometry (beyond the device: unsupported, counted), the
 * reference that must run, and the architecture the kernel asks for. Above the evaluation
 * (space_user_eval.c) and the views, which it calls. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/device.h"
#include "space_user_internal.h"

/* Checks a scalar's value fits its type. */
/* ---- whether a config fits the device ---- */

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
                *at = su_limit_expr(&k->launches[i], what);
            if (k->n_launches > 1)
                snprintf(why, why_len, "launch %d (%s): %s", i, k->launches[i].function, w);
            else
                snprintf(why, why_len, "%s", w);
            return 0;
        }
    }
    /* a tensor map's box is the kernel's tile: one TMA cannot move is this config's limit */
    for (int i = 0; i < sp->user->n_args; i++) {
        const su_arg *a = &sp->user->args[i];
        if (!a->tensor_map)
            continue;
        uint64_t dims[5], strides[4];
        uint32_t box[5];
        int dim = 0;
        int r = space_user_tensor_map_geometry(sp, b, choice, a, dims, strides, box, &dim, why,
                                               why_len);
        if (r < 0) {
            snprintf(err, len, "%s", why);
            return -1;
        }
        if (r > 0) {
            if (at)
                *at = &a->tensor_map->box[dim];
            return 0;
        }
    }
    return 1;
}

/* ---- the checks ---- */

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
    if (a->tensor_map)   /* its geometry is checked with the config's fit (space_user_fits) */
        return 0;
    if (a->record) {
        field_check c = {sp, b, choice, a, err, len};
        size_t align;
        return su_struct_layout(a->record, su_type_parse(b->dtype), &size, &align, check_leaf,
                                &c) == 0 ? 0 : -1;
    }
    char what[160];
    snprintf(what, sizeof what, "kernel.args %s.value", a->name);
    return value_check(sp, b, choice, su_arg_type(a, b), a->is_bool, &a->value, what, err, len);
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
    /* the buffers' init values that are expressions of the problem */
    for (int i = 0; i < u->n_args; i++) {
        double lo, hi;
        if (u->args[i].is_buffer &&
            space_user_init_values(sp, b, &u->args[i], &lo, &hi, err, len) != 0)
            return -1;
    }
    if (u->ref == SU_REF_KERNEL) {
        su_geometry g;
        const su_launch_spec *l = &u->ref_kernel.launches[0];
        int what = 0;
        if (space_user_geometry(sp, b, NULL, l, &g, err, len) != 0)
            return -1;
        if (!su_geometry_fits_at(&g, b->device, &what, why, sizeof why)) {
            /* the reference must run: a reference beyond the device is the space's */
            const su_expr *x = su_limit_expr(l, what);
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

