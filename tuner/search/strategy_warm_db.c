/* strategy_warm_db.c: where `tuner run --warm-start` and the transfer search find their configs. For one binding it reads
 * the database's `best` view for the same op and dtype on every other device and orders those
 * winners by nearness: compute capability first (|cc - this cc|, as major*10 + minor), then
 * the same problem before others, then the nearest problem size (log scale), then device name
 * and shape for a stable order. Up to WARM_MAX distinct configs the space can express are put
 * in front of the strategy with strategy_warm_wrap. The transfer search (strategy_transfer_start)
 * puts first the configs other devices measured within TRANSFER_NEAR of their best on the same
 * problem (the ranks of configs carry over between GPUs better than the single winner does),
 * nearest compute capability first, then the warm start's winners of the neighbouring problems.
 * The strategies themselves never see the database: this file is the bridge. */
#include "strategy_common.h"
#include "db/db.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WARM_MAX 8
#define TRANSFER_NEAR 0.03    /* within 3% of another device's best on the same problem */
#define TRANSFER_SAME_MAX 6   /* at most this many of them */

typedef struct winner {
    int cc_distance, other_shape;
    double size_distance;
    char *device, *shape, *config;
} winner;

typedef struct collect {
    const char *uuid;        /* this device: its own winners are not a warm start */
    int cc;
    const char *shape;
    int64_t size_key;
    winner *w;
    size_t n, cap;
    int oom;
} collect;

static int collect_row(void *ctx, const best_row *r)
{
    collect *c = ctx;
    if (c->uuid && strcmp(r->device_uuid, c->uuid) == 0) return 0;
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;
        winner *g = realloc(c->w, cap * sizeof *g);
        if (!g) { c->oom = 1; return 1; }
        c->w = g;
        c->cap = cap;
    }
    winner *w = &c->w[c->n];
    w->cc_distance = abs(r->cc_major * 10 + r->cc_minor - c->cc);
    w->other_shape = strcmp(r->shape, c->shape) != 0;
    w->size_distance = r->size_key > 0 && c->size_key > 0
                           ? fabs(log((double)r->size_key) - log((double)c->size_key))
                           : INFINITY;
    w->device = strdup(r->device);
    w->shape = strdup(r->shape);
    w->config = strdup(r->config);
    if (!w->device || !w->shape || !w->config) {
        free(w->device); free(w->shape); free(w->config);
        c->oom = 1;
        return 1;
    }
    c->n++;
    return 0;
}

static int nearer(const void *a, const void *b)
{
    const winner *x = a, *y = b;
    if (x->cc_distance != y->cc_distance) return x->cc_distance < y->cc_distance ? -1 : 1;
    if (x->other_shape != y->other_shape) return x->other_shape - y->other_shape;
    if (x->size_distance != y->size_distance) return x->size_distance < y->size_distance ? -1 : 1;
    int d = strcmp(x->device, y->device);
    return d ? d : strcmp(x->shape, y->shape);
}

/* The configs to put first (configs: WARM_MAX + TRANSFER_SAME_MAX rows of np), from the
 * same problem's near-best configs on other devices when near is set, then the winners of the
 * nearest problems. Returns how many, or -1 with err. */
static int gather(db *d, const space *sp, const space_binding *b, int near, int *configs,
                  char *err, size_t len)
{
    int np = sp->n_params ? sp->n_params : 1, n = 0, rc = -1;
    char op[256];
    snprintf(op, sizeof op, "%s.%s", sp->kernel, b->op);
    collect c = { b->device ? b->device->uuid : NULL,
                  b->device ? b->device->cc_major * 10 + b->device->cc_minor : 0,
                  b->problem->text, sp->family->size_key(sp->family, b->problem), NULL, 0, 0, 0 };
    if (near && db_each_near_best(d, op, b->dtype, b->problem->text, TRANSFER_NEAR, collect_row,
                                  &c) != 0) {
        snprintf(err, len, "transfer: reading the other devices' measurements failed");
        goto done;
    }
    size_t same = c.n;
    if (c.oom || db_each_best(d, NULL, op, b->dtype, collect_row, &c) != 0 || c.oom) {
        snprintf(err, len, c.oom ? "out of memory" : "warm start: reading the best view failed");
        goto done;
    }
    /* near-best of the same problem first (in their devices' order: nearest capability, then
     * each device's fastest first), then the winners by nearness */
    for (size_t i = 0; i < same; i++)
        c.w[i].size_distance = (double)i;   /* keeps their order under the sort below */
    if (c.n) {   /* c.w is NULL when nothing was recorded: qsort's array must not be */
        qsort(c.w, same, sizeof *c.w, nearer);
        qsort(c.w + same, c.n - same, sizeof *c.w, nearer);
    }
    int limit = near ? WARM_MAX + TRANSFER_SAME_MAX : WARM_MAX;
    for (size_t i = 0; i < c.n && n < limit; i++) {
        if (i < same && n >= TRANSFER_SAME_MAX) continue;
        int *choice = configs + (size_t)n * (size_t)np;
        if (space_config_parse(sp, c.w[i].config, choice) != 0) continue;
        int dup = 0;
        for (int j = 0; j < n && !dup; j++)
            dup = memcmp(configs + (size_t)j * (size_t)np, choice, (size_t)np * sizeof *choice) == 0;
        if (!dup) n++;
    }
    rc = n;
done:
    for (size_t i = 0; i < c.n; i++) {
        free(c.w[i].device);
        free(c.w[i].shape);
        free(c.w[i].config);
    }
    free(c.w);
    return rc;
}

static int wrap_with(strategy **st, db *d, const space *sp, const space_binding *b, int near,
                     char *err, size_t len)
{
    int np = sp->n_params ? sp->n_params : 1;
    int *configs = malloc((size_t)(WARM_MAX + TRANSFER_SAME_MAX) * (size_t)np * sizeof *configs);
    int n = configs ? gather(d, sp, b, near, configs, err, len) : -1;
    if (!configs) snprintf(err, len, "out of memory");
    if (n > 0) *st = strategy_warm_wrap(*st, sp, b, configs, n, err, len);
    free(configs);
    if (n < 0 || !*st) {
        if (n < 0 && *st) {
            (*st)->vt->destroy(*st);
            *st = NULL;
        }
        return -1;
    }
    return 0;
}

int strategy_warm_start(strategy **st, db *d, const space *sp, const space_binding *b,
                        char *err, size_t len)
{
    return wrap_with(st, d, sp, b, 0, err, len);
}

int strategy_transfer_start(strategy **st, db *d, const space *sp, const space_binding *b,
                            char *err, size_t len)
{
    return wrap_with(st, d, sp, b, 1, err, len);
}
