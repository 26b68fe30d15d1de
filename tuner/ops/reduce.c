/* reduce.c: the reduce family's harness: ops sum, max, min over f32/f16/bf16 inputs (float
 * result), problems { n, offset } where offset shifts the input pointer by that many elements
 * (offset 1 puts it one element past a 16-byte boundary: versions 8 and 9 peel a head).
 * Inputs are uniform in [-1, 2) (reduce.h says why), generated on the GPU in the dtype
 * (gpu_fill.h); the elements around the input (offset before it, 16 after) hold NaN, so a
 * variant that reads outside x[0 .. n) returns NaN and fails. The reference is computed on the
 * GPU in double from the stored values, once per problem (gpu_ref_sums; reduce_reference below
 * is its CPU twin, which the tests compare it with). max and min
 * must match exactly; the sum's tolerance is the rigorous bound for the launched config's error
 * depth (tk_reduce_plan_for; reduce.h gives the formula). The result's neighbour out[1] is
 * poisoned too and must stay untouched. Variants run through the library's public tk_reduce. */
#include "reduce.h"
#include "ops.h"
#include "harness.h"
#include "gpu_fill.h"
#include "tk_check.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

enum red_op { RED_SUM = TK_REDUCE_SUM, RED_MAX = TK_REDUCE_MAX, RED_MIN = TK_REDUCE_MIN };
static const char *const red_ops[] = { "sum", "max", "min" };
static const char *const red_dtypes[] = { "f32", "f16", "bf16" };
static const problem_field red_fields[] = {
    { "n", 1, 1, (int64_t)1 << 40, 0 },
    { "offset", 0, 0, 15, 0 },
};
/* Elements after the input that hold NaN. */
#define RED_GUARD 16

struct op_instance {
    enum red_op op;
    tk_dtype dtype;
    int64_t n, offset;
    void *in;                /* device, offset + n + RED_GUARD elements */
    float *out;              /* device, 2 floats: the result and a guard */
    double *ref;             /* device, 1 double */
    double sum_abs;
    double tolerance_scale;
    char config[256];        /* the config last launched ("" before the first) */
    tk_reduce_config cfg;    /* ... parsed */
    int64_t depth;           /* ... its error depth for this problem */
};

/* ---- the reference and the tolerance (reduce.h) ---- */

typedef struct red_ref_job {
    tk_dtype dtype;
    const char *x;
    pthread_mutex_t lock;
    reduce_ref total;
} red_ref_job;

static double nan_max(double a, double b) { return a > b || a != a ? a : b; }
static double nan_min(double a, double b) { return a < b || a != a ? a : b; }

static void red_ref_chunk(void *ctx, int64_t begin, int64_t end)
{
    red_ref_job *j = ctx;
    enum { BUF = 4096 };
    double v[BUF];
    reduce_ref r = { 0.0, 0.0, -INFINITY, INFINITY };
    const size_t es = tk_dtype_size(j->dtype);
    for (int64_t base = begin; base < end; base += BUF) {
        const int64_t m = end - base < BUF ? end - base : BUF;
        tk_host_to_double(j->dtype, j->x + (size_t)base * es, v, m);
        for (int64_t i = 0; i < m; i++) {
            r.sum += v[i];
            r.sum_abs += fabs(v[i]);
            r.max = nan_max(r.max, v[i]);
            r.min = nan_min(r.min, v[i]);
        }
    }
    pthread_mutex_lock(&j->lock);
    j->total.sum += r.sum;
    j->total.sum_abs += r.sum_abs;
    j->total.max = nan_max(j->total.max, r.max);
    j->total.min = nan_min(j->total.min, r.min);
    pthread_mutex_unlock(&j->lock);
}

void reduce_reference(tk_dtype dtype, const void *x, int64_t n, reduce_ref *out)
{
    red_ref_job job;
    job.dtype = dtype;
    job.x = x;
    pthread_mutex_init(&job.lock, NULL);
    job.total = (reduce_ref){ 0.0, 0.0, -INFINITY, INFINITY };
    if (n > 0) harness_parallel_for(n, red_ref_chunk, &job);
    pthread_mutex_destroy(&job.lock);
    *out = job.total;
}

