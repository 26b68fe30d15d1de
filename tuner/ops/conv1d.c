/* conv1d.c: the conv1d family's harness: op full (out = a * b, the full linear convolution of
 * length len_a + len_b - 1, as numpy.convolve(a, b, "full")), f32, problems { len_a, len_b }.
 * Inputs are uniform in [-1, 1) (never 0); the reference is computed in double on all cores from
 * the f32 inputs; the tolerance grows with the filter length (conv1d.h says how); variants run
 * through the library's public tk_conv1d_full. The header's size key is the library's
 * tk_conv1d_size_key (filter-length bucket and signal length), so the tuner and the library's
 * NULL-config lookup agree on it by construction. */
#include "conv1d.h"
#include "ops.h"
#include "harness.h"
#include "tk_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

/* The most multiply-adds a problem may ask of the double CPU reference (about ten seconds on
 * 16 cores; a 64 Mi signal with a 16 Ki filter, 2^40, would take minutes). */
#define CONV1D_MAX_MACS ((int64_t)1 << 38)

static const char *const cv_ops[] = { "full" };
static const char *const cv_dtypes[] = { "f32" };
static const problem_field cv_fields[] = {
    { "len_a", 1, 1, (int64_t)1 << 32, 0 },
    { "len_b", 1, 1, (int64_t)1 << 32, 0 },
};

struct op_instance {
    int64_t len_a, len_b, len_out;
    float *a, *b, *out;      /* device */
    double *ref;             /* device, len_out doubles */
    double rtol, atol;
    double tolerance_scale;
};

/* ---- the reference and the tolerance (conv1d.h) ---- */

typedef struct cv_ref_job {
    const double *a, *b;
    int64_t len_a, len_b;
    int64_t scale;           /* index units per output */
    double *out;
} cv_ref_job;

/* Outputs [ceil(begin / scale), ceil(end / scale)): consecutive ranges partition the outputs. */
static void cv_ref_chunk(void *ctx, int64_t begin, int64_t end)
{
    const cv_ref_job *j = ctx;
    const int64_t first = (begin + j->scale - 1) / j->scale, last = (end + j->scale - 1) / j->scale;
    for (int64_t n = first; n < last; n++) {
        const int64_t lo = n - j->len_a + 1 > 0 ? n - j->len_a + 1 : 0;
        const int64_t hi = n < j->len_b - 1 ? n : j->len_b - 1;
        /* four partial sums: independent add chains run about 4x faster than one */
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
        int64_t m = lo;
        for (; m + 3 <= hi; m += 4) {
            s0 += j->a[n - m] * j->b[m];
            s1 += j->a[n - m - 1] * j->b[m + 1];
            s2 += j->a[n - m - 2] * j->b[m + 2];
            s3 += j->a[n - m - 3] * j->b[m + 3];
        }
        for (; m <= hi; m++) s0 += j->a[n - m] * j->b[m];
        j->out[n] = (s0 + s1) + (s2 + s3);
    }
}

void conv1d_reference(const double *a, int64_t len_a, const double *b, int64_t len_b,
                      double *out)
{
    const int64_t len_out = len_a + len_b - 1;
    /* harness_parallel_for splits its index space into fixed chunks: give it at least 2^26
     * units, so that short outputs (whose every element may sum thousands of terms) still
     * spread over every core */
    const int64_t units = (int64_t)1 << 26;
    cv_ref_job job = { a, b, len_a, len_b, len_out >= units ? 1 : (units + len_out - 1) / len_out,
                       out };
    harness_parallel_for(len_out * job.scale, cv_ref_chunk, &job);
}

void conv1d_tolerance(int64_t len_a, int64_t len_b, double *rtol, double *atol)
{
    const double u = ldexp(1.0, -24);
    const double l = (double)(len_a < len_b ? len_a : len_b);
    const double steps = fmin(l + 1.0, 4.0 * sqrt(l));
    const double sum_abs = fmin(l, l / 4.0 + 2.0 * sqrt(l)) * CONV1D_INPUT_BOUND *
                           CONV1D_INPUT_BOUND;
    *atol = u * steps * sum_abs;
    *rtol = 2.0 * u;
}

/* ---- parent side ---- */

static int cv_check_problem(OP_SELF, const char *op, const char *dtype, const problem *p, char *err,
                            size_t len)
{
    (void)op; (void)dtype;
    const int64_t la = problem_int(p, "len_a", 0), lb = problem_int(p, "len_b", 0);
    if (la < 1 || lb < 1) {
        snprintf(err, len, "conv1d: len_a and len_b must be at least 1");
        return -1;
    }
    if (la > CONV1D_MAX_MACS / lb) {
        snprintf(err, len, "conv1d: len_a * len_b = %.3g multiply-adds; the double CPU reference "
                 "takes at most 2^38 (%.3g)", (double)la * (double)lb, (double)CONV1D_MAX_MACS);
        return -1;
    }
    return 0;
}

static int64_t cv_elements(OP_SELF, const problem *p)
{
    return problem_int(p, "len_a", 0) + problem_int(p, "len_b", 0) - 1;
}

static int64_t cv_bytes_moved(OP_SELF, const char *op, const char *dtype, const problem *p)
{
    (void)op; (void)dtype;
    return (int64_t)sizeof(float) *
           (problem_int(p, "len_a", 0) + problem_int(p, "len_b", 0) + cv_elements(self, p));
}

static int64_t cv_size_key(OP_SELF, const problem *p)
{
    return tk_conv1d_size_key(problem_int(p, "len_a", 0), problem_int(p, "len_b", 0));
}

