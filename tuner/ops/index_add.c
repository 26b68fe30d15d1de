/* index_add.c: the index_add family's harness: op add (self.index_add_(dim, index, source,
 * alpha = 0.75)) over f32, f16, bf16 self, through tk_index_add with a device status word (the
 * asynchronous path PyTorch's index_add_ competes with). Problems { self0..self7 (leading
 * non-zero sizes), dim, n_index, index_range (indices drawn uniformly from [0, index_range);
 * 0: the whole dimension), idx64 (int64 or int32 indices), offset (self and source shifted by
 * that many elements) }. self and source are uniform in [-1, 1); the reference is self + alpha
 * * the scattered source in double, from the dtype-rounded inputs; self is restored from a
 * pristine copy before every validated launch ("poison": the op works in place); validation
 * also requires the status word to say -1 (every index in range). Tolerances from the dtype's
 * unit roundoff, the most contributions one element receives and the element's expected value
 * (index_add_tolerance: a rounding error grows with the running sums it is made on). */
#include "index_add.h"
#include "ops.h"
#include "harness.h"
#include "tk_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_rng.h>
#include <cuda_runtime_api.h>

static const char *const ia_ops[] = { "add" };
static const char *const ia_dtypes[] = { "f32", "f16", "bf16" };
#define SIZE_MAX_FIELD ((int64_t)1 << 34)
static const problem_field ia_fields[] = {
    { "self0", 1, 1, SIZE_MAX_FIELD, 0 },
    { "self1", 0, 0, SIZE_MAX_FIELD, 0 },
    { "self2", 0, 0, SIZE_MAX_FIELD, 0 },
    { "self3", 0, 0, SIZE_MAX_FIELD, 0 },
    { "self4", 0, 0, SIZE_MAX_FIELD, 0 },
    { "self5", 0, 0, SIZE_MAX_FIELD, 0 },
    { "self6", 0, 0, SIZE_MAX_FIELD, 0 },
    { "self7", 0, 0, SIZE_MAX_FIELD, 0 },
    { "dim", 0, 0, TK_INDEX_ADD_MAX_DIMS - 1, 0 },
    { "n_index", 1, 1, (int64_t)1 << 31, 0 },
    { "index_range", 0, 0, SIZE_MAX_FIELD, 0 },
    { "idx64", 0, 0, 1, 1 },
    { "offset", 0, 0, 15, 0 },
};
#define IA_N_FIELDS ((int)(sizeof ia_fields / sizeof ia_fields[0]))

int index_add_shape_of(const problem *p, index_add_shape *s, char *err, size_t len)
{
    static const char *const names[TK_INDEX_ADD_MAX_DIMS] = { "self0", "self1", "self2", "self3",
                                                              "self4", "self5", "self6", "self7" };
    memset(s, 0, sizeof *s);
    for (int k = 0; k < TK_INDEX_ADD_MAX_DIMS; k++) {
        int64_t v = problem_int(p, names[k], 0);
        if (v == 0) break;
        s->shape[s->ndim++] = v;
    }
    for (int k = s->ndim; k < TK_INDEX_ADD_MAX_DIMS; k++) {
        if (problem_int(p, names[k], 0) != 0) {
            snprintf(err, len, "%s is given but %s is not: sizes must be the leading self fields",
                     names[k], names[s->ndim]);
            return -1;
        }
    }
    if (s->ndim == 0) { snprintf(err, len, "self0 is required"); return -1; }
    s->dim = (int)problem_int(p, "dim", 0);
    if (s->dim >= s->ndim) {
        snprintf(err, len, "dim %d is beyond the %d dimensions of self", s->dim, s->ndim);
        return -1;
    }
    s->outer = s->inner = 1;
    for (int k = 0; k < s->ndim; k++) {
        if (k < s->dim) s->outer *= s->shape[k];
        if (k > s->dim) s->inner *= s->shape[k];
        if (s->outer > SIZE_MAX_FIELD || s->inner > SIZE_MAX_FIELD) {
            snprintf(err, len, "self has more than 2^34 elements");
            return -1;
        }
    }
    s->dim_size = s->shape[s->dim];
    s->n_index = problem_int(p, "n_index", 1);
    s->index_range = problem_int(p, "index_range", 0);
    if (s->index_range == 0) s->index_range = s->dim_size;
    if (s->index_range > s->dim_size) {
        snprintf(err, len, "index_range %lld exceeds self's dimension %d (%lld)",
                 (long long)s->index_range, s->dim, (long long)s->dim_size);
        return -1;
    }
    double self_el = (double)s->outer * (double)s->dim_size * (double)s->inner;
    double src_el = (double)s->outer * (double)s->n_index * (double)s->inner;
    if (self_el > (double)SIZE_MAX_FIELD || src_el > (double)SIZE_MAX_FIELD) {
        snprintf(err, len, "self or source has more than 2^34 elements");
        return -1;
    }
    s->self_elements = s->outer * s->dim_size * s->inner;
    s->source_elements = s->outer * s->n_index * s->inner;
    return 0;
}

