/* strategy_transfer.c: "transfer", the default on a new GPU when other GPUs' results are at hand
 * (docs/time-to-tune.md). The run loop puts the other GPUs' winners of this problem and of its
 * neighbours in front (strategy_warm_start, nearest compute capability and problem first); from
 * the best of what they measured, a local search (strategy_local.c) tries neighbouring configs,
 * and the search stops when it has converged: at its first local optimum (every neighbour of
 * the best measured, none faster), or, on a plateau of tiny steps, when its last proposals (six
 * times the parameters, between 12 and 48) brought no gain of more than TRANSFER_GAIN over the
 * best. The budget, when there is one, still caps it. Why it stopped is its stop_reason. */
#include "strategy_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRANSFER_GAIN 0.005          /* a gain under 0.5% is noise, not progress */
#define TRANSFER_PATIENCE_MIN 12
#define TRANSFER_PATIENCE_MAX 48

typedef struct transfer {
    strategy base;
    strategy *local;
    int np;
    int *pending;            /* the local search's last proposal, to tell its results apart */
    int have_pending;
    double best_us;          /* best ok time seen (any proposer), 0 before any */
    int patience, since_gain;
    char why[160];
} transfer;

static int transfer_propose(strategy *st, int *choice)
{
    transfer *t = (transfer *)st;
    if (t->best_us > 0 && t->since_gain >= t->patience) {
        snprintf(t->why, sizeof t->why, "converged: its last %d configs gained nothing over %.2f us",
                 t->since_gain, t->best_us);
        st->stop_reason = t->why;
        return 0;
    }
    if (t->local->vt->propose(t->local, choice) != 1) {
        st->stop_reason = "every config was measured";
        return 0;
    }
    if (t->local->stop_reason && t->best_us > 0) {
        /* the local search reached an optimum and would kick away from it: converged */
        snprintf(t->why, sizeof t->why, "converged: %s (%.2f us)", t->local->stop_reason,
                 t->best_us);
        st->stop_reason = t->why;
        return 0;
    }
    memcpy(t->pending, choice, (size_t)t->np * sizeof *choice);
    t->have_pending = 1;
    return 1;
}

static void transfer_observe(strategy *st, const int *choice, eval_status status, double us)
{
    transfer *t = (transfer *)st;
    int mine = t->have_pending && memcmp(choice, t->pending, (size_t)t->np * sizeof *choice) == 0;
    if (mine)
        t->have_pending = 0;
    int gained = status == EVAL_OK && us > 0 && (t->best_us == 0 || us < t->best_us * (1 - TRANSFER_GAIN));
    if (status == EVAL_OK && us > 0 && (t->best_us == 0 || us < t->best_us))
        t->best_us = us;
    /* only the search's own proposals spend patience: the warm configs are the start */
    if (mine && sc_counts(status))
        t->since_gain = gained ? 0 : t->since_gain + 1;
    t->local->vt->observe(t->local, choice, status, us);
}

static void transfer_destroy(strategy *st)
{
    transfer *t = (transfer *)st;
    if (!t) return;
    if (t->local) t->local->vt->destroy(t->local);
    free(t->pending);
    free(t);
}

static strategy *transfer_create(const space *sp, const space_binding *b, uint64_t seed,
                                 int64_t budget, char *err, size_t len)
{
    transfer *t = calloc(1, sizeof *t);   /* freed by transfer_destroy */
    if (!t) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    t->base.vt = &strategy_transfer_vt;
    t->np = sp->n_params ? sp->n_params : 1;
    t->pending = calloc((size_t)t->np, sizeof *t->pending);
    t->patience = 6 * sp->n_params;
    if (t->patience < TRANSFER_PATIENCE_MIN) t->patience = TRANSFER_PATIENCE_MIN;
    if (t->patience > TRANSFER_PATIENCE_MAX) t->patience = TRANSFER_PATIENCE_MAX;
    if (!t->pending || !(t->local = strategy_local_vt.create(sp, b, seed, budget, err, len))) {
        if (!t->pending) snprintf(err, len, "out of memory");
        transfer_destroy(&t->base);
        return NULL;
    }
    return &t->base;
}

const strategy_vtable strategy_transfer_vt = {
    "transfer", transfer_create, transfer_propose, transfer_observe, transfer_destroy, 1,
};
