/* atomic.c: the atomic family's harness: op dot (out[out_index] += x . y) over f16 and bf16,
 * through tk_atomic_dot. Problems { n, offset, out_len, out_index, out_offset }: offset shifts x
 * and y by that many elements (odd: scalar loads or a peeled head); the output buffer of out_len
 * elements starts out_offset elements past a 4-byte boundary, between two guard elements on
 * each side, so the fast add's partner choice meets both alignments and both ends.
 * Inputs x, y are uniform in [-1, 1) (products of random sign: the exact result is a random
 * walk of size sqrt(n / 9), ~1930 at n = 32 Mi, far inside half's range); the output buffer and
 * guards start as uniform [-1, 1) values, restored before every validated launch ("poison":
 * the op accumulates, so its starting values are its poison), and every element but the target
 * must come back bit for bit. The target's tolerance (atomic_tolerance) follows from the dtype's
 * unit roundoff and the number of rounded atomic adds the config makes (tk_atomic_dot_adds). */
#include "atomic.h"
#include "ops.h"
#include "harness.h"
#include "tk_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

static const char *const at_ops[] = { "dot" };
static const char *const at_dtypes[] = { "f16", "bf16" };
static const problem_field at_fields[] = {
    { "n", 1, 1, (int64_t)1 << 34, 0 },
    { "offset", 0, 0, 15, 0 },
    { "out_index", 0, 0, 1023, 0 },
    { "out_len", 0, 1, 1024, 2 },
    { "out_offset", 0, 0, 1, 0 },
};

/* Guard elements on each side of the output buffer. */
enum { AT_GUARD = 2 };

struct op_instance {
    tk_dtype dtype;
    int64_t n, offset, out_len, out_index, out_offset;
    void *x, *y;             /* device, n + offset + 16 elements */
    void *out;               /* device: guards, out_offset, out_len elements, guards */
    void *out_start;         /* device: the starting values of out (restored by poison) */
    int64_t out_total;       /* elements of out */
    void *workspace;         /* device, tk_atomic_dot_workspace_bytes() */
    double *ref;             /* device, out_total doubles */
    double target_start;     /* out0[target] */
    double sum_sq;           /* sum of (x_i y_i)^2 */
    double expected;         /* reference value of the target */
    tk_atomic_config last;   /* the config of the last launch (validation's tolerance) */
    double tolerance_scale;
};

static int at_check_problem(OP_SELF, const char *op, const char *dtype, const problem *p, char *err,
                            size_t len)
{
    (void)op; (void)dtype;
    int64_t out_len = problem_int(p, "out_len", 2), out_index = problem_int(p, "out_index", 0);
    if (out_index >= out_len) {
        snprintf(err, len, "out_index %lld must be below out_len %lld", (long long)out_index,
                 (long long)out_len);
        return -1;
    }
    return 0;
}

static int64_t at_elements(OP_SELF, const problem *p) { return problem_int(p, "n", 0); }

/* Reads x and y once; the one result element is negligible. */
static int64_t at_bytes_moved(OP_SELF, const char *op, const char *dtype, const problem *p)
{
    (void)op;
    int d = tk_dtype_parse(dtype);
    return d < 0 ? 0 : 2 * at_elements(self, p) * (int64_t)tk_dtype_size((tk_dtype)d);
}

/* Header entries: aligned inputs and the standard output (two elements, target first, on a
 * 4-byte boundary, so every strategy including half2_pack runs). */
static int64_t at_size_key(OP_SELF, const problem *p)
{
    return problem_int(p, "offset", 0) == 0 && problem_int(p, "out_offset", 0) == 0 &&
                   problem_int(p, "out_len", 2) == 2 && problem_int(p, "out_index", 0) == 0
               ? at_elements(self, p)
               : -1;
}

static const char *const at_strategy_names[] = { "half", "half2_pack", "fast", "float_acc",
                                                 "block_reduce" };

static int at_default_config(OP_SELF, const char *dtype, char *buf, size_t len)
{
    if (tk_dtype_parse(dtype) < 0) return -1;
    tk_atomic_config c = tk_atomic_default_config();
    snprintf(buf, len, "block_size=%d,cache_hint=%s,strategy=%s,waves=%d", c.block_size,
             c.cache_hint == TK_CACHE_EVICT_FIRST ? "evict_first" : "normal",
             at_strategy_names[c.strategy], c.waves);
    return 0;
}

