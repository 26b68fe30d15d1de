/* strategies_cmd.c: `tuner strategies`, the replay benchmark of the search strategies.
 *
 * For every (op, dtype, problem) of the space, the configs the constraints allow on the recorded
 * device are enumerated and looked up once in the dump (replay backend). Each strategy then runs
 * once per seed 1..N against that table under the run loop's rules (tuner/run/run_task.c): a config
 * counts against the budget unless it was skipped, unsupported or unrecorded, and the budget is
 * N evaluations or P% of the allowed configs (rounded up). Per run it records the evaluations
 * spent until the best time found is within 1%, 2% and 5% of the recorded optimum ("miss" when
 * the budget ran out first) and the gap left at the budget (best found / optimum - 1).
 *
 * The table gives, per strategy over all problems and seeds, the median and 90th percentile of
 * those, the share of runs within 2% at the budget, the problems on which the median run comes
 * within 2% inside the budget, and against random sampling at the same budget the problems on
 * which the strategy's mean gap at the budget is lower ("better") and those on which it is not
 * higher ("no worse": ties are mostly problems where both always find the optimum). --format csv
 * gives the same per problem. A strategy that proposes a config twice, or keeps proposing
 * configs the constraints reject, is reported as broken (exit 1).
 *
 * A dump of several devices is replayed for the one GPU model that recorded the space's first op
 * (its cards together, as the replay backend answers for a model); "DUMP#UUID" picks one card,
 * "DUMP#NAME" one model.
 *
 * --transfer-from OTHER replays the transfer search instead (the default of `tuner run` on a
 * new GPU): per problem, the winners OTHER records on other devices first, then the local search
 * until it converges (or the --budget, when one is given), against the recorded space; per
 * problem the evaluations it spent and its regret, the recorded time of the config it chose over
 * the recorded optimum, minus one; then their median, 90th percentile and maximum over the
 * problems and seeds, and how many problems come within 1% and 2%. */
#include "strategies_cmd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "db/db.h"
#include "space/space.h"
#include "strategy.h"
#include "strategy_common.h"

#define MAX_STRATEGIES 32
#define MAX_OUTSIDE 1000     /* proposals the constraints reject before a strategy is "broken" */

typedef struct cmd_opts {
    const char *space, *replay, *op, *dtype, *format, *transfer_from;
    char strategies[1024];
    int seeds;
    double budget_pct;       /* > 0: percent of the allowed configs */
    int64_t budget_n;        /* > 0: evaluations */
} cmd_opts;

/* One run of one strategy with one seed: evaluations to 1%, 2%, 5% (INFINITY: not reached
 * within the budget) and the gap at the budget (INFINITY: nothing ran). */
typedef struct outcome {
    double e[3];
    double gap;
} outcome;

static const double thresholds[3] = { 0.01, 0.02, 0.05 };

typedef struct tally {
    const strategy_vtable *vt;
    outcome *runs;           /* every problem's runs, appended */
    size_t n_runs, cap;
    int met, better, no_worse;
    char (*notes)[320];      /* per problem missed or lost to random: "op dtype shape: why" */
    int n_notes;
    /* this problem's summary */
    double e2_median, gap_mean;
} tally;

/* What one problem's replay needs: the allowed configs and their recorded results. */
typedef struct table {
    sc_search ctx;           /* enumeration and keys */
    eval_status *status;
    double *us;
    unsigned char *visited;
    double optimum;
    int64_t budget;
} table;

static int parse_count(const char *s, int64_t *v)
{
    char *end;
    long long x = strtoll(s, &end, 10);
    if (!*s || *end || x <= 0) return -1;
    *v = x;
    return 0;
}

