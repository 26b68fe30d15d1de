/* run.c: the run loop behind `tuner run` (see run.h). Order of work: load and check the space
 * (bad input stops here, before anything is opened or written); open every device's backend (no
 * GPU stops here too) and group the devices by model; for a user kernel, check its sizes and
 * geometry against each model and, when the backends run kernels, start a compiler per
 * architecture and check that the kernel compiles and takes the arguments the space lists; plan
 * the tasks (op x dtype x problem; a shard keeps its share); then per device its own database
 * connection and run, the copy ceiling measured once, and the device takes its model's tasks one
 * by one, each searched by a fresh strategy within the budget (run_task.c). Several devices run
 * in a thread each; a device whose backend fails gives its task back to its model's queue and
 * stops, and the run fails only when a model has no device left. */
#include "run.h"

#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/kernel_hash.h"
#include "core/objective.h"
#include "measure/device_settings.h"
#include "run_state.h"
#include "search/strategy_common.h"
#include "space/space_user.h"
#include "ops/user_kernel.h"

#define TUNER_VERSION "0.1.0"

/* Budget-limited plan size, for the progress line. */
static int64_t planned_for(int64_t count, int64_t budget_evals)
{
    return budget_evals > 0 && budget_evals < count ? budget_evals : count;
}

/* The space's own strategy, except that exhaustive (the default) under an evaluation budget
 * smaller than some problem's space gives way to the best search strategy (SC_DEFAULT_SEARCH,
 * docs: "Search strategies"): enumerating in order would stop at an arbitrary corner. */
static const char *pick_strategy(const space *sp, const device_info *dev, int64_t budget_evals,
                                 char *err, size_t len)
{
    if (strcmp(sp->search.strategy, "exhaustive") != 0 || budget_evals <= 0) return sp->search.strategy;
    for (int a = 0; a < sp->n_ops; a++)
        for (int b = 0; b < sp->n_dtypes; b++)
            for (int c = 0; c < sp->n_problems; c++) {
                space_binding bind = { sp->ops[a], sp->dtypes[b], &sp->problems[c], dev };
                int64_t n = space_count(sp, &bind, err, len);
                if (n < 0) return NULL;
                if (n > budget_evals) return SC_DEFAULT_SEARCH;
            }
    return sp->search.strategy;
}

int run_parse_shard(const char *text, int *k, int *n)
{
    char tail;
    if (!text || sscanf(text, "%d/%d%c", k, n, &tail) != 2 || *n < 1 || *n > 100000 || *k < 1 ||
        *k > *n)
        return -1;
    return 0;
}

int run_devices_specs(const char *devices, int count_all, char ***specs, int *n, char *err,
                      size_t len)
{
    *specs = NULL;
    *n = 0;
    int cap = 64;
    char **v = calloc((size_t)cap, sizeof *v);
    if (!v) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    if (strcmp(devices, "all") == 0) {
        for (int i = 0; i < count_all && i < cap; i++) {
            v[i] = malloc(16);
            if (!v[i]) goto oom;
            snprintf(v[i], 16, "cuda:%d", i);
            *n = i + 1;
        }
        *specs = v;
        return 0;
    }
    for (const char *p = devices;;) {
        char *end;
        long ord = strtol(p, &end, 10);
        if (end == p || ord < 0 || ord > 255 || (*end && *end != ',')) {
            snprintf(err, len, "--devices %s: expected all or ordinals such as 0,2,3", devices);
            goto fail;
        }
        for (int i = 0; i < *n; i++) {
            char want[16];
            snprintf(want, sizeof want, "cuda:%ld", ord);
            if (strcmp(v[i], want) == 0) {
                snprintf(err, len, "--devices %s: device %ld is listed twice", devices, ord);
                goto fail;
            }
        }
        if (*n == cap) {
            snprintf(err, len, "--devices %s: more than %d devices", devices, cap);
            goto fail;
        }
        if (!(v[*n] = malloc(16))) goto oom;
        snprintf(v[*n], 16, "cuda:%ld", ord);
        (*n)++;
        if (!*end) break;
        p = end + 1;
    }
    *specs = v;
    return 0;
oom:
    snprintf(err, len, "out of memory");
fail:
    for (int i = 0; i < cap; i++) free(v[i]);
    free(v);
    *n = 0;
    return -1;
}

