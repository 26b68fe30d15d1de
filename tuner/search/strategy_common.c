/* strategy_common.c: the search context the strategies share (see strategy_common.h): config
 * keys and a small hash map, the parameter encoding, the enumerated allowed set with its
 * unvisited list, the observation history, random unvisited draws, repair to the nearest
 * allowed config, and parameter neighbourhoods. */
#include "strategy_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- keys and the map ---- */
static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

uint64_t sc_key(const sc_search *s, const int *choice)
{
    uint64_t key = 0;
    if (s->key_mixed) {
        for (int k = 0; k < s->np; k++)
            key = key * (uint64_t)s->sp->params[k].n_values + (uint64_t)choice[k];
        return key;
    }
    key = 0xcbf29ce484222325ull;
    for (int k = 0; k < s->np; k++) key = mix64(key ^ (uint64_t)(uint32_t)choice[k]);
    return key;
}

static void map_free(sc_map *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

static int64_t map_get(const sc_map *m, uint64_t key)
{
    if (!m->cap) return -1;
    for (size_t i = mix64(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->vals[i] < 0) return -1;
        if (m->keys[i] == key) return m->vals[i];
    }
}

static int map_put(sc_map *m, uint64_t key, int64_t val);

static int map_grow(sc_map *m)
{
    sc_map g = { m->cap ? m->cap * 2 : 64, 0, NULL, NULL };
    g.keys = malloc(g.cap * sizeof *g.keys);
    g.vals = malloc(g.cap * sizeof *g.vals);
    if (!g.keys || !g.vals) { map_free(&g); return -1; }
    for (size_t i = 0; i < g.cap; i++) g.vals[i] = -1;
    for (size_t i = 0; i < m->cap; i++)
        if (m->vals[i] >= 0) map_put(&g, m->keys[i], m->vals[i]);
    map_free(m);
    *m = g;
    return 0;
}

/* Inserts key (kept when present). 0, or -1 when out of memory. */
static int map_put(sc_map *m, uint64_t key, int64_t val)
{
    if ((m->used + 1) * 2 > m->cap && map_grow(m) != 0) return -1;
    size_t i = mix64(key) & (m->cap - 1);
    while (m->vals[i] >= 0) {
        if (m->keys[i] == key) return 0;
        i = (i + 1) & (m->cap - 1);
    }
    m->keys[i] = key;
    m->vals[i] = val;
    m->used++;
    return 0;
}

/* ---- statuses ---- */
int sc_is_failure(eval_status st)
{
    return st == EVAL_INVALID || st == EVAL_LAUNCH_ERROR || st == EVAL_FAULT ||
           st == EVAL_TIMEOUT || st == EVAL_UNSUPPORTED;
}

int sc_counts(eval_status st)
{
    return st != EVAL_SKIPPED && st != EVAL_UNSUPPORTED && st != EVAL_UNRECORDED;
}

int64_t sc_budget(const sc_search *s, int64_t budget)
{
    if (budget > 0) return budget;
    if (s->enumerated) return s->n_allowed < 200 ? (int64_t)(s->n_allowed ? s->n_allowed : 1) : 200;
    return 200;
}

/* ---- encoding ---- */
static double numeric(value v) { return v.kind == VALUE_INT ? (double)v.i : v.f; }

/* Fills off/width/categorical/rank/by_rank from the space. 0, or -1 when out of memory. */
static int build_encoding(sc_search *s)
{
    int np = s->np ? s->np : 1;
    s->off = calloc((size_t)np, sizeof *s->off);
    s->width = calloc((size_t)np, sizeof *s->width);
    s->categorical = calloc((size_t)np, sizeof *s->categorical);
    s->rank = calloc((size_t)np, sizeof *s->rank);
    s->by_rank = calloc((size_t)np, sizeof *s->by_rank);
    if (!s->off || !s->width || !s->categorical || !s->rank || !s->by_rank) return -1;
    s->dim = 0;
    for (int k = 0; k < s->np; k++) {
        const space_param *p = &s->sp->params[k];
        int n = p->n_values;
        for (int v = 0; v < n; v++)
            if (p->values[v].kind == VALUE_STRING) s->categorical[k] = 1;
        s->rank[k] = malloc((size_t)n * sizeof **s->rank);
        s->by_rank[k] = malloc((size_t)n * sizeof **s->by_rank);
        if (!s->rank[k] || !s->by_rank[k]) return -1;
        for (int v = 0; v < n; v++) {   /* rank by numeric value (insertion: spaces are small) */
            int r = 0;
            for (int w = 0; w < n; w++) {
                if (s->categorical[k]) { r = v; break; }
                double a = numeric(p->values[w]), b = numeric(p->values[v]);
                if (a < b || (a == b && w < v)) r++;
            }
            s->rank[k][v] = r;
            s->by_rank[k][r] = v;
        }
        s->off[k] = s->dim;
        s->width[k] = n < 2 ? 0 : s->categorical[k] ? n : 1;
        s->dim += s->width[k];
    }
    return 0;
}

void sc_encode(const sc_search *s, const int *choice, double *x)
{
    for (int k = 0; k < s->np; k++) {
        int n = s->sp->params[k].n_values;
        if (!s->width[k]) continue;
        if (s->categorical[k]) {
            for (int v = 0; v < n; v++) x[s->off[k] + v] = v == choice[k] ? M_SQRT1_2 : 0.0;
        } else {
            x[s->off[k]] = (double)s->rank[k][choice[k]] / (double)(n - 1);
        }
    }
}

double sc_dist2(const sc_search *s, const double *x, const double *y)
{
    double d = 0;
    for (int i = 0; i < s->dim; i++) d += (x[i] - y[i]) * (x[i] - y[i]);
    return d;
}

/* ---- set up ---- */
static int enumerate_allowed(sc_search *s, char *err, size_t len)
{
    int rc = -1, np = s->np ? s->np : 1;
    size_t cap = 0;
    int *choice = malloc((size_t)np * sizeof *choice);
    space_iter it;
    space_iter_init(&it, s->sp, &s->b);
    if (!choice) goto oom;
    int r;
    while ((r = space_iter_next(&it, choice)) == 1) {
        if (s->n_allowed == cap) {
            cap = cap ? cap * 2 : 256;
            int *grown = realloc(s->allowed, cap * (size_t)np * sizeof *grown);
            if (!grown) goto oom;
            s->allowed = grown;
        }
        memcpy(s->allowed + s->n_allowed * (size_t)np, choice, (size_t)np * sizeof *choice);
        s->n_allowed++;
    }
    if (r < 0) {
        snprintf(err, len, "constraint %d: %s", it.err_constraint + 1, it.err.message);
        goto done;
    }
    size_t n = s->n_allowed ? s->n_allowed : 1;
    s->unvisited = malloc(n * sizeof *s->unvisited);
    s->unvisited_pos = malloc(n * sizeof *s->unvisited_pos);
    if (!s->unvisited || !s->unvisited_pos) goto oom;
    for (size_t i = 0; i < s->n_allowed; i++) {
        const int *c = s->allowed + i * (size_t)np;
        if (map_put(&s->allowed_index, sc_key(s, c), (int64_t)i) != 0) goto oom;
        s->unvisited[i] = i;
        s->unvisited_pos[i] = i;
    }
    s->n_unvisited = s->n_allowed;
    rc = 0;
    goto done;
oom:
    snprintf(err, len, "out of memory enumerating the space");
done:
    free(choice);
    space_iter_free(&it);
    return rc;
}

int sc_init(sc_search *s, const space *sp, const space_binding *b, uint64_t seed, uint64_t salt,
            char *err, size_t len)
{
    memset(s, 0, sizeof *s);
    s->sp = sp;
    s->b = *b;
    s->np = sp->n_params;
    s->best = -1;
    int64_t raw = space_raw_size(sp);
    s->key_mixed = raw < INT64_MAX;
    s->rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!s->rng || build_encoding(s) != 0) {
        snprintf(err, len, "out of memory");
        sc_free(s);
        return -1;
    }
    gsl_rng_set(s->rng, (unsigned long)(mix64(seed ^ mix64(salt)) & 0xffffffffu));
    if (raw <= SC_ENUM_LIMIT) {
        s->enumerated = 1;
        if (enumerate_allowed(s, err, len) != 0) { sc_free(s); return -1; }
    }
    return 0;
}