static int parse_options(int argc, char **argv, cmd_opts *o, char *err, size_t len)
{
    memset(o, 0, sizeof *o);
    o->seeds = 30;
    o->budget_pct = 10;
    int budget_given = 0;
    o->format = "table";
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-') {
            if (o->space) { snprintf(err, len, "tuner strategies: unexpected argument '%s'", a); return -1; }
            o->space = a;
            continue;
        }
        static const char *const known[] = { "--replay", "--seeds", "--budget", "--strategy",
                                             "--op", "--dtype", "--format", "--transfer-from" };
        int k = 0;
        while (k < 8 && strcmp(a, known[k]) != 0) k++;
        if (k == 8) { snprintf(err, len, "tuner strategies: unknown option '%s'", a); return -1; }
        if (i + 1 >= argc) { snprintf(err, len, "tuner strategies: option '%s' needs a value", a); return -1; }
        const char *v = argv[++i];
        int64_t n = 0;
        int bad = 0;
        switch (k) {
        case 0: o->replay = strncmp(v, "replay:", 7) == 0 ? v + 7 : v; break;
        case 1: bad = parse_count(v, &n) || n > 100000; o->seeds = (int)n; break;
        case 2: {
            size_t l = strlen(v);
            if (l > 1 && v[l - 1] == '%') {
                char *end;
                o->budget_pct = strtod(v, &end);
                bad = end != v + l - 1 || !(o->budget_pct > 0 && o->budget_pct <= 100);
                o->budget_n = 0;
            } else {
                bad = parse_count(v, &o->budget_n);
                o->budget_pct = 0;
            }
            budget_given = 1;
            break;
        }
        case 3: snprintf(o->strategies, sizeof o->strategies, "%s", v); break;
        case 4: o->op = v; break;
        case 5: o->dtype = v; break;
        case 7: o->transfer_from = v; break;
        default: o->format = v; bad = strcmp(v, "table") && strcmp(v, "csv"); break;
        }
        if (bad) { snprintf(err, len, "tuner strategies: bad value '%s' for %s", v, a); return -1; }
    }
    if (!o->space) { snprintf(err, len, "tuner strategies: expected one space file"); return -1; }
    if (o->transfer_from && !budget_given) {
        o->budget_pct = 100;   /* the transfer search stops when it converges */
        o->budget_n = 0;
    }
    if (!o->replay) { snprintf(err, len, "tuner strategies: --replay DUMP is required"); return -1; }
    return 0;
}

/* The strategies named in list (comma-separated), or all but exhaustive and transfer (which
 * starts from another GPU's results: --transfer-from). Returns how many, or -1 with err naming
 * an unknown one. */
static int pick_strategies(const char *list, tally *t, char *err, size_t len)
{
    int n = 0;
    if (!list[0]) {
        const strategy_vtable *const *all = strategy_all();
        for (int i = 0; all[i] && n < MAX_STRATEGIES; i++)
            if (strcmp(all[i]->name, "exhaustive") != 0 && strcmp(all[i]->name, "transfer") != 0)
                t[n++].vt = all[i];
        return n;
    }
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *name = strtok_r(buf, ",", &save); name && n < MAX_STRATEGIES;
         name = strtok_r(NULL, ",", &save)) {
        const strategy_vtable *vt = strategy_find(name);
        if (!vt) { snprintf(err, len, "tuner strategies: unknown strategy '%s'", name); return -1; }
        t[n++].vt = vt;
    }
    if (n == 0) { snprintf(err, len, "tuner strategies: --strategy names no strategy"); return -1; }
    return n;
}

/* Type-7 quantile of v (sorted in place); INFINITY when it falls on or next to a miss. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double quantile(double *v, size_t n, double q)
{
    if (n == 0) return NAN;
    qsort(v, n, sizeof *v, cmp_double);
    double h = q * (double)(n - 1);
    size_t lo = (size_t)floor(h), hi = lo + 1 < n ? lo + 1 : lo;
    double f = h - (double)lo;
    if (f == 0 || v[lo] == v[hi]) return v[lo];
    if (isinf(v[hi])) return INFINITY;
    return v[lo] + f * (v[hi] - v[lo]);
}

/* Quantile q of field (0..2: evaluations to a threshold, 3: gap) over runs. */
static double runs_quantile(const outcome *runs, size_t n, int field, double q, double *scratch)
{
    for (size_t i = 0; i < n; i++) scratch[i] = field < 3 ? runs[i].e[field] : runs[i].gap;
    return quantile(scratch, n, q);
}

