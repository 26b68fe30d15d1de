/* report_data.h: what the report shows, read from the database for one device model (every card
 * with that name pooled, as the generated header pools them): the problems with all their
 * variants' times, energies and statuses, their winners under the report's objective (and by
 * time and by energy where energy was measured), the parameters as they appear in the configs'
 * text (nothing family-specific), each winner with its comparisons (report_compare.h), the runs,
 * and for runs of non-exhaustive strategies the best-so-far traces. Also the analysis over that
 * data: parameter importance, two-parameter slices, distributions and group summaries. */
#pragma once
#include <stdint.h>
#include "core/eval.h"
#include "core/objective.h"
#include "db/db.h"
#include "core/device.h"
#include "core/throughput.h"
#include "report_compare.h"

typedef struct rp_param {
    char *name;
    int n_values;
    char **values;           /* sorted: numerically when every value is a number, else by text */
} rp_param;

typedef struct rp_variant {
    char *config;            /* canonical config text */
    int *value;              /* per parameter of its problem: index into that parameter's values */
    double us;               /* fastest ok median recorded for this config */
    double joules;           /* least energy per run recorded for it (J); 0: none measured */
} rp_variant;

typedef struct rp_problem {
    char *op, *dtype, *shape;
    int64_t elements, bytes, size_key;    /* size_key -1: not a header entry */
    int64_t flops;                        /* floating-point operations per run; 0: not known */
    int status_count[EVAL_STATUS_COUNT];  /* recorded rows per status */
    int n_params;
    rp_param *params;                     /* sorted by name */
    int n_variants;
    rp_variant *variants;                 /* configs with an ok time, fastest first (ties: text) */
    /* the winner, variants[win]: under the report's objective what the header ships, under
     * time the view best's config (the playoff's winner where the closest configs played off,
     * so not always the fastest own median, variants[0]), under energy or edp the least energy
     * or energy-delay product (db_each_best_by); of several cards of the model, the one whose
     * winner's score is lowest, as the header picks. -1: none (no ok config; under energy or
     * edp, no energy measured) */
    int win;
    /* where some config has energy: the winners by time and by energy (indexes into variants,
     * -1: none), for the time-energy section */
    int win_time, win_energy;
    int n_energy;                         /* variants with energy */
    char *win_uuid;                       /* the card it was measured on */
    double win_gbps, win_frac;            /* as recorded (0 when NULL) */
    double win_ci_lo, win_ci_hi;          /* its median's 95% confidence interval */
    double copy_gbps;                     /* the copy ceiling of the winner's run (0: unknown) */
    winner_comparison cmp;                /* default and peer */
    /* importance: per parameter, per value the best time with that value fixed (NAN: none),
     * and the spread (slowest of those / fastest - 1; NAN with fewer than two values) */
    double **best_by_value;
    double *spread;
} rp_problem;

/* The problem's winner, variants[win]; NULL when it has none. */
static inline const rp_variant *rp_win_variant(const rp_problem *p)
{
    return p->win >= 0 && p->win < p->n_variants ? &p->variants[p->win] : NULL;
}

/* The problems of one op and dtype: problems[first .. first + count). */
typedef struct rp_group {
    const char *op, *dtype;
    int first, count;
} rp_group;

typedef struct rp_trace {
    int problem;             /* index into the device's problems */
    int n;                   /* evaluations that count against a budget, in seq order */
    double *best;            /* best ok time so far after each of them (NAN before the first) */
} rp_trace;

typedef struct rp_run {
    char *uuid, *started_at, *finished_at, *space, *strategy, *backend, *tuner_version;
    int64_t seed, n_evals;
    double copy_gbps;
    int n_traces;
    rp_trace *traces;        /* only for runs whose strategy is not exhaustive */
} rp_run;