void sc_free(sc_search *s)
{
    if (!s) return;
    if (s->rng) gsl_rng_free(s->rng);
    for (int k = 0; k < s->np; k++) {
        if (s->rank) free(s->rank[k]);
        if (s->by_rank) free(s->by_rank[k]);
    }
    free(s->rank);
    free(s->by_rank);
    free(s->off);
    free(s->width);
    free(s->categorical);
    free(s->allowed);
    free(s->unvisited);
    free(s->unvisited_pos);
    map_free(&s->allowed_index);
    free(s->obs_choice);
    free(s->obs_status);
    free(s->obs_us);
    map_free(&s->seen);
    memset(s, 0, sizeof *s);
}

/* ---- observations ---- */
int64_t sc_seen(const sc_search *s, const int *choice)
{
    return map_get(&s->seen, sc_key(s, choice));
}

int64_t sc_record(sc_search *s, const int *choice, eval_status status, double us)
{
    int np = s->np ? s->np : 1;
    uint64_t key = sc_key(s, choice);
    int64_t have = map_get(&s->seen, key);
    if (have >= 0) return have;
    if (s->n_obs == s->cap_obs) {
        size_t cap = s->cap_obs ? s->cap_obs * 2 : 64;
        int *c = realloc(s->obs_choice, cap * (size_t)np * sizeof *c);
        if (c) s->obs_choice = c;
        eval_status *st = realloc(s->obs_status, cap * sizeof *st);
        if (st) s->obs_status = st;
        double *us_grown = realloc(s->obs_us, cap * sizeof *us_grown);
        if (us_grown) s->obs_us = us_grown;
        if (!c || !st || !us_grown) return -1;
        s->cap_obs = cap;
    }
    int64_t i = (int64_t)s->n_obs;
    if (map_put(&s->seen, key, i) != 0) return -1;
    memcpy(s->obs_choice + (size_t)i * (size_t)np, choice, (size_t)s->np * sizeof *choice);
    s->obs_status[i] = status;
    s->obs_us[i] = status == EVAL_OK ? us : 0;
    s->n_obs++;
    if (status == EVAL_OK && us > 0 && (s->best < 0 || us < s->obs_us[s->best])) s->best = i;
    if (sc_counts(status)) s->n_counted++;
    if (s->enumerated) {
        int64_t a = map_get(&s->allowed_index, key);
        if (a >= 0 && s->unvisited_pos[a] != SIZE_MAX) {
            size_t pos = s->unvisited_pos[a], last = s->unvisited[--s->n_unvisited];
            s->unvisited[pos] = last;
            s->unvisited_pos[last] = pos;
            s->unvisited_pos[a] = SIZE_MAX;
        }
    }
    return i;
}

