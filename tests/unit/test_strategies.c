/* test_strategies.c: unit tests of the search strategies (tuner/strategy_*.c) and their shared
 * helpers (strategy_common.c), driven directly through the strategy interface with a synthetic
 * objective instead of a backend:
 *   - spaces of 1, 2 and 3 configs, with budgets below, at and above their size and none: each
 *     allowed config proposed at most once, then the strategy stops (and stays stopped);
 *   - a medium space run to exhaustion with invalid, faulting, unsupported and unrecorded
 *     configs mixed in: exactly the allowed set, no repeat, nothing outside the constraints;
 *   - the same seed gives the same sequence, another seed another one;
 *   - failures are learned from: model-guided strategies propose fewer failing configs than
 *     their share of the space;
 *   - the search is worth it: on a smooth objective the median run of every strategy reaches
 *     the optimum well before random order does;
 *   - a space too large to enumerate (raw size over SC_ENUM_LIMIT): proposals allowed, distinct;
 *   - neighbourhoods repair a change into the constraints; the warm-start wrapper proposes its
 *     configs first (skipping disallowed ones and repeats) and the inner strategy starts from
 *     them; warm starts from a database come nearest compute capability first, the same problem
 *     before other sizes, and never from the device itself.
 * Run from the repository root (tests/run.sh does). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "db/db.h"
#include "space/space.h"
#include "search/strategy.h"
#include "search/strategy_common.h"

#define MAX_SEQ 4096

/* ---- helpers ---- */

/* Loads a space from text through a temporary file. NULL (error printed) on failure. */
static space *load_text(const char *text)
{
    char path[64] = "/tmp/test_strategies_XXXXXX.yaml", err[1024];
    int fd = mkstemps(path, 5);
    if (fd < 0) return NULL;
    size_t len = strlen(text);
    int ok = write(fd, text, len) == (ssize_t)len;
    close(fd);
    space *sp = ok ? space_load(path, err, sizeof err) : NULL;
    if (ok && !sp) fprintf(stderr, "space: %s\n", err);
    unlink(path);
    return sp;
}

/* An elementwise space over f32 with the given params block (YAML lines). */
static space *elementwise_space(const char *params, const char *constraints)
{
    char text[4096];
    snprintf(text, sizeof text,
             "kernel: elementwise\nops: [mul]\ndtypes: [f32]\nproblems:\n  - { n: 1048576 }\n"
             "params:\n%s%s",
             params, constraints);
    return load_text(text);
}

static int param_index(const space *sp, const char *name)
{
    for (int k = 0; k < sp->n_params; k++)
        if (strcmp(sp->params[k].name, name) == 0) return k;
    return -1;
}

static const char *param_string(const space *sp, const int *choice, const char *name)
{
    int k = param_index(sp, name);
    return k < 0 ? "" : sp->params[k].values[choice[k]].kind == VALUE_STRING
                            ? sp->params[k].values[choice[k]].s : "";
}

static int64_t param_int(const space *sp, const int *choice, const char *name)
{
    int k = param_index(sp, name);
    return k < 0 ? 0 : sp->params[k].values[choice[k]].i;
}

/* The synthetic objective: a smooth bowl in log2(block_size), log2(waves), pack_size and
 * unroll, optimum at block 256, waves 8, pack 4, unroll 2, grid_stride; with `failures` set,
 * pack_size 1 is invalid, one_shot with block 1024 faults, unroll 4 with block 64 is
 * unsupported and block 128 with waves 2 was never recorded. */
typedef struct objective { int failures; } objective;

