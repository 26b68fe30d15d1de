/* strategy_genetic.c: a steady-state genetic algorithm ("genetic"). The population is the
 * fastest GENETIC_POP configs observed so far (whoever proposed them); until it is full, random
 * configs seed it. Each proposal is one child: two parents picked by tournaments of three, uniform
 * crossover, then each parameter mutated with probability 1/params (one or two ranks for an
 * ordinal parameter, another value for a categorical one), repaired into the constraints. A child
 * already observed is bred again with more mutation; after bounded tries a random unvisited
 * config is proposed instead. Configs that failed never join the population. */
#include "strategy_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GENETIC_POP_MIN 6
#define GENETIC_POP_MAX 16
#define GENETIC_TRIES 200

typedef struct genetic {
    strategy base;
    sc_search s;
    int pop_size;
    int64_t *pop;            /* observation indices, fastest first */
    int n_pop;
} genetic;

/* Rebuilds the population: the pop_size fastest ok observations (ties: earliest). */
static void select_population(genetic *g)
{
    sc_search *s = &g->s;
    g->n_pop = 0;
    for (size_t i = 0; i < s->n_obs; i++) {
        if (s->obs_status[i] != EVAL_OK) continue;
        int pos = g->n_pop;
        while (pos > 0 && s->obs_us[g->pop[pos - 1]] > s->obs_us[i]) pos--;
        if (pos >= g->pop_size) continue;
        int last = g->n_pop < g->pop_size ? g->n_pop++ : g->pop_size - 1;
        memmove(g->pop + pos + 1, g->pop + pos, (size_t)(last - pos) * sizeof *g->pop);
        g->pop[pos] = (int64_t)i;
    }
}

static const int *tournament(genetic *g)
{
    int best = (int)gsl_rng_uniform_int(g->s.rng, (unsigned long)g->n_pop);
    for (int t = 1; t < 3; t++) {
        int c = (int)gsl_rng_uniform_int(g->s.rng, (unsigned long)g->n_pop);
        if (c < best) best = c;   /* the population is sorted: lower is faster */
    }
    return g->s.obs_choice + (size_t)g->pop[best] * (size_t)g->s.np;
}

static int genetic_propose(strategy *st, int *choice)
{
    genetic *g = (genetic *)st;
    sc_search *s = &g->s;
    int np = s->np;
    if (sc_exhausted(s)) return 0;
    select_population(g);
    if (g->n_pop >= g->pop_size || (g->n_pop >= 2 && sc_exhausted(s))) {
        for (int t = 0; t < GENETIC_TRIES; t++) {
            const int *a = tournament(g), *b = tournament(g);
            for (int k = 0; k < np; k++) choice[k] = gsl_rng_uniform_int(s->rng, 2) ? a[k] : b[k];
            double rate = (1.0 + t / 20) / (double)(np ? np : 1);
            int mutated = 0;
            for (int k = 0; k < np; k++)
                if (gsl_rng_uniform(s->rng) < rate) { sc_mutate_param(s, choice, k); mutated = 1; }
            if (!mutated && np > 0 && t > 0)
                sc_mutate_param(s, choice, (int)gsl_rng_uniform_int(s->rng, (unsigned long)np));
            if (sc_repair(s, choice, -1) && sc_seen(s, choice) < 0) return 1;
        }
    }
    return sc_random_unvisited(s, choice);
}

static void genetic_observe(strategy *st, const int *choice, eval_status status, double us)
{
    genetic *g = (genetic *)st;
    sc_record(&g->s, choice, status, us);
}

static void genetic_destroy(strategy *st)
{
    genetic *g = (genetic *)st;
    if (!g) return;
    sc_free(&g->s);
    free(g->pop);
    free(g);
}

static strategy *genetic_create(const space *sp, const space_binding *b, uint64_t seed,
                                int64_t budget, char *err, size_t len)
{
    genetic *g = calloc(1, sizeof *g);   /* freed by genetic_destroy */
    if (!g) { snprintf(err, len, "out of memory"); return NULL; }
    g->base.vt = &strategy_genetic_vt;
    if (sc_init(&g->s, sp, b, seed, 0x9e4e71c, err, len) != 0) { free(g); return NULL; }
    int64_t pop = sc_budget(&g->s, budget) / 5;
    g->pop_size = pop < GENETIC_POP_MIN ? GENETIC_POP_MIN : pop > GENETIC_POP_MAX ? GENETIC_POP_MAX
                                                                                   : (int)pop;
    g->pop = malloc((size_t)g->pop_size * sizeof *g->pop);
    if (!g->pop) {
        snprintf(err, len, "out of memory");
        genetic_destroy(&g->base);
        return NULL;
    }
    return &g->base;
}

const strategy_vtable strategy_genetic_vt = {
    "genetic", genetic_create, genetic_propose, genetic_observe, genetic_destroy, 0,
};
