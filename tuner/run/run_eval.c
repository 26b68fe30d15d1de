/* run_eval.c: one evaluation request to a device's backend, as every phase of the run loop sends
 * it (the search in run_task.c, the playoff, the energy contenders in run_energy.c): the
 * backend's time counted to the device's busy time, the worker's preparation time kept for the
 * summary's set-up line; and the run's clock. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include "run_state.h"

double run_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void run_note_setup(run_shared *s, const eval_result *res)
{
    if (!(res->setup_ms > 0)) return;
    pthread_mutex_lock(&s->mu);
    if (s->n_setup == s->cap_setup) {
        int64_t cap = s->cap_setup ? 2 * s->cap_setup : 256;
        double *grown = realloc(s->setup_ms, (size_t)cap * sizeof *grown);
        if (grown) {
            s->setup_ms = grown;
            s->cap_setup = cap;
        }
    }
    if (s->n_setup < s->cap_setup) s->setup_ms[s->n_setup++] = res->setup_ms;   /* else: dropped */
    pthread_mutex_unlock(&s->mu);
}

int run_evaluate(run_device *dv, const eval_request *req, eval_result *res, double *took_s,
                 char *err, size_t len)
{
    const double t = run_now_s();
    if (dv->be->vt->evaluate(dv->be, req, res, err, len) != 0) return -1;
    const double took = run_now_s() - t;
    dv->busy_s += took;
    run_note_setup(dv->s, res);
    if (took_s) *took_s = took;
    return 0;
}
