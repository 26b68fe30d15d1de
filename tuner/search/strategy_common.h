/* strategy_common.h: what the search strategies (strategy_anneal.c, strategy_genetic.c,
 * strategy_local.c, strategy_bayes.c, strategy_ensemble.c) share: one search context per
 * strategy that knows the space and the binding, encodes configs as points in [0,1]^dim for
 * distances and models, remembers every observation (so nothing is proposed twice), draws
 * unvisited configs at random, and builds parameter neighbourhoods that stay inside the
 * constraints. Also the warm-start wrapper that puts given configs in front of any strategy.
 *
 * Spaces whose raw size is at most SC_ENUM_LIMIT are enumerated once (the allowed set, pruned by
 * space_iter): random draws are then uniform over the unvisited allowed configs, a neighbour
 * that breaks a constraint is repaired to the nearest allowed config, and exhaustion is known
 * exactly. Larger spaces are searched by rejection sampling with bounded tries, so a strategy
 * always returns. Observations may come for configs the strategy never proposed (warm starts,
 * the ensemble's other members, resumed results): every strategy learns from them. */
#pragma once
#include <stdint.h>
#include <stddef.h>
#include <gsl/gsl_rng.h>
#include "strategy.h"

#define SC_ENUM_LIMIT ((int64_t)1 << 18)

/* The strategy `tuner run` uses by default when the space's own strategy is exhaustive but its
 * budget is smaller than the space (see tuner/run/run.c), chosen from the tables in
 * docs/performance.md: on the recorded H100 elementwise space its median run comes within 2% of
 * the optimum inside 10% of the space on every problem and its mean gap at that budget is never
 * worse than random sampling's (bayes is as fast but ends a little behind random on a few flat
 * problems). */
#define SC_DEFAULT_SEARCH "ensemble"

/* The strategies in these files (strategy.c lists them in its table). */
extern const strategy_vtable strategy_anneal_vt, strategy_genetic_vt, strategy_local_vt,
    strategy_bayes_vt, strategy_ensemble_vt, strategy_transfer_vt;

/* A map from 64-bit config keys to indices (open addressing). */
typedef struct sc_map {
    size_t cap, used;
    uint64_t *keys;
    int64_t *vals;           /* -1: empty slot */
} sc_map;

typedef struct sc_search {
    const space *sp;
    space_binding b;
    int np;                  /* parameters */
    int dim;                 /* encoded dimensions */
    gsl_rng *rng;
    /* encoding: param k occupies [off[k], off[k] + width[k]) of the encoded point; an ordinal
     * parameter (numbers) one dimension, its value's rank / (n-1); a categorical one (strings)
     * one dimension per value, one-hot scaled by 1/sqrt(2) so two categories are 1 apart. */
    int *off, *width, *categorical;
    int **rank;              /* rank[k][value index] for ordinal parameters */
    int **by_rank;           /* by_rank[k][rank] = value index */
    int key_mixed;           /* keys are mixed-radix indices (raw size fits), else hashes */
    /* the allowed set, when enumerated */
    int enumerated;
    size_t n_allowed;
    int *allowed;            /* n_allowed * np */
    sc_map allowed_index;    /* key -> index into allowed */
    size_t n_unvisited;
    size_t *unvisited;       /* allowed indices not yet observed, in no order */
    size_t *unvisited_pos;   /* allowed index -> position in unvisited, SIZE_MAX once seen */
    /* observations, in the order they came */
    size_t n_obs, cap_obs;
    int *obs_choice;         /* n_obs * np */
    eval_status *obs_status;
    double *obs_us;
    sc_map seen;             /* key -> observation index */
    int64_t best;            /* observation index of the fastest ok, -1 before any */
    int64_t n_counted;       /* observations that count against a budget */
} sc_search;

/* Sets up s for a binding; seed and salt (one constant per strategy) seed the generator.
 * Returns 0, or -1 with err (out of memory, a constraint that cannot be evaluated).
 * sc_free releases everything sc_init allocated. */
int sc_init(sc_search *s, const space *sp, const space_binding *b, uint64_t seed, uint64_t salt,
            char *err, size_t len);