/* The next task of a device's model (returned ones first), or -1 when there is none. mu held. */
static int next_task(run_model *m)
{
    if (m->n_returned > 0) return m->returned[--m->n_returned];
    return m->next < m->n ? m->order[m->next++] : -1;
}

/* One device's share of the work: tasks from its model's queue until none is left and none is
 * being tuned (one being tuned may come back), the run stops, or its backend fails (the task
 * goes back to the queue). */
static void *device_main(void *arg)
{
    run_device *dv = arg;
    run_shared *s = dv->s;
    run_model *m = &s->models[dv->model];
    char err[2048];
    for (;;) {
        pthread_mutex_lock(&s->mu);
        int t;
        while ((t = s->stop ? -1 : next_task(m)) < 0 && !s->stop && m->in_flight > 0)
            pthread_cond_wait(&s->changed, &s->mu);
        if (t >= 0) m->in_flight++;
        pthread_mutex_unlock(&s->mu);
        if (t < 0) break;
        int r = run_task_tune(dv, &s->tasks[t], err, sizeof err);
        pthread_mutex_lock(&s->mu);
        m->in_flight--;
        pthread_cond_broadcast(&s->changed);
        if (r == 0) {
            pthread_mutex_unlock(&s->mu);
            continue;
        }
        if (r < 0) {
            if (!s->stop) {
                s->stop = 1;
                s->rc = strstr(err, ": error: ") ? 2 : 1;
                snprintf(s->err, sizeof s->err, "%s", err);
            }
        } else {
            /* this device failed: its task goes back for the others of its model */
            m->returned[m->n_returned++] = t;
            m->alive--;
            run_device_summary *ds = &s->sum->devices[dv->index];
            ds->failed = 1;
            snprintf(ds->why, sizeof ds->why, "%s", err);
            if (s->o->out && s->sum->n_devices > 1) {
                if (s->o->progress) fprintf(stderr, "\r\033[K");
                fprintf(stderr, "tuner: device %d (%s, %s) failed: %s; its task goes back to the "
                        "queue%s\n", dv->index, dv->spec, dv->dev.name, err,
                        m->alive > 0 ? "" : ", and no device of its model is left");
            }
            if (m->alive == 0 && !s->stop) {
                s->stop = 1;
                s->rc = 1;
                if (s->sum->n_devices == 1)
                    snprintf(s->err, sizeof s->err, "%s", err);
                else
                    snprintf(s->err, sizeof s->err, "every device of %s failed; the last: %s",
                             m->name, err);
            }
        }
        pthread_mutex_unlock(&s->mu);
        break;
    }
    return NULL;
}

/* Counts best rows on devices other than the run's (for the transfer search's source). */
typedef struct others {
    const run_device *devs;
    int n_devs;
    int64_t rows;
} others;

static int count_other(void *ctx, const best_row *r)
{
    others *o = ctx;
    for (int i = 0; i < o->n_devs; i++)
        if (strcmp(o->devs[i].dev.uuid, r->device_uuid) == 0) return 0;
    o->rows++;
    return 0;
}

/* The transfer search's source: the dumps given, or (a GPU run with the space's default
 * strategy) the committed results; kept when it holds winners of this space's ops on other
 * devices. A space with start configs of its own (search.start) may ask for transfer without
 * them: it starts from its own. 0 (s->transfer set or not), or -1 with err. */
