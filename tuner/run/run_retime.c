/* run_retime.c: `tuner retime`, two results of one GPU model timed side by side. For every
 * problem of a space that both inputs (databases or dumps) have a winner for on the backend's
 * GPU model, the two winners play off on the GPU in one request (the playoff of run_task.c:
 * interleaved rounds, one run of each per round, L2 flushed before each, the space's measure
 * settings), so drift between the runs that produced them cancels; the regret of the first
 * input's winner is its playoff median over the second's, minus one. Problems where both chose
 * the same config have no regret and are not timed. This is how the transfer search is judged
 * against exhaustive, and two runs against each other (docs/time-to-tune.md). */
#include "run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "backend/backend.h"
#include "core/stats.h"
#include "db/db.h"
#include "space/space.h"
#include "user/user_family.h"

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

int run_retime(const retime_options *o, retime_summary *sum, char *err, size_t len)
{
    memset(sum, 0, sizeof *sum);
    int rc = 2;
    space *sp = NULL;
    backend *be = NULL;
    db *a = NULL, *b = NULL;
    double *regrets = NULL;
    winners wa = { 0 }, wb = { 0 };
    device_info dev;
    if (!(sp = user_space_load(o->space_path, NULL, err, len))) goto done;
    if (sp->user) {
        snprintf(err, len, "tuner retime: %s is a user kernel; retime compares the built-in "
                 "families' winners (a user kernel's variants would need compiling first)",
                 o->space_path);
        goto done;
    }
    if (db_open_readonly(o->a, &a, err, len) != 0 || db_open_readonly(o->b, &b, err, len) != 0)
        goto done;
    rc = 1;
    if (!(be = backend_open(o->backend ? o->backend : "cuda", err, len))) goto done;
    if (be->vt->device(be, &dev, err, len) != 0) goto done;
    int most = sp->n_ops * sp->n_dtypes * sp->n_problems;
    regrets = malloc((size_t)(most ? most : 1) * sizeof *regrets);
    if (!regrets) {
        snprintf(err, len, "out of memory");
        goto done;
    }
    if (o->out && o->csv)
        fprintf(o->out, "op,dtype,shape,config_a,config_b,a_us,b_us,regret\n");
    else if (o->out)
        fprintf(o->out, "%s on %s: the winners of %s (a) against those of %s (b), re-timed side "
                "by side\n", o->space_path, dev.name, o->a, o->b);
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
                const problem *pb = &sp->problems[p];
                const winner *x = find(&wa, pb->text), *y = find(&wb, pb->text);
                sum->problems++;
                if (!x || !y) {
                    sum->missing++;
                    continue;
                }
                double ra = 0, ta = x->median_us, tb = y->median_us;
                if (strcmp(x->config, y->config) == 0) {
                    sum->same++;
                } else {
                    eval_request req = { .kernel = sp->kernel, .op = sp->ops[k],
                                         .dtype = sp->dtypes[t], .problem = pb,
                                         .config = x->config, .measure = sp->measure,
                                         .seed = sp->search.seed, .validate = 0,
                                         .tolerance_scale = sp->validate.tolerance_scale,
                                         .n_playoff = 2, .playoff = { x->config, y->config } };
                    eval_result res;
                    if (be->vt->evaluate(be, &req, &res, err, len) != 0) goto done;
                    if (res.status != EVAL_OK || res.n_playoff != 2) {
                        if (o->out && !o->csv)
                            fprintf(o->out, "  %s %s %s: the playoff failed (%s): %.300s\n", op,
                                    sp->dtypes[t], pb->text, eval_status_name(res.status),
                                    res.error);
                        eval_result_clear(&res);
                        sum->failed++;
                        continue;
                    }
                    ta = stats_quantile(res.playoff_samples[0], res.playoff_n[0], 0.5);
                    tb = stats_quantile(res.playoff_samples[1], res.playoff_n[1], 0.5);
                    eval_result_clear(&res);
                    ra = tb > 0 ? ta / tb - 1 : 0;
                    sum->timed++;
                }
                regrets[sum->same + sum->timed - 1] = ra;
                sum->within1 += ra <= 0.01;
                sum->within2 += ra <= 0.02;
                if (o->out && o->csv)
                    fprintf(o->out, "%s,%s,\"%s\",\"%s\",\"%s\",%.6g,%.6g,%.6g\n", op,
                            sp->dtypes[t], pb->text, x->config, y->config, ta, tb, ra);
                else if (o->out)
                    fprintf(o->out, "  %-18s %-5s %-28s %+7.2f%%  %s%s\n", op, sp->dtypes[t],
                            pb->text, 100 * ra,
                            strcmp(x->config, y->config) == 0 ? "same config: " : "a: ",
                            x->config);
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
    free(regrets);
    if (be) be->vt->close(be);
    db_close(a);
    db_close(b);
    user_space_free(sp);
    return rc;
}