/* The tolerance of the target element (atomic.h), a 6-sigma bound on the rounding errors:
 *   - each of the k16 atomic adds in the dtype rounds the running sum s, an error uniform in
 *     +-u|s| (variance u^2 s^2 / 3); the partials arrive in an order unrelated to their values
 *     and of random sign, so s is start + a random walk whose variance grows linearly to
 *     sum_sq: the sum of s^2 over the adds is k16 (start^2 + sum_sq / 2);
 *   - rounding each partial to the dtype once: u^2 sum_sq / 3;
 *   - float: each thread's `terms` products (uf^2 sum_sq per term), the k32 adds into the
 *     float accumulator (uf^2 k32 sum_sq / 6), and a block's tree of sums (10 uf^2 sum_sq);
 * plus the last rounding of the result, u |expected|, taken whole, and one subnormal step. */
double atomic_tolerance(tk_dtype dtype, int64_t k16, int64_t k32, int64_t terms, double start,
                        double sum_sq, double expected)
{
    const double u = harness_unit_roundoff(dtype), uf = harness_unit_roundoff(TK_F32);
    const double var16 = u * u * ((double)k16 * (start * start + sum_sq / 2) / 3 + sum_sq / 3);
    const double var32 = uf * uf * sum_sq * ((double)terms + (double)k32 / 6 + 10);
    return 6 * sqrt(var16 + var32) + u * fabs(expected) + ldexp(1.0, -24);
}

static void at_release(op_instance *inst)
{
    if (!inst) return;
    cudaFree(inst->x);
    cudaFree(inst->y);
    cudaFree(inst->out);
    cudaFree(inst->out_start);
    cudaFree(inst->workspace);
    cudaFree(inst->ref);
    free(inst);
}

/* Allocates the instance; the worker releases it with at_release. */
static int at_prepare(OP_SELF, const char *op, const char *dtype, const problem *p, uint64_t seed,
                      op_instance **out, char *err, size_t len)
{
    *out = NULL;
    int d = tk_dtype_parse(dtype);
    if (strcmp(op, "dot") != 0 || (d != TK_F16 && d != TK_BF16)) {
        snprintf(err, len, "atomic: unknown op or dtype %s/%s", op, dtype);
        return -1;
    }
    int rc = -1;
    void *host = NULL;
    double *ex = NULL, *ey = NULL, *ref = NULL;
    op_instance *inst = calloc(1, sizeof *inst);
    if (!inst) { snprintf(err, len, "out of host memory"); goto done; }
    inst->dtype = (tk_dtype)d;
    inst->n = problem_int(p, "n", 0);
    inst->offset = problem_int(p, "offset", 0);
    inst->out_len = problem_int(p, "out_len", 2);
    inst->out_index = problem_int(p, "out_index", 0);
    inst->out_offset = problem_int(p, "out_offset", 0);
    inst->last = tk_atomic_default_config();
    inst->tolerance_scale = 1.0;
    const size_t es = tk_dtype_size(inst->dtype);
    const int64_t n = inst->n, alloc = n + inst->offset + 16;
    uint64_t input_seed = harness_seed(seed, op, dtype, p);

    host = calloc((size_t)alloc, es);
    ex = malloc((size_t)n * sizeof *ex);
    ey = malloc((size_t)n * sizeof *ey);
    if (!host || !ex || !ey) { snprintf(err, len, "out of host memory (n = %lld)", (long long)n); goto done; }
    char *at = (char *)host + (size_t)inst->offset * es;
    harness_fill_uniform(input_seed, 0, inst->dtype, n, -1.0, 1.0, at, ex);
    if (harness_upload(&inst->x, host, (size_t)alloc * es, err, len)) goto done;
    harness_fill_uniform(input_seed, 1, inst->dtype, n, -1.0, 1.0, at, ey);
    if (harness_upload(&inst->y, host, (size_t)alloc * es, err, len)) goto done;

    /* x . y in double, in order (one pass: deterministic) */
    double sum = 0, sum_sq = 0;
    for (int64_t i = 0; i < n; i++) {
        const double t = ex[i] * ey[i];
        sum += t;
        sum_sq += t * t;
    }
    inst->sum_sq = sum_sq;

    /* the output buffer: [AT_GUARD + out_offset guards][out_len][AT_GUARD guards] */
    const int64_t lead = AT_GUARD + inst->out_offset, total = lead + inst->out_len + AT_GUARD;
    inst->out_total = total;
    ref = malloc((size_t)total * sizeof *ref);
    if (!ref) { snprintf(err, len, "out of host memory"); goto done; }
    harness_fill_uniform(input_seed, 2, inst->dtype, total, -1.0, 1.0, host, ref);
    inst->target_start = ref[lead + inst->out_index];
    inst->expected = ref[lead + inst->out_index] + sum;
    ref[lead + inst->out_index] = inst->expected;
    if (harness_upload(&inst->out_start, host, (size_t)total * es, err, len)) goto done;
    if (harness_upload(&inst->out, host, (size_t)total * es, err, len)) goto done;
    if (harness_upload((void **)&inst->ref, ref, (size_t)total * sizeof *ref, err, len)) goto done;
    if (harness_upload(&inst->workspace, NULL, tk_atomic_dot_workspace_bytes(), err, len)) goto done;
    *out = inst;
    inst = NULL;
    rc = 0;
done:
    at_release(inst);
    free(host);
    free(ex);
    free(ey);
    free(ref);
    return rc;
}