static eval_status evaluate(const objective *o, const space *sp, const int *c, double *us)
{
    int64_t block = param_int(sp, c, "block_size"), waves = param_int(sp, c, "waves");
    int64_t pack = param_int(sp, c, "pack_size"), unroll = param_int(sp, c, "unroll");
    int one_shot = strcmp(param_string(sp, c, "loop"), "one_shot") == 0;
    if (o->failures) {
        if (pack == 1) return EVAL_INVALID;
        if (one_shot && block == 1024) return EVAL_FAULT;
        if (unroll == 4 && block == 64) return EVAL_UNSUPPORTED;
        if (block == 128 && waves == 2) return EVAL_UNRECORDED;
    }
    double lb = log2((double)block) - 8, lw = log2((double)waves) - 3;
    double lp = log2((double)pack) - 2, lu = log2((double)unroll) - 1;
    *us = 10.0 * (1 + 0.08 * lb * lb + 0.05 * lw * lw + 0.1 * lp * lp + 0.04 * lu * lu +
                  (one_shot ? 0.07 : 0.0));
    return EVAL_OK;
}

/* One run as tuner/run/run_task.c drives it: propose, evaluate, observe, until the strategy stops or
 * the budget (0: none) is spent (unsupported and unrecorded configs do not count). Writes the
 * proposals to seq (MAX_SEQ * n_params) and returns how many; *fails counts failing ones;
 * with best_us > 0, the run stops at the optimum (us == best_us) and *first_best holds the
 * evaluation count at which it came. */
typedef struct run_out {
    int n, fails, first_best, stopped;
    int seq[MAX_SEQ * 8];
} run_out;

static int run_strategy(const strategy_vtable *vt, const space *sp, const space_binding *b,
                        uint64_t seed, int64_t budget, const objective *o, double best_us,
                        run_out *out)
{
    char err[512];
    memset(out, 0, sizeof *out);
    out->first_best = -1;
    strategy *st = vt->create(sp, b, seed, budget, err, sizeof err);
    if (!st) { fprintf(stderr, "%s: %s\n", vt->name, err); return -1; }
    int64_t counted = 0;
    int choice[8];
    while (out->n < MAX_SEQ) {
        if (budget > 0 && counted >= budget) break;
        if (st->vt->propose(st, choice) != 1) { out->stopped = 1; break; }
        memcpy(out->seq + out->n * sp->n_params, choice, (size_t)sp->n_params * sizeof *choice);
        out->n++;
        double us = 0;
        eval_status s = evaluate(o, sp, choice, &us);
        st->vt->observe(st, choice, s, us);
        if (sc_counts(s)) counted++;
        if (sc_is_failure(s)) out->fails++;
        if (s == EVAL_OK && out->first_best < 0 && us <= best_us * (1 + 1e-12)) {
            out->first_best = (int)counted;
            break;   /* what the caller wanted to know */
        }
    }
    if (out->stopped) {   /* a stopped strategy stays stopped */
        CHECK(st->vt->propose(st, choice) == 0);
    }
    st->vt->destroy(st);
    return 0;
}

/* Checks the run's proposals: all allowed, none twice. Returns the number of distinct ones. */
static int check_proposals(const space *sp, const space_binding *b, const run_out *r,
                           const char *what)
{
    int bad = 0, dup = 0;
    for (int i = 0; i < r->n; i++) {
        const int *c = r->seq + i * sp->n_params;
        if (space_allows(sp, b, c) != 1) bad++;
        for (int j = 0; j < i; j++)
            if (memcmp(c, r->seq + j * sp->n_params, (size_t)sp->n_params * sizeof *c) == 0) {
                dup++;
                break;
            }
    }
    if (bad || dup) fprintf(stderr, "%s: %d proposals outside the constraints, %d repeated\n", what, bad, dup);
    CHECK(bad == 0);
    CHECK(dup == 0);
    return r->n - dup;
}