static void free_table(table *t)
{
    sc_free(&t->ctx);
    free(t->status);
    free(t->us);
    free(t->visited);
    memset(t, 0, sizeof *t);
}

/* Enumerates the binding's allowed configs and looks each up in the replay source. Returns 0,
 * 1 when nothing ran ok (the problem is left out), -1 with err. */
static int load_table(const space *sp, const space_binding *bind, backend *be, const cmd_opts *o,
                      table *t, char *err, size_t len)
{
    memset(t, 0, sizeof *t);
    if (sc_init(&t->ctx, sp, bind, 0, 0, err, len) != 0) return -1;
    if (!t->ctx.enumerated) {
        snprintf(err, len, "%s: the space is too large to replay exhaustively", sp->path);
        return -1;
    }
    size_t n = t->ctx.n_allowed;
    t->status = calloc(n ? n : 1, sizeof *t->status);
    t->us = calloc(n ? n : 1, sizeof *t->us);
    t->visited = calloc(n ? n : 1, 1);
    if (!t->status || !t->us || !t->visited) { snprintf(err, len, "out of memory"); return -1; }
    t->optimum = INFINITY;
    eval_result res;
    memset(&res, 0, sizeof res);
    for (size_t i = 0; i < n; i++) {
        char config[1024];
        space_config_text(sp, t->ctx.allowed + i * (size_t)sp->n_params, config, sizeof config);
        eval_request req = { .kernel = sp->kernel, .op = bind->op, .dtype = bind->dtype,
                             .problem = bind->problem, .config = config,
                             .measure = sp->measure, .seed = sp->search.seed,
                             .validate = sp->validate.enabled,
                             .tolerance_scale = sp->validate.tolerance_scale };
        eval_result_clear(&res);
        if (be->vt->evaluate(be, &req, &res, err, len) != 0) return -1;
        t->status[i] = res.status;
        t->us[i] = res.status == EVAL_OK ? res.stats.median : 0;
        if (res.status == EVAL_OK && t->us[i] > 0 && t->us[i] < t->optimum) t->optimum = t->us[i];
    }
    eval_result_clear(&res);
    int64_t b = o->budget_n > 0 ? o->budget_n
                                : (int64_t)ceil(o->budget_pct / 100.0 * (double)n - 1e-9);
    t->budget = b < 1 ? 1 : b;
    return isinf(t->optimum) ? 1 : 0;
}

/* One strategy, one seed, against the table. Returns 0, or -1 with err (a broken strategy). */
static int replay_one(const space *sp, const space_binding *bind, const strategy_vtable *vt,
                      uint64_t seed, table *t, outcome *out, char *err, size_t len)
{
    int rc = -1;
    int *choice = malloc((size_t)(sp->n_params ? sp->n_params : 1) * sizeof *choice);
    strategy *st = choice ? vt->create(sp, bind, seed, t->budget, err, len) : NULL;
    if (!choice) snprintf(err, len, "out of memory");
    if (!st) goto done;
    memset(t->visited, 0, t->ctx.n_allowed ? t->ctx.n_allowed : 1);
    int64_t evals = 0, outside = 0;
    double best = INFINITY;
    for (int k = 0; k < 3; k++) out->e[k] = INFINITY;
    while (evals < t->budget && st->vt->propose(st, choice) == 1) {
        int64_t i = sc_allowed_index(&t->ctx, choice);
        eval_status status = EVAL_SKIPPED;
        double us = 0;
        if (i < 0) {
            if (++outside > MAX_OUTSIDE) {
                snprintf(err, len, "strategy %s keeps proposing configs the constraints reject",
                         vt->name);
                goto done;
            }
        } else {
            char config[1024];
            space_config_text(sp, choice, config, sizeof config);
            if (t->visited[i]) {
                snprintf(err, len, "strategy %s (seed %llu) proposed %s twice", vt->name,
                         (unsigned long long)seed, config);
                goto done;
            }
            t->visited[i] = 1;
            status = t->status[i];
            us = t->us[i];
        }
        st->vt->observe(st, choice, status, us);
        if (sc_counts(status)) evals++;
        if (status == EVAL_OK && us < best) {
            best = us;
            for (int k = 0; k < 3; k++)
                if (isinf(out->e[k]) && best <= t->optimum * (1.0 + thresholds[k]))
                    out->e[k] = (double)evals;
        }
    }
    out->gap = isinf(best) ? INFINITY : best / t->optimum - 1.0;
    rc = 0;
done:
    if (st) st->vt->destroy(st);
    free(choice);
    return rc;
}