int sc_exhausted(const sc_search *s)
{
    return s->enumerated && s->n_unvisited == 0;
}

int64_t sc_allowed_index(const sc_search *s, const int *choice)
{
    return s->enumerated ? map_get(&s->allowed_index, sc_key(s, choice)) : -1;
}

int sc_allowed(const sc_search *s, const int *choice)
{
    if (s->enumerated) return map_get(&s->allowed_index, sc_key(s, choice)) >= 0;
    return space_allows(s->sp, &s->b, choice) == 1;
}

/* ---- drawing and moving ---- */
#define SC_TRIES 10000

int sc_random_unvisited(sc_search *s, int *choice)
{
    if (s->enumerated) {
        if (!s->n_unvisited) return 0;
        size_t a = s->unvisited[gsl_rng_uniform_int(s->rng, s->n_unvisited)];
        memcpy(choice, s->allowed + a * (size_t)s->np, (size_t)s->np * sizeof *choice);
        return 1;
    }
    for (int t = 0; t < SC_TRIES; t++) {
        for (int k = 0; k < s->np; k++)
            choice[k] = (int)gsl_rng_uniform_int(s->rng, (unsigned long)s->sp->params[k].n_values);
        if (sc_seen(s, choice) < 0 && sc_allowed(s, choice)) return 1;
    }
    return 0;
}

