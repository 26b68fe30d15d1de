/* report_data.c: reads one device model's measurements for the report (see report_data.h): its
 * cards, problems (with their flops), every evaluation row (pooled over cards, fastest ok row per
 * config, and its least energy), the parameters parsed from the configs' text, winners under the
 * report's objective with their comparisons (and by time and by energy where energy was
 * measured), runs and, for non-exhaustive runs, best-so-far traces; and a problem's throughput
 * at a time. */
#include "report_data.h"

#include <ctype.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers ---- */
static char *dup_col(sqlite3_stmt *st, int col, int *oom)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    char *s = strdup(t ? (const char *)t : "");
    if (!s) *oom = 1;
    return s;
}

static int grow(void **v, int *cap, int need, size_t elem)
{
    if (need <= *cap) return 0;
    int cap2 = *cap ? *cap * 2 : 16;
    while (cap2 < need) cap2 *= 2;
    void *g = realloc(*v, (size_t)cap2 * elem);
    if (!g) return -1;
    memset((char *)g + (size_t)*cap * elem, 0, (size_t)(cap2 - *cap) * elem);
    *v = g;
    *cap = cap2;
    return 0;
}

void rp_slug(const char *name, char *buf, size_t len)
{
    size_t n = 0;
    int dash = 0;
    if (len == 0) return;
    for (const char *p = name; *p && n + 2 < len; p++) {
        unsigned char c = (unsigned char)*p;
        if (isalnum(c) && c < 128) {
            if (dash && n > 0) buf[n++] = '-';
            buf[n++] = (char)tolower(c);
            dash = 0;
        } else {
            dash = 1;
        }
    }
    buf[n] = 0;
    if (n == 0) snprintf(buf, len, "device");
}

void rp_status_counts(const rp_problem *p, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = 0;
    for (int s = 0; s < EVAL_STATUS_COUNT && n < len; s++)
        if (p->status_count[s])
            n += (size_t)snprintf(buf + n, len - n, "%s%d %s", n ? ", " : "", p->status_count[s],
                                  eval_status_name((eval_status)s));
}

void rp_size_label(int64_t n, char *buf, size_t len)
{
    static const char *const units[] = {"Ki", "Mi", "Gi", "Ti"};
    for (int u = 3; u >= 0; u--) {
        int64_t unit = (int64_t)1 << (10 * (u + 1));
        for (int off = 0; off <= 1; off++) {
            for (int sign = 1; sign >= -1; sign -= 2) {
                int64_t m = n - sign * off;
                if (m >= unit && m % unit == 0) {
                    if (off == 0) snprintf(buf, len, "%lld %s", (long long)(m / unit), units[u]);
                    else snprintf(buf, len, "%lld %s %s 1", (long long)(m / unit), units[u],
                                  sign > 0 ? "+" : "-");
                    return;
                }
                if (off == 0) break;
            }
        }
    }
    snprintf(buf, len, "%lld", (long long)n);
}

int rp_device_names(db *d, char ***names)
{
    sqlite3_stmt *st = NULL;
    char **v = NULL;
    int n = 0, cap = 0, oom = 0, rc = -1;
    *names = NULL;
    if (sqlite3_prepare_v2(db_handle(d), "SELECT DISTINCT name FROM devices ORDER BY name", -1,
                           &st, NULL) != SQLITE_OK)
        goto done;
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        if (grow((void **)&v, &cap, n + 1, sizeof *v) != 0) goto done;
        v[n] = dup_col(st, 0, &oom);
        if (oom) goto done;
        n++;
    }
    if (s != SQLITE_DONE) goto done;
    *names = v;
    v = NULL;
    rc = n;
done:
    if (v) rp_free_names(v, n);
    sqlite3_finalize(st);
    return rc;
}

void rp_free_names(char **names, int n)
{
    for (int i = 0; i < n; i++) free(names[i]);
    free(names);
}

/* ---- throughput ---- */
throughput rp_throughput(const rp_device *dev, const rp_problem *p, double us)
{
    return throughput_of(p->bytes, p->flops, us, p->copy_gbps, &dev->info, p->dtype);
}

int rp_group_has_flops(const rp_device *dev, const rp_group *g)
{
    for (int i = g->first; i < g->first + g->count; i++)
        if (dev->problems[i].flops > 0) return 1;
    return 0;
}

