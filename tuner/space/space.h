/* space.h: a parameter space loaded from a YAML space file (docs/space-files.md), and the
 * enumeration of the configs its constraints allow.
 *
 * space_load parses and checks everything before anything runs: YAML syntax, unknown and
 * duplicate keys, types, aliases, nesting depth, ops/dtypes/problem fields/parameter values the
 * family (tuner/ops) does not support, constraint expressions (parsed, bound, type-checked and
 * evaluated over the whole space without a device), empty spaces, impossible search and measure
 * settings. Every error is one line "path:line:col: error: message". */
#pragma once
#include <stdint.h>
#include <stddef.h>
#include "core/value.h"
#include "core/problem.h"
#include "core/device.h"
#include "core/eval.h"
#include "expr/expr.h"
#include "ops/ops.h"

typedef struct space_param {
    char *name;
    int n_values;
    value *values;           /* ints or strings, in the order the file gives them; strings owned */
    int line, col;           /* where the parameter is declared */
} space_param;

typedef struct space_constraint {
    char *text;
    expr *e;                 /* bound: slots are params [0, n_params), then the fixed names */
    int line, col;           /* position of the expression's first character in the file */
    int uses_device;         /* reads a device attribute */
} space_constraint;

typedef struct space_search {
    char *strategy;          /* "exhaustive", "random", ... (known to strategy_find) */
    int64_t budget_evals;    /* per problem (op, dtype, problem); 0 = no limit */
    double budget_seconds;   /* per problem; 0 = no limit */
    uint64_t seed;           /* default 1 */
    int objective;           /* search.objective: what the search minimises (core/objective.h),
                                OBJECTIVE_TIME by default */
    int n_start;             /* search.start: configs measured first, in order, before the */
    int *start;              /* strategy's own (n_start * n_params value indices) */
} space_search;

typedef struct space_validate {
    int enabled;             /* default 1 */
    double tolerance_scale;  /* multiplies the family's per-dtype tolerance; default 1 */
} space_validate;

typedef struct space {
    char *path;
    char sha256[65];         /* of the file's bytes */
    char *kernel;            /* the family name results are stored under */
    /* The family that runs it: a built-in one (tuner/ops), or for a user kernel the one
     * tuner/ops/user_kernel.c builds from `user` (user_space_load attaches it; space_load leaves it
     * NULL). */
    const op_family *family;
    struct space_user *user; /* the `kernel:` mapping of a user kernel, or NULL */
    int n_fields;            /* the problem fields: the family's, or a user kernel's own */
    const problem_field *fields;
    int n_ops;      char **ops;
    int n_dtypes;   char **dtypes;
    int n_problems; problem *problems;
    int n_params;   space_param *params;     /* file order; enumeration order */
    int n_constraints; space_constraint *constraints;
    space_search search;
    measure_settings measure;
    space_validate validate;
} space;

/* Loads and checks path. Returns a new space (free with space_free), or NULL with err holding
 * one line "path:line:col: error: message" (line/col omitted only when there is no position,
 * e.g. the file cannot be opened: "path: error: ..."). */
space *space_load(const char *path, char *err, size_t len);
void space_free(space *s);

/* What one enumeration is about: an op, a dtype, a problem, and a device (NULL: constraints that
 * read device attributes are not applied, see space_constraint.uses_device). */
typedef struct space_binding {
    const char *op;
    const char *dtype;
    const problem *problem;
    const device_info *device;
} space_binding;

/* A config is an array of n_params value indices: choice[k] indexes params[k].values. */

/* Iterates over the configs the constraints allow, in odometer order (last parameter fastest),
 * testing each constraint as soon as the parameters it reads are assigned so pruned subtrees are
 * never expanded. Usage:
 *     space_iter it; space_iter_init(&it, sp, &binding);
 *     while (space_iter_next(&it, choice) == 1) ...;   // choice: int[n_params]
 *     space_iter_free(&it);
 * space_iter_next returns 1 (a config), 0 (done) or -1 (an evaluation error: it.err). */
typedef struct space_iter {
    const space *sp;
    space_binding binding;
    int *choice;
    value *slots;
    int depth;
    int started, finished;
    expr_error err;
    int err_constraint;      /* index of the failing constraint when next returned -1; -2 when
                              * max_steps ran out */
    int64_t steps;           /* values assigned so far (nodes of the search tree visited) */
    int64_t max_steps;       /* 0: no limit; else next returns -1 once steps exceed it */
    void *priv;              /* implementation state */
} space_iter;

void space_iter_init(space_iter *it, const space *sp, const space_binding *b);
int space_iter_next(space_iter *it, int *choice);
void space_iter_free(space_iter *it);

/* Number of allowed configs for a binding, or -1 on an evaluation error (err filled as
 * "path:line:col: error: ..."). */
int64_t space_count(const space *sp, const space_binding *b, char *err, size_t len);
/* space_count within a budget of enumeration steps (*budget, decremented by the steps taken):
 * -1 with err "...: the space is too large ..." once the budget runs out, so that a space of
 * billions of configs is an error at load time rather than a run that never ends. */
#define SPACE_MAX_ENUM_STEPS ((int64_t)100000000)
/* The budget space_load checks a space within: SPACE_MAX_ENUM_STEPS (2.8 s on one core); the fuzz
 * target of the loader (tests/fuzz/fuzz_space.c) lowers it so that every input stays fast. */
extern int64_t space_max_enum_steps;
int64_t space_count_within(const space *sp, const space_binding *b, int64_t *budget, char *err,
                           size_t len);

/* 1 when every constraint holds for a full config (for strategies that propose configs
 * themselves), 0 when one does not, -1 on an evaluation error. */
int space_allows(const space *sp, const space_binding *b, const int *choice);

/* Canonical config text: "name=value" pairs sorted by name, joined by ','. Returns the length
 * (snprintf semantics). */
int space_config_text(const space *sp, const int *choice, char *buf, size_t len);

/* Parses canonical config text back to choices; 0, or -1 when a name or value is not in the
 * space. */
int space_config_parse(const space *sp, const char *text, int *choice);

/* Total raw (unconstrained) points: product of the parameters' value counts (saturates). */
int64_t space_raw_size(const space *sp);