void sc_free(sc_search *s);

/* The identity of a config (equal keys: the same config). */
uint64_t sc_key(const sc_search *s, const int *choice);
/* Observation index of choice, or -1 when it was never observed. */
int64_t sc_seen(const sc_search *s, const int *choice);
/* Records an observation (a config observed twice keeps its first result). Returns the
 * observation index, or -1 when out of memory. */
int64_t sc_record(sc_search *s, const int *choice, eval_status status, double us);
/* 1 when every allowed config has been observed (known only when enumerated). */
int sc_exhausted(const sc_search *s);
/* Index of choice in the enumerated allowed set, or -1 (not allowed, or not enumerated). */
int64_t sc_allowed_index(const sc_search *s, const int *choice);
/* 1 when the constraints allow choice. */
int sc_allowed(const sc_search *s, const int *choice);
/* A uniformly drawn allowed config never observed: 1, or 0 when none could be found. */
int sc_random_unvisited(sc_search *s, int *choice);
/* Writes the encoding of choice to x (double[dim]). */
void sc_encode(const sc_search *s, const int *choice, double *x);
/* Squared distance between two encodings. */
double sc_dist2(const sc_search *s, const double *x, const double *y);
/* Fixes a config that breaks a constraint: the nearest allowed config (encoded distance) that
 * keeps parameter keep (-1: none kept) at its value. 1 when choice is allowed on return. */
int sc_repair(sc_search *s, int *choice, int keep);
/* The neighbours of choice: for each parameter, the next lower and higher value of an ordinal
 * parameter (by rank) or every other value of a categorical one, repaired when a constraint
 * rejects the change. Writes up to max distinct configs (other than choice) to out
 * (max * np ints) and returns how many. */
int sc_neighbours(sc_search *s, const int *choice, int *out, int max);
/* One random neighbour step of parameter k (ordinal: up to +-2 ranks; categorical: another
 * value), written into choice; not checked against the constraints. */
void sc_mutate_param(sc_search *s, int *choice, int k);

/* 1 for the statuses that ran and failed or cannot run (invalid, launch_error, fault, timeout,
 * unsupported): the strategies treat such configs as worse than any that ran. */
int sc_is_failure(eval_status st);
/* 1 when st counts against the evaluation budget (as tuner/run/run_task.c counts). */
int sc_counts(eval_status st);
/* Effective budget for schedules: the given one, or (0 = none) the allowed count capped. */
int64_t sc_budget(const sc_search *s, int64_t budget);

/* How many space-filling configs bayes measures before it models (strategy_bayes.c), for an
 * effective budget (sc_budget); the ensemble hands its first proposals to bayes as many times. */
int bayes_init_size(int64_t budget);

/* Warm start: a strategy that first proposes configs (nconf configs of np choices, in order;
 * those not allowed are skipped) and then hands over to inner, which observes everything and
 * whose proposals of configs already observed are answered from memory rather than proposed
 * again. Takes ownership of inner (destroyed with the wrapper, or at once on failure). Returns
 * NULL with err. The caller destroys the result through its vtable. */
strategy *strategy_warm_wrap(strategy *inner, const space *sp, const space_binding *b,
                             const int *configs, int nconf, char *err, size_t len);

/* `tuner run --warm-start` (strategy_warm_db.c): wraps *st with the winners d records for the
 * binding's op and dtype on devices other than b->device, nearest compute capability first
 * (then the same problem, then the nearest size), at most 8, those sp cannot express skipped.
 * Leaves *st as it is when there are none. Returns 0, or -1 with err and *st destroyed (NULL). */
typedef struct db db;
int strategy_warm_start(strategy **st, db *d, const space *sp, const space_binding *b,
                        char *err, size_t len);
/* The transfer search's start (strategy_warm_db.c): first the configs devices other than
 * b->device measured within 3% of their best on the same problem (at most 6, nearest compute
 * capability first), then the warm start's winners of the neighbouring problems. */
int strategy_transfer_start(strategy **st, db *d, const space *sp, const space_binding *b,
                            char *err, size_t len);
