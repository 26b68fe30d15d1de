/* run_retime.c: `tuner retime`, two results of one GPU model timed side by side. For every
 * problem of a space that both inputs (databases or dumps) have a winner for on the backend's
 * GPU model, the two winners play off on the GPU in one request (the playoff of run_task.c:
 * interleaved rounds, one run of each per round, L2 flushed before each as the space says), so
 * drift between the runs that produced them cancels; the regret of the first input's winner is
 * its playoff median over the second's, minus one. Problems where both chose the same config
 * have no regret and are not timed. A reading is RETIME_ROUNDS rounds (--rounds), far more than
 * a run's playoff takes: the judge must be finer than the 1% it judges. With a repeat of N,
 * every pair is read N times, each time in a backend of its own (a new worker process on the
 * GPU, its own allocations), and the regret is the median of the N readings. This is how the
 * transfer search is judged against exhaustive, and two runs against each other
 * (docs/time-to-tune.md). The variants come from the space's variant builder, so a user
 * kernel's winners are judged as the built-in families' are (compiled, or from the cache). */
#include "run.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "backend/backend.h"
#include "core/stats.h"
#include "db/db.h"
#include "space/space.h"
#include "build/variant.h"
#include "ops/user_kernel.h"

/* One input's winners of one op and dtype, on one GPU model. */
typedef struct winner {
    char *shape, *config;
    double median_us;
} winner;

typedef struct winners {
    winner *w;
    int n, cap;
    int failed;
} winners;

static int collect(void *ctx, const best_row *r)
{
    winners *ws = ctx;
    for (int i = 0; i < ws->n; i++)
        if (strcmp(ws->w[i].shape, r->shape) == 0) return 0;   /* another card: the first */
    if (ws->n == ws->cap) {
        int cap = ws->cap ? 2 * ws->cap : 64;
        winner *w = realloc(ws->w, (size_t)cap * sizeof *w);
        if (!w) {
            ws->failed = 1;
            return 1;
        }
        ws->w = w;
        ws->cap = cap;
    }
    winner *x = &ws->w[ws->n];
    x->shape = strdup(r->shape);
    x->config = strdup(r->config);
    x->median_us = r->median_us;
    if (!x->shape || !x->config) {
        free(x->shape);
        free(x->config);
        ws->failed = 1;
        return 1;
    }
    ws->n++;
    return 0;
}

static void winners_clear(winners *ws)
{
    for (int i = 0; i < ws->n; i++) {
        free(ws->w[i].shape);
        free(ws->w[i].config);
    }
    free(ws->w);
    memset(ws, 0, sizeof *ws);
}