double reduce_sum_atol(int64_t depth, double sum_abs)
{
    const double u = ldexp(1.0, -24);
    const double ku = (double)depth * u;
    if (depth < 0 || ku >= 1.0) return INFINITY;
    return ku / (1.0 - ku) * sum_abs + (double)depth * FLT_MIN;
}

/* ---- parent side ---- */

static int red_check_problem(OP_SELF, const char *op, const char *dtype, const problem *p, char *err,
                             size_t len)
{
    (void)op; (void)dtype; (void)p; (void)err; (void)len;
    return 0;   /* the field ranges say everything */
}

static int64_t red_elements(OP_SELF, const problem *p) { return problem_int(p, "n", 0); }

/* Each input element read once, one float written. */
static int64_t red_bytes_moved(OP_SELF, const char *op, const char *dtype, const problem *p)
{
    int d = tk_dtype_parse(dtype);
    int known = 0;
    for (int k = 0; k < 3; k++) known |= op && strcmp(op, red_ops[k]) == 0;
    if (d < 0 || !known) return 0;
    return red_elements(self, p) * (int64_t)tk_dtype_size((tk_dtype)d) + (int64_t)sizeof(float);
}

static int64_t red_size_key(OP_SELF, const problem *p)
{
    return problem_int(p, "offset", 0) == 0 ? red_elements(self, p) : -1;
}

static int red_default_config(OP_SELF, const char *dtype, char *buf, size_t len)
{
    int d = tk_dtype_parse(dtype);
    if (d < 0) return -1;
    tk_reduce_config c = tk_reduce_default_config((tk_dtype)d);
    int w = tk_reduce_config_to_text(&c, buf, len);
    return w < 0 || (size_t)w >= len ? -1 : 0;
}

/* ---- worker side ---- */

static void red_release(op_instance *inst)
{
    if (!inst) return;
    cudaFree(inst->in);
    cudaFree(inst->out);
    cudaFree(inst->ref);
    free(inst);
}

static const void *red_input(const op_instance *inst)
{
    return (const char *)inst->in + (size_t)inst->offset * tk_dtype_size(inst->dtype);
}

/* Allocates the instance on the GPU, fills the input there (gpu_fill.h) between NaN guards and
 * computes its double sums there (gpu_ref_sums): only the four sums come back to the host. The
 * worker releases the instance with red_release. */
static int red_prepare(OP_SELF, const char *op, const char *dtype, const problem *p, uint64_t seed,
                       op_instance **out, char *err, size_t len)
{
    *out = NULL;
    int k = -1, d = tk_dtype_parse(dtype);
    for (int i = 0; i < 3; i++)
        if (strcmp(op, red_ops[i]) == 0) k = i;
    if (k < 0 || d < 0) {
        snprintf(err, len, "reduce: unknown op or dtype %s/%s", op, dtype);
        return -1;
    }
    int rc = -1;
    op_instance *inst = calloc(1, sizeof *inst);
    if (!inst) { snprintf(err, len, "out of host memory"); goto done; }
    inst->op = (enum red_op)k;
    inst->dtype = (tk_dtype)d;
    inst->n = problem_int(p, "n", 0);
    inst->offset = problem_int(p, "offset", 0);
    inst->tolerance_scale = 1.0;
    const size_t es = tk_dtype_size(inst->dtype);
    const int64_t n = inst->n, total = inst->offset + n + RED_GUARD;
    if (harness_upload(&inst->in, NULL, (size_t)total * es, err, len)) goto done;
    /* NaN everywhere (tk_check_poison's pattern is a NaN in every dtype), then the inputs */
    tk_status st = tk_check_poison(inst->dtype, total, inst->in, 0);
    if (st != TK_OK) { snprintf(err, len, "poisoning the input's guards: %s", tk_status_string(st)); goto done; }
    if (gpu_fill_uniform(inst->dtype, (char *)inst->in + (size_t)inst->offset * es, n,
                         harness_seed(seed, op, dtype, p), 0, REDUCE_INPUT_LO, REDUCE_INPUT_HI,
                         err, len))
        goto done;
    gpu_sums ref;
    if (gpu_ref_sums(inst->dtype, n, red_input(inst), &ref, err, len)) goto done;
    inst->sum_abs = ref.sum_abs;
    const double want = inst->op == RED_SUM ? ref.sum : inst->op == RED_MAX ? ref.max : ref.min;
    if (harness_upload((void **)&inst->ref, &want, sizeof want, err, len)) goto done;
    if (harness_upload((void **)&inst->out, NULL, 2 * sizeof(float), err, len)) goto done;
    *out = inst;
    inst = NULL;
    rc = 0;
done:
    red_release(inst);
    return rc;
}

