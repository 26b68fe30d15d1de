/* run_task.c: tuning one task (op, dtype, problem) on one device (run_state.h): a fresh
 * strategy proposes configs within the budget; each is skipped when the device's database holds
 * it for this kernel source (resume), asked of the model's variant builder (build/variant.h: a
 * variant the compiler refuses is a compile_error row, one beyond the device an unsupported
 * row, neither runs), evaluated by the device's backend, and stored in one transaction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "core/objective.h"
#include "core/throughput.h"
#include "run_state.h"
#include "search/strategy_common.h"

/* What the search sees of an evaluation: its score under the run's objective (lower is
 * better); its time when energy is measured for the contenders only (the search runs on time).
 * An ok evaluation that came back without its energy, under energy or edp, ranks after every one
 * with it, by its time. */
static double task_score(const run_shared *s, const eval_result *r)
{
    if (r->status != EVAL_OK)
        return r->stats.median;
    objective o = s->energy_window_s > 0 ? OBJECTIVE_TIME : (objective)s->objective;
    double score = objective_score(o, r->stats.median, r->energy.joules);
    return score > 0 ? score : 1e12 + r->stats.median;
}

static void format_duration(double s, char *buf, size_t len)
{
    if (s < 0) s = 0;
    long t = (long)(s + 0.5);
    if (t >= 3600) snprintf(buf, len, "%ldh%02ldm", t / 3600, (t / 60) % 60);
    else if (t >= 60) snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
    else snprintf(buf, len, "%lds", t);
}

/* The progress line: done of planned, each device's current task, the ETA. mu held. */
static void progress_show(run_device *dv)
{
    run_shared *s = dv->s;
    if (!s->o->progress) return;
    double el = run_now_s() - s->t0;
    char eta[32] = "?";
    if (s->done > 0 && s->planned >= s->done)
        format_duration(el / (double)s->done * (double)(s->planned - s->done), eta, sizeof eta);
    fprintf(stderr, "\r\033[K[%lld/%lld] %s  ETA %s", (long long)s->done, (long long)s->planned,
            dv->current, eta);
    fflush(stderr);
}

/* The problem's playoff (docs/time-to-tune.md), after its search: its ok configs within the
 * race margin of the best median (at most EVAL_PLAYOFF_MAX) are re-timed interleaved in one
 * request, and the playoff is stored; the best by playoff median becomes *best_us/best_config
 * (its own median, as the view best shows it), and note says so when the playoff changed the
 * winner. Skipped when fewer than two configs are within the margin, or when this task measured
 * nothing new and they played already (resume). 0, 1 when the device failed (its task goes
 * back), -1 on a fatal error. */
static int run_task_playoff(run_device *dv, const space_binding *bind, const vb_task *task,
                            int64_t problem_id, int64_t fresh, char *best_config,
                            size_t best_len, double *best_us, char *note, size_t note_len,
                            char *err, size_t len)
{
    run_shared *s = dv->s;
    const space *sp = s->sp;
    db_contenders c;
    if (db_playoff_contenders(dv->d, dv->device_id, problem_id, s->hash, sp->measure.race_margin,
                              &c, err, len) != 0)
        return -1;
    if (c.n < 2 || (c.played && fresh == 0)) return 0;
    eval_request req = { .kernel = sp->kernel, .op = bind->op, .dtype = bind->dtype,
                         .problem = bind->problem, .config = c.config[0], .measure = sp->measure,
                         .seed = s->seed, .validate = 0,
                         .tolerance_scale = sp->validate.tolerance_scale, .n_playoff = c.n };
    variant_builder *vb = s->models[dv->model].builder;
    vb_request(task, NULL, &req);
    int *choice = malloc((size_t)(sp->n_params ? sp->n_params : 1) * sizeof *choice);
    vb_variant *v = malloc(sizeof *v);
    int bad = !choice || !v;
    for (int i = 0; i < c.n && !bad; i++) {
        /* the variants built for their evaluations: from the cache */
        req.playoff[i] = c.config[i];
        bad = space_config_parse(sp, c.config[i], choice) != 0 ||
              vb_get_variant(vb, bind, choice, v, err, len) != 0 || v->state != VB_READY;
        if (bad && !err[0])
            snprintf(err, len, "playoff: %s no longer builds", c.config[i]);
        if (!bad)
            req.playoff_module[i] = v->module;
    }
    free(choice);
    free(v);
    if (bad) {
        if (!err[0])
            snprintf(err, len, "out of memory");
        return -1;
    }
    req.module = req.playoff_module[0];   /* the request's config is the first contender */
    eval_result res;
    memset(&res, 0, sizeof res);
    if (run_evaluate(dv, &req, &res, NULL, err, len) != 0) return 1;
    if (res.status != EVAL_OK || res.n_playoff != c.n) {
        /* the contenders ran fine in their evaluations: a failing playoff is worth saying, and
         * the winners stay those of the medians */
        snprintf(note, note_len, "playoff of %d configs failed (%s): %.900s", c.n,
                 eval_status_name(res.status), res.error);
        eval_result_clear(&res);
        return 0;
    }
    if (db_put_playoff(dv->d, dv->run_id, dv->device_id, problem_id, s->hash, &c, &res, err,
                       len) != 0) {
        eval_result_clear(&res);
        return -1;
    }
    int win = 0;
    double win_us = 0;
    for (int i = 0; i < c.n; i++) {
        double m = stats_quantile(res.playoff_samples[i], res.playoff_n[i], 0.5);
        if (i == 0 || m < win_us) {
            win = i;
            win_us = m;
        }
    }
    /* the contenders come fastest median first: config 0 is the winner without the playoff */
    int changed = win != 0;
    if (changed)
        snprintf(note, note_len, "playoff of %d configs within %g%%, %d rounds interleaved: %s "
                 "(%.2f us there) beats %s (%.2f us there)", c.n,
                 100.0 * sp->measure.race_margin, res.playoff_n[0], c.config[win], win_us,
                 c.config[0], stats_quantile(res.playoff_samples[0], res.playoff_n[0], 0.5));
    snprintf(best_config, best_len, "%s", c.config[win]);
    *best_us = c.median_us[win];
    pthread_mutex_lock(&s->mu);
    s->sum->playoffs++;
    s->sum->playoff_changed += changed;
    pthread_mutex_unlock(&s->mu);
    eval_result_clear(&res);
    return 0;
}

