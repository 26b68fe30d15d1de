/* ops.h: the op registry, the one seam between the C driver and the CUDA kernel library.
 *
 * A family's harness (tuner/ops/<family>.c) says which ops, dtypes and problem fields it has and
 * which parameter values the library supports (its tk_*_config_space), computes the fewest bytes
 * a problem must move, and, on the worker side only, builds inputs on the GPU, computes the
 * double-precision reference once per problem (on the GPU for elementwise and reduce, on the CPU
 * for the others) and keeps it on the GPU, launches one variant
 * through the library's public entry point with an explicit config, and validates the output on
 * the GPU. The parent process only calls the parent-side members (they never touch CUDA). */
#pragma once
#include <stddef.h>
#include <stdint.h>
#include "core/problem.h"
#include "tunekit.h"

typedef struct problem_field {
    const char *name;
    int required;            /* 0: optional, default def */
    int64_t min, max;        /* inclusive range of the integer value */
    int64_t def;
} problem_field;

typedef struct op_instance op_instance;   /* worker-side state of one prepared problem */
typedef struct op_family op_family;

/* The first parameter of the members below: the family itself, so that a family built at run
 * time from a space file (tuner/ops/user_kernel.c) reaches its description; the built-in ones ignore it. */
#define OP_SELF const op_family *self __attribute__((unused))

struct op_family {
    const char *kernel;                   /* the space file's `kernel:` */
    int n_ops;
    const char *const *ops;               /* op names within the family: "mul" */
    int n_dtypes;
    const char *const *dtypes;            /* "f32", "f16", "bf16" */
    int n_fields;
    const problem_field *fields;          /* the problem fields a space may give */
    const tk_config_space *(*config_space)(void);

    /* ---- parent side: no CUDA ---- */
    /* Checks a problem beyond the field ranges (e.g. shapes that must agree). 0 or -1 + err. */
    int (*check_problem)(const op_family *self, const char *op, const char *dtype, const problem *p, char *err,
                         size_t len);
    /* Fewest bytes the op must move (each input read once, each output written once). */
    int64_t (*bytes_moved)(const op_family *self, const char *op, const char *dtype, const problem *p);
    /* Floating-point operations one run does (what TFLOP/s and the fraction of the GPU's peak
     * use), or 0 when the family does not say (then GB/s and the fraction of the copy rate
     * are shown). NULL: never given (the built-in families, which move bytes). */
    int64_t (*flops)(const op_family *self, const char *op, const char *dtype, const problem *p);
    /* Elements of the problem (what GB/s and the report's x axis use). */
    int64_t (*elements)(const op_family *self, const problem *p);
    /* The size the generated header dispatches on, or -1 when this problem is not a header
     * entry (e.g. a deliberately misaligned pointer). */
    int64_t (*size_key)(const op_family *self, const problem *p);
    /* The classic default config for a dtype as canonical text (what a NULL config gets on a
     * device the header does not know), so reports can show each winner's gain over it. */
    int (*default_config)(const op_family *self, const char *dtype, char *buf, size_t len);

    /* ---- worker side: CUDA ---- */
    /* Allocates inputs and output on the current device, fills inputs with random values
     * reproducible from seed and computes the reference in double precision: elementwise and
     * reduce generate and compute on the GPU (gpu_fill.h), the other families draw on the CPU
     * (harness_fill_uniform), compute there and upload. The worker times this call per problem
     * (the run's "set-up" line). Returns 0, or -1 with err (e.g. out of memory). */
    int (*prepare)(const op_family *self, const char *op, const char *dtype, const problem *p, uint64_t seed,
                   op_instance **out, char *err, size_t len);
    /* Sets the factor the family's per-dtype tolerances are multiplied by (default 1). */
    void (*set_tolerance_scale)(op_instance *inst, double scale);
    /* Poisons the output (NaN pattern) so unwritten elements fail validation. 0 or -1 + err. */
    int (*poison)(op_instance *inst, char *err, size_t len);
    /* Launches the variant through the library's public entry point with the explicit config
     * (canonical text) on stream. Returns a tk_status; err says why when not TK_OK. */
    tk_status (*launch)(op_instance *inst, const char *config, cudaStream_t stream, char *err,
                        size_t len);
    /* Compares the output with the reference on the GPU. Returns 0 when every element is within
     * tolerance, 1 when some are not (err lists the count and the first mismatches: index, got,
     * expected), -1 on a CUDA error (err). */
    int (*validate)(op_instance *inst, char *err, size_t len);
    void (*release)(op_instance *inst);
    /* Optional (user kernels, tuner/ops/user_kernel.c): makes config the variant the next
     * launches run, loading the compiled module (a cubin path) and computing the problem's
     * reference first when it has none yet (from ref_module, NULL when the reference is not a
     * kernel, and the check kernels' cubins, one per line, NULL when none). Returns TK_OK;
     * TK_ERR_UNSUPPORTED_CONFIG when the compiled kernel cannot launch this config (err says
     * why: registers, shared memory); TK_ERR_LAUNCH when the variant does not load; TK_ERR_CUDA
     * when the reference cannot be computed or the space does not fit the module (err says
     * why; the run must stop). */
    tk_status (*bind_variant)(op_instance *inst, const char *config, const char *module,
                              const char *ref_module, const char *checks, char *err, size_t len);
};

/* The family for a space file's kernel name, or NULL. */
const op_family *op_family_find(const char *kernel);
/* All registered families, NULL-terminated. */
const op_family *const *op_families(void);

/* Index of name in the family's ops / dtypes, or -1. */
int op_family_op_index(const op_family *f, const char *op);
int op_family_dtype_index(const op_family *f, const char *dtype);
