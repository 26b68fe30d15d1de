/* run_energy.c: an energy or edp search's contenders (docs/energy.md, "Contenders only"). Under
 * those objectives the search runs on time, racing and the playoff as the space says; after a
 * problem's search (and its playoff) its contenders, the ok configs whose median is within
 * (1 + measure.energy_within) of its best, at most measure.energy_top of them, fastest first,
 * the time winner always among them, each get an energy window: one request to the backend per
 * contender, answered by the worker's own energy window (measure_energy_window) and stored on the
 * contender's evaluation (db_put_energy). The problem's winner under the objective is the
 * contender of least score (objective_score) among those with energy, as `tuner best` finds it
 * from the rows. Contenders that have their energy already (resume) take no window. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/objective.h"
#include "run_state.h"

/* Config text's choice, then its built variant (from the cache) into req's module fields. 0, or
 * -1 with err. */
static int contender_request(run_device *dv, const space_binding *bind, const vb_task *task,
                             const char *config, eval_request *req, char *err, size_t len)
{
    const space *sp = dv->s->sp;
    variant_builder *vb = dv->s->models[dv->model].builder;
    int *choice = malloc((size_t)(sp->n_params ? sp->n_params : 1) * sizeof *choice);
    vb_variant *v = malloc(sizeof *v);
    int rc = -1;
    if (!choice || !v) {
        snprintf(err, len, "out of memory");
    } else if (space_config_parse(sp, config, choice) != 0 ||
               vb_get_variant(vb, bind, choice, v, err, len) != 0 || v->state != VB_READY) {
        if (!err[0]) snprintf(err, len, "energy window: %s no longer builds", config);
    } else {
        vb_request(task, v, req);
        rc = 0;
    }
    free(choice);
    free(v);
    return rc;
}

int run_task_energy(run_device *dv, const space_binding *bind, const vb_task *task,
                    int64_t problem_id, char *best_config, size_t best_len, double *best_us,
                    double *best_j, char *note, size_t note_len, char *err, size_t len)
{
    run_shared *s = dv->s;
    const space *sp = s->sp;
    db_contenders *c = malloc(sizeof *c);
    if (!c) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    int rc = -1;
    if (db_energy_contenders(dv->d, dv->device_id, problem_id, s->hash, sp->measure.energy_within,
                             sp->measure.energy_top, c, err, len) != 0)
        goto done;
    /* the time winner (the playoff's, where it changed the fastest median's) is a contender */
    int have = 0;
    for (int i = 0; i < c->n; i++) have |= strcmp(c->config[i], best_config) == 0;
    if (!have && best_config[0] && c->n > 0) {
        int at = c->n < sp->measure.energy_top ? c->n++ : c->n - 1;
        snprintf(c->config[at], sizeof c->config[at], "%s", best_config);
        c->median_us[at] = *best_us;
        c->energy_j[at] = 0;
    }
    double *joules = c->energy_j;   /* measured before (resume), or by the window below */
    int64_t windows = 0, with = 0;
    double window_s = 0;
    for (int i = 0; i < c->n; i++) {
        if (joules[i] > 0) continue;   /* measured before (resume) */
        eval_result res;
        memset(&res, 0, sizeof res);
        eval_request req = { .kernel = sp->kernel, .op = bind->op, .dtype = bind->dtype,
                             .problem = bind->problem, .config = c->config[i],
                             .measure = sp->measure, .seed = s->seed, .validate = 0,
                             .tolerance_scale = sp->validate.tolerance_scale,
                             .energy_us = c->median_us[i],
                             .device_state = dv->device_state[0] ? dv->device_state : NULL };
        req.measure.energy_s = s->energy_window_s;
        req.measure.race_margin = 0;
        if (contender_request(dv, bind, task, c->config[i], &req, err, len) != 0) goto done;
        double took = 0;
        if (run_evaluate(dv, &req, &res, &took, err, len) != 0) {
            rc = 1;   /* the device failed: its task goes back to the queue */
            goto done;
        }
        if (res.status == EVAL_UNRECORDED) {   /* replay: nothing recorded, nothing measured */
            eval_result_clear(&res);
            continue;
        }
        windows++;
        /* the window's own length where the worker measured one; else the request's time */
        window_s += res.energy.window_ms > 0 ? res.energy.window_ms * 1e-3 : took;
        if (res.status != EVAL_OK) {
            if (!note[0])
                snprintf(note, note_len, "energy window of %s failed (%s): %.900s", c->config[i],
                         eval_status_name(res.status), res.error);
        } else if (res.energy.joules > 0) {
            if (db_put_energy(dv->d, dv->device_id, problem_id, c->config[i], s->hash,
                              &res.energy, err, len) != 0) {
                eval_result_clear(&res);
                goto done;
            }
            joules[i] = res.energy.joules;
            with++;
        }
        eval_result_clear(&res);
    }
    /* the winner under the objective among the contenders with energy: least score, ties by
     * config text (as the readers of results choose) */
    int win = -1;
    double win_score = 0;
    for (int i = 0; i < c->n; i++) {
        double score = objective_score((objective)s->objective, c->median_us[i], joules[i]);
        if (score <= 0) continue;
        if (win < 0 || db_best_beats(score, c->config[i], win_score, c->config[win])) {
            win = i;
            win_score = score;
        }
    }
    if (win >= 0) {
        snprintf(best_config, best_len, "%s", c->config[win]);
        *best_us = c->median_us[win];
        *best_j = joules[win];
    } else {
        *best_j = 0;
    }
    pthread_mutex_lock(&s->mu);
    s->sum->energy_windows += windows;
    s->sum->energy_window_s += window_s;
    s->sum->energy_problems += windows > 0;
    s->sum->with_energy += with;
    s->sum->without_energy += windows - with;
    pthread_mutex_unlock(&s->mu);
    rc = 0;
done:
    free(c);
    return rc;
}
