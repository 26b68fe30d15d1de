/* run_plan.c: the work of a run as tasks (op, dtype, problem) with an estimated cost, the order
 * a queue hands them out in, and the deterministic split into shards that `tuner run --shard
 * K/N` takes (run_state.h). The cost of a task is what tuning it should take: its configs
 * times the time one evaluation takes, from the bytes it moves at about 1 TB/s over some 20
 * timed runs plus the fixed cost of an evaluation (warm-up, validation, flushes, the pipe); the
 * figures need only be right relative to each other. */
#include <stdlib.h>
#include <string.h>
#include "run_state.h"

static double task_cost(int64_t configs, int64_t bytes)
{
    double per_run_s = (double)bytes / 1e12;
    if (per_run_s < 10e-6)
        per_run_s = 10e-6;
    return (double)configs * (5e-3 + 20.0 * per_run_s);
}

int run_plan_tasks(const run_shared *s, const device_info *dev, run_task **out, int *n,
                   char *err, size_t len)
{
    const space *sp = s->sp;
    int total = sp->n_ops * sp->n_dtypes * sp->n_problems;
    run_task *t = calloc((size_t)(total ? total : 1), sizeof *t);
    *out = NULL;
    *n = 0;
    if (!t) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    int k = 0;
    for (int a = 0; a < sp->n_ops; a++)
        for (int b = 0; b < sp->n_dtypes; b++)
            for (int c = 0; c < sp->n_problems; c++) {
                space_binding bind = {sp->ops[a], sp->dtypes[b], &sp->problems[c], dev};
                int64_t configs = space_count(sp, &bind, err, len);
                if (configs < 0) {
                    free(t);
                    return -1;
                }
                if (s->budget_evals > 0 && configs > s->budget_evals)
                    configs = s->budget_evals;
                int64_t bytes = sp->family->bytes_moved(sp->family, sp->ops[a], sp->dtypes[b],
                                                        &sp->problems[c]);
                t[k++] = (run_task){a, b, c, task_cost(configs, bytes)};
            }
    *out = t;
    *n = k;
    return 0;
}

typedef struct ranked {
    int index;
    double cost;
} ranked;

static int by_cost(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost > y->cost ? -1 : 1;
    return x->index - y->index;
}

void run_plan_by_cost(const run_task *tasks, int n, int *order)
{
    ranked *r = malloc((size_t)(n ? n : 1) * sizeof *r);
    if (!r) {
        for (int i = 0; i < n; i++)
            order[i] = i;
        return;
    }
    for (int i = 0; i < n; i++)
        r[i] = (ranked){i, tasks[i].cost};
    qsort(r, (size_t)n, sizeof *r, by_cost);
    for (int i = 0; i < n; i++)
        order[i] = r[i].index;
    free(r);
}

int run_plan_shard(run_task *tasks, int *n, int k, int shards)
{
    int *order = malloc((size_t)(*n ? *n : 1) * sizeof *order);
    double *load = calloc((size_t)shards, sizeof *load);
    char *mine = calloc((size_t)(*n ? *n : 1), 1);
    if (!order || !load || !mine) {
        free(order);
        free(load);
        free(mine);
        return -1;
    }
    run_plan_by_cost(tasks, *n, order);
    for (int i = 0; i < *n; i++) {
        int least = 0;
        for (int j = 1; j < shards; j++)
            if (load[j] < load[least])
                least = j;
        load[least] += tasks[order[i]].cost;
        mine[order[i]] = least == k - 1;
    }
    int kept = 0;
    for (int i = 0; i < *n; i++)
        if (mine[i])
            tasks[kept++] = tasks[i];
    *n = kept;
    free(order);
    free(load);
    free(mine);
    return 0;
}