int rp_op_has_flops(const rp_device *dev, const char *op)
{
    for (int i = 0; i < dev->n_groups; i++)
        if (strcmp(dev->groups[i].op, op) == 0 && rp_group_has_flops(dev, &dev->groups[i])) return 1;
    return 0;
}

/* ---- parameters from the configs' text ---- */
static int is_number(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    return *s && !*end && isfinite(v);
}

static int cmp_num(const void *a, const void *b)
{
    double x = strtod(*(char *const *)a, NULL), y = strtod(*(char *const *)b, NULL);
    if (x != y) return x < y ? -1 : 1;
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_param(const void *a, const void *b)
{
    return strcmp(((const rp_param *)a)->name, ((const rp_param *)b)->name);
}

/* The value of key in a "k=v,k=v" text into buf; 0, or -1 when the key is absent. */
static int config_value(const char *config, const char *key, char *buf, size_t len)
{
    size_t kl = strlen(key);
    for (const char *p = config; *p;) {
        const char *comma = strchr(p, ',');
        size_t item = comma ? (size_t)(comma - p) : strlen(p);
        if (item > kl && strncmp(p, key, kl) == 0 && p[kl] == '=') {
            snprintf(buf, len, "%.*s", (int)(item - kl - 1), p + kl + 1);
            return 0;
        }
        p += item + (comma ? 1 : 0);
    }
    return -1;
}

static int find_text(char **v, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (strcmp(v[i], s) == 0) return i;
    return -1;
}

/* Builds p->params and every variant's value indices. Returns 0 or -1 (out of memory). */
static int parse_params(rp_problem *p)
{
    int cap = 0, rc = -1;
    char val[512];
    for (int i = 0; i < p->n_variants; i++) {
        for (const char *s = p->variants[i].config; *s;) {
            const char *comma = strchr(s, ','), *eq = strchr(s, '=');
            size_t item = comma ? (size_t)(comma - s) : strlen(s);
            size_t kl = eq && (size_t)(eq - s) < item ? (size_t)(eq - s) : item;
            int found = 0;
            for (int k = 0; k < p->n_params && !found; k++)
                found = strlen(p->params[k].name) == kl && strncmp(p->params[k].name, s, kl) == 0;
            if (!found && kl > 0) {
                if (grow((void **)&p->params, &cap, p->n_params + 1, sizeof *p->params) != 0)
                    goto done;
                p->params[p->n_params].name = strndup(s, kl);
                if (!p->params[p->n_params].name) goto done;
                p->n_params++;
            }
            s += item + (comma ? 1 : 0);
        }
    }
    if (p->n_params) qsort(p->params, (size_t)p->n_params, sizeof *p->params, cmp_param);
    for (int k = 0; k < p->n_params; k++) {
        rp_param *pa = &p->params[k];
        int vcap = 0, numeric = 1;
        for (int i = 0; i < p->n_variants; i++) {
            if (config_value(p->variants[i].config, pa->name, val, sizeof val) != 0)
                snprintf(val, sizeof val, "-");
            if (find_text(pa->values, pa->n_values, val) >= 0) continue;
            if (grow((void **)&pa->values, &vcap, pa->n_values + 1, sizeof *pa->values) != 0)
                goto done;
            if (!(pa->values[pa->n_values] = strdup(val))) goto done;
            pa->n_values++;
            numeric = numeric && is_number(val);
        }
        if (pa->n_values)
            qsort(pa->values, (size_t)pa->n_values, sizeof *pa->values, numeric ? cmp_num : cmp_text);
    }
    for (int i = 0; i < p->n_variants; i++) {
        rp_variant *v = &p->variants[i];
        v->value = calloc((size_t)(p->n_params ? p->n_params : 1), sizeof *v->value);
        if (!v->value) goto done;
        for (int k = 0; k < p->n_params; k++) {
            if (config_value(v->config, p->params[k].name, val, sizeof val) != 0)
                snprintf(val, sizeof val, "-");
            v->value[k] = find_text(p->params[k].values, p->params[k].n_values, val);
        }
    }
    rc = 0;
done:
    return rc;
}

static int cmp_variant(const void *a, const void *b)
{
    const rp_variant *x = a, *y = b;
    if (x->us != y->us) return x->us < y->us ? -1 : 1;
    return strcmp(x->config, y->config);
}

/* ---- loading ---- */
static const char *const sql_cards =
    "SELECT uuid, name, cc_major, cc_minor, sm_count, max_threads_per_sm, max_threads_per_block,"
    " regs_per_sm, smem_per_sm, l2_bytes, mem_bytes, sm_clock_khz, mem_clock_khz, mem_bus_bits,"
    " driver_version, runtime_version FROM devices WHERE name = ?1 ORDER BY uuid";

/* Every row of the device; per config the fastest ok row first. */
static const char *const sql_rows =
    "SELECT p.op, p.dtype, p.shape, p.elements, p.bytes, p.size_key, c.text, e.status,"
    " e.median_us, e.ci_lo_us, e.ci_hi_us, e.gbps, e.frac_copy, d.uuid, r.copy_gbps, p.flops,"
    " e.energy_j"
    " FROM evaluations e JOIN devices d ON d.id = e.device_id"
    " JOIN problems p ON p.id = e.problem_id JOIN configs c ON c.id = e.config_id"
    " JOIN runs r ON r.id = e.run_id WHERE d.name = ?1"
    " ORDER BY p.op, p.dtype, p.elements, p.shape, c.text, e.status <> 'ok', e.median_us,"
    " e.kernel_hash, d.uuid";

static const char *const sql_peers =
    "SELECT pe.library, count(*) FROM peers pe JOIN devices d ON d.id = pe.device_id"
    " WHERE d.name = ?1 GROUP BY pe.library ORDER BY pe.library";

static const char *const sql_runs =
    "SELECT d.uuid, r.started_at, r.finished_at, r.space, r.strategy, r.backend,"
    " r.tuner_version, r.seed, r.copy_gbps,"
    " (SELECT count(*) FROM evaluations e WHERE e.run_id = r.id), r.id"
    " FROM runs r JOIN devices d ON d.id = r.device_id WHERE d.name = ?1"
    " ORDER BY r.started_at, d.uuid";

static const char *const sql_trace =
    "SELECT p.op, p.dtype, p.shape, e.status, e.median_us FROM evaluations e"
    " JOIN problems p ON p.id = e.problem_id WHERE e.run_id = ?1"
    " ORDER BY p.op, p.dtype, p.shape, e.seq";

static int load_cards(db *d, rp_device *dev)
{
    sqlite3_stmt *st = NULL;
    int cap = 0, oom = 0, rc = -1, s;
    if (sqlite3_prepare_v2(db_handle(d), sql_cards, -1, &st, NULL) != SQLITE_OK) goto done;
    sqlite3_bind_text(st, 1, dev->name, -1, SQLITE_STATIC);
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        if (grow((void **)&dev->uuids, &cap, dev->n_cards + 1, sizeof *dev->uuids) != 0) goto done;
        dev->uuids[dev->n_cards] = dup_col(st, 0, &oom);
        if (oom) goto done;
        if (dev->n_cards == 0) {
            device_info *i = &dev->info;
            snprintf(i->uuid, sizeof i->uuid, "%s", (const char *)sqlite3_column_text(st, 0));
            snprintf(i->name, sizeof i->name, "%s", (const char *)sqlite3_column_text(st, 1));
            i->cc_major = sqlite3_column_int(st, 2);
            i->cc_minor = sqlite3_column_int(st, 3);
            i->sm_count = sqlite3_column_int(st, 4);
            i->max_threads_per_sm = sqlite3_column_int(st, 5);
            i->max_threads_per_block = sqlite3_column_int(st, 6);
            i->regs_per_sm = sqlite3_column_int(st, 7);
            i->smem_per_sm = sqlite3_column_int64(st, 8);
            i->l2_bytes = sqlite3_column_int64(st, 9);
            i->mem_bytes = sqlite3_column_int64(st, 10);
            i->sm_clock_khz = sqlite3_column_int(st, 11);
            i->mem_clock_khz = sqlite3_column_int(st, 12);
            i->mem_bus_bits = sqlite3_column_int(st, 13);
            i->driver_version = sqlite3_column_int(st, 14);
            i->runtime_version = sqlite3_column_int(st, 15);
        }
        dev->n_cards++;
    }
    rc = s == SQLITE_DONE ? 0 : -1;
done:
    sqlite3_finalize(st);
    return rc;
}