typedef struct rp_device {
    char *name, *slug;
    objective objective;     /* what the winners are chosen by */
    int n_energy_problems;   /* problems with some config's energy measured */
    int n_no_winner;         /* problems with ok configs but no winner (energy or edp) */
    device_info info;        /* of the first card (by uuid) */
    int n_cards;
    char **uuids;
    int n_problems;
    rp_problem *problems;    /* by op, dtype, elements, shape */
    int n_groups;
    rp_group *groups;        /* in the problems' order */
    int n_runs;
    rp_run *runs;            /* by start time */
    int64_t n_rows;          /* evaluation rows */
    int64_t n_peer_rows;     /* peers rows */
    char **peer_libraries;   /* distinct peer library texts, sorted */
    int n_peer_libraries;
} rp_device;

/* The distinct device names recorded, sorted, as a malloc'd array of malloc'd strings (caller
 * frees each and the array; rp_free_names). Returns the count, or -1 on a database error. */
int rp_device_names(db *d, char ***names);
void rp_free_names(char **names, int n);

/* The file-name form of a device name: lower case, runs of other characters as one '-'
 * ("NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3"). */
void rp_slug(const char *name, char *buf, size_t len);

/* Reads everything about the device model `name`, with each problem's winner under objective o,
 * and runs the analysis. *out is the caller's, freed with rp_free. Returns 0, or -1 with err. */
int rp_load(db *d, const char *name, objective o, rp_device **out, char *err, size_t len);
void rp_free(rp_device *dev);

/* ---- analysis (report_analysis.c) ---- */
/* Fills best_by_value and spread of every problem. Returns 0, or -1 when out of memory. */
int rp_importance(rp_device *dev);
/* Index of the parameter called name in p, or -1. */
int rp_param_index(const rp_problem *p, const char *name);
/* The 2-parameter slice of problem p over parameters a (rows) and b (columns): out[i * nb + j]
 * is the best time with a = value i and b = value j, over the best time (NAN: none measured).
 * out holds n_values(a) * n_values(b) doubles. */
void rp_slice(const rp_problem *p, int a, int b, double *out);
/* The names of the group's parameters ranked by their summed spread over the group's problems,
 * most important first (ties by name); returns the count (at most max). Names point into the
 * problems' parameters. */
int rp_group_ranking(const rp_device *dev, const rp_group *g, const char **names, int max);
/* The parameter with the largest spread in p (ties: by name), or -1 when none has two values. */
int rp_most_important(const rp_problem *p);
/* Counts of variants per bin of log(time / best) over [0, log(hi_ratio)] into n bins (the last
 * bin takes everything slower). */
void rp_histogram(const rp_problem *p, double hi_ratio, int n, int *bins);
/* The Pareto front of p's variants with energy in time and energy (core/pareto.h): on_front[k]
 * (n_variants of them) 1 for variant k when no variant with energy is no slower and uses no
 * more energy, better in one; 0 for the rest and for variants without energy. Returns how many
 * are on it, or -1 when out of memory. */
int rp_pareto(const rp_problem *p, unsigned char *on_front);

/* ---- throughput ---- */
/* The problem's throughput at us microseconds (core/throughput.h): TFLOP/s and the share of the
 * device's peak when it has flops, else GB/s and the share of its winner's run's copy rate. */
throughput rp_throughput(const rp_device *dev, const rp_problem *p, double us);
/* 1 when some problem of the group has flops: its table shows TFLOP/s and the share of the
 * peak (a problem of it without flops, none of either). */
int rp_group_has_flops(const rp_device *dev, const rp_group *g);
/* The same over every dtype of op: its figure plots TFLOP/s. */
int rp_op_has_flops(const rp_device *dev, const char *op);

/* ---- text helpers ---- */
/* A problem size in binary units when exact or off by one ("64 Ki", "32 Mi - 1"), else the
 * number. */
void rp_size_label(int64_t n, char *buf, size_t len);
/* The problem's recorded rows per status, "142 ok, 3 invalid" (empty when there are none). */
void rp_status_counts(const rp_problem *p, char *buf, size_t len);
