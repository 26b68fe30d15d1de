/* relu_mask.c: the relu_mask family's harness: ops relu_fwd, add_relu_fwd, relu_bwd, add_relu_bwd
 * over f32/f16/bf16 (kernels/relu_mask.cu; semantics and mask layout in tunekit_relu_mask.h).
 * Problems { n, offset, with_mask }: offset shifts every data pointer by that many elements (the
 * pack_size 1 fallback; the mask stays word-aligned); with_mask 1 (default) is a masked problem
 * (the forward writes the mask, the backward reads it; configs must use byte8 or ballot32), 0 the
 * unmasked pair (scheme none: the backward reads y), measured for comparison and never a header
 * entry. Inputs are uniform in [-4, 4) (both signs, never 0 before rounding).
 *
 * Set-up on the GPU (tuner/ops/gpu_fill.h): inputs from the counter-based generator, the
 * references in double and the mask in the documented layout from gpu_ref_relu_mask, the
 * backward's gradient from gpu_ref_relu_grad. Backward inputs: dy is random; the mask (or y, for
 * scheme none) is computed by that reference forward from random x (and addend), not by the
 * library's forward, so a backward is validated independently of the forward (the GPU test also
 * runs forward then backward, and checks the references against a CPU one).
 *
 * Validation is exact (every op is a select and at most one add rounded once; the references
 * round the same way): y, dx and the addend's gradient are compared on the GPU by harness_compare
 * with rtol = atol = 0 (the tolerance scale multiplies 0, so it changes nothing), the mask bit for
 * bit on the host (a 25 Mi element problem has a 3 MB mask). Before each validated launch the
 * outputs are poisoned: NaN patterns for the data, the bitwise complement of the expected words
 * for the mask, so a word never written differs in all 32 bits. */
#include "ops.h"
#include "gpu_fill.h"
#include "harness.h"
#include "relu_mask.h"
#include "tk_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

enum rm_op { RM_RELU_FWD, RM_ADD_RELU_FWD, RM_RELU_BWD, RM_ADD_RELU_BWD };
static const char *const rm_ops[] = { "relu_fwd", "add_relu_fwd", "relu_bwd", "add_relu_bwd" };
static const char *const rm_dtypes[] = { "f32", "f16", "bf16" };
static const problem_field rm_fields[] = {
    { "n", 1, 1, (int64_t)1 << 40, 0 },
    { "offset", 0, 0, 15, 0 },
    { "with_mask", 0, 0, 1, 1 },
};

/* ---- CPU helpers (relu_mask.h) ----------------------------------------------------------------- */

int relu_mask_compare_words(const uint32_t *got, const uint32_t *want, int64_t n_words,
                            char *err, size_t len)
{
    enum { REPORT = 3 };
    int64_t bad = 0, first[REPORT];
    for (int64_t w = 0; w < n_words; w++)
        if (got[w] != want[w]) {
            if (bad < REPORT) first[bad] = w;
            bad++;
        }
    if (bad == 0) return 0;
    int used = snprintf(err, len, "%lld of %lld mask words differ; first:", (long long)bad,
                        (long long)n_words);
    for (int k = 0; k < REPORT && k < bad && used > 0 && (size_t)used < len; k++) {
        const int64_t w = first[k];
        const uint32_t diff = got[w] ^ want[w];
        int bit = 0;
        while (!(diff >> bit & 1u)) bit++;
        used += snprintf(err + used, len - (size_t)used,
                         " [%lld] got 0x%08x expected 0x%08x (element %lld)", (long long)w,
                         got[w], want[w], (long long)(w * 32 + bit));
    }
    return 1;
}

int relu_mask_config_text(const tk_relu_mask_config *c, char *buf, size_t len)
{
    static const char *const hints[] = { "normal", "evict_first" };
    static const char *const loops[] = { "grid_stride", "one_shot" };
    static const char *const schemes[] = { "none", "byte8", "ballot32" };
    if ((unsigned)c->cache_hint > 1u || (unsigned)c->loop > 1u || (unsigned)c->mask > 2u)
        return -1;
    const int w = snprintf(buf, len,
                           "block_size=%d,cache_hint=%s,loop=%s,mask=%s,pack_size=%d,unroll=%d,"
                           "waves=%d",
                           c->block_size, hints[c->cache_hint], loops[c->loop], schemes[c->mask],
                           c->pack_size, c->unroll, c->waves);
    return w > 0 && (size_t)w < len ? 0 : -1;
}

/* ---- parent side ------------------------------------------------------------------------------ */

static int rm_op_index(const char *op)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(op, rm_ops[i]) == 0) return i;
    return -1;
}

static int rm_check_problem(OP_SELF, const char *op, const char *dtype, const problem *p, char *err,
                            size_t len)
{
    (void)op; (void)dtype; (void)p; (void)err; (void)len;
    return 0;   /* the field ranges say everything */
}