/* The winners of the device's cards under an objective (db_each_best_by: the view best's under
 * time), sorted by op, dtype, shape; of several cards the one the header keeps (db_best_beats,
 * by score). */
typedef struct rp_winner {
    char *op, *dtype, *shape, *config;
    double score;
} rp_winner;

typedef struct rp_winners {
    rp_winner *v;
    int n, cap, oom;
} rp_winners;

static int winner_cmp(const void *a, const void *b)
{
    const rp_winner *x = a, *y = b;
    int c = strcmp(x->op, y->op);
    if (!c) c = strcmp(x->dtype, y->dtype);
    return c ? c : strcmp(x->shape, y->shape);
}

/* db_each_best gives a problem's cards one after the other (by uuid after the problem's keys) */
static int collect_winner(void *ctx, const best_row *r)
{
    rp_winners *w = ctx;
    rp_winner *last = w->n ? &w->v[w->n - 1] : NULL;
    if (last && !strcmp(last->op, r->op) && !strcmp(last->dtype, r->dtype) &&
        !strcmp(last->shape, r->shape)) {
        if (db_best_beats(r->score, r->config, last->score, last->config)) {
            char *c = strdup(r->config);
            if (!c) { w->oom = 1; return 1; }
            free(last->config);
            last->config = c;
            last->score = r->score;
        }
        return 0;
    }
    if (grow((void **)&w->v, &w->cap, w->n + 1, sizeof *w->v)) { w->oom = 1; return 1; }
    rp_winner *e = &w->v[w->n];
    e->op = strdup(r->op);
    e->dtype = strdup(r->dtype);
    e->shape = strdup(r->shape);
    e->config = strdup(r->config);
    e->score = r->score;
    w->n++;
    if (!e->op || !e->dtype || !e->shape || !e->config) { w->oom = 1; return 1; }
    return 0;
}

