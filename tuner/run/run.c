/* run.c: the run loop behind `tuner run` (see run.h). Order of work: load and check the space
 * (bad input stops here, before anything is opened or written), open the backend (no GPU stops
 * here too); for a user kernel, check its sizes and geometry against the device and, when the
 * backend runs kernels, start compiling and check that the kernel compiles and takes the
 * arguments the space lists; then the database; measure the copy ceiling once; then op x dtype
 * x problem, each searched by a fresh strategy within the budget. */
#include "run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <errno.h>
#include <limits.h>

#include "backend/backend.h"
#include "core/kernel_hash.h"
#include "db/db.h"
#include "space/space.h"
#include "search/strategy.h"
#include "search/strategy_common.h"
#include "space/space_user.h"
#include "user/user_build.h"
#include "user/user_family.h"

#define TUNER_VERSION "0.1.0"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void format_duration(double s, char *buf, size_t len)
{
    if (s < 0) s = 0;
    long t = (long)(s + 0.5);
    if (t >= 3600) snprintf(buf, len, "%ldh%02ldm", t / 3600, (t / 60) % 60);
    else if (t >= 60) snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
    else snprintf(buf, len, "%lds", t);
}

typedef struct progress {
    int enabled;
    int64_t planned, done;
    double t0;
} progress;

static void progress_show(const progress *p, const char *what)
{
    if (!p->enabled) return;
    double el = now_s() - p->t0;
    char eta[32] = "?";
    if (p->done > 0 && p->planned >= p->done)
        format_duration(el / (double)p->done * (double)(p->planned - p->done), eta, sizeof eta);
    fprintf(stderr, "\r\033[K[%lld/%lld] %s  ETA %s", (long long)p->done, (long long)p->planned,
            what, eta);
    fflush(stderr);
}

/* Budget-limited plan size, for the progress line. */
static int64_t planned_for(int64_t count, int64_t budget_evals)
{
    return budget_evals > 0 && budget_evals < count ? budget_evals : count;
}

/* The space's own strategy, except that exhaustive (the default) under an evaluation budget
 * smaller than some problem's space gives way to the best search strategy (SC_DEFAULT_SEARCH,
 * README's "Search strategies"): enumerating in order would stop at an arbitrary corner. */
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

/* The compiled reference of a problem when the reference is a kernel (the user kernel at its
 * reference config, or another kernel); NULL otherwise. A reference that does not compile stops
 * the run. */
static int reference_module(uk_build *build, const space *sp, const space_binding *bind,
                            const char **out, char *err, size_t len)
{
    const space_user *u = sp->user;
    *out = NULL;
    if (u->ref != SU_REF_CONFIG && u->ref != SU_REF_KERNEL) return 0;
    char log[4096];
    int got = u->ref == SU_REF_CONFIG
                  ? uk_build_variant(build, bind, u->ref_choice, &u->kernel, out, log,
                                     sizeof log, err, len)
                  : uk_build_variant(build, bind, NULL, &u->ref_kernel, out, log, sizeof log,
                                     err, len);
    if (got == 1) {
        for (char *c = log; *c; c++)
            if (*c == '\n') *c = ' ';
        snprintf(err, len, "%s:%d:%d: error: the reference does not compile for %s %s: %.600s",
                 sp->path, u->ref_line, u->ref_col, bind->dtype, bind->problem->text, log);
    }
    return got == 0 ? 0 : -1;
}