static int64_t rm_elements(OP_SELF, const problem *p) { return problem_int(p, "n", 0); }

/* Each input read once, each output written once: x (and addend) -> y (+ mask); dy + mask (or
 * y) -> dx (+ the addend's gradient). */
static int64_t rm_bytes_moved(OP_SELF, const char *op, const char *dtype, const problem *p)
{
    const int k = rm_op_index(op), d = tk_dtype_parse(dtype);
    if (k < 0 || d < 0) return 0;
    const int64_t n = rm_elements(self, p), es = (int64_t)tk_dtype_size((tk_dtype)d);
    const int64_t mask = 4 * tk_relu_mask_words(n), data = n * es;
    const int with_mask = problem_int(p, "with_mask", 1) != 0;
    switch ((enum rm_op)k) {
    case RM_RELU_FWD: return 2 * data + (with_mask ? mask : 0);
    case RM_ADD_RELU_FWD: return 3 * data + (with_mask ? mask : 0);
    case RM_RELU_BWD: return 2 * data + (with_mask ? mask : data);
    case RM_ADD_RELU_BWD: return 3 * data + (with_mask ? mask : data);
    }
    return 0;
}

/* Masked problems at aligned pointers are the header's entries (NULL-config masked calls). */
static int64_t rm_size_key(OP_SELF, const problem *p)
{
    return problem_int(p, "offset", 0) == 0 && problem_int(p, "with_mask", 1) != 0
               ? rm_elements(self, p)
               : -1;
}

static int rm_default_config(OP_SELF, const char *dtype, char *buf, size_t len)
{
    const int d = tk_dtype_parse(dtype);
    if (d < 0) return -1;
    const tk_relu_mask_config c = tk_relu_mask_default_config((tk_dtype)d, TK_MASK_BALLOT32);
    return relu_mask_config_text(&c, buf, len);
}

/* ---- worker side ------------------------------------------------------------------------------ */

struct op_instance {
    enum rm_op op;
    tk_dtype dtype;
    int64_t n, offset, n_words;
    int with_mask;
    size_t alloc_bytes;      /* of every data buffer: n + offset + 16 elements */
    void *in[2];             /* device: fwd x, addend; bwd dy, y (y only without a mask) */
    void *out[2];            /* device: fwd y; bwd dx, the addend's gradient (add_relu_bwd) */
    double *ref;             /* device, n doubles: y (fwd) or dx (bwd) */
    uint32_t *mask;          /* device, n_words: written (fwd) or read (bwd); NULL without */
    uint32_t *mask_poison;   /* device, fwd: the complement of the expected words */
    uint32_t *want, *got;    /* host, fwd with a mask: expected words, and room to read back */
};

static int is_fwd(enum rm_op op) { return op == RM_RELU_FWD || op == RM_ADD_RELU_FWD; }
static int is_add(enum rm_op op) { return op == RM_ADD_RELU_FWD || op == RM_ADD_RELU_BWD; }

static void rm_release(op_instance *inst)
{
    if (!inst) return;
    for (int i = 0; i < 2; i++) {
        cudaFree(inst->in[i]);
        cudaFree(inst->out[i]);
    }
    cudaFree(inst->ref);
    cudaFree(inst->mask);
    cudaFree(inst->mask_poison);
    free(inst->want);
    free(inst->got);
    free(inst);
}

static char *shifted(void *base, const op_instance *inst)
{
    return base ? (char *)base + (size_t)inst->offset * tk_dtype_size(inst->dtype) : NULL;
}

/* A zeroed device buffer of alloc_bytes with input `stream` generated on the GPU (gpu_fill.h) in
 * its [offset, offset + n) elements, uniform in [-4, 4). */
static int make_input(op_instance *inst, uint64_t seed, int stream, void **dev, char *err,
                      size_t len)
{
    if (harness_upload(dev, NULL, inst->alloc_bytes, err, len)) return -1;
    const cudaError_t e = cudaMemset(*dev, 0, inst->alloc_bytes);
    if (e != cudaSuccess) {
        snprintf(err, len, "cudaMemset: %s", cudaGetErrorString(e));
        return -1;
    }
    return gpu_fill_uniform(inst->dtype, shifted(*dev, inst), inst->n, seed, stream, -4.0, 4.0,
                            err, len);
}

/* Inputs, references and outputs of a forward problem, made on the GPU; the expected mask words
 * are copied to the host (the mask is compared there) and their complement is the poison. */