static void free_winners(rp_winners *w)
{
    for (int i = 0; i < w->n; i++) {
        free(w->v[i].op);
        free(w->v[i].dtype);
        free(w->v[i].shape);
        free(w->v[i].config);
    }
    free(w->v);
    memset(w, 0, sizeof *w);
}

/* The winners of the device model `name` under objective o into w, sorted. 0 or -1. */
static int load_winners(db *d, const char *name, objective o, rp_winners *w)
{
    if (db_each_best_by(d, o, name, NULL, NULL, collect_winner, w, NULL) != 0 || w->oom)
        return -1;
    if (w->n) qsort(w->v, (size_t)w->n, sizeof *w->v, winner_cmp);
    return 0;
}

/* The winner's config of a problem, NULL when the view has none. */
static const char *winner_of(const rp_winners *w, const char *op, const char *dtype,
                             const char *shape)
{
    rp_winner key = { (char *)op, (char *)dtype, (char *)shape, NULL, 0 };
    const rp_winner *f = w->n ? bsearch(&key, w->v, (size_t)w->n, sizeof *w->v, winner_cmp) : NULL;
    return f ? f->config : NULL;
}

static int load_rows(db *d, rp_device *dev, const rp_winners *w)
{
    sqlite3_stmt *st = NULL;
    int pcap = 0, vcap = 0, oom = 0, rc = -1, s;
    rp_problem *p = NULL;
    char *last_config = NULL;     /* the config of the previous row in this problem */
    const char *win = NULL;       /* the problem's winner's config, by the view */
    if (sqlite3_prepare_v2(db_handle(d), sql_rows, -1, &st, NULL) != SQLITE_OK) goto done;
    sqlite3_bind_text(st, 1, dev->name, -1, SQLITE_STATIC);
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        const char *op = (const char *)sqlite3_column_text(st, 0);
        const char *dtype = (const char *)sqlite3_column_text(st, 1);
        const char *shape = (const char *)sqlite3_column_text(st, 2);
        const char *config = (const char *)sqlite3_column_text(st, 6);
        int status = eval_status_parse((const char *)sqlite3_column_text(st, 7));
        dev->n_rows++;
        if (!p || strcmp(p->op, op) || strcmp(p->dtype, dtype) || strcmp(p->shape, shape)) {
            if (grow((void **)&dev->problems, &pcap, dev->n_problems + 1, sizeof *dev->problems))
                goto done;
            p = &dev->problems[dev->n_problems++];
            p->op = dup_col(st, 0, &oom);
            p->dtype = dup_col(st, 1, &oom);
            p->shape = dup_col(st, 2, &oom);
            if (oom) goto done;
            p->elements = sqlite3_column_int64(st, 3);
            p->bytes = sqlite3_column_int64(st, 4);
            p->size_key = sqlite3_column_type(st, 5) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 5);
            p->flops = sqlite3_column_int64(st, 15);
            vcap = 0;
            free(last_config);
            last_config = NULL;
            win = winner_of(w, op, dtype, shape);
        }
        if (status >= 0 && status < EVAL_STATUS_COUNT) p->status_count[status]++;
        int first_of_config = !last_config || strcmp(last_config, config) != 0;
        if (first_of_config) {
            free(last_config);
            if (!(last_config = strdup(config))) goto done;
        }
        double joules = sqlite3_column_double(st, 16);   /* 0: NULL */
        if (!first_of_config) {
            /* another ok row of the config (another card or kernel source): its least energy */
            rp_variant *v = p->n_variants ? &p->variants[p->n_variants - 1] : NULL;
            if (v && status == EVAL_OK && strcmp(v->config, config) == 0 && joules > 0 &&
                (v->joules == 0 || joules < v->joules))
                v->joules = joules;
            continue;
        }
        if (status != EVAL_OK) continue;
        double us = sqlite3_column_double(st, 8);
        if (grow((void **)&p->variants, &vcap, p->n_variants + 1, sizeof *p->variants)) goto done;
        rp_variant *v = &p->variants[p->n_variants++];
        v->config = dup_col(st, 6, &oom);
        if (oom) goto done;
        v->us = us;
        v->joules = joules > 0 ? joules : 0;
        /* the winner: the view's config (a config's first row is its fastest ok one) */
        if (win && strcmp(config, win) == 0) {
            free(p->win_uuid);
            p->win_uuid = dup_col(st, 13, &oom);
            if (oom) goto done;
            p->win_ci_lo = sqlite3_column_double(st, 9);
            p->win_ci_hi = sqlite3_column_double(st, 10);
            p->win_gbps = sqlite3_column_double(st, 11);
            p->win_frac = sqlite3_column_double(st, 12);
            p->copy_gbps = sqlite3_column_double(st, 14);
        }
    }
    rc = s == SQLITE_DONE ? 0 : -1;
