/* user_validate.c: a user kernel's comparison plans, worker side (space_user.h, su_compare).
 * Once the reference has run, each output keeps what its plan compares with: its contents
 * (element by element, the default), what its first `count` elements reduce to (sum in double
 * precision, min or max), or the result of the user's check kernel run on it. Validating a
 * variant then compares the same thing computed from the variant's outputs. An output whose
 * layout depends on the config (one partial result per block, the number of blocks tuned) is
 * validated by what it reduces to, which the layout does not change. The family
 * (user_kernel.c) calls it (user_validate.h); the check kernels load through user_module.c. */
#include <inttypes.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "user_gpu.h"
#include "user_validate.h"

/* How many elements an output's reduction covers at config choice. */
static int reduce_count(op_instance *in, const su_arg *a, const ubuf *b, const int *choice,
                        int64_t *n, char *err, size_t len)
{
    if (!a->has_cmp_count) {
        *n = b->count;
        return 0;
    }
    char what[200];
    snprintf(what, sizeof what, "kernel.args %s.compare.count", a->name);
    return space_user_eval_int(in->uf->sp, &in->bind, choice, &a->cmp_count, 1, b->count, what,
                               n, err, len);
}

/* The tolerance of a reduction over n elements: as given, else the type's scaled by sqrt(n)
 * (rounding errors of n terms added in another order grow about so). */
static void reduce_tolerance(const op_instance *in, const su_arg *a, const ubuf *b, int64_t n,
                             double *atol, double *rtol)
{
    if (a->has_tol) {
        *atol = a->atol;
        *rtol = a->rtol;
    } else {
        su_default_tolerance(b->type, atol, rtol);
        double s = a->reduce == SU_REDUCE_SUM ? sqrt((double)(n > 0 ? n : 1)) : 1.0;
        *atol *= s;
        *rtol *= s;
    }
    *atol *= in->tol_scale;
    *rtol *= in->tol_scale;
}

/* Runs output i's check kernel at config choice into *result (grown as needed, *cap its bytes),
 * *count its elements. 0, or -1 with err. */
static int run_check(op_instance *in, int i, const int *choice, void **result, size_t *cap,
                     int64_t *count, char *err, size_t len)
{
    const space *sp = in->uf->sp;
    const space_user *u = sp->user;
    const su_check *ck = u->args[i].check;
    const su_launch_spec *l = &ck->kernel.launches[0];
    const umod *m = &in->checks[i];
    int type = ck->result.type == SU_DTYPE ? su_type_parse(in->dtype) : ck->result.type;
    int64_t bytes;
    cudaError_t e;
    if (space_user_arg_bytes(sp, &in->bind, choice, &ck->result, count, &bytes, err, len) != 0)
        return -1;
    if ((size_t)bytes > *cap) {
        cudaFree(*result);
        *result = NULL;
        *cap = 0;
        if ((e = cudaMalloc(result, (size_t)bytes)) != cudaSuccess)
            return uk_cuda_fail(e, "allocating a check kernel's result", err, len);
        *cap = (size_t)bytes;
    }
    in->bufs[i].check_type = type;
    /* its own scalars, then its arguments */
    for (int s = 0; s < ck->n_scalars; s++) {
        if (uk_scalar_store(in, &ck->scalars[s], choice, &in->check_scalars[s], err, len) != 0)
            return -1;
    }
    for (int j = 0; j < l->n_args; j++) {
        int code = l->args[j];
        in->check_params[j] = code == SU_ARG_RESULT ? (void *)result
                              : code < SU_ARG_RESULT
                                  ? (void *)&in->check_scalars[SU_ARG_SCALAR_INDEX(code)]
                              : u->args[code].is_buffer ? (void *)&in->bufs[code].dev
                                                        : (void *)in->values[code];
    }
    su_geometry g;
    if (space_user_geometry(sp, &in->bind, choice, l, &g, err, len) != 0)
        return -1;
    char why[400];
    if (uk_launch_ready(m->fn[0], &g, why, sizeof why) != TK_OK) {
        snprintf(err, len, "the check kernel of %s (%s) cannot run here: %s", u->args[i].name,
                 l->function, why);
        return -1;
    }
    if ((e = ug_poison(type, *result, *count, 0)) == cudaSuccess &&
        (e = uk_launch(m->fn[0], &g, in->check_params, 0)) == cudaSuccess)
        e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        char what[200];
        snprintf(what, sizeof what, "the check kernel of %s (%s)", u->args[i].name, l->function);
        return uk_cuda_fail(e, what, err, len);
    }
    return 0;
}