static int open_transfer(run_shared *s, const run_device *devs, int n_devs, char *err, size_t len)
{
    const run_options *o = s->o;
    const space *sp = s->sp;
    const char *named = o->strategy ? o->strategy : sp->search.strategy;
    int asked = strcmp(named, "transfer") == 0;   /* on the command line or in the space */
    int default_search = !o->strategy && strcmp(sp->search.strategy, "exhaustive") == 0 &&
                         s->budget_evals <= 0 && s->budget_seconds <= 0;
    if (!asked && !default_search) {
        if (o->n_transfer_from == 0) return 0;
        snprintf(err, len, "--transfer-from starts the transfer search, which %s replaces: drop one of "
                 "them", o->strategy ? "--strategy" : s->budget_evals > 0 || s->budget_seconds > 0 ?
                 "a budget" : "the space's search strategy");
        return -1;
    }
    const char *inputs[64];
    int n = 0;
    glob_t g;
    memset(&g, 0, sizeof g);
    for (int i = 0; i < o->n_transfer_from && n < 64; i++) inputs[n++] = o->transfer_from[i];
    if (n == 0 && (asked || devs[0].be->needs_modules) &&
        glob("db/results/*.sql*", 0, NULL, &g) == 0)
        for (size_t i = 0; i < g.gl_pathc && n < 64; i++) inputs[n++] = g.gl_pathv[i];
    int rc = 0;
    if (n > 0) {
        if (db_open_dumps_summary(inputs, n, sp->kernel, &s->transfer, err, len) != 0) {
            rc = -1;
            goto done;
        }
        others c = { devs, n_devs, 0 };
        for (int a = 0; a < sp->n_ops; a++) {
            char op[256];
            snprintf(op, sizeof op, "%s.%s", sp->kernel, sp->ops[a]);
            db_each_best(s->transfer, NULL, op, NULL, count_other, &c);
        }
        if (c.rows == 0) {
            db_close(s->transfer);
            s->transfer = NULL;
        } else {
            size_t at = 0;
            for (int i = 0; i < n && at < sizeof s->sum->transfer_from; i++)
                at += (size_t)snprintf(s->sum->transfer_from + at, sizeof s->sum->transfer_from - at,
                                       "%s%s", i ? " " : "", inputs[i]);
        }
    }
    /* a space that names its own start configs (search.start) needs no other GPU's */
    if ((asked || o->n_transfer_from > 0) && !s->transfer && !(asked && sp->search.n_start > 0 &&
                                                                 o->n_transfer_from == 0)) {
        snprintf(err, len, "%s: no other GPU's results of %s in %s",
                 !asked ? "--transfer-from" : o->strategy ? "--strategy transfer" : "search.strategy transfer",
                 sp->kernel,
                 n ? "the inputs given (--transfer-from)" : "db/results/ (give --transfer-from)");
        rc = -1;
    }
done:
    globfree(&g);
    return rc;
}

