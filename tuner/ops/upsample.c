/* upsample.c: the upsample family's harness: ops nearest2x_fwd and nearest2x_bwd (nearest
 * upsampling by 2 x 2 and its gradient) over f32/f16/bf16; problems { N, C, H, W }, the sizes of
 * the input x (forward) or of dx (backward); the header's size key is N*C*H*W. Inputs (x, or dy
 * of 4 N*C*H*W elements) are uniform in [-4, 4), the references computed in double from the
 * dtype-rounded inputs (upsample.h). The forward must be exact (every output is an input value);
 * the backward sums four terms of magnitude below 4 and must be within
 * tk_upsample_nearest_bwd_error_bound for them. Variants run through the library's public
 * tk_upsample_nearest_fwd / _bwd entry points. */
#include "ops.h"
#include "harness.h"
#include "upsample.h"
#include "tk_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

enum up_op { UP_FWD, UP_BWD };
static const char *const up_ops[] = { "nearest2x_fwd", "nearest2x_bwd" };
static const char *const up_dtypes[] = { "f32", "f16", "bf16" };
static const problem_field up_fields[] = {
    { "N", 1, 1, (int64_t)1 << 31, 0 },
    { "C", 1, 1, (int64_t)1 << 31, 0 },
    { "H", 1, 1, (int64_t)1 << 31, 0 },
    { "W", 1, 1, (int64_t)1 << 31, 0 },
};
enum { UP_SCALE = 2 };                       /* both ops upsample by 2 x 2 */
static const double up_input_range = 4.0;    /* inputs are uniform in [-4, 4) */
/* The largest output (4 N*C*H*W elements) a problem may ask for: 2^36 elements, far beyond
 * any GPU's memory, so that no size computation here overflows. */
static const int64_t up_max_out = (int64_t)1 << 36;

struct op_instance {
    enum up_op op;
    tk_dtype dtype;
    int64_t n, c, h, w;
    int64_t n_in, n_out;     /* elements of x / dx and of y / dy */
    void *src;               /* device: x (forward) or dy (backward) */
    void *dst;               /* device: y or dx */
    int64_t n_dst;
    double *ref;             /* device, n_dst doubles */
    double tolerance_scale;
};

static int up_op_index(const char *op)
{
    for (int i = 0; i < 2; i++)
        if (strcmp(op, up_ops[i]) == 0) return i;
    return -1;
}

/* The input element count N*C*H*W of p, or -1 when 4 times it exceeds up_max_out. */
static int64_t up_input_elements(const problem *p)
{
    int64_t n = 1;
    const char *names[] = { "N", "C", "H", "W" };
    for (int i = 0; i < 4; i++) {
        int64_t v = problem_int(p, names[i], 0);
        if (v < 1 || n > up_max_out / UP_SCALE / UP_SCALE / v) return -1;
        n *= v;
    }
    return n;
}

static int up_check_problem(OP_SELF, const char *op, const char *dtype, const problem *p, char *err,
                            size_t len)
{
    (void)op; (void)dtype;
    if (up_input_elements(p) < 0) {
        snprintf(err, len, "upsample: the output (4 N*C*H*W elements) must not exceed %lld elements",
                 (long long)up_max_out);
        return -1;
    }
    return 0;
}

static int64_t up_elements(OP_SELF, const problem *p) { return up_input_elements(p); }

static int64_t up_bytes_moved(OP_SELF, const char *op, const char *dtype, const problem *p)
{
    int d = tk_dtype_parse(dtype);
    int64_t n = up_input_elements(p);
    if (up_op_index(op) < 0 || d < 0 || n < 0) return 0;
    /* read x and write y (4 n), or read dy (4 n) and write dx */
    return (1 + UP_SCALE * UP_SCALE) * n * (int64_t)tk_dtype_size((tk_dtype)d);
}

static int64_t up_size_key(OP_SELF, const problem *p) { return up_input_elements(p); }

static const char *const up_impl_names[] = { "generic", "pack2x", "vec" };