done:
    free(last_config);
    sqlite3_finalize(st);
    return rc;
}

static int load_peers(db *d, rp_device *dev)
{
    sqlite3_stmt *st = NULL;
    int cap = 0, oom = 0, rc = -1, s;
    if (sqlite3_prepare_v2(db_handle(d), sql_peers, -1, &st, NULL) != SQLITE_OK) goto done;
    sqlite3_bind_text(st, 1, dev->name, -1, SQLITE_STATIC);
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        if (grow((void **)&dev->peer_libraries, &cap, dev->n_peer_libraries + 1,
                 sizeof *dev->peer_libraries))
            goto done;
        dev->peer_libraries[dev->n_peer_libraries] = dup_col(st, 0, &oom);
        if (oom) goto done;
        dev->n_peer_libraries++;
        dev->n_peer_rows += sqlite3_column_int64(st, 1);
    }
    rc = s == SQLITE_DONE ? 0 : -1;
done:
    sqlite3_finalize(st);
    return rc;
}

static int find_problem(const rp_device *dev, const char *op, const char *dtype, const char *shape)
{
    for (int i = 0; i < dev->n_problems; i++) {
        const rp_problem *p = &dev->problems[i];
        if (!strcmp(p->op, op) && !strcmp(p->dtype, dtype) && !strcmp(p->shape, shape)) return i;
    }
    return -1;
}

/* The best-so-far traces of one run: one per problem, over the rows that count against a
 * budget (configs rejected by a constraint or the op never do). */