int uk_plans_reference(op_instance *in, const int *choice, const char *checks, char *err,
                       size_t len)
{
    const space_user *u = in->uf->sp->user;
    int n_checks = 0, max_args = 1, max_scalars = 1;
    for (int i = 0; i < u->n_args; i++)
        if (u->args[i].compare == SU_CMP_CHECK) {
            n_checks++;
            const su_check *ck = u->args[i].check;
            if (ck->kernel.launches[0].n_args > max_args)
                max_args = ck->kernel.launches[0].n_args;
            if (ck->n_scalars > max_scalars)
                max_scalars = ck->n_scalars;
        }
    if (n_checks) {
        /* the check kernels' modules, one per line of checks */
        in->checks = calloc((size_t)u->n_args, sizeof *in->checks);
        in->check_scalars = calloc((size_t)max_scalars, sizeof *in->check_scalars);
        in->check_params = calloc((size_t)max_args, sizeof *in->check_params);
        if (!in->checks || !in->check_scalars || !in->check_params) {
            snprintf(err, len, "out of host memory");
            return -1;
        }
        const char *p = checks;
        for (int i = 0; i < u->n_args; i++) {
            if (u->args[i].compare != SU_CMP_CHECK)
                continue;
            size_t n = p ? strcspn(p, "\n") : 0;
            if (!p || n == 0 || n >= 4096) {
                snprintf(err, len, "no compiled check kernel was given for %s", u->args[i].name);
                return -1;
            }
            char path[4096];
            snprintf(path, sizeof path, "%.*s", (int)n, p);
            p = p[n] ? p + n + 1 : NULL;
            if (uk_mod_load(in, &in->checks[i], path, &u->args[i].check->kernel, NULL, 0, err,
                            len) != 0)
                return -1;
        }
    }
    for (int i = 0; i < u->n_args; i++) {
        const su_arg *a = &u->args[i];
        ubuf *b = &in->bufs[i];
        if (!a->is_buffer || !a->output)
            continue;
        cudaError_t e;
        switch (a->compare) {
        case SU_CMP_ELEMENTS: {
            size_t bytes = (size_t)b->count * su_type_size(b->type);
            cudaFree(b->ref);
            b->ref = NULL;
            if ((e = cudaMalloc(&b->ref, bytes ? bytes : 1)) == cudaSuccess)
                e = cudaMemcpy(b->ref, b->dev, bytes, cudaMemcpyDeviceToDevice);
            if (e != cudaSuccess)
                return uk_cuda_fail(e, "keeping the reference's output", err, len);
            b->ref_count = b->count;
            break;
        }
        case SU_CMP_REDUCE: {
            if (reduce_count(in, a, b, choice, &b->ref_reduced, err, len) != 0)
                return -1;
            if ((e = ug_reduce(b->type, b->dev, b->ref_reduced, (int)a->reduce, &b->ref_value,
                               0)) != cudaSuccess)
                return uk_cuda_fail(e, "reducing the reference's output", err, len);
            if (isnan(b->ref_value)) {
                snprintf(err, len, "the reference's %s holds NaN in its first %" PRId64
                         " elements (unwritten, or computed so)", a->name, b->ref_reduced);
                return -1;
            }
            break;
        }
        case SU_CMP_CHECK:
            if (run_check(in, i, choice, &b->check_ref, &b->check_cap, &b->check_ref_count, err,
                          len) != 0)
                return -1;
            /* the variant's result gets a buffer of its own */
            b->check_cap = 0;
            break;
        }
    }
    return 0;
}

