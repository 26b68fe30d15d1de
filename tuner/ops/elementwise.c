/* elementwise.c: the elementwise family's harness: ops relu, gelu (exact erf form), mul, add,
 * fma (x*y+z) over f32/f16/bf16; problems { n, offset } where offset shifts every pointer by that
 * many elements (offset 1 makes 16-byte packs impossible and exercises the scalar fallback).
 * Inputs are uniform in [-4, 4), generated on the GPU (gpu_fill.h), and the reference is computed
 * there in double from the inputs as rounded to the dtype, once per problem; validation compares
 * on the GPU too (harness_compare), so set-up and checks copy nothing of the problem's size.
 * Variants run through the library's public tk_elementwise_* entry points. */
#include "ops.h"
#include "harness.h"
#include "gpu_fill.h"
#include "tk_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

enum ew_op { EW_RELU = GPU_EW_RELU, EW_GELU = GPU_EW_GELU, EW_MUL = GPU_EW_MUL, EW_ADD = GPU_EW_ADD,
             EW_FMA = GPU_EW_FMA };
/* The inputs are uniform in [EW_INPUT_LO, EW_INPUT_HI), never 0. */
#define EW_INPUT_LO (-4.0)
#define EW_INPUT_HI 4.0
static const char *const ew_ops[] = { "relu", "gelu", "mul", "add", "fma" };
static const int ew_inputs[] = { 1, 1, 2, 2, 3 };
static const char *const ew_dtypes[] = { "f32", "f16", "bf16" };
static const problem_field ew_fields[] = {
    { "n", 1, 1, (int64_t)1 << 40, 0 },
    { "offset", 0, 0, 15, 0 },
};

struct op_instance {
    enum ew_op op;
    tk_dtype dtype;
    int64_t n, offset;
    int n_inputs;
    void *in[3];             /* device, n + offset + 16 elements each */
    void *out;
    double *ref;             /* device, n doubles */
    double tolerance_scale;
};

static int ew_op_index(const char *op)
{
    for (int i = 0; i < 5; i++)
        if (strcmp(op, ew_ops[i]) == 0) return i;
    return -1;
}

static int ew_check_problem(OP_SELF, const char *op, const char *dtype, const problem *p, char *err,
                            size_t len)
{
    (void)op; (void)dtype; (void)p; (void)err; (void)len;
    return 0;   /* the field ranges say everything */
}

static int64_t ew_elements(OP_SELF, const problem *p) { return problem_int(p, "n", 0); }

static int64_t ew_bytes_moved(OP_SELF, const char *op, const char *dtype, const problem *p)
{
    int k = ew_op_index(op);
    int d = tk_dtype_parse(dtype);
    if (k < 0 || d < 0) return 0;
    return (int64_t)(ew_inputs[k] + 1) * ew_elements(self, p) * (int64_t)tk_dtype_size((tk_dtype)d);
}

static int64_t ew_size_key(OP_SELF, const problem *p)
{
    return problem_int(p, "offset", 0) == 0 ? ew_elements(self, p) : -1;
}

static int ew_default_config(OP_SELF, const char *dtype, char *buf, size_t len)
{
    int d = tk_dtype_parse(dtype);
    if (d < 0) return -1;
    tk_elementwise_config c = tk_elementwise_default_config((tk_dtype)d);
    snprintf(buf, len, "block_size=%d,cache_hint=%s,loop=%s,pack_size=%d,unroll=%d,waves=%d",
             c.block_size, c.cache_hint == TK_CACHE_EVICT_FIRST ? "evict_first" : "normal",
             c.loop == TK_LOOP_ONE_SHOT ? "one_shot" : "grid_stride", c.pack_size, c.unroll,
             c.waves);
    return 0;
}

static char *shifted(void *base, const op_instance *inst)
{
    return (char *)base + (size_t)inst->offset * tk_dtype_size(inst->dtype);
}

static void ew_release(op_instance *inst)
{
    if (!inst) return;
    for (int i = 0; i < 3; i++) cudaFree(inst->in[i]);
    cudaFree(inst->out);
    cudaFree(inst->ref);
    free(inst);
}

/* Allocates the instance on the GPU, fills the inputs there (gpu_fill.h: the same values for the
 * same seed, whatever the offset) with zeros around them, and computes the reference there in
 * double: nothing of the size of the problem crosses to the host. The worker releases the
 * instance with ew_release. */
