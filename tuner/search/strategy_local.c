/* strategy_local.c: greedy iterated local search ("local"). From a start (the best config known,
 * else a random one) it tries the neighbours of the current config (strategy_common.h:
 * next value up or down of each ordinal parameter, every other value of a categorical one) in a
 * random order and moves to the first that is faster; after a move along an ordinal parameter
 * the same step is tried again first. When no neighbour is faster (a local optimum), it kicks
 * the best config found by two or three random parameter changes and searches again from there
 * (saying so in its stop_reason, which the transfer search reads as convergence).
 * Failed, unsupported or unrecorded configs are never moved to and never proposed again. */
#include "strategy_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_randist.h>

#define LOCAL_MAX_NEIGHBOURS 512

typedef struct local_search {
    strategy base;
    sc_search s;
    int have_center;
    int64_t center;          /* observation index of the current config */
    int *queue;              /* neighbours of the center still to try, tried from the front */
    int n_queue, next;
    int restarting;          /* the last proposal was a kicked start: it becomes the center */
    int *pending;            /* last proposal */
    int *tmp;
} local_search;

static const int *obs_choice(const local_search *l, int64_t i)
{
    return l->s.obs_choice + (size_t)i * (size_t)l->s.np;
}

/* Makes observation i the center and refills the queue with its neighbours, shuffled; when the
 * move from the previous center changed one ordinal parameter, the same step again goes first. */
static void set_center(local_search *l, int64_t i)
{
    sc_search *s = &l->s;
    int np = s->np;
    int moved = -1, step = 0;
    if (l->have_center) {
        const int *from = obs_choice(l, l->center), *to = obs_choice(l, i);
        for (int k = 0; k < np; k++)
            if (from[k] != to[k]) {
                if (moved >= 0 || s->categorical[k]) { moved = -2; break; }
                moved = k;
                step = s->rank[k][to[k]] - s->rank[k][from[k]];
            }
    }
    l->center = i;
    l->have_center = 1;
    l->n_queue = sc_neighbours(s, obs_choice(l, i), l->queue, LOCAL_MAX_NEIGHBOURS);
    l->next = 0;
    if (l->n_queue > 1)
        gsl_ran_shuffle(s->rng, l->queue, (size_t)l->n_queue, (size_t)np * sizeof *l->queue);
    if (moved >= 0) {
        int r = s->rank[moved][obs_choice(l, i)[moved]] + step;
        if (r >= 0 && r < s->sp->params[moved].n_values) {
            memcpy(l->tmp, obs_choice(l, i), (size_t)np * sizeof *l->tmp);
            l->tmp[moved] = s->by_rank[moved][r];
            for (int q = 0; q < l->n_queue; q++)
                if (memcmp(l->queue + (size_t)q * np, l->tmp, (size_t)np * sizeof *l->tmp) == 0) {
                    memcpy(l->queue + (size_t)q * np, l->queue, (size_t)np * sizeof *l->tmp);
                    memcpy(l->queue, l->tmp, (size_t)np * sizeof *l->tmp);
                    break;
                }
        }
    }
}

static double obs_us(const local_search *l, int64_t i) { return l->s.obs_us[i]; }

static int is_better(const local_search *l, int64_t i)
{
    return l->s.obs_status[i] == EVAL_OK && (!l->have_center || obs_us(l, i) < obs_us(l, l->center));
}

/* A kicked copy of the best config that was never observed: 1, or 0 after bounded tries. */
static int kick(local_search *l, int *choice)
{
    sc_search *s = &l->s;
    if (s->best < 0) return 0;
    for (int t = 0; t < 100; t++) {
        memcpy(choice, obs_choice(l, s->best), (size_t)s->np * sizeof *choice);
        int changes = 2 + (int)gsl_rng_uniform_int(s->rng, 2) + t / 25;
        for (int c = 0; c < changes; c++)
            sc_mutate_param(s, choice, (int)gsl_rng_uniform_int(s->rng, (unsigned long)s->np));
        if (sc_repair(s, choice, -1) && sc_seen(s, choice) < 0) return 1;
    }
    return 0;
}

static int local_propose(strategy *st, int *choice)
{
    local_search *l = (local_search *)st;
    sc_search *s = &l->s;
    int np = s->np;
    if (sc_exhausted(s)) return 0;
    if (!l->have_center && s->best >= 0) set_center(l, s->best);
    if (l->have_center) {
        while (l->next < l->n_queue) {
            const int *c = l->queue + (size_t)l->next++ * np;
            int64_t seen = sc_seen(s, c);
            if (seen < 0) {
                memcpy(choice, c, (size_t)np * sizeof *choice);
                l->restarting = 0;
                goto proposed;
            }
            if (is_better(l, seen)) set_center(l, seen);
        }
        /* a local optimum: every neighbour of the center measured, none faster */
        st->stop_reason = "a local optimum: every neighbour of the best was measured";
        if (kick(l, choice)) {
            l->restarting = 1;
            goto proposed;
        }
    }
    if (!sc_random_unvisited(s, choice)) return 0;
    l->restarting = 1;
proposed:
    memcpy(l->pending, choice, (size_t)np * sizeof *choice);
    return 1;
}

static void local_observe(strategy *st, const int *choice, eval_status status, double us)
{
    local_search *l = (local_search *)st;
    int64_t i = sc_record(&l->s, choice, status, us);
    if (i < 0) return;
    int mine = memcmp(choice, l->pending, (size_t)l->s.np * sizeof *choice) == 0;
    if (mine && l->restarting && status == EVAL_OK) {
        l->have_center = 0;     /* a kicked start: searched from, whatever its time */
        set_center(l, i);
        l->restarting = 0;
    } else if (is_better(l, i)) {
        set_center(l, i);
    }
}

static void local_destroy(strategy *st)
{
    local_search *l = (local_search *)st;
    if (!l) return;
    sc_free(&l->s);
    free(l->queue);
    free(l->pending);
    free(l->tmp);
    free(l);
}

static strategy *local_create(const space *sp, const space_binding *b, uint64_t seed,
                              int64_t budget, char *err, size_t len)
{
    (void)budget;
    local_search *l = calloc(1, sizeof *l);   /* freed by local_destroy */
    if (!l) { snprintf(err, len, "out of memory"); return NULL; }
    l->base.vt = &strategy_local_vt;
    size_t np = (size_t)(sp->n_params ? sp->n_params : 1);
    if (sc_init(&l->s, sp, b, seed, 0x10ca1, err, len) != 0) { free(l); return NULL; }
    l->queue = malloc(LOCAL_MAX_NEIGHBOURS * np * sizeof *l->queue);
    l->pending = calloc(np, sizeof *l->pending);
    l->tmp = calloc(np, sizeof *l->tmp);
    if (!l->queue || !l->pending || !l->tmp) {
        snprintf(err, len, "out of memory");
        local_destroy(&l->base);
        return NULL;
    }
    return &l->base;
}

const strategy_vtable strategy_local_vt = {
    "local", local_create, local_propose, local_observe, local_destroy, 0,
};
