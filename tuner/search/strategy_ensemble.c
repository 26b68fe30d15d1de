/* strategy_ensemble.c: an ensemble of the other search strategies (bayes, local, anneal,
 * genetic). The first proposals go to bayes (its space-filling start, bayes_init_size of them:
 * a neighbourhood search from a random config wastes a small budget); after that each evaluation
 * goes to one of them by an AUC bandit (as OpenTuner's
 * AUCBanditMetaTechnique): each member keeps a sliding window of its last ENSEMBLE_WINDOW
 * proposals, each marked 1 when it improved the best time; the credit is the area under the
 * curve of those marks, recent uses weighing more, plus an exploration bonus
 * ENSEMBLE_C * sqrt(2 ln(uses) / member's uses). Every member observes every result (whoever
 * proposed it), so all learn from all; a member that proposes a config already observed is told
 * its result and asked again, and a member with nothing left is retired. */
#include "strategy_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ENSEMBLE_WINDOW 20
#define ENSEMBLE_C 0.3
#define ENSEMBLE_RETRIES 50

static const strategy_vtable *const members[] = {
    &strategy_bayes_vt, &strategy_local_vt, &strategy_anneal_vt, &strategy_genetic_vt,
};
#define N_MEMBERS (int)(sizeof members / sizeof members[0])

typedef struct ensemble {
    strategy base;
    sc_search s;             /* all observations, to answer repeated proposals */
    strategy *m[N_MEMBERS];
    int retired[N_MEMBERS];
    unsigned char window[N_MEMBERS][ENSEMBLE_WINDOW];
    int n_window[N_MEMBERS], head[N_MEMBERS];
    int64_t uses;
    int n_init;              /* the first proposals go to bayes: its space-filling start */
    int last;                /* member that made the pending proposal, -1 none */
    double best_us;          /* best ok time before the pending proposal */
} ensemble;

static double score(const ensemble *e, int i)
{
    int n = e->n_window[i];
    if (n == 0) return INFINITY;
    double auc = 0;
    for (int j = 0; j < n; j++) {   /* j = 0 oldest */
        int slot = (e->head[i] - n + j + ENSEMBLE_WINDOW) % ENSEMBLE_WINDOW;
        auc += e->window[i][slot] * (double)(j + 1);
    }
    auc /= (double)n * (double)(n + 1) / 2.0;
    return auc + ENSEMBLE_C * sqrt(2.0 * log((double)e->uses + 1.0) / (double)n);
}

static int ensemble_propose(strategy *st, int *choice)
{
    ensemble *e = (ensemble *)st;
    if (sc_exhausted(&e->s)) return 0;
    for (;;) {
        int pick = -1;
        double best = -INFINITY;
        for (int i = 0; i < N_MEMBERS; i++) {
            if (e->retired[i]) continue;
            double sc = score(e, i);
            if (sc > best) { best = sc; pick = i; }
        }
        if (pick < 0) return 0;
        if ((int64_t)e->s.n_obs < e->n_init && !e->retired[0]) pick = 0;
        strategy *m = e->m[pick];
        for (int t = 0; t < ENSEMBLE_RETRIES; t++) {
            if (m->vt->propose(m, choice) != 1) break;
            int64_t seen = sc_seen(&e->s, choice);
            if (seen < 0) {
                e->last = pick;
                e->best_us = e->s.best >= 0 ? e->s.obs_us[e->s.best] : 0;
                return 1;
            }
            m->vt->observe(m, choice, e->s.obs_status[seen], e->s.obs_us[seen]);
        }
        e->retired[pick] = 1;
    }
}

static void ensemble_observe(strategy *st, const int *choice, eval_status status, double us)
{
    ensemble *e = (ensemble *)st;
    if (sc_seen(&e->s, choice) >= 0) return;
    sc_record(&e->s, choice, status, us);
    for (int i = 0; i < N_MEMBERS; i++) e->m[i]->vt->observe(e->m[i], choice, status, us);
    int i = e->last;
    if (i < 0) return;
    int improved = status == EVAL_OK && (e->best_us == 0 || us < e->best_us);
    e->window[i][e->head[i]] = (unsigned char)improved;
    e->head[i] = (e->head[i] + 1) % ENSEMBLE_WINDOW;
    if (e->n_window[i] < ENSEMBLE_WINDOW) e->n_window[i]++;
    e->uses++;
    e->last = -1;
}

static void ensemble_destroy(strategy *st)
{
    ensemble *e = (ensemble *)st;
    if (!e) return;
    for (int i = 0; i < N_MEMBERS; i++)
        if (e->m[i]) e->m[i]->vt->destroy(e->m[i]);
    sc_free(&e->s);
    free(e);
}

static strategy *ensemble_create(const space *sp, const space_binding *b, uint64_t seed,
                                 int64_t budget, char *err, size_t len)
{
    ensemble *e = calloc(1, sizeof *e);   /* freed by ensemble_destroy */
    if (!e) { snprintf(err, len, "out of memory"); return NULL; }
    e->base.vt = &strategy_ensemble_vt;
    e->last = -1;
    if (sc_init(&e->s, sp, b, seed, 0xe25e3b1e, err, len) != 0) { free(e); return NULL; }
    e->n_init = bayes_init_size(sc_budget(&e->s, budget));
    for (int i = 0; i < N_MEMBERS; i++) {
        e->m[i] = members[i]->create(sp, b, seed, budget, err, len);
        if (!e->m[i]) { ensemble_destroy(&e->base); return NULL; }
    }
    return &e->base;
}

const strategy_vtable strategy_ensemble_vt = {
    "ensemble", ensemble_create, ensemble_propose, ensemble_observe, ensemble_destroy, 0,
};