static void print_count(double v)
{
    if (isinf(v)) printf(" %6s |", "miss");
    else if (v == floor(v)) printf(" %6.0f |", v);
    else printf(" %6.1f |", v);
}

static void print_gap(double v)
{
    if (isinf(v)) printf(" %7s |", "none");
    else printf(" %6.2f%% |", 100.0 * v);
}

static void csv_value(double v, int gap)
{
    if (isinf(v)) printf(",inf");
    else printf(gap ? ",%.6f" : ",%g", v);
}

/* Summarises this problem's runs of every strategy (the last seeds runs of each): counts the
 * problems met and those better / no worse than random, notes the problems missed or lost to
 * random, and prints the CSV rows. */
static void summarise_problem(tally *t, int nt, int seeds, const char *kernel,
                              const space_binding *bind, const table *tb, const cmd_opts *o,
                              double *scratch)
{
    int random = -1;
    for (int s = 0; s < nt; s++) {
        const outcome *r = t[s].runs + t[s].n_runs - (size_t)seeds;
        t[s].e2_median = runs_quantile(r, (size_t)seeds, 1, 0.5, scratch);
        double sum = 0;
        for (int i = 0; i < seeds; i++) sum += r[i].gap;
        t[s].gap_mean = sum / seeds;
        if (strcmp(t[s].vt->name, "random") == 0) random = s;
    }
    for (int s = 0; s < nt; s++) {
        char *note = t[s].notes[t[s].n_notes];
        size_t room = sizeof t[s].notes[0];
        int w = snprintf(note, room, "%s %s %s: ", bind->op, bind->dtype, bind->problem->text);
        if (t[s].e2_median <= (double)tb->budget) {
            t[s].met++;
        } else {
            char median[32] = "miss";
            if (!isinf(t[s].e2_median)) snprintf(median, sizeof median, "%g", t[s].e2_median);
            w += snprintf(note + w, room - (size_t)w, "median %s evaluations to 2%% (budget %lld)",
                          median, (long long)tb->budget);
        }
        if (random >= 0 && s != random) {
            if (t[s].gap_mean < t[random].gap_mean - 1e-12) t[s].better++;
            if (t[s].gap_mean <= t[random].gap_mean + 1e-12) t[s].no_worse++;
            else
                snprintf(note + w, room - (size_t)w, "%smean gap at the budget %.2f%%, random's %.2f%%",
                         t[s].e2_median <= (double)tb->budget ? "" : "; ",
                         100.0 * t[s].gap_mean, 100.0 * t[random].gap_mean);
        }
        if (strchr(note, ':')[2]) t[s].n_notes++;
    }
    if (strcmp(o->format, "csv") != 0) return;
    for (int s = 0; s < nt; s++) {
        const outcome *r = t[s].runs + t[s].n_runs - (size_t)seeds;
        printf("%s.%s,%s,\"%s\",%zu,%lld,%s,%d", kernel, bind->op, bind->dtype,
               bind->problem->text, tb->ctx.n_allowed, (long long)tb->budget, t[s].vt->name, seeds);
        for (int f = 0; f < 4; f++)
            for (int q = 0; q < 2; q++)
                csv_value(runs_quantile(r, (size_t)seeds, f, q ? 0.9 : 0.5, scratch), f == 3);
        int hit = 0;
        for (int i = 0; i < seeds; i++) hit += !isinf(r[i].e[1]);
        printf(",%.4f\n", (double)hit / seeds);
    }
}

/* Runs every strategy over every selected problem (appending to t); fills the size and budget
 * ranges. Returns the number of problems, or -1 with err. */