static void at_set_tolerance_scale(op_instance *inst, double scale) { inst->tolerance_scale = scale; }

static int at_poison(op_instance *inst, char *err, size_t len)
{
    cudaError_t e = cudaMemcpy(inst->out, inst->out_start,
                               (size_t)inst->out_total * tk_dtype_size(inst->dtype),
                               cudaMemcpyDeviceToDevice);
    if (e != cudaSuccess) {
        snprintf(err, len, "restoring the output: %s", cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

static char *elem_ptr(void *base, const op_instance *inst, int64_t k)
{
    return (char *)base + (size_t)k * tk_dtype_size(inst->dtype);
}

static tk_status at_launch(op_instance *inst, const char *config, cudaStream_t stream, char *err,
                           size_t len)
{
    tk_atomic_config cfg;
    tk_status st = tk_atomic_config_from_text(config, &cfg);
    if (st != TK_OK) {
        snprintf(err, len, "config '%s': %s", config, tk_status_string(st));
        return st;
    }
    inst->last = cfg;
    st = tk_atomic_dot(inst->dtype, inst->n, elem_ptr(inst->x, inst, inst->offset),
                       elem_ptr(inst->y, inst, inst->offset),
                       elem_ptr(inst->out, inst, AT_GUARD + inst->out_offset), inst->out_len,
                       inst->out_index, inst->workspace, &cfg, stream);
    if (st != TK_OK) snprintf(err, len, "%s", tk_status_string(st));
    return st;
}

/* Every element but the target exactly as it started; the target within atomic_tolerance. */
static int at_validate(op_instance *inst, char *err, size_t len)
{
    int64_t k16 = 0, k32 = 0, terms = 0;
    tk_status st = tk_atomic_dot_adds(inst->dtype, inst->n, elem_ptr(inst->x, inst, inst->offset),
                                      elem_ptr(inst->y, inst, inst->offset), &inst->last, &k16,
                                      &k32, &terms);
    if (st != TK_OK) {
        snprintf(err, len, "tk_atomic_dot_adds: %s", tk_status_string(st));
        return -1;
    }
    const double tol = inst->tolerance_scale *
                       atomic_tolerance(inst->dtype, k16, k32, terms, inst->target_start,
                                        inst->sum_sq, inst->expected);
    const int64_t target = AT_GUARD + inst->out_offset + inst->out_index;
    int rc = harness_compare(inst->dtype, target, inst->out, inst->ref, 0, 0, err, len);
    if (rc == 0)
        rc = harness_compare(inst->dtype, 1, elem_ptr(inst->out, inst, target), inst->ref + target,
                             0, tol, err, len);
    if (rc == 0)
        rc = harness_compare(inst->dtype, inst->out_total - target - 1,
                             elem_ptr(inst->out, inst, target + 1), inst->ref + target + 1, 0, 0,
                             err, len);
    if (rc == 1) {
        size_t w = strlen(err);
        snprintf(err + w, len - w, " (target element %lld of the buffer, %lld %s adds)",
                 (long long)target, (long long)k16, tk_dtype_name(inst->dtype));
    }
    return rc;
}

const op_family op_family_atomic = {
    .kernel = "atomic",
    .n_ops = 1, .ops = at_ops,
    .n_dtypes = 2, .dtypes = at_dtypes,
    .n_fields = 5, .fields = at_fields,
    .config_space = tk_atomic_config_space,
    .check_problem = at_check_problem,
    .bytes_moved = at_bytes_moved,
    .elements = at_elements,
    .size_key = at_size_key,
    .default_config = at_default_config,
    .prepare = at_prepare,
    .set_tolerance_scale = at_set_tolerance_scale,
    .poison = at_poison,
    .launch = at_launch,
    .validate = at_validate,
    .release = at_release,
};