static int cv_default_config(OP_SELF, const char *dtype, char *buf, size_t len)
{
    if (strcmp(dtype, "f32") != 0) return -1;
    const tk_conv1d_config c = tk_conv1d_default_config();
    const tk_config_space *sp = tk_conv1d_config_space();
    const char *impl = NULL;
    for (int i = 0; i < sp->n_params; i++)
        if (strcmp(sp->params[i].name, "impl") == 0 && sp->params[i].str_values &&
            (int)c.impl >= 0 && (int)c.impl < sp->params[i].n_values)
            impl = sp->params[i].str_values[c.impl];
    if (!impl) return -1;
    snprintf(buf, len, "block_size=%d,impl=%s,outputs_per_thread=%d", c.block_size, impl,
             c.outputs_per_thread);
    return 0;
}

/* ---- worker side ---- */

static void cv_release(op_instance *inst)
{
    if (!inst) return;
    cudaFree(inst->a);
    cudaFree(inst->b);
    cudaFree(inst->out);
    cudaFree(inst->ref);
    free(inst);
}

/* Allocates the instance; the worker releases it with cv_release. */
static int cv_prepare(OP_SELF, const char *op, const char *dtype, const problem *p, uint64_t seed,
                      op_instance **out, char *err, size_t len)
{
    *out = NULL;
    if (strcmp(op, "full") != 0 || strcmp(dtype, "f32") != 0) {
        snprintf(err, len, "conv1d: unknown op or dtype %s/%s", op, dtype);
        return -1;
    }
    int rc = -1;
    float *ha = NULL, *hb = NULL;
    double *ea = NULL, *eb = NULL, *ref = NULL;
    op_instance *inst = calloc(1, sizeof *inst);
    if (!inst) { snprintf(err, len, "out of host memory"); goto done; }
    inst->len_a = problem_int(p, "len_a", 0);
    inst->len_b = problem_int(p, "len_b", 0);
    inst->len_out = inst->len_a + inst->len_b - 1;
    inst->tolerance_scale = 1.0;
    conv1d_tolerance(inst->len_a, inst->len_b, &inst->rtol, &inst->atol);
    const int64_t la = inst->len_a, lb = inst->len_b, lo = inst->len_out;
    ha = malloc((size_t)la * sizeof *ha);
    hb = malloc((size_t)lb * sizeof *hb);
    ea = malloc((size_t)la * sizeof *ea);
    eb = malloc((size_t)lb * sizeof *eb);
    ref = malloc((size_t)lo * sizeof *ref);
    if (!ha || !hb || !ea || !eb || !ref) {
        snprintf(err, len, "out of host memory (len_a = %lld, len_b = %lld)", (long long)la,
                 (long long)lb);
        goto done;
    }
    const uint64_t input_seed = harness_seed(seed, op, dtype, p);
    harness_fill_uniform(input_seed, 0, TK_F32, la, -CONV1D_INPUT_BOUND, CONV1D_INPUT_BOUND, ha,
                         ea);
    harness_fill_uniform(input_seed, 1, TK_F32, lb, -CONV1D_INPUT_BOUND, CONV1D_INPUT_BOUND, hb,
                         eb);
    conv1d_reference(ea, la, eb, lb, ref);
    if (harness_upload((void **)&inst->a, ha, (size_t)la * sizeof *ha, err, len) ||
        harness_upload((void **)&inst->b, hb, (size_t)lb * sizeof *hb, err, len) ||
        harness_upload((void **)&inst->ref, ref, (size_t)lo * sizeof *ref, err, len) ||
        harness_upload((void **)&inst->out, NULL, (size_t)lo * sizeof(float), err, len))
        goto done;
    *out = inst;
    inst = NULL;
    rc = 0;
done:
    cv_release(inst);
    free(ha);
    free(hb);
    free(ea);
    free(eb);
    free(ref);
    return rc;
}

static void cv_set_tolerance_scale(op_instance *inst, double scale)
{
    inst->tolerance_scale = scale;
}

static int cv_poison(op_instance *inst, char *err, size_t len)
{
    tk_status st = tk_check_poison(TK_F32, inst->len_out, inst->out, 0);
    if (st != TK_OK) { snprintf(err, len, "poison: %s", tk_status_string(st)); return -1; }
    return 0;
}

static tk_status cv_launch(op_instance *inst, const char *config, cudaStream_t stream, char *err,
                           size_t len)
{
    tk_conv1d_config cfg;
    tk_status st = tk_conv1d_config_from_text(config, &cfg);
    if (st != TK_OK) {
        snprintf(err, len, "config '%s': %s", config, tk_status_string(st));
        return st;
    }
    st = tk_conv1d_full(inst->a, inst->len_a, inst->b, inst->len_b, inst->out, &cfg, stream);
    if (st != TK_OK) snprintf(err, len, "%s", tk_status_string(st));
    return st;
}

static int cv_validate(op_instance *inst, char *err, size_t len)
{
    return harness_compare(TK_F32, inst->len_out, inst->out, inst->ref,
                           inst->rtol * inst->tolerance_scale, inst->atol * inst->tolerance_scale,
                           err, len);
}

const op_family op_family_conv1d = {
    .kernel = "conv1d",
    .n_ops = 1, .ops = cv_ops,
    .n_dtypes = 1, .dtypes = cv_dtypes,
    .n_fields = 2, .fields = cv_fields,
    .config_space = tk_conv1d_config_space,
    .check_problem = cv_check_problem,
    .bytes_moved = cv_bytes_moved,
    .elements = cv_elements,
    .size_key = cv_size_key,
    .default_config = cv_default_config,
    .prepare = cv_prepare,
    .set_tolerance_scale = cv_set_tolerance_scale,
    .poison = cv_poison,
    .launch = cv_launch,
    .validate = cv_validate,
    .release = cv_release,
};