static void red_set_tolerance_scale(op_instance *inst, double scale) { inst->tolerance_scale = scale; }

static int red_poison(op_instance *inst, char *err, size_t len)
{
    tk_status st = tk_check_poison(TK_F32, 2, inst->out, 0);
    if (st != TK_OK) { snprintf(err, len, "poison: %s", tk_status_string(st)); return -1; }
    return 0;
}

/* Parses and plans a config the first time it is launched (the timed launches after it repeat
 * only the library call). */
static tk_status red_launch(op_instance *inst, const char *config, cudaStream_t stream, char *err,
                            size_t len)
{
    tk_status st;
    if (strcmp(config, inst->config) != 0) {
        tk_reduce_config c;
        tk_reduce_plan plan;
        inst->config[0] = 0;
        st = tk_reduce_config_from_text(config, &c);
        if (st == TK_OK && !tk_reduce_config_supported(&c, inst->dtype)) st = TK_ERR_UNSUPPORTED_CONFIG;
        if (st != TK_OK) {
            snprintf(err, len, "config '%s': %s", config, tk_status_string(st));
            return st;
        }
        st = tk_reduce_plan_for(inst->dtype, inst->n, red_input(inst), &c, &plan);
        if (st != TK_OK) {
            snprintf(err, len, "plan of '%s' for n = %lld: %s", config, (long long)inst->n,
                     tk_status_string(st));
            return st;
        }
        inst->cfg = c;
        inst->depth = plan.error_depth;
        if (strlen(config) < sizeof inst->config) strcpy(inst->config, config);
    }
    st = tk_reduce((tk_reduce_op)inst->op, inst->dtype, inst->n, red_input(inst), inst->out,
                   &inst->cfg, stream);
    if (st != TK_OK) snprintf(err, len, "%s", tk_status_string(st));
    return st;
}

static int red_validate(op_instance *inst, char *err, size_t len)
{
    float guard = 0.0f;
    cudaError_t e = cudaMemcpy(&guard, inst->out + 1, sizeof guard, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        snprintf(err, len, "reading the result's guard: %s", cudaGetErrorString(e));
        return -1;
    }
    if (guard == guard) {
        snprintf(err, len, "wrote %.9g past the result (out[1])", (double)guard);
        return 1;
    }
    double atol = 0.0;
    if (inst->op == RED_SUM)
        atol = reduce_sum_atol(inst->depth, inst->sum_abs) * inst->tolerance_scale;
    return harness_compare(TK_F32, 1, inst->out, inst->ref, 0.0, atol, err, len);
}

const op_family op_family_reduce = {
    .kernel = "reduce",
    .n_ops = 3, .ops = red_ops,
    .n_dtypes = 3, .dtypes = red_dtypes,
    .n_fields = 2, .fields = red_fields,
    .config_space = tk_reduce_config_space,
    .check_problem = red_check_problem,
    .bytes_moved = red_bytes_moved,
    .elements = red_elements,
    .size_key = red_size_key,
    .default_config = red_default_config,
    .prepare = red_prepare,
    .set_tolerance_scale = red_set_tolerance_scale,
    .poison = red_poison,
    .launch = red_launch,
    .validate = red_validate,
    .release = red_release,
};