static int prepare_fwd(op_instance *inst, uint64_t seed, char *err, size_t len)
{
    if (make_input(inst, seed, 0, &inst->in[0], err, len)) return -1;
    if (is_add(inst->op) && make_input(inst, seed, 1, &inst->in[1], err, len)) return -1;
    if (harness_upload((void **)&inst->ref, NULL, (size_t)inst->n * sizeof(double), err, len))
        return -1;
    if (harness_upload(&inst->out[0], NULL, inst->alloc_bytes, err, len)) return -1;
    const size_t mask_bytes = (size_t)inst->n_words * sizeof(uint32_t);
    if (inst->with_mask) {
        inst->want = malloc(mask_bytes);
        inst->got = malloc(mask_bytes);
        if (!inst->want || !inst->got) {
            snprintf(err, len, "out of host memory (n = %lld)", (long long)inst->n);
            return -1;
        }
        if (harness_upload((void **)&inst->mask, NULL, mask_bytes, err, len) ||
            harness_upload((void **)&inst->mask_poison, NULL, mask_bytes, err, len))
            return -1;
    }
    /* the expected words go to mask_poison first, then become their complement there */
    if (gpu_ref_relu_mask(inst->dtype, inst->n, shifted(inst->in[0], inst),
                          shifted(inst->in[1], inst), inst->ref, NULL, inst->mask_poison, err, len))
        return -1;
    if (!inst->with_mask) return 0;
    cudaError_t e = cudaMemcpy(inst->want, inst->mask_poison, mask_bytes, cudaMemcpyDeviceToHost);
    for (int64_t w = 0; e == cudaSuccess && w < inst->n_words; w++) inst->got[w] = ~inst->want[w];
    if (e == cudaSuccess)
        e = cudaMemcpy(inst->mask_poison, inst->got, mask_bytes, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
        snprintf(err, len, "the expected mask: %s", cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

/* Inputs, references and outputs of a backward problem, made on the GPU: dy random; x (and
 * addend) random, run through the reference forward (not the library's) to give the mask, or y
 * for a problem without one. */
static int prepare_bwd(op_instance *inst, uint64_t seed, char *err, size_t len)
{
    void *x = NULL, *a = NULL;
    uint32_t *mask = NULL;
    int rc = -1;
    const size_t mask_bytes = (size_t)inst->n_words * sizeof(uint32_t);
    if (make_input(inst, seed, 0, &inst->in[0], err, len)) goto done;
    if (make_input(inst, seed, 1, &x, err, len)) goto done;
    if (is_add(inst->op) && make_input(inst, seed, 2, &a, err, len)) goto done;
    if (harness_upload((void **)&mask, NULL, mask_bytes, err, len)) goto done;
    if (!inst->with_mask) {   /* y, zero around its n elements as the inputs are */
        if (harness_upload(&inst->in[1], NULL, inst->alloc_bytes, err, len)) goto done;
        const cudaError_t e = cudaMemset(inst->in[1], 0, inst->alloc_bytes);
        if (e != cudaSuccess) {
            snprintf(err, len, "cudaMemset: %s", cudaGetErrorString(e));
            goto done;
        }
    }
    if (gpu_ref_relu_mask(inst->dtype, inst->n, shifted(x, inst), shifted(a, inst), NULL,
                          shifted(inst->in[1], inst), mask, err, len))
        goto done;
    if (harness_upload((void **)&inst->ref, NULL, (size_t)inst->n * sizeof(double), err, len))
        goto done;
    if (gpu_ref_relu_grad(inst->dtype, inst->n, shifted(inst->in[0], inst), mask, inst->ref, err,
                          len))
        goto done;
    if (harness_upload(&inst->out[0], NULL, inst->alloc_bytes, err, len)) goto done;
    if (inst->op == RM_ADD_RELU_BWD &&
        harness_upload(&inst->out[1], NULL, inst->alloc_bytes, err, len))
        goto done;
    if (inst->with_mask) {   /* the instance keeps the mask: the backward reads it */
        inst->mask = mask;
        mask = NULL;
    }
    rc = 0;
done:
    cudaFree(x);
    cudaFree(a);
    cudaFree(mask);
    return rc;
}

/* Allocates the instance; the worker releases it with rm_release. */
static int rm_prepare(OP_SELF, const char *op, const char *dtype, const problem *p, uint64_t seed,
                      op_instance **out, char *err, size_t len)
{
    *out = NULL;
    const int k = rm_op_index(op), d = tk_dtype_parse(dtype);
    if (k < 0 || d < 0) {
        snprintf(err, len, "relu_mask: unknown op or dtype %s/%s", op, dtype);
        return -1;
    }
    op_instance *inst = calloc(1, sizeof *inst);
    if (!inst) {
        snprintf(err, len, "out of host memory");
        return -1;
    }
    inst->op = (enum rm_op)k;
    inst->dtype = (tk_dtype)d;
    inst->n = problem_int(p, "n", 0);
    inst->offset = problem_int(p, "offset", 0);
    inst->with_mask = problem_int(p, "with_mask", 1) != 0;
    inst->n_words = tk_relu_mask_words(inst->n);
    inst->alloc_bytes = (size_t)(inst->n + inst->offset + 16) * tk_dtype_size(inst->dtype);
    const uint64_t input_seed = harness_seed(seed, op, dtype, p);
    if ((is_fwd(inst->op) ? prepare_fwd : prepare_bwd)(inst, input_seed, err, len)) {
        rm_release(inst);
        return -1;
    }
    *out = inst;
    return 0;
}

/* The comparisons are exact: any scale of a zero tolerance is zero. */
static void rm_set_tolerance_scale(op_instance *inst, double scale)
{
    (void)inst;
    (void)scale;
}

static int rm_poison(op_instance *inst, char *err, size_t len)
{
    const int64_t elems = inst->n + inst->offset + 16;
    for (int i = 0; i < 2; i++) {
        if (!inst->out[i]) continue;
        const tk_status st = tk_check_poison(inst->dtype, elems, inst->out[i], 0);
        if (st != TK_OK) {
            snprintf(err, len, "poison: %s", tk_status_string(st));
            return -1;
        }
    }
    if (inst->mask_poison) {
        const cudaError_t e = cudaMemcpy(inst->mask, inst->mask_poison,
                                         (size_t)inst->n_words * sizeof(uint32_t),
                                         cudaMemcpyDeviceToDevice);
        if (e != cudaSuccess) {
            snprintf(err, len, "poison mask: %s", cudaGetErrorString(e));
            return -1;
        }
    }
    return 0;
}

static tk_status rm_launch(op_instance *inst, const char *config, cudaStream_t stream, char *err,
                           size_t len)
{
    tk_relu_mask_config cfg;
    tk_status st = tk_relu_mask_config_from_text(config, &cfg);
    if (st != TK_OK) {
        snprintf(err, len, "config '%s': %s", config, tk_status_string(st));
        return st;
    }
    const tk_dtype dt = inst->dtype;
    const int64_t n = inst->n;
    void *a = shifted(inst->in[0], inst), *b = shifted(inst->in[1], inst);
    void *y = shifted(inst->out[0], inst), *z = shifted(inst->out[1], inst);
    switch (inst->op) {
    case RM_RELU_FWD: st = tk_relu_fwd(dt, n, a, y, inst->mask, &cfg, stream); break;
    case RM_ADD_RELU_FWD: st = tk_add_relu_fwd(dt, n, a, b, y, inst->mask, &cfg, stream); break;
    case RM_RELU_BWD: st = tk_relu_bwd(dt, n, a, inst->mask, b, y, &cfg, stream); break;
    case RM_ADD_RELU_BWD:
        st = tk_add_relu_bwd(dt, n, a, inst->mask, b, y, z, &cfg, stream);
        break;
    }
    if (st != TK_OK)
        snprintf(err, len, "%s%s", tk_status_string(st),
                 st == TK_ERR_INVALID_ARGUMENT
                     ? (inst->with_mask ? " (a masked problem needs mask=byte8 or ballot32)"
                                        : " (with_mask: 0 needs mask=none)")
                     : "");
    return st;
}

static int rm_validate(op_instance *inst, char *err, size_t len)
{
    for (int i = 0; i < 2; i++) {
        if (!inst->out[i]) continue;
        const int rc = harness_compare(inst->dtype, inst->n, shifted(inst->out[i], inst),
                                       inst->ref, 0.0, 0.0, err, len);
        if (rc != 0) {
            if (rc == 1 && i == 1) {   /* say which output of add_relu_bwd */
                char what[512];
                snprintf(what, sizeof what, "%s", err);
                snprintf(err, len, "addend gradient: %s", what);
            }
            return rc;
        }
    }
    if (!inst->want) return 0;
    const cudaError_t e = cudaMemcpy(inst->got, inst->mask,
                                     (size_t)inst->n_words * sizeof(uint32_t),
                                     cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        snprintf(err, len, "reading the mask back: %s", cudaGetErrorString(e));
        return -1;
    }
    return relu_mask_compare_words(inst->got, inst->want, inst->n_words, err, len);
}

const op_family op_family_relu_mask = {
    .kernel = "relu_mask",
    .n_ops = 4, .ops = rm_ops,
    .n_dtypes = 3, .dtypes = rm_dtypes,
    .n_fields = 3, .fields = rm_fields,
    .config_space = tk_relu_mask_config_space,
    .check_problem = rm_check_problem,
    .bytes_moved = rm_bytes_moved,
    .elements = rm_elements,
    .size_key = rm_size_key,
    .default_config = rm_default_config,
    .prepare = rm_prepare,
    .set_tolerance_scale = rm_set_tolerance_scale,
    .poison = rm_poison,
    .launch = rm_launch,
    .validate = rm_validate,
    .release = rm_release,
};