static int up_default_config(OP_SELF, const char *dtype, char *buf, size_t len)
{
    int d = tk_dtype_parse(dtype);
    if (d < 0) return -1;
    tk_upsample_config c = tk_upsample_default_config((tk_dtype)d);
    snprintf(buf, len, "block_size=%d,cache_hint=%s,impl=%s,pack_size=%d,waves=%d",
             c.block_size, c.cache_hint == TK_CACHE_EVICT_FIRST ? "evict_first" : "normal",
             up_impl_names[c.impl], c.pack_size, c.waves);
    return 0;
}

/* ---- references (upsample.h) ---- */

void upsample_ref_fwd(const double *x, int64_t nc, int64_t h, int64_t w, int sh, int sw,
                      int64_t begin, int64_t end, double *ref)
{
    (void)nc;
    const int64_t oh = h * sh, ow = w * sw;
    for (int64_t o = begin; o < end; o++) {
        int64_t col = o % ow, t = o / ow;
        int64_t row = t % oh, plane = t / oh;
        ref[o] = x[(plane * h + row / sh) * w + col / sw];
    }
}

void upsample_ref_bwd(const double *dy, int64_t nc, int64_t h, int64_t w, int sh, int sw,
                      int64_t begin, int64_t end, double *ref)
{
    (void)nc;
    const int64_t oh = h * sh, ow = w * sw;
    for (int64_t i = begin; i < end; i++) {
        int64_t col = i % w, t = i / w;
        int64_t row = t % h, plane = t / h;
        double s = 0.0;
        for (int a = 0; a < sh; a++)
            for (int b = 0; b < sw; b++)
                s += dy[(plane * oh + row * sh + a) * ow + col * sw + b];
        ref[i] = s;
    }
}

typedef struct up_ref_job {
    enum up_op op;
    const double *in;
    int64_t nc, h, w;
    double *ref;
} up_ref_job;

static void up_ref_chunk(void *ctx, int64_t begin, int64_t end)
{
    const up_ref_job *j = ctx;
    if (j->op == UP_FWD)
        upsample_ref_fwd(j->in, j->nc, j->h, j->w, UP_SCALE, UP_SCALE, begin, end, j->ref);
    else
        upsample_ref_bwd(j->in, j->nc, j->h, j->w, UP_SCALE, UP_SCALE, begin, end, j->ref);
}

/* ---- worker side ---- */

static void up_release(op_instance *inst)
{
    if (!inst) return;
    cudaFree(inst->src);
    cudaFree(inst->dst);
    cudaFree(inst->ref);
    free(inst);
}

/* Allocates the instance; the worker releases it with up_release. */
static int up_prepare(OP_SELF, const char *op, const char *dtype, const problem *p, uint64_t seed,
                      op_instance **out, char *err, size_t len)
{
    *out = NULL;
    int k = up_op_index(op), d = tk_dtype_parse(dtype);
    int64_t n_in = up_input_elements(p);
    if (k < 0 || d < 0 || n_in < 0) {
        snprintf(err, len, "upsample: unknown op or dtype %s/%s, or problem too large", op, dtype);
        return -1;
    }
    int rc = -1;
    void *host_src = NULL;
    double *exact = NULL, *ref = NULL;
    op_instance *inst = calloc(1, sizeof *inst);
    if (!inst) { snprintf(err, len, "out of host memory"); goto done; }
    inst->op = (enum up_op)k;
    inst->dtype = (tk_dtype)d;
    inst->n = problem_int(p, "N", 0);
    inst->c = problem_int(p, "C", 0);
    inst->h = problem_int(p, "H", 0);
    inst->w = problem_int(p, "W", 0);
    inst->n_in = n_in;
    inst->n_out = n_in * UP_SCALE * UP_SCALE;
    inst->tolerance_scale = 1.0;
    const size_t es = tk_dtype_size(inst->dtype);
    const int64_t n_src = inst->op == UP_FWD ? inst->n_in : inst->n_out;
    inst->n_dst = inst->op == UP_FWD ? inst->n_out : inst->n_in;

    host_src = malloc((size_t)n_src * es);
    exact = malloc((size_t)n_src * sizeof *exact);
    ref = malloc((size_t)inst->n_dst * sizeof *ref);
    if (!host_src || !exact || !ref) {
        snprintf(err, len, "out of host memory (%lld input elements)", (long long)n_src);
        goto done;
    }
    harness_fill_uniform(harness_seed(seed, op, dtype, p), 0, inst->dtype, n_src,
                         -up_input_range, up_input_range, host_src, exact);
    up_ref_job job = { inst->op, exact, inst->n * inst->c, inst->h, inst->w, ref };
    harness_parallel_for(inst->n_dst, up_ref_chunk, &job);
    if (harness_upload(&inst->src, host_src, (size_t)n_src * es, err, len)) goto done;
    if (harness_upload((void **)&inst->ref, ref, (size_t)inst->n_dst * sizeof *ref, err, len))
        goto done;
    if (harness_upload(&inst->dst, NULL, (size_t)inst->n_dst * es, err, len)) goto done;
    *out = inst;
    inst = NULL;
    rc = 0;
done:
    up_release(inst);
    free(host_src);
    free(exact);
    free(ref);
    return rc;
}

