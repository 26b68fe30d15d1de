/* run_fault.c: the test hook TUNEKIT_TEST_FAIL_DEVICE=I:N[:last] (docs/scaling.md): device I's
 * backend "fails" after N evaluations (with last, not before every other task of its model is
 * done), so that the re-queue of a failed device's task can be tested without a GPU. run.c reads
 * the hook for each device it sets up; run_task.c asks before each evaluation whether the device
 * fails now. */
#include "run_state.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void run_fault_init(run_device *dv)
{
    const char *v = getenv("TUNEKIT_TEST_FAIL_DEVICE");
    int i, n, at = 0;
    dv->fail_after = -1;
    dv->fail_last = 0;
    if (!v || sscanf(v, "%d:%d%n", &i, &n, &at) != 2 || i != dv->index || n < 0) return;
    if (strcmp(v + at, ":last") == 0) dv->fail_last = 1;
    else if (v[at]) return;
    dv->fail_after = n;
}

/* Waits until every other task of dv's model has been handed out and tuned, so that the task dv
 * then gives back finds only idle devices to take it. Takes s->mu. */
static void wait_alone(run_device *dv)
{
    run_shared *s = dv->s;
    run_model *m = &s->models[dv->model];
    pthread_mutex_lock(&s->mu);
    while (!s->stop && (m->in_flight > 1 || m->n_returned > 0 || m->next < m->n))
        pthread_cond_wait(&s->changed, &s->mu);
    pthread_mutex_unlock(&s->mu);
}

int run_fault_now(run_device *dv, int64_t pending, char *err, size_t len)
{
    if (dv->fail_after < 0 || dv->evaluated + pending < dv->fail_after) return 0;
    if (dv->fail_last) wait_alone(dv);
    snprintf(err, len, "simulated failure after %d evaluations (TUNEKIT_TEST_FAIL_DEVICE)",
             dv->fail_after);
    return 1;
}