/* Stores one collected result of the task's problem and counts it in the summary. */
static int store_result(run_device *dv, int64_t problem_id, const char *config,
                        const eval_result *res, int64_t bytes, char *err, size_t len)
{
    run_shared *s = dv->s;
    double t_store = run_now_s();
    if (db_put_evaluation(dv->d, dv->run_id, dv->device_id, problem_id, config, s->hash, res,
                          bytes, dv->copy_gbps, dv->seq++, err, len) != 0)
        return -1;
    dv->store_s += run_now_s() - t_store;
    dv->evaluated++;
    pthread_mutex_lock(&s->mu);
    s->sum->evaluated++;
    s->sum->by_status[res->status]++;
    s->sum->raced += res->raced;
    s->done++;
    progress_show(dv);
    pthread_mutex_unlock(&s->mu);
    return 0;
}

int run_task_tune(run_device *dv, const run_task *t, char *err, size_t len)
{
    run_shared *s = dv->s;
    const space *sp = s->sp;
    const op_family *fam = sp->family;
    variant_builder *vb = s->models[dv->model].builder;
    const problem *pb = &sp->problems[t->prob];
    const char *op = sp->ops[t->op], *dtype = sp->dtypes[t->dtype];
    char opfull[256], label[512];
    snprintf(opfull, sizeof opfull, "%s.%s", sp->kernel, op);
    snprintf(label, sizeof label, "%s %s %s", opfull, dtype, pb->text);
    int rc = -1;
    strategy *st = NULL;
    eval_result res;
    memset(&res, 0, sizeof res);
    /* The result collected last waits in pend to be stored until the next config has been sent
     * to the backend, so that the worker measures while the database is written (the strategy
     * has observed it already: what it proposes next does not wait for the write either). */
    eval_result pend;
    memset(&pend, 0, sizeof pend);
    char pend_config[1024] = "";
    int pending = 0;
    int64_t problem_id = 0, bytes = 0;
    vb_task task = { 0 };
    vb_variant variant;
    int *choice = malloc((size_t)(sp->n_params ? sp->n_params : 1) * sizeof *choice);
    if (!choice) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    if (fam->check_problem(fam, op, dtype, pb, err, len) != 0) goto done;
    bytes = fam->bytes_moved(fam, op, dtype, pb);
    if (db_put_problem(dv->d, opfull, dtype, pb->text, fam->elements(fam, pb), bytes,
                       fam->size_key(fam, pb), fam->flops ? fam->flops(fam, op, dtype, pb) : 0,
                       &problem_id, err, len) != 0)
        goto done;
    space_binding bind = { op, dtype, pb, &dv->dev };
    /* The task's shared modules, and compiling ahead what the search will ask for: the whole
     * space in enumeration order when it is enumerated (or when most of it will be: at most
     * twice the budget); a search that jumps around gets each variant built when it proposes
     * it. */
    int64_t configs = space_count(sp, &bind, err, len);
    if (configs < 0) goto done;
    int ahead = (strcmp(s->strategy_name, "exhaustive") == 0 && s->budget_evals <= 0) ||
                (s->budget_evals > 0 && configs <= 2 * s->budget_evals);
    if (vb_begin_task(vb, &bind, ahead ? -1 : 0, &task, err, len) != 0) goto done;
    st = s->svt->create(sp, &bind, s->seed, s->budget_evals, err, len);
    if (!st) goto done;
    if (s->o->warm_start && strategy_warm_start(&st, dv->d, sp, &bind, err, len) != 0) goto done;
    if (s->transfer && strategy_transfer_start(&st, s->transfer, sp, &bind, err, len) != 0) goto done;
    /* the space's own start configs (search.start) go first of all */
    if (sp->search.n_start > 0 &&
        !(st = strategy_warm_wrap(st, sp, &bind, sp->search.start, sp->search.n_start, err, len)))
        goto done;
    pthread_mutex_lock(&s->mu);
    if (s->o->n_backends > 1)
        snprintf(dv->current, sizeof dv->current, "[%d] %s", dv->index, label);
    else
        snprintf(dv->current, sizeof dv->current, "%s", label);
    pthread_mutex_unlock(&s->mu);
    int64_t evals = 0, fresh = 0, task_windows = 0;
    double t0 = run_now_s(), best_us = 0, race_us = 0, best_score = 0, best_j = 0;
    char config[1024], best_config[1024] = "";
    const char *why = NULL;
    while (st->vt->propose(st, choice) == 1) {
        if ((s->budget_evals > 0 && evals >= s->budget_evals) ||
            (s->budget_seconds > 0 && run_now_s() - t0 >= s->budget_seconds)) {
            pthread_mutex_lock(&s->mu);
            s->sum->skipped_budget++;
            pthread_mutex_unlock(&s->mu);
            why = "the budget was spent";
            break;
        }
        space_config_text(sp, choice, config, sizeof config);
        /* a config proposed again at once is looked up after its first result is stored */
        if (pending && strcmp(pend_config, config) == 0) {
            if (store_result(dv, problem_id, pend_config, &pend, bytes, err, len) != 0) goto done;
            pending = 0;
        }
        int have = db_has_evaluation(dv->d, dv->device_id, problem_id, config, s->hash);
        if (have < 0) { snprintf(err, len, "database read failed"); goto done; }
        if (have) {
            /* Resume: hand the strategy what was measured before. */
            eval_result_clear(&res);
            db_find_evaluation(dv->d, dv->dev.uuid, opfull, dtype, pb->text, config, &res);
            st->vt->observe(st, choice, res.status, task_score(s, &res));
            if (res.status == EVAL_OK && (race_us == 0 || res.stats.median < race_us))
                race_us = res.stats.median;
            evals++;
            pthread_mutex_lock(&s->mu);
            s->sum->resumed++;
            s->done++;
            pthread_mutex_unlock(&s->mu);
            continue;
        }
        eval_request req = { .kernel = sp->kernel, .op = op, .dtype = dtype, .problem = pb,
                             .config = config, .measure = sp->measure, .seed = s->seed,
                             .validate = sp->validate.enabled,
                             .tolerance_scale = sp->validate.tolerance_scale,
                             .race_us = race_us,
                             .device_state = dv->device_state[0] ? dv->device_state : NULL };
        eval_result_clear(&res);
        double t_wait = run_now_s();
        if (vb_get_variant(vb, &bind, choice, &variant, err, len) != 0) goto done;
        dv->wait_s += run_now_s() - t_wait;
        int compiled = variant.state == VB_READY;
        if (!compiled) {
            res.status = variant.state == VB_REFUSED ? EVAL_COMPILE_ERROR : EVAL_UNSUPPORTED;
            snprintf(res.error, sizeof res.error, "%s", variant.why);
        }
        vb_request(&task, &variant, &req);
        if (compiled) {
            if (run_fault_now(dv, pending, err, len)) {
                rc = 1;
                goto done;
            }
            double t_eval = run_now_s();
            if (pending && dv->be->vt->submit &&
                dv->be->vt->submit(dv->be, &req, err, len) != 0) {
                rc = 1;   /* the device failed: its task goes back to the queue */
                goto done;
            }
            dv->busy_s += run_now_s() - t_eval;
        }
        if (pending) {
            if (store_result(dv, problem_id, pend_config, &pend, bytes, err, len) != 0) goto done;
            pending = 0;
        }
        if (compiled && run_evaluate(dv, &req, &res, NULL, err, len) != 0) {
            rc = 1;
            goto done;
        }
        if (res.status == EVAL_UNRECORDED) {
            pthread_mutex_lock(&s->mu);
            s->sum->unrecorded++;
            pthread_mutex_unlock(&s->mu);
            st->vt->observe(st, choice, res.status, 0);
            continue;
        }
        fresh++;
        double score = task_score(s, &res);
        st->vt->observe(st, choice, res.status, score);
        if (res.status == EVAL_OK && (best_score == 0 || score < best_score)) {
            best_score = score;
            best_us = res.stats.median;
            best_j = res.energy.joules;
            snprintf(best_config, sizeof best_config, "%s", config);
        }
        if (res.status == EVAL_OK && !res.raced && sp->measure.energy_s > 0) {
            /* a window after the timing (racing stops a config before it) */
            pthread_mutex_lock(&s->mu);
            if (res.energy.joules > 0) s->sum->with_energy++;
            else s->sum->without_energy++;
            s->sum->energy_windows++;
            s->sum->energy_window_s += res.energy.window_ms * 1e-3;
            s->sum->energy_problems += !task_windows++;
            pthread_mutex_unlock(&s->mu);
        }
        if (res.status == EVAL_OK && (race_us == 0 || res.stats.median < race_us))
            race_us = res.stats.median;
        if (res.status != EVAL_SKIPPED && res.status != EVAL_UNSUPPORTED) evals++;
        eval_result swap = pend;
        pend = res;
        res = swap;
        snprintf(pend_config, sizeof pend_config, "%s", config);
        pending = 1;
    }
    if (pending) {
        if (store_result(dv, problem_id, pend_config, &pend, bytes, err, len) != 0) goto done;
        pending = 0;
    }
    /* the playoff: the configs within the race margin of the best, re-timed interleaved */
    char note[1400] = "";
    if (sp->measure.race_margin > 0 && !s->device_settings) {
        int got = run_task_playoff(dv, &bind, &task, problem_id, fresh, best_config,
                                   sizeof best_config, &best_us, note, sizeof note, err, len);
        if (got != 0) {
            rc = got;
            goto done;
        }
    }
    /* an energy or edp search: the contenders' energy windows, and the winner among them */
    char energy_note[1100] = "";
    if (s->energy_window_s > 0) {
        int got = run_task_energy(dv, &bind, &task, problem_id, best_config, sizeof best_config,
                                  &best_us, &best_j, energy_note, sizeof energy_note, err, len);
        if (got != 0) {
            rc = got;
            goto done;
        }
    }
    if (s->o->out && best_us > 0) {
        pthread_mutex_lock(&s->mu);
        if (s->o->progress) fprintf(stderr, "\r\033[K");
        char rate[96];
        fprintf(s->o->out, "  %-44s %10.2f us %s", label, best_us,
                throughput_format(bytes, fam->flops ? fam->flops(fam, op, dtype, pb) : 0, best_us,
                                  dv->copy_gbps, &dv->dev, dtype, THROUGHPUT_COLUMNS, rate,
                                  sizeof rate));
        if (best_j > 0)
            fprintf(s->o->out, "  %.4g J", best_j);
        fprintf(s->o->out, "  %s", best_config);
        if (s->o->n_backends > 1)
            fprintf(s->o->out, "  [%d %s]", dv->index, dv->dev.name);
        fprintf(s->o->out, "\n");
        if (note[0]) fprintf(s->o->out, "    %s\n", note);
        if (energy_note[0]) fprintf(s->o->out, "    %s\n", energy_note);
        if (strcmp(s->strategy_name, "exhaustive") != 0)
            fprintf(s->o->out, "    %s: %lld of %lld configs (%.1f%%); %s\n", s->strategy_name,
                    (long long)evals, (long long)configs,
                    configs > 0 ? 100.0 * (double)evals / (double)configs : 0.0,
                    why ? why : st->stop_reason ? st->stop_reason : "the strategy had nothing left to try");
        fflush(s->o->out);
        pthread_mutex_unlock(&s->mu);
    }
    pthread_mutex_lock(&s->mu);
    s->sum->configs += configs;
    pthread_mutex_unlock(&s->mu);
    rc = 0;
done:
    /* a result collected before the device failed is kept (its task goes back to the queue) */
    if (rc == 1 && pending && store_result(dv, problem_id, pend_config, &pend, bytes, err, len) != 0)
        rc = -1;
    eval_result_clear(&pend);
    vb_task_clear(&task);
    if (st) st->vt->destroy(st);
    eval_result_clear(&res);
    free(choice);
    return rc;
}