/* Appends "; " between outputs' reports. */
static size_t say(char *err, size_t len, size_t at, int bad, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static size_t say(char *err, size_t len, size_t at, int bad, const char *fmt, ...)
{
    if (bad && at < len)
        at += (size_t)snprintf(err + at, len - at, "; ");
    va_list ap;
    va_start(ap, fmt);
    if (at < len)
        at += (size_t)vsnprintf(err + at, len - at, fmt, ap);
    va_end(ap);
    return at;
}

/* Element by element: got and want, n elements of type, within (atol, rtol). 0, 1 (reported at
 * err + *at), -1. */
static int compare_elements(int type, const void *got, const void *want, int64_t n, double atol,
                            double rtol, const char *what, char *err, size_t len, size_t *at,
                            int bad)
{
    int64_t n_bad = 0, first[3];
    cudaError_t e = ug_compare(type, got, want, n, atol, rtol, &n_bad, first, 3, 0);
    if (e != cudaSuccess)
        return uk_cuda_fail(e, "comparing the outputs", err, len);
    if (n_bad == 0)
        return 0;
    *at = say(err, len, *at, bad, "%s: %" PRId64 " of %" PRId64 " elements differ; first:", what,
              n_bad, n);
    for (int k = 0; k < 3 && k < n_bad; k++) {
        double g = 0, w = 0;
        if (ug_element(type, got, first[k], &g) != cudaSuccess ||
            ug_element(type, want, first[k], &w) != cudaSuccess)
            return uk_cuda_fail(cudaGetLastError(), "reading a mismatch", err, len);
        if (*at < len)
            *at += (size_t)snprintf(err + *at, len - *at, " [%" PRId64 "] got %.9g expected %.9g",
                                    first[k], g, w);
    }
    return 1;
}

int uk_plans_validate(op_instance *in, char *err, size_t len)
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
        int r = 0;
        if (a->compare == SU_CMP_ELEMENTS) {
            if (b->count != b->ref_count) {
                at = say(err, len, at, bad_outputs, "%s: %" PRId64 " elements, the reference %"
                         PRId64 " (give it compare: { reduce: ... } or a check kernel when its "
                         "layout depends on the config)", a->name, b->count, b->ref_count);
                bad_outputs++;
                continue;
            }
            double atol, rtol;
            space_user_tolerance(a, in->dtype, &atol, &rtol);
            r = compare_elements(b->type, b->dev, b->ref, b->count, atol * in->tol_scale,
                                 rtol * in->tol_scale, a->name, err, len, &at, bad_outputs);
        } else if (a->compare == SU_CMP_REDUCE) {
            static const char *const ops[] = {"sum", "min", "max"};
            int64_t n;
            double got, atol, rtol;
            char why[512];
            if (reduce_count(in, a, b, in->choice, &n, why, sizeof why) != 0) {
                snprintf(err, len, "%s", why);
                return -1;
            }
            cudaError_t e = ug_reduce(b->type, b->dev, n, (int)a->reduce, &got, 0);
            if (e != cudaSuccess)
                return uk_cuda_fail(e, "reducing an output", err, len);
            reduce_tolerance(in, a, b, n, &atol, &rtol);
            double want = b->ref_value;
            int ok = !isnan(got) && fabs(got - want) <= atol + rtol * fabs(want);
            if (!ok) {
                at = say(err, len, at, bad_outputs, "%s: the %s of its %" PRId64 " elements is "
                         "%.9g, the reference's (of %" PRId64 ") %.9g (tolerance %g + %g x |%s|)%s",
                         a->name, ops[a->reduce], n, got, b->ref_reduced, want, atol, rtol,
                         ops[a->reduce], isnan(got) ? ": an element is NaN (unwritten?)" : "");
                r = 1;
            }
        } else {
            char why[512];
            size_t cap = b->check_cap;
            if (run_check(in, i, in->choice, &b->check_out, &cap, &b->check_count, why,
                          sizeof why) != 0) {
                snprintf(err, len, "%s", why);
                return -1;
            }
            b->check_cap = cap;
            char what[200];
            snprintf(what, sizeof what, "%s (by its check kernel %s)", a->name,
                     a->check->kernel.launches[0].function);
            if (b->check_count != b->check_ref_count) {
                at = say(err, len, at, bad_outputs, "%s: %" PRId64 " values, the reference's %"
                         PRId64, what, b->check_count, b->check_ref_count);
                r = 1;
            } else {
                double atol, rtol;
                space_user_tolerance(&a->check->result, in->dtype, &atol, &rtol);
                r = compare_elements(b->check_type, b->check_out, b->check_ref, b->check_count,
                                     atol * in->tol_scale, rtol * in->tol_scale, what, err, len,
                                     &at, bad_outputs);
            }
        }
        if (r < 0)
            return -1;
        bad_outputs += r;
    }
    return bad_outputs ? 1 : 0;
}

void uk_plans_release(op_instance *in)
{
    const space_user *u = in->uf->sp->user;
    for (int i = 0; in->bufs && i < u->n_args; i++) {
        cudaFree(in->bufs[i].check_out);
        cudaFree(in->bufs[i].check_ref);
        if (in->checks)
            uk_mod_unload(&in->checks[i]);
    }
    free(in->checks);
    free(in->check_scalars);
    free(in->check_params);
    in->checks = NULL;
    in->check_scalars = NULL;
    in->check_params = NULL;
}