/* Standard deviations the statistical bound allows (Gaussian: 2e-9 per element beyond it), and
 * how many times its root-mean-square the wander of the running sums about the straight line
 * from self to the result may reach (see index_add.h). */
#define TOL_SIGMAS 6.0
#define TOL_BRIDGE_RMS 3.0

void index_add_tolerance(tk_dtype dtype, int64_t dups, double alpha, double *rtol, double *atol)
{
    const double u = harness_unit_roundoff(dtype), c = (double)dups, a = fabs(alpha);
    const double tiny = dtype == TK_F16 ? ldexp(1.0, -24) : dtype == TK_BF16 ? ldexp(1.0, -133) : ldexp(1.0, -149);
    /* rigorous: recursive summation of self and c rounded products (Higham's gamma_c), plus the
     * products' own roundings; 16-bit owner sums round in float first (u + 2^-23 covers both) */
    const double ur = dtype == TK_F32 ? u : u + ldexp(1.0, -23);
    const double worst = c * ur < 0.5
        ? c * ur / (1 - c * ur) * (1 + c * a * (1 + ur)) + c * ur * a + c * tiny
        : INFINITY;
    /* statistical: sigma^2 = u^2/3 (sum_k s_k^2 + c a^2) over the running sums s_k; Minkowski
     * splits sqrt(sum s_k^2) into the straight line from self (|.| <= 1) to the result F,
     * <= sqrt(c/3 + 1) |F| + sqrt(c), and the walk's wander about it, mean square a^2 c^2 / 18 */
    const double scale = TOL_SIGMAS * u / sqrt(3.0);
    const double stat_rtol = scale * sqrt(c / 3 + 1);
    const double stat_atol = scale * ((1 + a) * sqrt(c) + TOL_BRIDGE_RMS * a * c / sqrt(18.0)) + c * tiny;
    if (worst <= stat_atol) {
        *rtol = 0;
        *atol = worst;
    } else {
        *rtol = stat_rtol;
        *atol = stat_atol;
    }
}

void index_add_draw_indices(gsl_rng *r, uint64_t input_seed, const index_add_shape *s, int64_t *idx)
{
    gsl_rng_set(r, (unsigned long)(input_seed ^ 0x1d8e4e27c47d124full));
    for (int64_t j = 0; j < s->n_index; j++) {
        int64_t v = (int64_t)(gsl_rng_uniform(r) * (double)s->index_range);
        idx[j] = v < s->index_range ? v : s->index_range - 1;
    }
}

struct op_instance {
    tk_dtype dtype;
    index_add_shape s;
    int idx64;
    int64_t offset;
    void *self, *self_start, *source, *index;
    int64_t *status;         /* device word */
    double *ref;             /* device, self_elements doubles */
    int64_t dups;            /* the most contributions one self row receives */
    double tolerance_scale;
};

static int ia_check_problem(OP_SELF, const char *op, const char *dtype, const problem *p, char *err,
                            size_t len)
{
    (void)op; (void)dtype;
    index_add_shape s;
    return index_add_shape_of(p, &s, err, len);
}

static int64_t ia_elements(OP_SELF, const problem *p)
{
    index_add_shape s;
    char err[8];
    return index_add_shape_of(p, &s, err, sizeof err) ? 0 : s.source_elements;
}

/* PERF.md's count: source read, and as many self elements read and written; the indices. */
static int64_t ia_bytes_moved(OP_SELF, const char *op, const char *dtype, const problem *p)
{
    (void)op;
    int d = tk_dtype_parse(dtype);
    index_add_shape s;
    char err[8];
    if (d < 0 || index_add_shape_of(p, &s, err, sizeof err)) return 0;
    return 3 * s.source_elements * (int64_t)tk_dtype_size((tk_dtype)d) +
           s.n_index * (problem_int(p, "idx64", 1) ? 8 : 4);
}

/* Header entries: int64 indices (PyTorch's), aligned tensors, and not duplicate-heavy (more
 * than 4 indices per row of the range: those measure contention, and would share a source
 * size with the write-up's shapes). The key is the source's element count. */