static int load_traces(db *d, rp_device *dev, rp_run *run, int64_t run_id)
{
    sqlite3_stmt *st = NULL;
    int cap = 0, rc = -1, s, tcap = 0;
    rp_trace *t = NULL;
    if (sqlite3_prepare_v2(db_handle(d), sql_trace, -1, &st, NULL) != SQLITE_OK) goto done;
    sqlite3_bind_int64(st, 1, run_id);
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        int pi = find_problem(dev, (const char *)sqlite3_column_text(st, 0),
                              (const char *)sqlite3_column_text(st, 1),
                              (const char *)sqlite3_column_text(st, 2));
        int status = eval_status_parse((const char *)sqlite3_column_text(st, 3));
        if (pi < 0 || status == EVAL_SKIPPED || status == EVAL_UNSUPPORTED) continue;
        if (!t || t->problem != pi) {
            if (grow((void **)&run->traces, &cap, run->n_traces + 1, sizeof *run->traces))
                goto done;
            t = &run->traces[run->n_traces++];
            t->problem = pi;
            tcap = 0;
        }
        if (grow((void **)&t->best, &tcap, t->n + 1, sizeof *t->best)) goto done;
        double prev = t->n ? t->best[t->n - 1] : NAN;
        double us = status == EVAL_OK ? sqlite3_column_double(st, 4) : NAN;
        t->best[t->n++] = isnan(prev) || us < prev ? (isnan(us) ? prev : us) : prev;
    }
    rc = s == SQLITE_DONE ? 0 : -1;
done:
    sqlite3_finalize(st);
    return rc;
}

static int load_runs(db *d, rp_device *dev)
{
    sqlite3_stmt *st = NULL;
    int cap = 0, oom = 0, rc = -1, s;
    if (sqlite3_prepare_v2(db_handle(d), sql_runs, -1, &st, NULL) != SQLITE_OK) goto done;
    sqlite3_bind_text(st, 1, dev->name, -1, SQLITE_STATIC);
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        if (grow((void **)&dev->runs, &cap, dev->n_runs + 1, sizeof *dev->runs)) goto done;
        rp_run *r = &dev->runs[dev->n_runs++];
        r->uuid = dup_col(st, 0, &oom);
        r->started_at = dup_col(st, 1, &oom);
        r->finished_at = dup_col(st, 2, &oom);
        r->space = dup_col(st, 3, &oom);
        r->strategy = dup_col(st, 4, &oom);
        r->backend = dup_col(st, 5, &oom);
        r->tuner_version = dup_col(st, 6, &oom);
        if (oom) goto done;
        r->seed = sqlite3_column_int64(st, 7);
        r->copy_gbps = sqlite3_column_double(st, 8);
        r->n_evals = sqlite3_column_int64(st, 9);
        if (strcmp(r->strategy, "exhaustive") != 0 &&
            load_traces(d, dev, r, sqlite3_column_int64(st, 10)) != 0)
            goto done;
    }
    rc = s == SQLITE_DONE ? 0 : -1;
done:
    sqlite3_finalize(st);
    return rc;
}

static int build_groups(rp_device *dev)
{
    int cap = 0;
    for (int i = 0; i < dev->n_problems; i++) {
        rp_problem *p = &dev->problems[i];
        rp_group *g = dev->n_groups ? &dev->groups[dev->n_groups - 1] : NULL;
        if (g && !strcmp(g->op, p->op) && !strcmp(g->dtype, p->dtype)) {
            g->count++;
            continue;
        }
        if (grow((void **)&dev->groups, &cap, dev->n_groups + 1, sizeof *dev->groups)) return -1;
        dev->groups[dev->n_groups++] = (rp_group){p->op, p->dtype, i, 1};
    }
    return 0;
}

/* The index of the variant whose config is the problem's winner in w, -1 when none is. */
static int winner_index(const rp_problem *p, const rp_winners *w)
{
    const char *win = winner_of(w, p->op, p->dtype, p->shape);
    for (int k = 0; win && k < p->n_variants; k++)
        if (strcmp(p->variants[k].config, win) == 0) return k;
    return -1;
}

