/* strategy_anneal.c: simulated annealing over parameter neighbourhoods ("anneal"). A walk moves
 * from the current config to a random neighbour (one parameter changed: an ordinal one by one or
 * two ranks, a categorical one to another value; repaired into the constraints), accepting a
 * slower one with probability exp(-delta / T), delta the difference of log times, so T reads as
 * a relative slow-down (T = 0.05: 5% slower is accepted with probability 1/e). T falls
 * geometrically from ANNEAL_T0 to ANNEAL_T1 over the budget. Steps onto configs already observed
 * cost nothing (their time is known), so the walk crosses explored ground freely and proposes
 * only unvisited configs; after a stretch without a new best the walk goes back to the best. */
#include "strategy_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ANNEAL_T0 0.05
#define ANNEAL_T1 0.002
#define ANNEAL_STEPS 500     /* free steps per proposal before a random jump */

typedef struct anneal {
    strategy base;
    sc_search s;
    int64_t budget;
    int have_current;
    int64_t current;         /* observation index */
    int64_t since_best;      /* proposals since the best improved */
    int64_t best_seen;       /* s.best when last checked */
    int *pending, *cand;
} anneal;

static double temperature(const anneal *a)
{
    double f = (double)a->s.n_counted / (double)a->budget;
    if (f > 1) f = 1;
    return ANNEAL_T0 * pow(ANNEAL_T1 / ANNEAL_T0, f);
}

/* Metropolis: 1 when the walk moves from the current config to observation i. */
static int accept(anneal *a, int64_t i)
{
    if (a->s.obs_status[i] != EVAL_OK) return 0;
    if (!a->have_current) return 1;
    double delta = log(a->s.obs_us[i]) - log(a->s.obs_us[a->current]);
    if (delta <= 0) return 1;
    return gsl_rng_uniform(a->s.rng) < exp(-delta / temperature(a));
}

static int anneal_propose(strategy *st, int *choice)
{
    anneal *a = (anneal *)st;
    sc_search *s = &a->s;
    int np = s->np;
    if (sc_exhausted(s)) return 0;
    if (s->best != a->best_seen) { a->best_seen = s->best; a->since_best = 0; }
    if (s->best >= 0 && (!a->have_current || a->since_best > a->budget / 4)) {
        a->current = s->best;   /* start, or restart after a stretch without progress */
        a->have_current = 1;
        a->since_best = 0;
    }
    a->since_best++;
    if (a->have_current && np > 0) {
        for (int step = 0; step < ANNEAL_STEPS; step++) {
            memcpy(a->cand, s->obs_choice + (size_t)a->current * np, (size_t)np * sizeof *a->cand);
            int k = (int)gsl_rng_uniform_int(s->rng, (unsigned long)np);
            if (s->sp->params[k].n_values < 2) continue;
            sc_mutate_param(s, a->cand, k);
            if (!sc_repair(s, a->cand, k)) continue;
            int64_t seen = sc_seen(s, a->cand);
            if (seen < 0) {
                memcpy(choice, a->cand, (size_t)np * sizeof *choice);
                goto proposed;
            }
            if (seen != a->current && accept(a, seen)) a->current = seen;
        }
    }
    if (!sc_random_unvisited(s, choice)) return 0;
proposed:
    memcpy(a->pending, choice, (size_t)np * sizeof *choice);
    return 1;
}

static void anneal_observe(strategy *st, const int *choice, eval_status status, double us)
{
    anneal *a = (anneal *)st;
    int64_t i = sc_record(&a->s, choice, status, us);
    if (i < 0 || status != EVAL_OK) return;
    int mine = memcmp(choice, a->pending, (size_t)a->s.np * sizeof *choice) == 0;
    if (mine ? accept(a, i) : i == a->s.best) {
        a->current = i;
        a->have_current = 1;
    }
}

static void anneal_destroy(strategy *st)
{
    anneal *a = (anneal *)st;
    if (!a) return;
    sc_free(&a->s);
    free(a->pending);
    free(a->cand);
    free(a);
}

static strategy *anneal_create(const space *sp, const space_binding *b, uint64_t seed,
                               int64_t budget, char *err, size_t len)
{
    anneal *a = calloc(1, sizeof *a);   /* freed by anneal_destroy */
    if (!a) { snprintf(err, len, "out of memory"); return NULL; }
    a->base.vt = &strategy_anneal_vt;
    size_t np = (size_t)(sp->n_params ? sp->n_params : 1);
    if (sc_init(&a->s, sp, b, seed, 0xa22ea1, err, len) != 0) { free(a); return NULL; }
    a->budget = sc_budget(&a->s, budget);
    a->best_seen = -1;
    a->pending = calloc(np, sizeof *a->pending);
    a->cand = calloc(np, sizeof *a->cand);
    if (!a->pending || !a->cand) {
        snprintf(err, len, "out of memory");
        anneal_destroy(&a->base);
        return NULL;
    }
    return &a->base;
}

const strategy_vtable strategy_anneal_vt = {
    "anneal", anneal_create, anneal_propose, anneal_observe, anneal_destroy, 0,
};