static double best_of_space(const space *sp, const space_binding *b, const objective *o)
{
    double best = INFINITY;
    space_iter it;
    int c[8];
    space_iter_init(&it, sp, b);
    while (space_iter_next(&it, c) == 1) {
        double us;
        if (evaluate(o, sp, c, &us) == EVAL_OK && us < best) best = us;
    }
    space_iter_free(&it);
    return best;
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

static run_out R, R2;   /* big: kept off the stack */

/* A plain inner strategy for the warm-start tests. */
static strategy *strategy_random_like(const space *sp, const space_binding *b)
{
    char err[256];
    return strategy_find("random")->create(sp, b, 9, 10, err, sizeof err);
}

/* ---- tests ---- */

/* Spaces of 1, 2, 3 configs: budgets 0 (none), 1, the size, and 10. */
static void test_tiny_spaces(void)
{
    static const char *const blocks[] = { "[256]", "[128, 256]", "[64, 128, 256]" };
    const strategy_vtable *const *all = strategy_all();
    objective o = { 0 };
    for (int size = 1; size <= 3; size++) {
        char params[512];
        snprintf(params, sizeof params,
                 "  block_size: { values: %s }\n  waves: { values: [8] }\n"
                 "  pack_size: { values: [4] }\n  unroll: { values: [1] }\n"
                 "  loop: { values: [grid_stride] }\n",
                 blocks[size - 1]);
        space *sp = elementwise_space(params, "");
        CHECK(sp != NULL);
        if (!sp) continue;
        space_binding b = { "mul", "f32", &sp->problems[0], NULL };
        CHECK(space_count(sp, &b, NULL, 0) == size);
        int64_t budgets[] = { 0, 1, size, 10 };
        for (int i = 0; all[i]; i++)
            for (int k = 0; k < 4; k++) {
                char what[128];
                snprintf(what, sizeof what, "%s, %d configs, budget %lld", all[i]->name, size,
                         (long long)budgets[k]);
                if (run_strategy(all[i], sp, &b, 3, budgets[k], &o, 0, &R) != 0) {
                    CHECK(0);
                    continue;
                }
                int want = budgets[k] > 0 && budgets[k] < size ? (int)budgets[k] : size;
                if (all[i]->converges) {
                    /* it may stop early, having converged, but not before its first proposal */
                    CHECK(R.n >= 1 && R.n <= want);
                    CHECK(check_proposals(sp, &b, &R, what) == R.n);
                    if (R.n < want) CHECK(R.stopped);
                    continue;
                }
                if (R.n != want) fprintf(stderr, "%s: %d proposals, want %d\n", what, R.n, want);
                CHECK(R.n == want);
                CHECK(check_proposals(sp, &b, &R, what) == want);
                if (budgets[k] == 0 || budgets[k] > size) CHECK(R.stopped);
            }
        space_free(sp);
    }
}

static const char *const medium_params =
    "  block_size: { values: [64, 128, 256, 512, 1024] }\n"
    "  waves: { pow2: [1, 64] }\n"
    "  pack_size: { values: [1, 2, 4] }\n"
    "  unroll: { values: [1, 2, 4] }\n"
    "  loop: { values: [grid_stride, one_shot] }\n";
static const char *const medium_constraints =
    "constraints:\n  - loop == \"grid_stride\" || waves == 1\n";

/* The medium space to exhaustion with failures of every kind: exactly the allowed set. */
static void test_exhaustion_with_failures(space *sp, const space_binding *b)
{
    const strategy_vtable *const *all = strategy_all();
    objective o = { 1 };
    int64_t n = space_count(sp, b, NULL, 0);
    for (int i = 0; all[i]; i++) {
        if (run_strategy(all[i], sp, b, 11, 0, &o, 0, &R) != 0) { CHECK(0); continue; }
        char what[128];
        snprintf(what, sizeof what, "%s to exhaustion", all[i]->name);
        if (all[i]->converges) {
            /* stops at its optimum: fewer proposals, all distinct and allowed, and it stopped */
            CHECK(R.n >= 1 && R.n < n);
            CHECK(R.stopped);
            CHECK(check_proposals(sp, b, &R, what) == R.n);
            continue;
        }
        if (R.n != n) fprintf(stderr, "%s: %d proposals of %lld configs\n", what, R.n, (long long)n);
        CHECK(R.n == n);
        CHECK(R.stopped);
        CHECK(check_proposals(sp, b, &R, what) == n);
    }
}

/* Same seed, same sequence; another seed, another sequence. */
static void test_determinism(space *sp, const space_binding *b)
{
    const strategy_vtable *const *all = strategy_all();
    objective o = { 1 };
    for (int i = 0; all[i]; i++) {
        run_strategy(all[i], sp, b, 5, 40, &o, 0, &R);
        run_strategy(all[i], sp, b, 5, 40, &o, 0, &R2);
        size_t bytes = (size_t)R.n * (size_t)sp->n_params * sizeof(int);
        CHECK(R.n == R2.n && memcmp(R.seq, R2.seq, bytes) == 0);
        if (strcmp(all[i]->name, "exhaustive") == 0) continue;
        run_strategy(all[i], sp, b, 6, 40, &o, 0, &R2);
        int differs = R.n != R2.n || memcmp(R.seq, R2.seq, bytes) != 0;
        if (!differs) fprintf(stderr, "%s: seeds 5 and 6 give the same sequence\n", all[i]->name);
        CHECK(differs);
    }
}

/* Failures are learned from: over 10 seeds and 60 evaluations, the guided strategies propose
 * failing configs less often than the space holds them (random order's expectation). */
static void test_failures_learned(space *sp, const space_binding *b)
{
    static const char *const guided[] = { "bayes", "local", "anneal", "genetic", "ensemble" };
    objective o = { 1 };
    int failing = 0, total = 0;
    space_iter it;
    int c[8];
    space_iter_init(&it, sp, b);
    while (space_iter_next(&it, c) == 1) {
        double us;
        failing += sc_is_failure(evaluate(&o, sp, c, &us));
        total++;
    }
    space_iter_free(&it);
    double share = (double)failing / total;
    for (int g = 0; g < 5; g++) {
        int fails = 0, n = 0;
        for (uint64_t seed = 1; seed <= 10; seed++) {
            run_strategy(strategy_find(guided[g]), sp, b, seed, 60, &o, 0, &R);
            fails += R.fails;
            n += R.n;
        }
        double got = (double)fails / n;
        if (!(got < 0.8 * share))
            fprintf(stderr, "%s: %.2f of proposals fail, the space holds %.2f\n", guided[g], got, share);
        CHECK(got < 0.8 * share);
    }
}

/* On the smooth objective, each strategy's median run finds the optimum much sooner than random
 * order's median run does (11 seeds). */
static void test_search_pays(space *sp, const space_binding *b)
{
    const strategy_vtable *const *all = strategy_all();
    objective o = { 0 };
    double best = best_of_space(sp, b, &o);
    int medians[16], n_str = 0, random_median = 0;
    for (int i = 0; all[i]; i++) {
        if (strcmp(all[i]->name, "exhaustive") == 0 || all[i]->converges) continue;
        int firsts[11];
        for (int s = 0; s < 11; s++) {
            run_strategy(all[i], sp, b, (uint64_t)s + 1, 0, &o, best, &R);
            firsts[s] = R.first_best < 0 ? 1 << 20 : R.first_best;
        }
        qsort(firsts, 11, sizeof *firsts, cmp_int);
        if (strcmp(all[i]->name, "random") == 0) random_median = firsts[5];
        else medians[n_str++] = firsts[5];
        if (getenv("TEST_STRATEGIES_VERBOSE"))
            fprintf(stderr, "%-10s median evaluations to the optimum: %d\n", all[i]->name, firsts[5]);
    }
    CHECK(n_str == 5);
    for (int i = 0; i < n_str; i++) CHECK(medians[i] * 2 <= random_median);
}

/* A space over SC_ENUM_LIMIT raw points: searched without enumeration. */
static void test_large_space(void)
{
    space *sp = elementwise_space("  block_size: { range: [32, 1024, 32] }\n"
                                  "  waves: { range: [1, 1024] }\n"
                                  "  pack_size: { values: [1, 2, 4, 8] }\n"
                                  "  unroll: { values: [1, 2, 4] }\n"
                                  "  loop: { values: [grid_stride, one_shot] }\n"
                                  "  cache_hint: { values: [normal, evict_first] }\n",
                                  "constraints:\n  - pack_size * dtype_size <= 16\n"
                                  "  - loop == \"grid_stride\" || waves == 1\n");
    CHECK(sp != NULL);
    if (!sp) return;
    CHECK(space_raw_size(sp) > SC_ENUM_LIMIT);
    space_binding b = { "mul", "f32", &sp->problems[0], NULL };
    objective o = { 1 };
    const strategy_vtable *const *all = strategy_all();
    for (int i = 0; all[i]; i++) {
        if (strcmp(all[i]->name, "random") == 0 || strcmp(all[i]->name, "exhaustive") == 0)
            continue;   /* these two enumerate by design */
        char what[128];
        snprintf(what, sizeof what, "%s on a large space", all[i]->name);
        if (run_strategy(all[i], sp, &b, 2, 60, &o, 0, &R) != 0) { CHECK(0); continue; }
        CHECK(R.n >= 60);
        check_proposals(sp, &b, &R, what);
    }
    space_free(sp);
}

/* Neighbourhoods: one parameter changed, repaired into the constraints when needed. */
static void test_neighbours(space *sp, const space_binding *b)
{
    sc_search s;
    char err[256];
    CHECK(sc_init(&s, sp, b, 1, 0, err, sizeof err) == 0);
    CHECK(s.enumerated && (int64_t)s.n_allowed == space_count(sp, b, NULL, 0));
    int c[8], nb[64 * 8];
    CHECK(space_config_parse(sp, "block_size=256,cache_hint=normal,loop=grid_stride,pack_size=2,unroll=2,waves=8", c) == 0);
    int n = sc_neighbours(&s, c, nb, 64);
    /* block 128/512, waves 4/16, pack 1/4, unroll 1/4, loop one_shot (repaired to waves 1) */
    CHECK(n == 9);
    int found_one_shot = 0;
    for (int i = 0; i < n; i++) {
        CHECK(space_allows(sp, b, nb + i * sp->n_params) == 1);
        if (strcmp(param_string(sp, nb + i * sp->n_params, "loop"), "one_shot") == 0) {
            found_one_shot = 1;
            CHECK(param_int(sp, nb + i * sp->n_params, "waves") == 1);
            CHECK(param_int(sp, nb + i * sp->n_params, "block_size") == 256);
        }
    }
    CHECK(found_one_shot);
    /* observing removes from the unvisited draws; every draw is unvisited */
    size_t before = s.n_unvisited;
    sc_record(&s, c, EVAL_OK, 3.0);
    CHECK(s.n_unvisited == before - 1);
    CHECK(sc_seen(&s, c) == 0);
    CHECK(s.best == 0);
    sc_record(&s, nb, EVAL_FAULT, 0);
    CHECK(s.best == 0 && s.n_counted == 2);
    sc_record(&s, nb + sp->n_params, EVAL_UNSUPPORTED, 0);
    CHECK(s.n_counted == 2);
    for (int i = 0; i < 50; i++) {
        int d[8];
        CHECK(sc_random_unvisited(&s, d) == 1 && sc_seen(&s, d) < 0);
    }
    sc_free(&s);
}

/* Warm start: the given configs first (a disallowed one and a repeat skipped), then the inner
 * strategy, starting from the best of them, never repeating one. */
static void test_warm_start(space *sp, const space_binding *b)
{
    static const char *const warm_text[] = {
        "block_size=512,cache_hint=normal,loop=grid_stride,pack_size=4,unroll=2,waves=16",
        "block_size=256,cache_hint=normal,loop=one_shot,pack_size=4,unroll=2,waves=8", /* no */
        "block_size=256,cache_hint=normal,loop=grid_stride,pack_size=4,unroll=1,waves=8",
        "block_size=512,cache_hint=normal,loop=grid_stride,pack_size=4,unroll=2,waves=16", /* again */
    };
    int warm[4 * 8];
    for (int i = 0; i < 4; i++) CHECK(space_config_parse(sp, warm_text[i], warm + i * sp->n_params) == 0);
    objective o = { 0 };
    char err[256];
    const strategy_vtable *const *all = strategy_all();
    for (int i = 0; all[i]; i++) {
        strategy *inner = all[i]->create(sp, b, 4, 30, err, sizeof err);
        CHECK(inner != NULL);
        if (!inner) continue;
        strategy *st = strategy_warm_wrap(inner, sp, b, warm, 4, err, sizeof err);
        CHECK(st != NULL);
        if (!st) continue;
        int c[8], n = 0;
        memset(&R, 0, sizeof R);
        while (n < 30 && st->vt->propose(st, c) == 1) {
            memcpy(R.seq + n * sp->n_params, c, (size_t)sp->n_params * sizeof *c);
            double us = 0;
            eval_status s = evaluate(&o, sp, c, &us);
            st->vt->observe(st, c, s, us);
            n++;
        }
        R.n = n;
        int converged = n < 30 && st->stop_reason != NULL;
        st->vt->destroy(st);
        /* a converging strategy may stop before 30, after the warm configs and with a reason */
        CHECK(n == 30 || (all[i]->converges && converged && n > 3));
        size_t bytes = (size_t)sp->n_params * sizeof(int);
        CHECK(memcmp(R.seq, warm, bytes) == 0);
        CHECK(memcmp(R.seq + sp->n_params, warm + 2 * sp->n_params, bytes) == 0);
        char what[128];
        snprintf(what, sizeof what, "%s warm-started", all[i]->name);
        check_proposals(sp, b, &R, what);
        if (strcmp(all[i]->name, "local") == 0) {
            /* the first own proposal is a neighbour of the better warm config (the third) */
            sc_search s;
            int nb[64 * 8];
            sc_init(&s, sp, b, 1, 0, err, sizeof err);
            int k = sc_neighbours(&s, warm + 2 * sp->n_params, nb, 64), is_nb = 0;
            for (int j = 0; j < k; j++)
                is_nb |= memcmp(nb + j * sp->n_params, R.seq + 2 * sp->n_params, bytes) == 0;
            CHECK(is_nb);
            sc_free(&s);
        }
    }
}

/* Adds a device (cc as major*10 + minor) with one ok evaluation of config for shape. */
static int put_winner(db *d, const char *uuid, int cc, const char *shape, int64_t size,
                      const char *config, double us)
{
    char err[512];
    device_info dev;
    memset(&dev, 0, sizeof dev);
    snprintf(dev.uuid, sizeof dev.uuid, "%s", uuid);
    snprintf(dev.name, sizeof dev.name, "Test %s", uuid);
    dev.cc_major = cc / 10;
    dev.cc_minor = cc % 10;
    dev.sm_count = 100;
    int64_t dev_id, run, prob;
    run_info info = { "s.yaml", "h", "exhaustive", "replay:x.sql", "0.1.0", 1, 0 };
    double sample = us;
    eval_result r;
    memset(&r, 0, sizeof r);
    r.status = EVAL_OK;
    r.n_samples = 1;
    r.samples = &sample;
    r.stats.n = 1;
    r.stats.median = r.stats.min = r.stats.max = r.stats.mean = us;
    r.stats.ci_lo = r.stats.ci_hi = us;
    if (db_put_device(d, &dev, &dev_id, err, sizeof err) != 0 ||
        db_begin_run(d, dev_id, &info, &run, err, sizeof err) != 0 ||
        db_put_problem(d, "elementwise.mul", "f32", shape, size, 12 * size, size, 0, &prob, err,
                       sizeof err) != 0 ||
        db_put_evaluation(d, run, dev_id, prob, config, "h", &r, 12 * size, 0, 0, err,
                          sizeof err) != 0) {
        fprintf(stderr, "put_winner: %s\n", err);
        return -1;
    }
    return 0;
}

/* Warm start from a database: nearest compute capability first, then the same problem before
 * another size; the device's own winners are not used. */
static void test_warm_start_db(space *sp, const space_binding *b)
{
    static const char *const cfg[] = {
        "block_size=64,cache_hint=normal,loop=grid_stride,pack_size=2,unroll=1,waves=2",
        "block_size=128,cache_hint=normal,loop=grid_stride,pack_size=4,unroll=2,waves=4",
        "block_size=512,cache_hint=normal,loop=one_shot,pack_size=1,unroll=4,waves=1",
        "block_size=1024,cache_hint=normal,loop=grid_stride,pack_size=2,unroll=2,waves=64",
    };
    char dir[] = "/tmp/test_strategies_db_XXXXXX", path[128], err[512];
    if (!mkdtemp(dir)) { CHECK(0); return; }
    snprintf(path, sizeof path, "%s/w.db", dir);
    db *d = NULL;
    CHECK(db_open(path, 1, &d, err, sizeof err) == 0);
    if (!d) return;
    device_info self;
    memset(&self, 0, sizeof self);
    snprintf(self.uuid, sizeof self.uuid, "GPU-self");
    self.cc_major = 9;
    const char *shape = sp->problems[0].text;
    CHECK(put_winner(d, "GPU-far", 70, shape, 1048576, cfg[0], 9.0) == 0);
    CHECK(put_winner(d, "GPU-near", 89, "n=4096,offset=0", 4096, cfg[1], 2.0) == 0);
    CHECK(put_winner(d, "GPU-near", 89, shape, 1048576, cfg[2], 8.0) == 0);
    CHECK(put_winner(d, "GPU-self", 90, shape, 1048576, cfg[3], 7.0) == 0);
    space_binding bind = *b;
    bind.device = &self;
    strategy *st = strategy_random_like(sp, &bind);
    CHECK(st != NULL);
    if (st && strategy_warm_start(&st, d, sp, &bind, err, sizeof err) != 0) {
        fprintf(stderr, "warm start: %s\n", err);
        CHECK(0);
    }
    if (st) {
        int want[3][8], c[8];
        const int order[3] = { 2, 1, 0 };   /* near same problem, near other size, far */
        for (int i = 0; i < 3; i++) {
            CHECK(space_config_parse(sp, cfg[order[i]], want[i]) == 0);
            CHECK(st->vt->propose(st, c) == 1);
            CHECK(memcmp(c, want[i], (size_t)sp->n_params * sizeof *c) == 0);
            st->vt->observe(st, c, EVAL_OK, 5.0);
        }
        st->vt->destroy(st);
    }
    db_close(d);
    unlink(path);
    char wal[160];
    snprintf(wal, sizeof wal, "%s-wal", path);
    unlink(wal);
    snprintf(wal, sizeof wal, "%s-shm", path);
    unlink(wal);
    rmdir(dir);
}

int main(void)
{
    test_tiny_spaces();
    space *sp = elementwise_space(medium_params, medium_constraints);
    CHECK(sp != NULL);
    if (sp) {
        space_binding b = { "mul", "f32", &sp->problems[0], NULL };
        test_neighbours(sp, &b);
        test_exhaustion_with_failures(sp, &b);
        test_determinism(sp, &b);
        test_failures_learned(sp, &b);
        test_search_pays(sp, &b);
        test_warm_start(sp, &b);
        test_warm_start_db(sp, &b);
        space_free(sp);
    }
    test_large_space();
    return CHECK_DONE();
}