static void device_close(run_device *dv)
{
    db_close(dv->d);
    if (dv->be) dv->be->vt->close(dv->be);
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int run_space(const run_options *o, run_summary *sum, char *err, size_t len)
{
    int rc = 1;
    run_shared s;
    memset(&s, 0, sizeof s);
    memset(sum, 0, sizeof *sum);
    run_device *devs = NULL;
    int n_devs = o->n_backends > 0 ? o->n_backends : 1;
    int threads_started = 0;
    pthread_mutex_init(&s.mu, NULL);
    pthread_cond_init(&s.changed, NULL);
    s.o = o;
    s.sum = sum;
    s.t0 = run_now_s();

    s.sp = user_space_load(o->space_path, NULL, err, len);
    if (!s.sp) return 2;
    space *sp = s.sp;
    /* GPU settings a killed run left changed (docs/energy.md): put back before anything runs,
     * or the run would take them for the driver's own */
    if (devset_restore_stale(o->db_path, stderr, err, len) < 0) {
        size_t at = strlen(err);
        snprintf(err + at, len - at, "; the run would take the changed settings for the "
                 "driver's: restore them (nvidia-smi -rgc, -rmc, -pl) and remove the file");
        goto done;
    }
    for (int i = 0; i < sp->n_params; i++)
        s.device_settings |= devset_param_index(sp->params[i].name) >= 0;
    s.strategy_name = o->strategy ? o->strategy : sp->search.strategy;
    s.svt = strategy_find(s.strategy_name);
    if (!s.svt) {
        snprintf(err, len, "--strategy %s: unknown strategy", s.strategy_name);
        rc = 2;
        goto done;
    }
    if (n_devs > (int)(sizeof sum->devices / sizeof sum->devices[0])) {
        snprintf(err, len, "more than %d devices", (int)(sizeof sum->devices / sizeof sum->devices[0]));
        rc = 2;
        goto done;
    }
    s.budget_evals = o->budget_evals >= 0 ? o->budget_evals : sp->search.budget_evals;
    s.budget_seconds = o->budget_seconds >= 0 ? o->budget_seconds : sp->search.budget_seconds;
    s.seed = o->seed >= 0 ? (uint64_t)o->seed : sp->search.seed;
    if (o->race >= 0) sp->measure.race_margin = o->race;
    s.objective = o->objective >= 0 ? o->objective : sp->search.objective;
    if (s.objective != OBJECTIVE_TIME) {
        if (sp->measure.energy_s <= 0) sp->measure.energy_s = ENERGY_DEFAULT_S;
        if (sp->measure.energy_top == MEASURE_ENERGY_ALL) {
            /* every config measured whole, energy included: racing and the playoff judge
             * time, so both are off (docs/energy.md) */
            sp->measure.race_margin = 0;
        } else {
            /* the search runs on time; each problem's contenders get their energy windows
             * afterwards (run_energy.c) */
            s.energy_window_s = sp->measure.energy_s;
            sp->measure.energy_s = 0;
            sum->energy_top = sp->measure.energy_top;
            sum->energy_within = sp->measure.energy_within;
        }
    }
    sum->objective = s.objective;
    sum->energy_s = s.energy_window_s > 0 ? s.energy_window_s : sp->measure.energy_s;
    sum->race_margin = sp->measure.race_margin;
    s.hash = sp->user ? space_user_hash(sp->user) : kernel_hash_for(sp->kernel);

    /* the devices and their models */
    devs = calloc((size_t)n_devs, sizeof *devs);
    s.models = calloc((size_t)n_devs, sizeof *s.models);
    if (!devs || !s.models) { snprintf(err, len, "out of memory"); goto done; }
    for (int i = 0; i < n_devs; i++) {
        run_device *dv = &devs[i];
        dv->s = &s;
        dv->index = i;
        run_fault_init(dv);
        snprintf(dv->spec, sizeof dv->spec, "%s", o->n_backends > 0 ? o->backends[i] : "cuda");
        if (!(dv->be = backend_open(dv->spec, err, len))) goto done;
        if (dv->be->vt->device(dv->be, &dv->dev, err, len) != 0) goto done;
        int m;
        for (m = 0; m < s.n_models; m++)
            if (strcmp(s.models[m].name, dv->dev.name) == 0 &&
                s.models[m].cc_major == dv->dev.cc_major &&
                s.models[m].cc_minor == dv->dev.cc_minor &&
                s.models[m].sm_count == dv->dev.sm_count)
                break;
        if (m == s.n_models) {
            run_model *nm = &s.models[s.n_models++];
            snprintf(nm->name, sizeof nm->name, "%s", dv->dev.name);
            nm->cc_major = dv->dev.cc_major;
            nm->cc_minor = dv->dev.cc_minor;
            nm->sm_count = dv->dev.sm_count;
        }
        dv->model = m;
        s.models[m].alive++;
        run_device_summary *ds = &sum->devices[i];
        snprintf(ds->spec, sizeof ds->spec, "%s", dv->spec);
        snprintf(ds->name, sizeof ds->name, "%s", dv->dev.name);
    }
    sum->n_devices = n_devs;
    if (!o->strategy) {
        s.strategy_name = pick_strategy(sp, &devs[0].dev, s.budget_evals, err, len);
        if (!s.strategy_name) { rc = 2; goto done; }
        s.svt = strategy_find(s.strategy_name);
    }
    /* on a GPU with other GPUs' results at hand, the default is the transfer search */
    if (open_transfer(&s, devs, n_devs, err, len) != 0) { rc = 2; goto done; }
    if (s.transfer && strcmp(s.strategy_name, "transfer") != 0) {
        s.strategy_name = "transfer";
        s.svt = strategy_find("transfer");
    }
    snprintf(sum->strategy, sizeof sum->strategy, "%s", s.strategy_name);

    /* Each model's variant builder: a user kernel's sizes, scalars and geometry are checked
     * against every model, then (when the model's backends run kernels) its compiler is found
     * and the first variants compiled: all before the database is touched. */
    if (sp->user && !realpath(sp->path, s.space_abs)) {
        snprintf(err, len, "%s: %s", sp->path, strerror(errno));
        goto done;
    }
    for (int i = 0; i < n_devs; i++) {
        run_model *m = &s.models[devs[i].model];
        if (m->builder) continue;
        if (sp->user && space_user_check(sp, &devs[i].dev, err, len) != 0) { rc = 2; goto done; }
        vb_options vo = { .cache_dir = o->cache_dir, .jobs = o->jobs, .compiler = o->compiler,
                          .modules = devs[i].be->needs_modules, .space_path = s.space_abs };
        if (variant_builder_open(sp, &devs[i].dev, &vo, &m->builder, err, len) != 0) {
            /* what the space must fix is bad input; a missing compiler is not */
            rc = strstr(err, ": error: ") ? 2 : 1;
            goto done;
        }
    }

    /* the tasks: every (op, dtype, problem), or this shard's share of them (the split leaves
     * the device out, so every machine computes the same shards) */
    if (run_plan_tasks(&s, NULL, &s.tasks, &s.n_tasks, err, len) != 0) { rc = 2; goto done; }
    if (o->shard_n > 0 && run_plan_shard(s.tasks, &s.n_tasks, o->shard_k, o->shard_n) != 0) {
        snprintf(err, len, "out of memory");
        goto done;
    }
    sum->n_tasks = s.n_tasks;
    /* A built-in family's problem whose buffers alone (the bytes it must move, read + written)
     * exceed a GPU's memory cannot run there: said now, before anything is measured, rather
     * than found by a worker that runs out of memory (user kernels: space_user_check above). */
    if (!sp->user) {
        for (int i = 0; i < s.n_tasks; i++) {
            const run_task *t = &s.tasks[i];
            const problem *pb = &sp->problems[t->prob];
            int64_t need = sp->family->bytes_moved(sp->family, sp->ops[t->op], sp->dtypes[t->dtype], pb);
            for (int d = 0; d < n_devs; d++) {
                if (devs[d].dev.mem_bytes <= 0 || need <= devs[d].dev.mem_bytes) continue;
                snprintf(err, len, "%s: error: problem '%s' (%s.%s %s) needs %.1f GB of buffers, more than "
                         "the %.1f GB of %s", sp->path, pb->text, sp->kernel, sp->ops[t->op],
                         sp->dtypes[t->dtype], (double)need / 1e9,
                         (double)devs[d].dev.mem_bytes / 1e9, devs[d].dev.name);
                rc = 2;
                goto done;
            }
        }
    }
    for (int m = 0; m < s.n_models; m++) {
        run_model *rm = &s.models[m];
        rm->order = malloc((size_t)(s.n_tasks ? s.n_tasks : 1) * sizeof *rm->order);
        rm->returned = malloc((size_t)(s.n_tasks ? s.n_tasks : 1) * sizeof *rm->returned);
        if (!rm->order || !rm->returned) { snprintf(err, len, "out of memory"); goto done; }
        rm->n = s.n_tasks;
        /* one device: space order, as always; several: most costly first, so that no device
         * is left with a long task at the end */
        int several = 0;
        for (int i = 0; i < n_devs; i++) several += devs[i].model == m;
        if (several > 1) {
            run_plan_by_cost(s.tasks, s.n_tasks, rm->order);
        } else {
            for (int i = 0; i < s.n_tasks; i++) rm->order[i] = i;
        }
        for (int i = 0; i < s.n_tasks; i++) {
            const run_task *t = &s.tasks[i];
            space_binding bind = { sp->ops[t->op], sp->dtypes[t->dtype], &sp->problems[t->prob],
                                   NULL };
            for (int d = 0; d < n_devs; d++)
                if (devs[d].model == m) { bind.device = &devs[d].dev; break; }
            int64_t n = space_count(sp, &bind, err, len);
            if (n < 0) goto done;
            s.planned += planned_for(n, s.budget_evals);
        }
    }

    /* per device: its database connection, the device row, its run, the copy ceiling */
    for (int i = 0; i < n_devs; i++) {
        run_device *dv = &devs[i];
        if (db_open(o->db_path, 1, &dv->d, err, len) != 0) goto done;
        dv->copy_gbps = dv->be->vt->copy_gbps(dv->be);
        if (db_put_device(dv->d, &dv->dev, &dv->device_id, err, len) != 0) goto done;
        run_info info = { sp->path, sp->sha256, s.strategy_name, dv->be->spec, TUNER_VERSION,
                          s.seed, dv->copy_gbps };
        if (db_begin_run(dv->d, dv->device_id, &info, &dv->run_id, err, len) != 0) goto done;
        if (s.device_settings) {
            /* where the worker keeps what the GPU had; put back on SIGINT and SIGTERM too */
            if (devset_state_path(o->db_path, dv->dev.uuid, dv->device_state,
                                  sizeof dv->device_state) != 0) {
                snprintf(err, len, "%s: cannot name the GPU settings' state file beside it",
                         o->db_path);
                goto done;
            }
            devset_watch_path(dv->device_state);
            devset_watch_signals();
        }
        if (o->out) {
            fprintf(o->out, "tuner: %s on %s (%d SMs, cc %d.%d); copy ceiling %.1f GB/s; %s",
                    sp->path, dv->dev.name, dv->dev.sm_count, dv->dev.cc_major, dv->dev.cc_minor,
                    dv->copy_gbps, dv->be->spec);
            if (o->shard_n > 0)
                fprintf(o->out, "; shard %d/%d: %d of the tasks", o->shard_k, o->shard_n,
                        s.n_tasks);
            fprintf(o->out, "\n");
        }
    }

    sum->start_s = run_now_s() - s.t0;
    if (n_devs == 1) {
        device_main(&devs[0]);
    } else {
        for (int i = 0; i < n_devs; i++) {
            if (pthread_create(&devs[i].thread, NULL, device_main, &devs[i]) != 0) {
                pthread_mutex_lock(&s.mu);
                s.stop = 1;
                snprintf(s.err, sizeof s.err, "cannot start a thread for device %d", i);
                s.rc = 1;
                pthread_cond_broadcast(&s.changed);
                pthread_mutex_unlock(&s.mu);
                break;
            }
            threads_started = i + 1;
        }
        for (int i = 0; i < threads_started; i++) pthread_join(devs[i].thread, NULL);
        threads_started = 0;
    }
    if (o->progress) fprintf(stderr, "\r\033[K");
    if (s.stop) {
        snprintf(err, len, "%s", s.err);
        rc = s.rc;
        goto done;
    }
    for (int i = 0; i < n_devs; i++)
        if (!sum->devices[i].failed && db_end_run(devs[i].d, devs[i].run_id, err, len) != 0)
            goto done;
    rc = 0;
done:
    for (int m = 0; s.models && m < s.n_models; m++) {
        if (s.models[m].builder) {
            vb_stats bs;
            vb_get_stats(s.models[m].builder, &bs);
            if (bs.compiles) {
                sum->user_kernel = 1;
                sum->compiled += bs.compiled;
                sum->compile_failed += bs.failed;
                sum->compile_cached += bs.cached;
                sum->compile_cpu_s += bs.cpu_s;
                sum->jobs = bs.jobs;
            }
            variant_builder_close(s.models[m].builder);
        }
        free(s.models[m].order);
        free(s.models[m].returned);
    }
    for (int i = 0; devs && i < n_devs; i++) {
        sum->devices[i].evaluated = devs[i].evaluated;
        sum->devices[i].busy_s = devs[i].busy_s;
        sum->backend_s += devs[i].busy_s;
        sum->compile_wait_s += devs[i].wait_s;
        sum->store_s += devs[i].store_s;
        device_close(&devs[i]);
    }
    sum->wall_s = run_now_s() - s.t0;
    if (s.n_setup > 0) {
        qsort(s.setup_ms, (size_t)s.n_setup, sizeof *s.setup_ms, cmp_double);
        sum->setup_n = s.n_setup;
        sum->setup_median_ms = s.n_setup % 2 ? s.setup_ms[s.n_setup / 2]
                                              : 0.5 * (s.setup_ms[s.n_setup / 2 - 1] + s.setup_ms[s.n_setup / 2]);
        sum->setup_max_ms = s.setup_ms[s.n_setup - 1];
    }
    free(s.setup_ms);
    db_close(s.transfer);
    free(devs);
    free(s.models);
    free(s.tasks);
    pthread_cond_destroy(&s.changed);
    pthread_mutex_destroy(&s.mu);
    user_space_free(sp);
    return rc;
}