static int replay_all(const space *sp, backend *be, const device_info *dev, const cmd_opts *o,
                      tally *t, int nt, size_t range[2], int64_t budgets[2], char *err,
                      size_t len)
{
    int problems = 0, rc = -1;
    table tb;
    memset(&tb, 0, sizeof tb);
    double *scratch = malloc((size_t)o->seeds * sizeof *scratch);
    if (!scratch) { snprintf(err, len, "out of memory"); goto done; }
    for (int a = 0; a < sp->n_ops; a++) {
        if (o->op && strcmp(o->op, sp->ops[a]) != 0) continue;
        for (int b = 0; b < sp->n_dtypes; b++) {
            if (o->dtype && strcmp(o->dtype, sp->dtypes[b]) != 0) continue;
            for (int c = 0; c < sp->n_problems; c++) {
                space_binding bind = { sp->ops[a], sp->dtypes[b], &sp->problems[c], dev };
                int l = load_table(sp, &bind, be, o, &tb, err, len);
                if (l < 0) goto done;
                if (l > 0) {
                    fprintf(stderr, "tuner strategies: %s %s %s: no config ran ok in %s; left out\n",
                            sp->ops[a], sp->dtypes[b], sp->problems[c].text, o->replay);
                    free_table(&tb);
                    continue;
                }
                for (int s = 0; s < nt; s++) {
                    if (t[s].n_runs + (size_t)o->seeds > t[s].cap) {
                        size_t cap = (t[s].cap ? t[s].cap * 2 : 1024) + (size_t)o->seeds;
                        outcome *g = realloc(t[s].runs, cap * sizeof *g);
                        if (!g) { snprintf(err, len, "out of memory"); goto done; }
                        t[s].runs = g;
                        t[s].cap = cap;
                    }
                    for (int seed = 1; seed <= o->seeds; seed++)
                        if (replay_one(sp, &bind, t[s].vt, (uint64_t)seed, &tb,
                                       &t[s].runs[t[s].n_runs++], err, len) != 0)
                            goto done;
                }
                summarise_problem(t, nt, o->seeds, sp->kernel, &bind, &tb, o, scratch);
                size_t n = tb.ctx.n_allowed;
                if (!problems || n < range[0]) range[0] = n;
                if (!problems || n > range[1]) range[1] = n;
                if (!problems || tb.budget < budgets[0]) budgets[0] = tb.budget;
                if (!problems || tb.budget > budgets[1]) budgets[1] = tb.budget;
                problems++;
                free_table(&tb);
            }
        }
    }
    rc = problems;
done:
    free_table(&tb);
    free(scratch);
    return rc;
}

/* The Markdown table over all runs, then the summary of the default search strategy (or, when
 * it was not run, of the one whose median run met the 2% target on most problems). Returns 0,
 * or -1 when out of memory. */
