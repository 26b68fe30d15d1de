/* strategy_warm.c: the warm-start wrapper (strategy_warm_wrap in strategy_common.h). It proposes
 * the given configs first, in order (those the constraints reject or repeats are skipped), then
 * the inner strategy's. The inner strategy observes every result, the warm ones included, so it
 * starts from what they taught; an inner proposal of a config already observed is answered from
 * memory (observed again by the inner strategy) and not proposed twice. */
#include "strategy_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WARM_RETRIES 1000

typedef struct warm {
    strategy base;
    strategy *inner;
    sc_search s;
    int *configs;            /* nconf * np */
    int nconf, next;
} warm;

static int warm_propose(strategy *st, int *choice)
{
    warm *w = (warm *)st;
    int np = w->s.np;
    while (w->next < w->nconf) {
        const int *c = w->configs + (size_t)w->next++ * (size_t)np;
        if (sc_seen(&w->s, c) < 0 && sc_allowed(&w->s, c)) {
            memcpy(choice, c, (size_t)np * sizeof *choice);
            return 1;
        }
    }
    for (int t = 0; t < WARM_RETRIES; t++) {
        if (w->inner->vt->propose(w->inner, choice) != 1) {
            st->stop_reason = w->inner->stop_reason;
            return 0;
        }
        int64_t seen = sc_seen(&w->s, choice);
        if (seen < 0) return 1;
        w->inner->vt->observe(w->inner, choice, w->s.obs_status[seen], w->s.obs_us[seen]);
    }
    return 0;
}

static void warm_observe(strategy *st, const int *choice, eval_status status, double us)
{
    warm *w = (warm *)st;
    sc_record(&w->s, choice, status, us);
    w->inner->vt->observe(w->inner, choice, status, us);
}

static void warm_destroy(strategy *st)
{
    warm *w = (warm *)st;
    if (!w) return;
    if (w->inner) w->inner->vt->destroy(w->inner);
    sc_free(&w->s);
    free(w->configs);
    free(w);
}

static const strategy_vtable warm_vt = {
    "warm", NULL, warm_propose, warm_observe, warm_destroy, 0,
};

strategy *strategy_warm_wrap(strategy *inner, const space *sp, const space_binding *b,
                             const int *configs, int nconf, char *err, size_t len)
{
    warm *w = calloc(1, sizeof *w);   /* freed by warm_destroy (inner with it) */
    if (!w) {
        snprintf(err, len, "out of memory");
        inner->vt->destroy(inner);
        return NULL;
    }
    w->base.vt = &warm_vt;
    w->inner = inner;
    size_t np = (size_t)(sp->n_params ? sp->n_params : 1);
    w->configs = malloc((size_t)(nconf > 0 ? nconf : 1) * np * sizeof *w->configs);
    if (!w->configs) {
        snprintf(err, len, "out of memory");
        warm_destroy(&w->base);
        return NULL;
    }
    if (nconf > 0 && sp->n_params > 0)
        memcpy(w->configs, configs, (size_t)nconf * (size_t)sp->n_params * sizeof *configs);
    w->nconf = nconf;
    if (sc_init(&w->s, sp, b, 0, 0, err, len) != 0) {
        warm_destroy(&w->base);
        return NULL;
    }
    return &w->base;
}