static int64_t ia_size_key(OP_SELF, const problem *p)
{
    index_add_shape s;
    char err[8];
    if (index_add_shape_of(p, &s, err, sizeof err) || !problem_int(p, "idx64", 1) ||
        problem_int(p, "offset", 0) != 0 || s.n_index > 4 * s.index_range)
        return -1;
    return s.source_elements;
}

static int ia_default_config(OP_SELF, const char *dtype, char *buf, size_t len)
{
    if (tk_dtype_parse(dtype) < 0) return -1;
    tk_index_add_config c = tk_index_add_default_config();
    snprintf(buf, len, "block_size=%d,grid_cap=%d,pack_size=%d,small_mode=%s,threshold=%d",
             c.block_size, c.grid_cap, c.pack_size,
             c.small_mode == TK_INDEX_SMALL_SPREAD ? "spread" : "owner", c.threshold);
    return 0;
}

static void ia_release(op_instance *inst)
{
    if (!inst) return;
    cudaFree(inst->self);
    cudaFree(inst->self_start);
    cudaFree(inst->source);
    cudaFree(inst->index);
    cudaFree(inst->status);
    cudaFree(inst->ref);
    free(inst);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The longest run of equal values in idx[0..n) (sorts idx). */
static int64_t most_repeats(int64_t *idx, int64_t n)
{
    qsort(idx, (size_t)n, sizeof *idx, cmp_i64);
    int64_t best = n ? 1 : 0, run = 1;
    for (int64_t i = 1; i < n; i++) {
        run = idx[i] == idx[i - 1] ? run + 1 : 1;
        if (run > best) best = run;
    }
    return best;
}

/* Allocates the instance; the worker releases it with ia_release. */
static int ia_prepare(OP_SELF, const char *op, const char *dtype, const problem *p, uint64_t seed,
                      op_instance **out, char *err, size_t len)
{
    *out = NULL;
    int d = tk_dtype_parse(dtype);
    if (strcmp(op, "add") != 0 || d < 0) {
        snprintf(err, len, "index_add: unknown op or dtype %s/%s", op, dtype);
        return -1;
    }
    int rc = -1;
    void *host = NULL, *host_idx = NULL;
    double *self_ex = NULL, *src_ex = NULL;
    int64_t *idx = NULL;
    gsl_rng *r = NULL;
    op_instance *inst = calloc(1, sizeof *inst);
    if (!inst) { snprintf(err, len, "out of host memory"); goto done; }
    inst->dtype = (tk_dtype)d;
    inst->tolerance_scale = 1.0;
    if (index_add_shape_of(p, &inst->s, err, len)) goto done;
    inst->idx64 = (int)problem_int(p, "idx64", 1);
    inst->offset = problem_int(p, "offset", 0);
    const index_add_shape *s = &inst->s;
    const size_t es = tk_dtype_size(inst->dtype);
    const int64_t n_self = s->self_elements, n_src = s->source_elements, pad = inst->offset + 16;
    uint64_t input_seed = harness_seed(seed, op, dtype, p);

    int64_t host_elems = n_self > n_src ? n_self : n_src;
    host = calloc((size_t)(host_elems + pad), es);
    self_ex = malloc((size_t)n_self * sizeof *self_ex);
    src_ex = malloc((size_t)(n_src ? n_src : 1) * sizeof *src_ex);
    idx = malloc((size_t)s->n_index * sizeof *idx);
    host_idx = malloc((size_t)s->n_index * 8);
    r = gsl_rng_alloc(gsl_rng_taus2);
    if (!host || !self_ex || !src_ex || !idx || !host_idx || !r) {
        snprintf(err, len, "out of host memory (self %lld, source %lld elements)",
                 (long long)n_self, (long long)n_src);
        goto done;
    }
    char *at = (char *)host + (size_t)inst->offset * es;
    harness_fill_uniform(input_seed, 0, inst->dtype, n_self, -1.0, 1.0, at, self_ex);
    if (harness_upload(&inst->self_start, host, (size_t)(n_self + pad) * es, err, len)) goto done;
    if (harness_upload(&inst->self, host, (size_t)(n_self + pad) * es, err, len)) goto done;
    harness_fill_uniform(input_seed, 1, inst->dtype, n_src, -1.0, 1.0, at, src_ex);
    if (harness_upload(&inst->source, host, (size_t)(n_src + pad) * es, err, len)) goto done;

    index_add_draw_indices(r, input_seed, s, idx);
    for (int64_t j = 0; j < s->n_index; j++) {
        if (inst->idx64) ((int64_t *)host_idx)[j] = idx[j];
        else ((int32_t *)host_idx)[j] = (int32_t)idx[j];
    }
    if (harness_upload(&inst->index, host_idx, (size_t)s->n_index * (inst->idx64 ? 8 : 4), err, len)) goto done;
    if (harness_upload((void **)&inst->status, NULL, sizeof *inst->status, err, len)) goto done;

    /* reference: self + alpha * scatter(source), in double, in order */
    for (int64_t o = 0; o < s->outer; o++)
        for (int64_t j = 0; j < s->n_index; j++) {
            double *dst = self_ex + (o * s->dim_size + idx[j]) * s->inner;
            const double *src = src_ex + (o * s->n_index + j) * s->inner;
            for (int64_t i = 0; i < s->inner; i++) dst[i] += INDEX_ADD_ALPHA * src[i];
        }
    if (harness_upload((void **)&inst->ref, self_ex, (size_t)n_self * sizeof(double), err, len)) goto done;
    inst->dups = most_repeats(idx, s->n_index);
    *out = inst;
    inst = NULL;
    rc = 0;
done:
    ia_release(inst);
    if (r) gsl_rng_free(r);
    free(host);
    free(host_idx);
    free(self_ex);
    free(src_ex);
    free(idx);
    return rc;
}

static void ia_set_tolerance_scale(op_instance *inst, double scale) { inst->tolerance_scale = scale; }

static int ia_poison(op_instance *inst, char *err, size_t len)
{
    const size_t bytes = (size_t)(inst->s.self_elements + inst->offset + 16) * tk_dtype_size(inst->dtype);
    cudaError_t e = cudaMemcpy(inst->self, inst->self_start, bytes, cudaMemcpyDeviceToDevice);
    if (e == cudaSuccess) e = cudaMemset(inst->status, 0x5a, sizeof *inst->status);
    if (e != cudaSuccess) {
        snprintf(err, len, "restoring self: %s", cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

static char *shifted(void *base, const op_instance *inst)
{
    return (char *)base + (size_t)inst->offset * tk_dtype_size(inst->dtype);
}

static tk_status ia_launch(op_instance *inst, const char *config, cudaStream_t stream, char *err,
                           size_t len)
{
    tk_index_add_config cfg;
    tk_status st = tk_index_add_config_from_text(config, &cfg);
    if (st != TK_OK) {
        snprintf(err, len, "config '%s': %s", config, tk_status_string(st));
        return st;
    }
    st = tk_index_add(inst->dtype, shifted(inst->self, inst), inst->s.ndim, inst->s.shape,
                      inst->s.dim, inst->index, inst->idx64 ? TK_INDEX_I64 : TK_INDEX_I32,
                      inst->s.n_index, shifted(inst->source, inst), INDEX_ADD_ALPHA, inst->status,
                      &cfg, stream);
    if (st != TK_OK) snprintf(err, len, "%s", tk_status_string(st));
    return st;
}

static int ia_validate(op_instance *inst, char *err, size_t len)
{
    int64_t word = 0;
    cudaError_t e = cudaMemcpy(&word, inst->status, sizeof word, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        snprintf(err, len, "reading the status word: %s", cudaGetErrorString(e));
        return -1;
    }
    if (word != -1) {
        snprintf(err, len, "status word %lld after a call with every index in range (-1 expected)",
                 (long long)word);
        return 1;
    }
    double rtol, atol;
    index_add_tolerance(inst->dtype, inst->dups, INDEX_ADD_ALPHA, &rtol, &atol);
    return harness_compare(inst->dtype, inst->s.self_elements, shifted(inst->self, inst), inst->ref,
                           rtol * inst->tolerance_scale, atol * inst->tolerance_scale, err, len);
}

const op_family op_family_index_add = {
    .kernel = "index_add",
    .n_ops = 1, .ops = ia_ops,
    .n_dtypes = 3, .dtypes = ia_dtypes,
    .n_fields = IA_N_FIELDS, .fields = ia_fields,
    .config_space = tk_index_add_config_space,
    .check_problem = ia_check_problem,
    .bytes_moved = ia_bytes_moved,
    .elements = ia_elements,
    .size_key = ia_size_key,
    .default_config = ia_default_config,
    .prepare = ia_prepare,
    .set_tolerance_scale = ia_set_tolerance_scale,
    .poison = ia_poison,
    .launch = ia_launch,
    .validate = ia_validate,
    .release = ia_release,
};