static int print_table(const tally *t, int nt, int problems)
{
    double *all = malloc((t[0].n_runs ? t[0].n_runs : 1) * sizeof *all);
    if (!all) return -1;
    int has_random = 0;
    for (int r = 0; r < nt; r++) has_random |= strcmp(t[r].vt->name, "random") == 0;
    printf("| strategy | to 1%%: median | p90 | to 2%%: median | p90 | to 5%%: median | p90 "
           "| gap at budget: median | p90 | runs within 2%% | problems: median run within 2%% "
           "| problems vs random: better | no worse |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    int pick = -1;
    size_t pick_hit = 0;
    for (int s = 0; s < nt; s++) {
        printf("| %-10s |", t[s].vt->name);
        for (int f = 0; f < 3; f++)
            for (int q = 0; q < 2; q++)
                print_count(runs_quantile(t[s].runs, t[s].n_runs, f, q ? 0.9 : 0.5, all));
        print_gap(runs_quantile(t[s].runs, t[s].n_runs, 3, 0.5, all));
        print_gap(runs_quantile(t[s].runs, t[s].n_runs, 3, 0.9, all));
        size_t hit = 0;
        for (size_t i = 0; i < t[s].n_runs; i++) hit += !isinf(t[s].runs[i].e[1]);
        printf(" %5.1f%% | %d/%d |", 100.0 * (double)hit / (double)t[s].n_runs, t[s].met, problems);
        if (!has_random || strcmp(t[s].vt->name, "random") == 0) printf(" - | - |\n");
        else printf(" %d/%d | %d/%d |\n", t[s].better, problems, t[s].no_worse, problems);
        if (pick >= 0 && strcmp(t[pick].vt->name, SC_DEFAULT_SEARCH) == 0) continue;
        if (pick < 0 || strcmp(t[s].vt->name, SC_DEFAULT_SEARCH) == 0 || t[s].met > t[pick].met ||
            (t[s].met == t[pick].met && hit > pick_hit)) {
            pick = s;
            pick_hit = hit;
        }
    }
    free(all);
    const tally *p = &t[pick];
    printf("\n%s%s: the median run comes within 2%% inside the budget on %d of %d problems",
           p->vt->name, strcmp(p->vt->name, SC_DEFAULT_SEARCH) == 0 ? " (the default)" : "",
           p->met, problems);
    if (has_random && strcmp(p->vt->name, "random") != 0)
        printf("; against random at the budget it is better on %d and no worse on %d", p->better,
               p->no_worse);
    printf(p->n_notes ? "; the others:\n" : "\n");
    for (int i = 0; i < p->n_notes; i++) printf("  %s\n", p->notes[i]);
    return 0;
}

typedef struct device_pick {
    db *d;
    const char *op;          /* "family.op" recorded by the device we want */
    device_info first;       /* the first device that recorded it */
    int matches;             /* devices that recorded it */
    device_info model[8];    /* one card of each GPU model among them (device_same_model) */
    int models;
    char names[512];         /* the models' names, for the message */
} device_pick;

static int count_row(void *ctx, const best_row *row)
{
    (void)row;
    (*(int *)ctx)++;
    return 1;   /* one is enough */
}

static int pick_recording_device(void *ctx, int64_t id, const device_info *dev)
{
    (void)id;
    device_pick *p = ctx;
    int rows = 0;
    db_each_best(p->d, dev->uuid, p->op, NULL, count_row, &rows);
    if (rows == 0) return 0;
    if (p->matches++ == 0) p->first = *dev;
    for (int i = 0; i < p->models && i < 8; i++)
        if (device_same_model(&p->model[i], dev)) return 0;
    size_t at = strlen(p->names);
    snprintf(p->names + at, sizeof p->names - at, "%s'%s'", p->models ? ", " : "", dev->name);
    if (p->models < 8) p->model[p->models] = *dev;
    p->models++;
    return 0;
}

/* The replay spec for path: as given when it names a device ("#"), else path#UUID of the one
 * card, or path#NAME of the one GPU model, that recorded the space's first op. Returns 0, or -1
 * with err. */
static int resolve_replay(const char *path, const space *sp, char *spec, size_t spec_len,
                          char *err, size_t len)
{
    snprintf(spec, spec_len, "%s", path);
    if (strchr(path, '#')) return 0;
    db *d = NULL;
    char dberr[512];
    if (db_open_readonly(path, &d, dberr, sizeof dberr) != 0) {
        snprintf(err, len, "replay: %s", dberr);
        return -1;
    }
    char op[256];
    device_pick p;
    memset(&p, 0, sizeof p);
    snprintf(op, sizeof op, "%s.%s", sp->kernel, sp->ops[0]);
    p.d = d;
    p.op = op;
    db_each_device(d, pick_recording_device, &p);
    db_close(d);
    if (p.models > 1) {
        snprintf(err, len, "replay %s: %d GPU models recorded %s (%s); pick one with --replay "
                 "%s#UUID (a card) or #NAME (a model)", path, p.models, op, p.names, path);
        return -1;
    }
    if (p.matches == 1) snprintf(spec, spec_len, "%s#%s", path, p.first.uuid);
    else if (p.matches > 1) snprintf(spec, spec_len, "%s#%s", path, p.first.name);
    return 0;   /* none: the backend says what is wrong */
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The transfer search from src's winners against every selected problem of the replay, seeds
 * 1..N (see the top of this file). Returns 0, or -1 with err. */
static int transfer_experiment(const space *sp, backend *be, const device_info *dev, db *src,
                               const cmd_opts *o, char *err, size_t len)
{
    int rc = -1, problems = 0, within1 = 0, within2 = 0;
    size_t n = 0, cap = 0;
    double *regret = NULL, *evals = NULL;
    int *choice = malloc((size_t)(sp->n_params ? sp->n_params : 1) * sizeof *choice);
    table tb;
    memset(&tb, 0, sizeof tb);
    if (!choice) { snprintf(err, len, "out of memory"); goto done; }
    if (strcmp(o->format, "csv") == 0) printf("op,dtype,shape,configs,seed,evaluations,regret\n");
    for (int a = 0; a < sp->n_ops; a++) {
        if (o->op && strcmp(o->op, sp->ops[a]) != 0) continue;
        for (int b = 0; b < sp->n_dtypes; b++) {
            if (o->dtype && strcmp(o->dtype, sp->dtypes[b]) != 0) continue;
            for (int c = 0; c < sp->n_problems; c++) {
                space_binding bind = { sp->ops[a], sp->dtypes[b], &sp->problems[c], dev };
                int l = load_table(sp, &bind, be, o, &tb, err, len);
                if (l < 0) goto done;
                if (l > 0) { free_table(&tb); continue; }
                double worst = 0;
                for (int seed = 1; seed <= o->seeds; seed++) {
                    strategy *st = strategy_transfer_vt.create(sp, &bind, (uint64_t)seed, 0, err, len);
                    if (!st || strategy_transfer_start(&st, src, sp, &bind, err, len) != 0) goto done;
                    memset(tb.visited, 0, tb.ctx.n_allowed ? tb.ctx.n_allowed : 1);
                    int64_t spent = 0;
                    double best = INFINITY;
                    while (spent < tb.budget && st->vt->propose(st, choice) == 1) {
                        int64_t i = sc_allowed_index(&tb.ctx, choice);
                        eval_status status = i < 0 || tb.visited[i] ? EVAL_SKIPPED : tb.status[i];
                        double us = i < 0 ? 0 : tb.us[i];
                        if (i >= 0) tb.visited[i] = 1;
                        st->vt->observe(st, choice, status, us);
                        if (sc_counts(status)) spent++;
                        if (status == EVAL_OK && us < best) best = us;
                    }
                    st->vt->destroy(st);
                    double r = isinf(best) ? INFINITY : best / tb.optimum - 1.0;
                    if (n == cap) {
                        cap = cap ? cap * 2 : 256;
                        double *g = realloc(regret, cap * sizeof *g), *h = NULL;
                        if (g) regret = g;
                        if (g) h = realloc(evals, cap * sizeof *h);
                        if (!g || !h) { snprintf(err, len, "out of memory"); goto done; }
                        evals = h;
                    }
                    regret[n] = r;
                    evals[n++] = (double)spent;
                    if (r > worst) worst = r;
                    if (strcmp(o->format, "csv") == 0)
                        printf("%s.%s,%s,\"%s\",%zu,%d,%lld,%.6f\n", sp->kernel, bind.op, bind.dtype,
                               bind.problem->text, tb.ctx.n_allowed, seed, (long long)spent, r);
                }
                within1 += worst <= 0.01;
                within2 += worst <= 0.02;
                problems++;
                free_table(&tb);
            }
        }
    }
    if (problems == 0) {
        snprintf(err, len, "%s: no problem of %s has a recorded ok result", o->replay, o->space);
        goto done;
    }
    if (strcmp(o->format, "csv") != 0) {
        double *r = malloc(n * sizeof *r), *e = malloc(n * sizeof *e);
        if (!r || !e) { free(r); free(e); snprintf(err, len, "out of memory"); goto done; }
        memcpy(r, regret, n * sizeof *r);
        memcpy(e, evals, n * sizeof *e);
        qsort(r, n, sizeof *r, cmp_dbl);
        qsort(e, n, sizeof *e, cmp_dbl);
        double e_sum = 0;
        for (size_t i = 0; i < n; i++) e_sum += e[i];
        printf("%s on %s (replay of %s), transfer from %s: %d problems, seeds 1-%d\n", sp->path,
               dev->name, o->replay, o->transfer_from, problems, o->seeds);
        printf("  evaluations per problem: median %g, p90 %g, max %g (%.0f in all per seed)\n",
               e[n / 2], e[(size_t)(0.9 * (double)(n - 1))], e[n - 1], e_sum / o->seeds);
        printf("  regret (chosen config's recorded time / the recorded best - 1): median %.2f%%, "
               "p90 %.2f%%, max %.2f%%\n", 100 * r[n / 2], 100 * r[(size_t)(0.9 * (double)(n - 1))],
               100 * r[n - 1]);
        printf("  problems within 1%% in every seed: %d of %d; within 2%%: %d of %d\n", within1,
               problems, within2, problems);
        free(r);
        free(e);
    }
    rc = 0;
done:
    free_table(&tb);
    free(choice);
    free(regret);
    free(evals);
    return rc;
}

int strategies_command(int argc, char **argv, char *err, size_t len)
{
    cmd_opts o;
    if (parse_options(argc, argv, &o, err, len) != 0) return 2;
    tally t[MAX_STRATEGIES];
    memset(t, 0, sizeof t);
    int nt = pick_strategies(o.strategies, t, err, len);
    if (nt < 0) return 2;
    int rc = 1;
    backend *be = NULL;
    space *sp = space_load(o.space, err, len);
    if (!sp) return 2;
    char spec[1024];
    if (resolve_replay(o.replay, sp, spec, sizeof spec, err, len) != 0) goto done;
    o.replay = spec;
    be = backend_replay_open(o.replay, err, len);
    if (!be) goto done;
    device_info dev;
    if (be->vt->device(be, &dev, err, len) != 0) goto done;
    if (o.transfer_from) {
        db *src = NULL;
        if (db_open_readonly(o.transfer_from, &src, err, len) != 0) goto done;
        rc = transfer_experiment(sp, be, &dev, src, &o, err, len) == 0 ? 0 : 1;
        db_close(src);
        goto done;
    }
    int n_bindings = sp->n_ops * sp->n_dtypes * sp->n_problems;
    for (int s = 0; s < nt; s++) {
        t[s].notes = calloc((size_t)(n_bindings ? n_bindings : 1), sizeof *t[s].notes);
        if (!t[s].notes) { snprintf(err, len, "out of memory"); goto done; }
    }
    if (strcmp(o.format, "csv") == 0)
        printf("op,dtype,shape,configs,budget,strategy,seeds,e1_median,e1_p90,e2_median,e2_p90,"
               "e5_median,e5_p90,gap_median,gap_p90,within2_share\n");
    size_t range[2] = { 0, 0 };
    int64_t budgets[2] = { 0, 0 };
    int problems = replay_all(sp, be, &dev, &o, t, nt, range, budgets, err, len);
    if (problems < 0) goto done;
    if (problems == 0) {
        snprintf(err, len, "%s: no problem of %s has a recorded ok result", o.replay, o.space);
        goto done;
    }
    if (strcmp(o.format, "csv") != 0) {
        char budget[64];
        if (o.budget_n > 0)
            snprintf(budget, sizeof budget, "%lld evaluations", (long long)o.budget_n);
        else if (budgets[0] == budgets[1])
            snprintf(budget, sizeof budget, "%g%% (%lld evaluations)", o.budget_pct,
                     (long long)budgets[0]);
        else
            snprintf(budget, sizeof budget, "%g%% (%lld-%lld evaluations)", o.budget_pct,
                     (long long)budgets[0], (long long)budgets[1]);
        printf("%s on %s (replay of %s): %d problems of %zu-%zu configs, budget %s, seeds 1-%d\n\n",
               sp->path, dev.name, o.replay, problems, range[0], range[1], budget, o.seeds);
        if (print_table(t, nt, problems) != 0) { snprintf(err, len, "out of memory"); goto done; }
    }
    rc = 0;
done:
    for (int s = 0; s < nt; s++) {
        free(t[s].runs);
        free(t[s].notes);
    }
    if (be) be->vt->close(be);
    space_free(sp);
    return rc;
}