static const winner *find(const winners *ws, const char *shape)
{
    for (int i = 0; i < ws->n; i++)
        if (strcmp(ws->w[i].shape, shape) == 0) return &ws->w[i];
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One problem both inputs have a winner for: its two winners, and what each reading gave. */
typedef struct pair {
    int k, t, p;                  /* op, dtype and problem of the space */
    char *a, *b;                  /* the two winners' configs */
    double a_us, b_us;            /* their own medians (same config), else the playoff's */
    double *regret, *ta, *tb;     /* per reading [repeat]: regret, the two playoff medians */
    int failed;                   /* a reading's playoff failed */
} pair;

/* Times the pair side by side once on be, as reading r: its two variants from the builder
 * (compiled already, for a user kernel: from the cache). 0, 1 when the playoff failed (said on
 * out), -1 on a backend failure or a variant that no longer builds (err). */
static int read_once(backend *be, variant_builder *vb, const device_info *dev, const space *sp,
                     const measure_settings *ms, pair *q, int r, FILE *out, int csv, char *err,
                     size_t len)
{
    eval_request req = { .kernel = sp->kernel, .op = sp->ops[q->k], .dtype = sp->dtypes[q->t],
                         .problem = &sp->problems[q->p], .config = q->a, .measure = *ms,
                         .seed = sp->search.seed, .validate = 0,
                         .tolerance_scale = sp->validate.tolerance_scale,
                         .n_playoff = 2, .playoff = { q->a, q->b } };
    space_binding bind = { sp->ops[q->k], sp->dtypes[q->t], &sp->problems[q->p], dev };
    vb_task task;
    vb_variant *v = malloc(sizeof *v);
    int *choice = calloc((size_t)sp->n_params + 1, sizeof *choice);
    int bad = !v || !choice || vb_begin_task(vb, &bind, 0, &task, err, len) != 0;
    if (!bad)
        vb_request(&task, NULL, &req);
    for (int i = 0; i < 2 && !bad; i++) {
        bad = space_config_parse(sp, req.playoff[i], choice) != 0 ||
              vb_get_variant(vb, &bind, choice, v, err, len) != 0 || v->state != VB_READY;
        if (bad && !err[0])
            snprintf(err, len, "%s %s %s: %s no longer builds: %.300s", req.op, req.dtype,
                     req.problem->text, req.playoff[i], v->why);
        else if (!bad)
            req.playoff_module[i] = v->module;
    }
    req.module = req.playoff_module[0];
    free(choice);
    free(v);
    if (bad) {
        if (!err[0]) snprintf(err, len, "out of memory");
        return -1;
    }
    eval_result res;
    int rc = be->vt->evaluate(be, &req, &res, err, len);
    vb_task_clear(&task);
    if (rc != 0) return -1;
    if (res.status != EVAL_OK || res.n_playoff != 2) {
        if (out && !csv)
            fprintf(out, "  %s.%s %s %s: the playoff failed (%s): %.300s\n", sp->kernel,
                    sp->ops[q->k], sp->dtypes[q->t], sp->problems[q->p].text,
                    eval_status_name(res.status), res.error);
        eval_result_clear(&res);
        return 1;
    }
    q->ta[r] = stats_quantile(res.playoff_samples[0], res.playoff_n[0], 0.5);
    q->tb[r] = stats_quantile(res.playoff_samples[1], res.playoff_n[1], 0.5);
    eval_result_clear(&res);
    q->regret[r] = q->tb[r] > 0 ? q->ta[r] / q->tb[r] - 1 : 0;
    return 0;
}

int run_retime(const retime_options *o, retime_summary *sum, char *err, size_t len)
{
    memset(sum, 0, sizeof *sum);
    int rc = 2;
    space *sp = NULL;
    backend *be = NULL;
    variant_builder *vb = NULL;
    db *a = NULL, *b = NULL;
    double *regrets = NULL;
    pair *pairs = NULL;
    int n_pairs = 0;
    winners wa = { 0 }, wb = { 0 };
    device_info dev;
    const int repeat = o->repeat > 0 ? o->repeat : 1;
    const int rounds = o->rounds > 0 ? o->rounds : RETIME_ROUNDS;
    if (repeat > RETIME_REPEAT_MAX) {
        snprintf(err, len, "tuner retime: --repeat %d: at most %d", repeat, RETIME_REPEAT_MAX);
        goto done;
    }
    if (rounds < STATS_RACE_MIN_RUNS || rounds > RETIME_ROUNDS_MAX) {
        snprintf(err, len, "tuner retime: --rounds %d: from %d to %d", rounds,
                 STATS_RACE_MIN_RUNS, RETIME_ROUNDS_MAX);
        goto done;
    }
    if (!(sp = user_space_load(o->space_path, NULL, err, len))) goto done;
    char space_abs[PATH_MAX];
    if (sp->user && !realpath(sp->path, space_abs)) {
        snprintf(err, len, "%s: %s", sp->path, strerror(errno));
        goto done;
    }
    if (db_open_readonly(o->a, &a, err, len) != 0 || db_open_readonly(o->b, &b, err, len) != 0)
        goto done;
    /* the space's warm-up, cache state and watchdog; the rounds are the judge's: all of them,
     * unless a config's runs reach RETIME_MAX_SECONDS (and the watchdog allows for that) */
    measure_settings ms = sp->measure;
    ms.max_runs = rounds;
    ms.min_runs = ms.min_runs < rounds ? ms.min_runs : rounds;
    ms.rel_ci = 1e-9;
    ms.max_seconds = RETIME_MAX_SECONDS;
    ms.race_margin = 0;
    if (ms.timeout_s > 0 && ms.timeout_s < 2 * RETIME_MAX_SECONDS + 5)
        ms.timeout_s = 2 * RETIME_MAX_SECONDS + 5;
    rc = 1;
    if (!(be = backend_open(o->backend ? o->backend : "cuda", err, len))) goto done;
    if (be->vt->device(be, &dev, err, len) != 0) goto done;
    /* the variants, as the run that chose them built them (a user kernel's from the cache) */
    vb_options vo = { .cache_dir = o->cache_dir, .modules = be->needs_modules,
                      .space_path = sp->user ? space_abs : NULL, .quiet_precheck = 1 };
    if (variant_builder_open(sp, &dev, &vo, &vb, err, len) != 0) goto done;
    int most = sp->n_ops * sp->n_dtypes * sp->n_problems;
    regrets = malloc((size_t)(most ? most : 1) * sizeof *regrets);
    pairs = calloc((size_t)(most ? most : 1), sizeof *pairs);
    if (!regrets || !pairs) {
        snprintf(err, len, "out of memory");
        goto done;
    }
    if (o->out && o->csv)
        fprintf(o->out, "op,dtype,shape,config_a,config_b,a_us,b_us,regret\n");
    else if (o->out)
        fprintf(o->out, "%s on %s: the winners of %s (a) against those of %s (b), re-timed side "
                "by side%s\n", o->space_path, dev.name, o->a, o->b,
                repeat > 1 ? ", every pair in as many worker processes as readings" : "");
    /* the pairs, in the space's order */
    for (int k = 0; k < sp->n_ops; k++)
        for (int t = 0; t < sp->n_dtypes; t++) {
            char op[256];
            snprintf(op, sizeof op, "%s.%s", sp->kernel, sp->ops[k]);
            winners_clear(&wa);
            winners_clear(&wb);
            if (db_each_best(a, dev.name, op, sp->dtypes[t], collect, &wa) != 0 || wa.failed ||
                db_each_best(b, dev.name, op, sp->dtypes[t], collect, &wb) != 0 || wb.failed) {
                snprintf(err, len, "reading the winners of %s %s", op, sp->dtypes[t]);
                goto done;
            }
            for (int p = 0; p < sp->n_problems; p++) {
                const winner *x = find(&wa, sp->problems[p].text);
                const winner *y = find(&wb, sp->problems[p].text);
                sum->problems++;
                if (!x || !y) {
                    sum->missing++;
                    continue;
                }
                pair *q = &pairs[n_pairs++];
                *q = (pair){ k, t, p, strdup(x->config), strdup(y->config), x->median_us,
                             y->median_us, calloc(3 * (size_t)repeat, sizeof(double)), NULL,
                             NULL, 0 };
                if (!q->a || !q->b || !q->regret) {
                    snprintf(err, len, "out of memory");
                    goto done;
                }
                q->ta = q->regret + repeat;
                q->tb = q->regret + 2 * repeat;
            }
        }
    /* the readings: each repetition in a backend of its own (for the GPU, a new worker
     * process, its own allocations), so that what one process's placement gives one config
     * over the other does not decide alone */
    for (int r = 0; r < repeat; r++) {
        if (r > 0) {
            be->vt->close(be);
            if (!(be = backend_open(o->backend ? o->backend : "cuda", err, len))) goto done;
        }
        for (int i = 0; i < n_pairs; i++) {
            pair *q = &pairs[i];
            if (q->failed || strcmp(q->a, q->b) == 0) continue;
            int got = read_once(be, vb, &dev, sp, &ms, q, r, o->out, o->csv, err, len);
            if (got < 0) goto done;
            q->failed = got > 0;
        }
    }
    for (int i = 0; i < n_pairs; i++) {
        pair *q = &pairs[i];
        char op[256];
        snprintf(op, sizeof op, "%s.%s", sp->kernel, sp->ops[q->k]);
        const char *dtype = sp->dtypes[q->t], *shape = sp->problems[q->p].text;
        double ra = 0, lo = 0, hi = 0;
        if (strcmp(q->a, q->b) == 0) {
            sum->same++;
        } else if (q->failed) {
            sum->failed++;
            continue;
        } else {
            ra = stats_quantile(q->regret, repeat, 0.5);
            q->a_us = stats_quantile(q->ta, repeat, 0.5);
            q->b_us = stats_quantile(q->tb, repeat, 0.5);
            lo = hi = q->regret[0];
            for (int r = 1; r < repeat; r++) {
                if (q->regret[r] < lo) lo = q->regret[r];
                if (q->regret[r] > hi) hi = q->regret[r];
            }
            sum->timed++;
        }
        regrets[sum->same + sum->timed - 1] = ra;
        sum->within1 += ra <= 0.01;
        sum->within2 += ra <= 0.02;
        if (o->out && o->csv) {
            fprintf(o->out, "%s,%s,\"%s\",\"%s\",\"%s\",%.6g,%.6g,%.6g\n", op, dtype, shape, q->a,
                    q->b, q->a_us, q->b_us, ra);
        } else if (o->out) {
            fprintf(o->out, "  %-18s %-5s %-28s %+7.2f%%  %s%s", op, dtype, shape, 100 * ra,
                    strcmp(q->a, q->b) == 0 ? "same config: " : "a: ", q->a);
            if (repeat > 1 && strcmp(q->a, q->b) != 0)
                fprintf(o->out, "  (%d readings: %+.2f%% to %+.2f%%)", repeat, 100 * lo, 100 * hi);
            fputc('\n', o->out);
        }
    }
    int n = sum->same + sum->timed;
    if (n > 0) {
        qsort(regrets, (size_t)n, sizeof *regrets, cmp_double);
        sum->median = stats_quantile(regrets, n, 0.5);
        sum->p90 = stats_quantile(regrets, n, 0.9);
        sum->max = regrets[n - 1];
    }
    rc = 0;
done:
    winners_clear(&wa);
    winners_clear(&wb);
    for (int i = 0; i < n_pairs; i++) {
        free(pairs[i].a);
        free(pairs[i].b);
        free(pairs[i].regret);
    }
    free(pairs);
    free(regrets);
    variant_builder_close(vb);
    if (be) be->vt->close(be);
    db_close(a);
    db_close(b);
    user_space_free(sp);
    return rc;
}