static int ew_prepare(OP_SELF, const char *op, const char *dtype, const problem *p, uint64_t seed,
                      op_instance **out, char *err, size_t len)
{
    *out = NULL;
    int k = ew_op_index(op), d = tk_dtype_parse(dtype);
    if (k < 0 || d < 0) {
        snprintf(err, len, "elementwise: unknown op or dtype %s/%s", op, dtype);
        return -1;
    }
    int rc = -1;
    op_instance *inst = calloc(1, sizeof *inst);
    if (!inst) { snprintf(err, len, "out of host memory"); goto done; }
    inst->op = (enum ew_op)k;
    inst->dtype = (tk_dtype)d;
    inst->n = problem_int(p, "n", 0);
    inst->offset = problem_int(p, "offset", 0);
    inst->n_inputs = ew_inputs[k];
    inst->tolerance_scale = 1.0;
    size_t es = tk_dtype_size(inst->dtype);
    int64_t n = inst->n, alloc_elems = n + inst->offset + 16;
    size_t alloc_bytes = (size_t)alloc_elems * es;

    uint64_t input_seed = harness_seed(seed, op, dtype, p);
    const void *in[3] = { NULL, NULL, NULL };
    for (int i = 0; i < inst->n_inputs; i++) {
        if (harness_upload(&inst->in[i], NULL, alloc_bytes, err, len)) goto done;
        cudaError_t e = cudaMemset(inst->in[i], 0, alloc_bytes);
        if (e != cudaSuccess) { snprintf(err, len, "cudaMemset: %s", cudaGetErrorString(e)); goto done; }
        in[i] = shifted(inst->in[i], inst);
        if (gpu_fill_uniform(inst->dtype, shifted(inst->in[i], inst), n, input_seed, i,
                             EW_INPUT_LO, EW_INPUT_HI, err, len))
            goto done;
    }
    if (harness_upload((void **)&inst->ref, NULL, (size_t)n * sizeof(double), err, len)) goto done;
    if (gpu_ref_elementwise((gpu_ew_op)inst->op, inst->dtype, n, in, inst->ref, err, len)) goto done;
    if (harness_upload(&inst->out, NULL, alloc_bytes, err, len)) goto done;
    *out = inst;
    inst = NULL;
    rc = 0;
done:
    ew_release(inst);
    return rc;
}

static void ew_set_tolerance_scale(op_instance *inst, double scale) { inst->tolerance_scale = scale; }

static int ew_poison(op_instance *inst, char *err, size_t len)
{
    tk_status st = tk_check_poison(inst->dtype, inst->n + inst->offset + 16, inst->out, 0);
    if (st != TK_OK) { snprintf(err, len, "poison: %s", tk_status_string(st)); return -1; }
    return 0;
}

static tk_status ew_launch(op_instance *inst, const char *config, cudaStream_t stream, char *err,
                           size_t len)
{
    tk_elementwise_config cfg;
    tk_status st = tk_elementwise_config_from_text(config, &cfg);
    if (st != TK_OK) {
        snprintf(err, len, "config '%s': %s", config, tk_status_string(st));
        return st;
    }
    const void *x = shifted(inst->in[0], inst);
    void *y = shifted(inst->out, inst);
    switch (inst->op) {
    case EW_RELU: st = tk_elementwise_unary(TK_RELU, inst->dtype, inst->n, x, y, &cfg, stream); break;
    case EW_GELU: st = tk_elementwise_unary(TK_GELU, inst->dtype, inst->n, x, y, &cfg, stream); break;
    case EW_MUL: st = tk_elementwise_binary(TK_MUL, inst->dtype, inst->n, x, shifted(inst->in[1], inst), y, &cfg, stream); break;
    case EW_ADD: st = tk_elementwise_binary(TK_ADD, inst->dtype, inst->n, x, shifted(inst->in[1], inst), y, &cfg, stream); break;
    case EW_FMA: st = tk_elementwise_fma(inst->dtype, inst->n, x, shifted(inst->in[1], inst),
                                         shifted(inst->in[2], inst), y, &cfg, stream); break;
    }
    if (st != TK_OK) snprintf(err, len, "%s", tk_status_string(st));
    return st;
}

/* Per-dtype tolerances: one rounding of the result (f32 rounds at 2^-24, f16 at 2^-11, bf16 at
 * 2^-8), with headroom for gelu's float erfc (relative error <= 1.99e-6, elementwise.cu); atol
 * covers f16 results near its subnormal range. */
static int ew_validate(op_instance *inst, char *err, size_t len)
{
    double rtol, atol;
    switch (inst->dtype) {
    case TK_F32: rtol = inst->op == EW_GELU ? 4e-6 : 1e-6; atol = 1e-6; break;
    case TK_F16: rtol = 1.0 / 1024; atol = 1e-4; break;
    default:     rtol = 1.0 / 128; atol = 1e-6; break;
    }
    rtol *= inst->tolerance_scale;
    atol *= inst->tolerance_scale;
    return harness_compare(inst->dtype, inst->n, shifted(inst->out, inst), inst->ref, rtol, atol,
                           err, len);
}

const op_family op_family_elementwise = {
    .kernel = "elementwise",
    .n_ops = 5, .ops = ew_ops,
    .n_dtypes = 3, .dtypes = ew_dtypes,
    .n_fields = 2, .fields = ew_fields,
    .config_space = tk_elementwise_config_space,
    .check_problem = ew_check_problem,
    .bytes_moved = ew_bytes_moved,
    .elements = ew_elements,
    .size_key = ew_size_key,
    .default_config = ew_default_config,
    .prepare = ew_prepare,
    .set_tolerance_scale = ew_set_tolerance_scale,
    .poison = ew_poison,
    .launch = ew_launch,
    .validate = ew_validate,
    .release = ew_release,
};
