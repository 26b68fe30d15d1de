/* selftest.c: the harness of "selftest", a test-only op family whose variants misbehave on
 * purpose, so a GPU test can prove that every kind of bad variant costs one row and never the
 * run. Op `copy` over f32, problem field n; parameters `behaviour` (correct, wrong, oob, hang,
 * abort, unsupported) and `block_size` (64, 128, 256). Expected statuses: correct -> ok,
 * wrong -> invalid, oob -> fault, hang -> timeout, abort -> fault (the worker process calls
 * abort()), unsupported -> unsupported. Kernels: tuner/ops/selftest_kernels.cu. */
#include "ops.h"
#include "harness.h"
#include "selftest_kernels.h"
#include "tk_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

enum { ST_CORRECT, ST_WRONG, ST_OOB, ST_HANG, ST_ABORT, ST_UNSUPPORTED, ST_N_BEHAVIOURS };

static const char *const st_ops[] = { "copy" };
static const char *const st_dtypes[] = { "f32" };
static const problem_field st_fields[] = {
    { "n", 1, 1, (int64_t)1 << 30, 0 },
};
static const char *const st_behaviours[ST_N_BEHAVIOURS] = {
    "correct", "wrong", "oob", "hang", "abort", "unsupported",
};
static const int64_t st_block_sizes[] = { 64, 128, 256 };

/* Parameter order of the space (tk_config_parse fills values in this order). */
enum { P_BEHAVIOUR, P_BLOCK_SIZE, P_COUNT };
static const tk_param_desc st_params[P_COUNT] = {
    { .name = "behaviour", .compile_time = 0, .n_values = ST_N_BEHAVIOURS,
      .str_values = st_behaviours, .default_value = ST_CORRECT },
    { .name = "block_size", .compile_time = 0, .n_values = 3, .int_values = st_block_sizes,
      .default_value = 128 },
};
static const tk_config_space st_space = { "selftest", P_COUNT, st_params };

static const tk_config_space *st_config_space(void) { return &st_space; }

struct op_instance {
    int64_t n;
    float *x, *y;            /* device, n floats each */
    double *ref;             /* device, the expected output (= x) */
    int *flag;               /* device, 0: what the hang kernel waits on */
};

static int st_check_problem(OP_SELF, const char *op, const char *dtype, const problem *p, char *err,
                            size_t len)
{
    (void)op; (void)dtype; (void)p; (void)err; (void)len;
    return 0;   /* the field range says everything */
}

static int64_t st_elements(OP_SELF, const problem *p) { return problem_int(p, "n", 0); }

static int64_t st_bytes_moved(OP_SELF, const char *op, const char *dtype, const problem *p)
{
    (void)op; (void)dtype;
    return 2 * st_elements(self, p) * (int64_t)sizeof(float);
}

static int64_t st_size_key(OP_SELF, const problem *p) { return st_elements(self, p); }

static void st_release(op_instance *inst)
{
    if (!inst) return;
    cudaFree(inst->x);
    cudaFree(inst->y);
    cudaFree(inst->ref);
    cudaFree(inst->flag);
    free(inst);
}

/* Allocates the instance; the worker releases it with st_release. */
static int st_prepare(OP_SELF, const char *op, const char *dtype, const problem *p, uint64_t seed,
                      op_instance **out, char *err, size_t len)
{
    *out = NULL;
    int rc = -1;
    float *host_x = NULL;
    double *exact = NULL;
    op_instance *inst = calloc(1, sizeof *inst);
    int64_t n = st_elements(self, p);
    if (!inst) { snprintf(err, len, "out of host memory"); goto done; }
    inst->n = n;
    host_x = malloc((size_t)n * sizeof *host_x);
    exact = malloc((size_t)n * sizeof *exact);
    if (!host_x || !exact) {
        snprintf(err, len, "out of host memory (n = %lld)", (long long)n);
        goto done;
    }
    harness_fill_uniform(harness_seed(seed, op, dtype, p), 0, TK_F32, n, -4.0, 4.0, host_x, exact);
    static const int zero = 0;
    if (harness_upload((void **)&inst->x, host_x, (size_t)n * sizeof(float), err, len) ||
        harness_upload((void **)&inst->y, NULL, (size_t)n * sizeof(float), err, len) ||
        harness_upload((void **)&inst->ref, exact, (size_t)n * sizeof(double), err, len) ||
        harness_upload((void **)&inst->flag, &zero, sizeof zero, err, len))
        goto done;
    *out = inst;
    inst = NULL;
    rc = 0;
done:
    st_release(inst);
    free(host_x);
    free(exact);
    return rc;
}

/* A copy is exact whatever the space's tolerance scale: validation compares with rtol = atol =
 * 0, so the scale has nothing to multiply. */
static void st_set_tolerance_scale(op_instance *inst, double scale)
{
    (void)inst;
    (void)scale;
}

static int st_poison(op_instance *inst, char *err, size_t len)
{
    tk_status st = tk_check_poison(TK_F32, inst->n, inst->y, 0);
    if (st != TK_OK) { snprintf(err, len, "poison: %s", tk_status_string(st)); return -1; }
    return 0;
}

static tk_status st_launch(op_instance *inst, const char *config, cudaStream_t stream, char *err,
                           size_t len)
{
    int64_t v[P_COUNT];
    tk_status st = tk_config_parse(&st_space, config, v);
    if (st != TK_OK) {
        snprintf(err, len, "config '%s': %s", config, tk_status_string(st));
        return st;
    }
    selftest_kernel_kind kind;
    switch (v[P_BEHAVIOUR]) {
    case ST_UNSUPPORTED:
        snprintf(err, len, "selftest: behaviour=unsupported has no variant");
        return TK_ERR_UNSUPPORTED_CONFIG;
    case ST_ABORT:
        abort();   /* on purpose: the worker process dies during the launch */
    case ST_WRONG: kind = SELFTEST_KERNEL_WRONG; break;
    case ST_OOB: kind = SELFTEST_KERNEL_OOB; break;
    case ST_HANG: kind = SELFTEST_KERNEL_HANG; break;
    default: kind = SELFTEST_KERNEL_CORRECT; break;
    }
    cudaError_t e = selftest_copy_launch(kind, (int)v[P_BLOCK_SIZE], inst->n, inst->x, inst->y,
                                         inst->flag, stream);
    if (e != cudaSuccess) {
        snprintf(err, len, "selftest launch: %s: %s", cudaGetErrorName(e), cudaGetErrorString(e));
        return TK_ERR_LAUNCH;
    }
    return TK_OK;
}

static int st_validate(op_instance *inst, char *err, size_t len)
{
    return harness_compare(TK_F32, inst->n, inst->y, inst->ref, 0.0, 0.0, err, len);
}

const op_family op_family_selftest = {
    .kernel = "selftest",
    .n_ops = 1, .ops = st_ops,
    .n_dtypes = 1, .dtypes = st_dtypes,
    .n_fields = 1, .fields = st_fields,
    .config_space = st_config_space,
    .check_problem = st_check_problem,
    .bytes_moved = st_bytes_moved,
    .elements = st_elements,
    .size_key = st_size_key,
    .prepare = st_prepare,
    .set_tolerance_scale = st_set_tolerance_scale,
    .poison = st_poison,
    .launch = st_launch,
    .validate = st_validate,
    .release = st_release,
};