int run_space(const run_options *o, run_summary *sum, char *err, size_t len)
{
    int rc = 1;
    space *sp = NULL;
    backend *be = NULL;
    db *d = NULL;
    int *choice = NULL;
    strategy *st = NULL;
    uk_build *build = NULL;
    char space_abs[PATH_MAX];
    eval_result res;
    memset(&res, 0, sizeof res);
    memset(sum, 0, sizeof *sum);

    sp = user_space_load(o->space_path, NULL, err, len);
    if (!sp) return 2;
    double t_start = now_s();
    const char *strategy_name = o->strategy ? o->strategy : sp->search.strategy;
    const strategy_vtable *svt = strategy_find(strategy_name);
    if (!svt) {
        snprintf(err, len, "--strategy %s: unknown strategy", strategy_name);
        rc = 2;
        goto done;
    }
    int64_t budget_evals = o->budget_evals >= 0 ? o->budget_evals : sp->search.budget_evals;
    double budget_seconds = o->budget_seconds >= 0 ? o->budget_seconds : sp->search.budget_seconds;
    uint64_t seed = o->seed >= 0 ? (uint64_t)o->seed : sp->search.seed;
    const char *hash = sp->user ? space_user_hash(sp->user) : kernel_hash_for(sp->kernel);

    be = backend_open(o->backend_spec, err, len);
    if (!be) goto done;
    device_info dev;
    if (be->vt->device(be, &dev, err, len) != 0) goto done;
    if (!o->strategy) {
        strategy_name = pick_strategy(sp, &dev, budget_evals, err, len);
        if (!strategy_name) { rc = 2; goto done; }
        svt = strategy_find(strategy_name);
    }

    if (sp->user) {
        /* Sizes, scalars and geometry against this device, then (when the backend runs kernels)
         * the compiler: all before the database is touched. */
        if (space_user_check(sp, &dev, err, len) != 0) { rc = 2; goto done; }
        if (!realpath(sp->path, space_abs)) {
            snprintf(err, len, "%s: %s", sp->path, strerror(errno));
            goto done;
        }
        if (be->needs_modules) {
            if (uk_build_open(sp, &dev, o->cache_dir, o->jobs, NULL, &build, err, len) != 0)
                goto done;
            if (uk_build_precheck(build, err, len) != 0) { rc = 2; goto done; }
        }
    }
    if (db_open(o->db_path, 1, &d, err, len) != 0) goto done;
    double copy_gbps = be->vt->copy_gbps(be);
    int64_t device_id, run_id;
    if (db_put_device(d, &dev, &device_id, err, len) != 0) goto done;
    run_info info = { sp->path, sp->sha256, strategy_name, be->spec, TUNER_VERSION, seed,
                      copy_gbps };
    if (db_begin_run(d, device_id, &info, &run_id, err, len) != 0) goto done;
    if (o->out)
        fprintf(o->out, "tuner: %s on %s (%d SMs, cc %d.%d); copy ceiling %.1f GB/s; %s\n",
                sp->path, dev.name, dev.sm_count, dev.cc_major, dev.cc_minor, copy_gbps,
                be->spec);

    progress prog = { o->progress, 0, 0, now_s() };
    for (int a = 0; a < sp->n_ops; a++)
        for (int b = 0; b < sp->n_dtypes; b++)
            for (int c = 0; c < sp->n_problems; c++) {
                space_binding bind = { sp->ops[a], sp->dtypes[b], &sp->problems[c], &dev };
                int64_t n = space_count(sp, &bind, err, len);
                if (n < 0) goto done;
                prog.planned += planned_for(n, budget_evals);
            }

    choice = malloc((size_t)(sp->n_params ? sp->n_params : 1) * sizeof *choice);
    if (!choice) { snprintf(err, len, "out of memory"); goto done; }
    int64_t seq = 0;
    const op_family *fam = sp->family;
    for (int a = 0; a < sp->n_ops; a++)
        for (int b = 0; b < sp->n_dtypes; b++)
            for (int c = 0; c < sp->n_problems; c++) {
                const problem *pb = &sp->problems[c];
                const char *op = sp->ops[a], *dtype = sp->dtypes[b];
                char opfull[256], label[512];
                snprintf(opfull, sizeof opfull, "%s.%s", sp->kernel, op);
                snprintf(label, sizeof label, "%s %s %s", opfull, dtype, pb->text);
                if (fam->check_problem(fam, op, dtype, pb, err, len) != 0) goto done;
                int64_t problem_id, bytes = fam->bytes_moved(fam, op, dtype, pb);
                if (db_put_problem(d, opfull, dtype, pb->text, fam->elements(fam, pb), bytes,
                                   fam->size_key(fam, pb), &problem_id, err, len) != 0)
                    goto done;
                space_binding bind = { op, dtype, pb, &dev };
                const char *ref_module = NULL;
                if (build) {
                    if (uk_build_prefetch(build, &bind, err, len) != 0) goto done;
                    if (reference_module(build, sp, &bind, &ref_module, err, len) != 0) {
                        rc = 2;
                        goto done;
                    }
                }
                st = svt->create(sp, &bind, seed, budget_evals, err, len);
                if (!st) goto done;
                if (o->warm_start && strategy_warm_start(&st, d, sp, &bind, err, len) != 0) goto done;
                int64_t evals = 0;
                double t0 = now_s(), best_us = 0;
                char config[1024], best_config[1024] = "";
                while (st->vt->propose(st, choice) == 1) {
                    if ((budget_evals > 0 && evals >= budget_evals) ||
                        (budget_seconds > 0 && now_s() - t0 >= budget_seconds)) {
                        sum->skipped_budget++;
                        break;
                    }
                    space_config_text(sp, choice, config, sizeof config);
                    int have = db_has_evaluation(d, device_id, problem_id, config, hash);
                    if (have < 0) { snprintf(err, len, "database read failed"); goto done; }
                    if (have) {
                        /* Resume: hand the strategy what was measured before. */
                        eval_result_clear(&res);
                        db_find_evaluation(d, dev.uuid, opfull, dtype, pb->text, config, &res);
                        st->vt->observe(st, choice, res.status, res.stats.median);
                        sum->resumed++;
                        evals++;
                        prog.done++;
                        continue;
                    }
                    eval_request req = { .kernel = sp->kernel, .op = op, .dtype = dtype,
                                         .problem = pb, .config = config,
                                         .measure = sp->measure, .seed = seed,
                                         .validate = sp->validate.enabled,
                                         .tolerance_scale = sp->validate.tolerance_scale };
                    eval_result_clear(&res);
                    int compiled = 1;
                    if (build) {
                        char log[4096];
                        int got = uk_build_variant(build, &bind, choice, &sp->user->kernel,
                                                   &req.module, log, sizeof log, err, len);
                        if (got < 0) goto done;
                        if (got == 1) {
                            compiled = 0;
                            res.status = EVAL_COMPILE_ERROR;
                            snprintf(res.error, sizeof res.error, "%s", log);
                        }
                        req.space_path = space_abs;
                        req.ref_module = ref_module;
                    }
                    if (compiled) {
                        double t_eval = now_s();
                        if (be->vt->evaluate(be, &req, &res, err, len) != 0) goto done;
                        sum->backend_s += now_s() - t_eval;
                    }
                    if (res.status == EVAL_UNRECORDED) {
                        sum->unrecorded++;
                        st->vt->observe(st, choice, res.status, 0);
                        continue;
                    }
                    if (db_put_evaluation(d, run_id, device_id, problem_id, config, hash, &res,
                                          bytes, copy_gbps, seq++, err, len) != 0)
                        goto done;
                    sum->evaluated++;
                    sum->by_status[res.status]++;
                    st->vt->observe(st, choice, res.status, res.stats.median);
                    if (res.status == EVAL_OK && (best_us == 0 || res.stats.median < best_us)) {
                        best_us = res.stats.median;
                        snprintf(best_config, sizeof best_config, "%s", config);
                    }
                    if (res.status != EVAL_SKIPPED && res.status != EVAL_UNSUPPORTED) evals++;
                    prog.done++;
                    progress_show(&prog, label);
                }
                st->vt->destroy(st);
                st = NULL;
                if (o->out && best_us > 0) {
                    if (prog.enabled) fprintf(stderr, "\r\033[K");
                    double gbps = (double)bytes / (best_us * 1e3);
                    fprintf(o->out, "  %-44s %10.2f us %8.1f GB/s", label, best_us, gbps);
                    if (copy_gbps > 0) fprintf(o->out, " %5.1f%%", 100.0 * gbps / copy_gbps);
                    fprintf(o->out, "  %s\n", best_config);
                }
            }
    if (prog.enabled) fprintf(stderr, "\r\033[K");
    if (db_end_run(d, run_id, err, len) != 0) goto done;
    rc = 0;
done:
    if (build) {
        uk_build_stats bs;
        uk_build_get_stats(build, &bs);
        sum->user_kernel = 1;
        sum->compiled = bs.compiled;
        sum->compile_failed = bs.failed;
        sum->compile_cached = bs.cached;
        sum->compile_cpu_s = bs.cpu_s;
        sum->jobs = bs.jobs;
        uk_build_close(build);
    }
    sum->wall_s = now_s() - t_start;
    if (st) st->vt->destroy(st);
    eval_result_clear(&res);
    free(choice);
    db_close(d);
    if (be) be->vt->close(be);
    user_space_free(sp);
    return rc;
}