void sc_mutate_param(sc_search *s, int *choice, int k)
{
    int n = s->sp->params[k].n_values;
    if (n < 2) return;
    if (s->categorical[k]) {
        int v = (int)gsl_rng_uniform_int(s->rng, (unsigned long)(n - 1));
        choice[k] = v >= choice[k] ? v + 1 : v;
        return;
    }
    int r = s->rank[k][choice[k]];
    int step = gsl_rng_uniform(s->rng) < 0.7 ? 1 : 2;
    int dir = gsl_rng_uniform_int(s->rng, 2) ? 1 : -1;
    int to = r + dir * step;
    if (to < 0 || to >= n) to = r - dir * step;
    if (to < 0) to = 0;
    if (to >= n) to = n - 1;
    if (to == r) to = r + 1 < n ? r + 1 : r - 1;
    choice[k] = s->by_rank[k][to];
}

int sc_repair(sc_search *s, int *choice, int keep)
{
    if (sc_allowed(s, choice)) return 1;
    int np = s->np;
    if (s->enumerated) {
        double local_x[2][256], best_d = INFINITY;
        size_t dim = (size_t)(s->dim ? s->dim : 1);
        double *xp = dim <= 256 ? local_x[0] : malloc(2 * dim * sizeof *xp);
        if (!xp) return 0;
        double *yp = dim <= 256 ? local_x[1] : xp + dim;
        sc_encode(s, choice, xp);
        int64_t best = -1;
        for (size_t i = 0; i < s->n_allowed; i++) {
            const int *c = s->allowed + i * (size_t)np;
            if (keep >= 0 && c[keep] != choice[keep]) continue;
            sc_encode(s, c, yp);
            double d = sc_dist2(s, xp, yp);
            if (d < best_d) { best_d = d; best = (int64_t)i; }
        }
        if (xp != local_x[0]) free(xp);
        if (best < 0) return 0;
        memcpy(choice, s->allowed + (size_t)best * (size_t)np, (size_t)np * sizeof *choice);
        return 1;
    }
    int local[64];
    int *orig = np <= 64 ? local : malloc((size_t)np * sizeof *orig);
    if (!orig) return 0;
    memcpy(orig, choice, (size_t)np * sizeof *orig);
    int ok = 0;
    for (int t = 0; t < 200 && !ok && np > (keep >= 0); t++) {
        memcpy(choice, orig, (size_t)np * sizeof *choice);
        int changes = 1 + t / 50;   /* widen the walk as tries fail */
        for (int c = 0; c < changes; c++) {
            int k = (int)gsl_rng_uniform_int(s->rng, (unsigned long)np);
            if (k != keep) sc_mutate_param(s, choice, k);
        }
        ok = sc_allowed(s, choice);
    }
    if (!ok) memcpy(choice, orig, (size_t)np * sizeof *choice);
    if (orig != local) free(orig);
    return ok;
}

static int add_unique(const sc_search *s, const int *origin, const int *cand, int *out, int n)
{
    size_t bytes = (size_t)s->np * sizeof *cand;
    if (memcmp(origin, cand, bytes) == 0) return n;
    for (int i = 0; i < n; i++)
        if (memcmp(out + (size_t)i * (size_t)s->np, cand, bytes) == 0) return n;
    memcpy(out + (size_t)n * (size_t)s->np, cand, bytes);
    return n + 1;
}

int sc_neighbours(sc_search *s, const int *choice, int *out, int max)
{
    int np = s->np, n = 0;
    int local[64];
    int *cand = np <= 64 ? local : malloc((size_t)np * sizeof *cand);
    if (!cand) return 0;
    for (int k = 0; k < np && n < max; k++) {
        const space_param *p = &s->sp->params[k];
        for (int v = 0; v < p->n_values && n < max; v++) {
            if (v == choice[k]) continue;
            if (!s->categorical[k]) {
                int d = s->rank[k][v] - s->rank[k][choice[k]];
                if (d != 1 && d != -1) continue;
            }
            memcpy(cand, choice, (size_t)np * sizeof *cand);
            cand[k] = v;
            if (!sc_repair(s, cand, k)) continue;
            n = add_unique(s, choice, cand, out, n);
        }
    }
    if (cand != local) free(cand);
    return n;
}