static void up_set_tolerance_scale(op_instance *inst, double scale)
{
    inst->tolerance_scale = scale;
}

static int up_poison(op_instance *inst, char *err, size_t len)
{
    tk_status st = tk_check_poison(inst->dtype, inst->n_dst, inst->dst, 0);
    if (st != TK_OK) { snprintf(err, len, "poison: %s", tk_status_string(st)); return -1; }
    return 0;
}

static tk_status up_launch(op_instance *inst, const char *config, cudaStream_t stream, char *err,
                           size_t len)
{
    tk_upsample_config cfg;
    tk_status st = tk_upsample_config_from_text(config, &cfg);
    if (st != TK_OK) {
        snprintf(err, len, "config '%s': %s", config, tk_status_string(st));
        return st;
    }
    if (inst->op == UP_FWD)
        st = tk_upsample_nearest_fwd(inst->dtype, inst->n, inst->c, inst->h, inst->w, UP_SCALE,
                                     UP_SCALE, inst->src, inst->dst, &cfg, stream);
    else
        st = tk_upsample_nearest_bwd(inst->dtype, inst->n, inst->c, inst->h, inst->w, UP_SCALE,
                                     UP_SCALE, inst->src, inst->dst, &cfg, stream);
    if (st != TK_OK) snprintf(err, len, "%s", tk_status_string(st));
    return st;
}

/* Forward: exact (rtol = atol = 0). Backward: the library's error bound for 2 x 2 terms of
 * magnitude below up_input_range. */
static int up_validate(op_instance *inst, char *err, size_t len)
{
    double rtol = 0.0, atol = 0.0;
    if (inst->op == UP_BWD &&
        tk_upsample_nearest_bwd_error_bound(inst->dtype, UP_SCALE, UP_SCALE, up_input_range,
                                            &rtol, &atol) != TK_OK) {
        snprintf(err, len, "upsample: no error bound for dtype %d", (int)inst->dtype);
        return -1;
    }
    rtol *= inst->tolerance_scale;
    atol *= inst->tolerance_scale;
    return harness_compare(inst->dtype, inst->n_dst, inst->dst, inst->ref, rtol, atol, err, len);
}

const op_family op_family_upsample = {
    .kernel = "upsample",
    .n_ops = 2, .ops = up_ops,
    .n_dtypes = 3, .dtypes = up_dtypes,
    .n_fields = 4, .fields = up_fields,
    .config_space = tk_upsample_config_space,
    .check_problem = up_check_problem,
    .bytes_moved = up_bytes_moved,
    .elements = up_elements,
    .size_key = up_size_key,
    .default_config = up_default_config,
    .prepare = up_prepare,
    .set_tolerance_scale = up_set_tolerance_scale,
    .poison = up_poison,
    .launch = up_launch,
    .validate = up_validate,
    .release = up_release,
};
