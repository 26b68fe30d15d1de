/* strategy.c: the strategy table and the two basic strategies.
 *   exhaustive: every allowed config, in the space's odometer order (space_iter).
 *   random:     allowed configs in a seeded random order without replacement: the allowed set
 *               is enumerated once (constraints prune while enumerating) and shuffled with a
 *               GSL generator, so the same seed gives the same sequence.
 * Budgets are enforced by the run loop, not here. */
#include "strategy.h"
#include "strategy_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

static const strategy_vtable exhaustive_vt, random_vt;

/* ---- exhaustive ---- */
typedef struct exhaustive {
    strategy base;
    space_iter it;
    int done;
} exhaustive;

static strategy *exhaustive_create(const space *sp, const space_binding *b, uint64_t seed,
                                   int64_t budget, char *err, size_t len)
{
    (void)seed; (void)budget;
    exhaustive *s = calloc(1, sizeof *s);   /* freed by exhaustive_destroy */
    if (!s) { snprintf(err, len, "out of memory"); return NULL; }
    s->base.vt = &exhaustive_vt;
    space_iter_init(&s->it, sp, b);
    return &s->base;
}

static int exhaustive_propose(strategy *st, int *choice)
{
    exhaustive *s = (exhaustive *)st;
    if (s->done) return 0;
    if (space_iter_next(&s->it, choice) == 1) return 1;
    s->done = 1;
    return 0;
}

static void exhaustive_observe(strategy *st, const int *choice, eval_status status, double us)
{
    (void)st; (void)choice; (void)status; (void)us;
}

static void exhaustive_destroy(strategy *st)
{
    exhaustive *s = (exhaustive *)st;
    if (!s) return;
    space_iter_free(&s->it);
    free(s);
}

static const strategy_vtable exhaustive_vt = {
    "exhaustive", exhaustive_create, exhaustive_propose, exhaustive_observe, exhaustive_destroy, 0,
};

/* ---- random without replacement ---- */
typedef struct random_order {
    strategy base;
    int n_params;
    size_t count, next;
    int *configs;            /* count * n_params choices */
    size_t *order;           /* shuffled indices into configs */
} random_order;

static void random_destroy(strategy *st)
{
    random_order *s = (random_order *)st;
    if (!s) return;
    free(s->configs);
    free(s->order);
    free(s);
}

static strategy *random_create(const space *sp, const space_binding *b, uint64_t seed,
                               int64_t budget, char *err, size_t len)
{
    (void)budget;
    random_order *s = calloc(1, sizeof *s);   /* freed by random_destroy */
    gsl_rng *rng = NULL;
    int *choice = NULL;
    space_iter it;
    space_iter_init(&it, sp, b);
    if (!s) goto oom;
    s->base.vt = &random_vt;
    s->n_params = sp->n_params;
    choice = malloc((size_t)(sp->n_params ? sp->n_params : 1) * sizeof *choice);
    if (!choice) goto oom;
    size_t cap = 0;
    int rc;
    while ((rc = space_iter_next(&it, choice)) == 1) {
        if (s->count == cap) {
            cap = cap ? cap * 2 : 256;
            int *grown = realloc(s->configs, cap * (size_t)s->n_params * sizeof *grown);
            if (!grown) goto oom;
            s->configs = grown;
        }
        memcpy(s->configs + s->count * (size_t)s->n_params, choice,
               (size_t)s->n_params * sizeof *choice);
        s->count++;
    }
    if (rc < 0) {
        snprintf(err, len, "constraint %d: %s", it.err_constraint + 1, it.err.message);
        goto fail;
    }
    s->order = malloc((s->count ? s->count : 1) * sizeof *s->order);
    rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!s->order || !rng) goto oom;
    gsl_rng_set(rng, (unsigned long)seed);
    for (size_t i = 0; i < s->count; i++) s->order[i] = i;
    if (s->count > 1) gsl_ran_shuffle(rng, s->order, s->count, sizeof *s->order);
    gsl_rng_free(rng);
    free(choice);
    space_iter_free(&it);
    return &s->base;
oom:
    snprintf(err, len, "out of memory enumerating the space");
fail:
    if (rng) gsl_rng_free(rng);
    free(choice);
    space_iter_free(&it);
    random_destroy(&s->base);
    return NULL;
}

static int random_propose(strategy *st, int *choice)
{
    random_order *s = (random_order *)st;
    if (s->next >= s->count) return 0;
    memcpy(choice, s->configs + s->order[s->next++] * (size_t)s->n_params,
           (size_t)s->n_params * sizeof *choice);
    return 1;
}

static const strategy_vtable random_vt = {
    "random", random_create, random_propose, exhaustive_observe, random_destroy, 0,
};

/* ---- table ---- */
static const strategy_vtable *const all[] = {
    &exhaustive_vt, &random_vt,
    &strategy_anneal_vt,
    &strategy_genetic_vt,
    &strategy_local_vt,
    &strategy_bayes_vt,
    &strategy_ensemble_vt,
    &strategy_transfer_vt,
    NULL,
};

const strategy_vtable *const *strategy_all(void) { return all; }

const strategy_vtable *strategy_find(const char *name)
{
    for (int i = 0; name && all[i]; i++)
        if (strcmp(all[i]->name, name) == 0) return all[i];
    return NULL;
}