int rp_load(db *d, const char *name, objective o, rp_device **out, char *err, size_t len)
{
    rp_device *dev = calloc(1, sizeof *dev);
    rp_winners w = { 0 };         /* the winners under o, until every problem has its own */
    rp_winners other = { 0 };     /* by time or by energy, for the time-energy section */
    char slug[256];
    const char *what = "out of memory";
    *out = NULL;
    if (!dev || !(dev->name = strdup(name))) goto fail;
    dev->objective = o;
    rp_slug(name, slug, sizeof slug);
    if (!(dev->slug = strdup(slug))) goto fail;
    what = "reading the devices";
    if (load_cards(d, dev) != 0) goto fail;
    what = "reading the winners";
    if (load_winners(d, name, o, &w) != 0) goto fail;
    what = "reading the evaluations";
    if (load_rows(d, dev, &w) != 0) goto fail;
    for (int i = 0; i < dev->n_problems; i++) {
        rp_problem *p = &dev->problems[i];
        what = "out of memory";
        if (p->n_variants)
            qsort(p->variants, (size_t)p->n_variants, sizeof *p->variants, cmp_variant);
        if (parse_params(p) != 0) goto fail;
        /* the winner: under time the view's (it has one wherever a config ran ok); under energy
         * or edp none where no energy was measured */
        p->win = winner_index(p, &w);
        if (p->win < 0 && o == OBJECTIVE_TIME && p->n_variants) p->win = 0;
        p->win_time = p->win_energy = -1;
        for (int k = 0; k < p->n_variants; k++) p->n_energy += p->variants[k].joules > 0;
        dev->n_energy_problems += p->n_energy > 0;
        if (p->win < 0) {
            dev->n_no_winner += p->n_variants > 0;
            continue;
        }
        best_row r;
        memset(&r, 0, sizeof r);
        r.device = dev->name;
        r.device_uuid = p->win_uuid;
        r.op = p->op;
        r.dtype = p->dtype;
        r.shape = p->shape;
        r.config = p->variants[p->win].config;
        r.size_key = p->size_key;
        r.median_us = p->variants[p->win].us;
        what = "reading the default and peer times";
        if (winner_compare(d, &r, &p->cmp) != 0) goto fail;
    }
    /* the winners by time and by energy of the problems with energy (under o, the ones above) */
    what = "reading the winners";
    for (int pass = 0; dev->n_energy_problems && pass < 2; pass++) {
        objective by = pass ? OBJECTIVE_ENERGY : OBJECTIVE_TIME;
        const rp_winners *from = &w;
        if (by != o) {
            free_winners(&other);
            if (load_winners(d, name, by, &other) != 0) goto fail;
            from = &other;
        }
        for (int i = 0; i < dev->n_problems; i++) {
            rp_problem *p = &dev->problems[i];
            if (!p->n_energy) continue;
            int k = winner_index(p, from);
            if (by == OBJECTIVE_TIME && k < 0) k = 0;
            *(pass ? &p->win_energy : &p->win_time) = k;
        }
    }
    what = "reading the peers";
    if (load_peers(d, dev) != 0) goto fail;
    what = "reading the runs";
    if (load_runs(d, dev) != 0) goto fail;
    what = "out of memory";
    if (build_groups(dev) != 0 || rp_importance(dev) != 0) goto fail;
    free_winners(&w);
    free_winners(&other);
    *out = dev;
    return 0;
fail:
    free_winners(&w);
    free_winners(&other);
    if (strcmp(what, "out of memory") == 0)
        snprintf(err, len, "report for '%s': out of memory", name);
    else
        snprintf(err, len, "report for '%s': %s: %s", name, what, sqlite3_errmsg(db_handle(d)));
    rp_free(dev);
    return -1;
}

void rp_free(rp_device *dev)
{
    if (!dev) return;
    for (int i = 0; i < dev->n_problems; i++) {
        rp_problem *p = &dev->problems[i];
        for (int k = 0; k < p->n_params; k++) {
            for (int j = 0; j < p->params[k].n_values; j++) free(p->params[k].values[j]);
            free(p->params[k].values);
            free(p->params[k].name);
            if (p->best_by_value) free(p->best_by_value[k]);
        }
        free(p->params);
        free(p->best_by_value);
        free(p->spread);
        for (int j = 0; j < p->n_variants; j++) {
            free(p->variants[j].config);
            free(p->variants[j].value);
        }
        free(p->variants);
        free(p->op);
        free(p->dtype);
        free(p->shape);
        free(p->win_uuid);
    }
    free(dev->problems);
    free(dev->groups);
    for (int i = 0; i < dev->n_runs; i++) {
        rp_run *r = &dev->runs[i];
        free(r->uuid); free(r->started_at); free(r->finished_at); free(r->space);
        free(r->strategy); free(r->backend); free(r->tuner_version);
        for (int t = 0; t < r->n_traces; t++) free(r->traces[t].best);
        free(r->traces);
    }
    free(dev->runs);
    for (int i = 0; i < dev->n_cards; i++) free(dev->uuids[i]);
    free(dev->uuids);
    for (int i = 0; i < dev->n_peer_libraries; i++) free(dev->peer_libraries[i]);
    free(dev->peer_libraries);
    free(dev->name);
    free(dev->slug);
    free(dev);
}
