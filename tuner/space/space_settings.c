/* space_settings.c: a space file's settings sections, split from space_load.c: `search`
 * (strategy, budget, seed, objective, start configs), `measure` (runs, cache, timeout, racing, the
 * energy window and an energy search's contenders) and `validate`, each checked with
 * file:line:col errors, and the defaults they start from. space_load.c calls them while it loads
 * the whole file. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "space_internal.h"
#include "core/objective.h"
#include "search/strategy.h"

/* ---- search, measure, validate ---- */

/* Why text is not a config of sp (space_config_parse refused it): the first item that is not
 * name=value, names no parameter or one named before, or has a value its parameter has not;
 * else the first parameter it leaves out. */
static void start_config_problem(const space *sp, const char *text, char *why, size_t len)
{
    int seen[256] = {0};
    for (const char *p = text; *p;) {
        size_t item = strcspn(p, ",");
        const char *eq = memchr(p, '=', item);
        if (!eq) {
            snprintf(why, len, "'%.*s' is not name=value", (int)item, p);
            return;
        }
        int k, name_len = (int)(eq - p);
        for (k = 0; k < sp->n_params; k++)
            if ((int)strlen(sp->params[k].name) == name_len &&
                memcmp(sp->params[k].name, p, (size_t)name_len) == 0)
                break;
        if (k == sp->n_params) {
            snprintf(why, len, "no parameter '%.*s'", name_len, p);
            return;
        }
        if (k < 256 && seen[k]++) {
            snprintf(why, len, "%s given twice", sp->params[k].name);
            return;
        }
        int found = 0;
        for (int v = 0; v < sp->params[k].n_values && !found; v++) {
            char f[256];
            int w = value_format(sp->params[k].values[v], f, sizeof f);
            found = w >= 0 && (size_t)w == item - (size_t)name_len - 1 &&
                    memcmp(f, eq + 1, (size_t)w) == 0;
        }
        if (!found) {
            snprintf(why, len, "%s has no value %.*s", sp->params[k].name,
                     (int)(item - (size_t)name_len - 1), eq + 1);
            return;
        }
        p += item + (p[item] == ',');
    }
    for (int k = 0; k < sp->n_params && k < 256; k++)
        if (!seen[k]) {
            snprintf(why, len, "no value for %s (every parameter once)", sp->params[k].name);
            return;
        }
    snprintf(why, len, "malformed");
}

/* search.start: a list of config texts ("a=1,b=2": every parameter once, in any order), each
 * one of the space's values. */
static int load_start(loader *L, const ynode *n, space_search *s)
{
    if (sl_expect_kind(L, n, YNODE_SEQ, "search.start") != 0)
        return -1;
    const space *sp = L->sp;
    size_t np = (size_t)(sp->n_params ? sp->n_params : 1);
    free(s->start);
    s->n_start = 0;
    s->start = malloc((size_t)(n->n ? n->n : 1) * np * sizeof *s->start);
    if (!s->start)
        return sl_fail_at(L, n, "out of memory");
    for (int i = 0; i < n->n; i++) {
        const ynode *c = n->items[i];
        const char *text;
        char where[64];
        snprintf(where, sizeof where, "search.start[%d]", i);
        if (sl_get_string(L, c, where, &text) != 0)
            return -1;
        if (space_config_parse(sp, text, s->start + (size_t)s->n_start * np) != 0) {
            char why[256];
            start_config_problem(sp, text, why, sizeof why);
            return sl_fail_at(L, c, "%s: '%.200s' is not a config of this space: %s", where,
                              text, why);
        }
        s->n_start++;
    }
    return 0;
}

int sl_load_search(loader *L, const ynode *n)
{
    static const char *const keys[] = {"strategy", "budget", "seed", "start", "objective"};
    static const char *const budget_keys[] = {"evals", "seconds"};
    space_search *s = &L->sp->search;
    if (sl_expect_kind(L, n, YNODE_MAP, "search") != 0 || sl_check_keys(L, n, "search", keys, 5) != 0)
        return -1;
    const ynode *v;
    if ((v = ynode_get(n, "strategy"))) {
        const char *name;
        if (sl_get_string(L, v, "search.strategy", &name) != 0)
            return -1;
        if (!strategy_find(name)) {
            const strategy_vtable *const *all = strategy_all();
            const char *names[64];
            int count = 0;
            while (all[count] && count < 64) {
                names[count] = all[count]->name;
                count++;
            }
            char buf[512];
            return sl_fail_at(L, v, "search.strategy: unknown strategy '%.60s' (known: %s)", name,
                           sl_join_names(names, count, buf, sizeof buf));
        }
        char *copy = strdup(name);
        if (!copy)
            return sl_fail_at(L, v, "out of memory");
        free(s->strategy);
        s->strategy = copy;
    }
    if ((v = ynode_get(n, "budget"))) {
        if (sl_expect_kind(L, v, YNODE_MAP, "search.budget") != 0 ||
            sl_check_keys(L, v, "search.budget", budget_keys, 2) != 0)
            return -1;
        const ynode *b;
        if ((b = ynode_get(v, "evals"))) {
            if (sl_get_int(L, b, "search.budget.evals", &s->budget_evals) != 0)
                return -1;
            if (s->budget_evals < 0)
                return sl_fail_at(L, b, "search.budget.evals: must not be negative, found %" PRId64,
                               s->budget_evals);
        }
        if ((b = ynode_get(v, "seconds"))) {
            if (sl_get_float(L, b, "search.budget.seconds", &s->budget_seconds) != 0)
                return -1;
            if (s->budget_seconds < 0)
                return sl_fail_at(L, b, "search.budget.seconds: must not be negative, found %g",
                               s->budget_seconds);
        }
    }
    if ((v = ynode_get(n, "seed"))) {
        int64_t seed;
        if (sl_get_int(L, v, "search.seed", &seed) != 0)
            return -1;
        if (seed < 0)
            return sl_fail_at(L, v, "search.seed: must not be negative, found %" PRId64, seed);
        s->seed = (uint64_t)seed;
    }
    if ((v = ynode_get(n, "objective"))) {
        const char *name;
        if (sl_get_string(L, v, "search.objective", &name) != 0)
            return -1;
        int o = objective_parse(name);
        if (o < 0)
            return sl_fail_at(L, v, "search.objective: unknown objective '%.60s' (known: time, "
                              "energy, edp)", name);
        s->objective = o;
    }
    if ((v = ynode_get(n, "start")))
        return load_start(L, v, s);
    return 0;
}

/* An int setting within [lo, hi]. */
static int get_int_in(loader *L, const ynode *n, const char *where, int64_t lo, int64_t hi,
                      int *out)
{
    int64_t v;
    if (sl_get_int(L, n, where, &v) != 0)
        return -1;
    if (v < lo)
        return sl_fail_at(L, n, "%s: must be at least %" PRId64 ", found %" PRId64, where, lo, v);
    if (v > hi)
        return sl_fail_at(L, n, "%s: must be at most %" PRId64 ", found %" PRId64, where, hi, v);
    *out = (int)v;
    return 0;
}

int sl_load_measure(loader *L, const ynode *n)
{
    static const char *const keys[] = {"warmup", "min_runs", "max_runs", "rel_ci", "cache",
                                       "timeout", "max_seconds", "race", "energy",
                                       "energy_within", "energy_top"};
    measure_settings *m = &L->sp->measure;
    if (sl_expect_kind(L, n, YNODE_MAP, "measure") != 0 || sl_check_keys(L, n, "measure", keys, 11) != 0)
        return -1;
    const ynode *v, *min_node, *max_node;
    if ((v = ynode_get(n, "warmup")) && get_int_in(L, v, "measure.warmup", 0, 1000000, &m->warmup))
        return -1;
    if ((min_node = ynode_get(n, "min_runs")) &&
        get_int_in(L, min_node, "measure.min_runs", 1, 1000000, &m->min_runs))
        return -1;
    if ((max_node = ynode_get(n, "max_runs")) &&
        get_int_in(L, max_node, "measure.max_runs", 1, 1000000, &m->max_runs))
        return -1;
    if (m->max_runs < m->min_runs) {
        if (max_node)
            return sl_fail_at(L, max_node, "measure.max_runs: %d is less than min_runs (%d)",
                           m->max_runs, m->min_runs);
        return sl_fail_at(L, min_node, "measure.min_runs: %d is more than max_runs (%d)",
                       m->min_runs, m->max_runs);
    }
    if ((v = ynode_get(n, "rel_ci"))) {
        if (sl_get_float(L, v, "measure.rel_ci", &m->rel_ci) != 0)
            return -1;
        if (!(m->rel_ci > 0 && m->rel_ci < 1))
            return sl_fail_at(L, v, "measure.rel_ci: must be between 0 and 1 (exclusive), found %g",
                           m->rel_ci);
    }
    if ((v = ynode_get(n, "cache"))) {
        const char *cache;
        if (sl_get_string(L, v, "measure.cache", &cache) != 0)
            return -1;
        if (strcmp(cache, "cold") != 0 && strcmp(cache, "hot") != 0 && strcmp(cache, "clean") != 0)
            return sl_fail_at(L, v, "measure.cache: must be cold, clean or hot, found '%.60s'", cache);
        m->cold = strcmp(cache, "cold") == 0 ? MEASURE_COLD
                : strcmp(cache, "clean") == 0 ? MEASURE_CLEAN : MEASURE_HOT;
    }
    if ((v = ynode_get(n, "timeout"))) {
        if (sl_get_float(L, v, "measure.timeout", &m->timeout_s) != 0)
            return -1;
        if (!(m->timeout_s > 0))
            return sl_fail_at(L, v, "measure.timeout: must be positive (seconds), found %g",
                           m->timeout_s);
    }
    if ((v = ynode_get(n, "max_seconds"))) {
        if (sl_get_float(L, v, "measure.max_seconds", &m->max_seconds) != 0)
            return -1;
        if (!(m->max_seconds > 0))
            return sl_fail_at(L, v, "measure.max_seconds: must be positive (seconds), found %g",
                           m->max_seconds);
    }
    if ((v = ynode_get(n, "race"))) {
        if (sl_get_float(L, v, "measure.race", &m->race_margin) != 0)
            return -1;
        if (!(m->race_margin >= 0 && m->race_margin < 1))
            return sl_fail_at(L, v, "measure.race: must be at least 0 and below 1 (the margin, "
                              "0.05 for 5%%; 0 turns racing and the playoff off), found %g",
                              m->race_margin);
    }
    if ((v = ynode_get(n, "energy"))) {
        if (sl_get_float(L, v, "measure.energy", &m->energy_s) != 0)
            return -1;
        if (!(m->energy_s >= 0 && m->energy_s <= 60))
            return sl_fail_at(L, v, "measure.energy: must be between 0 and 60 (seconds of the "
                              "energy window; 0 turns energy off), found %g", m->energy_s);
    }
    if ((v = ynode_get(n, "energy_within"))) {
        if (sl_get_float(L, v, "measure.energy_within", &m->energy_within) != 0)
            return -1;
        if (!(m->energy_within > 0 && m->energy_within <= 10))
            return sl_fail_at(L, v, "measure.energy_within: must be above 0 and at most 10 (the "
                              "fraction over the best time, 0.25 for 25%%), found %g",
                              m->energy_within);
    }
    if ((v = ynode_get(n, "energy_top"))) {
        int64_t top;
        if (v->kind == YNODE_SCALAR && strcmp(v->text, "all") == 0)
            m->energy_top = MEASURE_ENERGY_ALL;
        else if (!sl_is_int_scalar(v, &top))
            return sl_fail_at(L, v, "measure.energy_top: must be a count of configs (1 to %d) or "
                              "all, found '%.60s'", MEASURE_ENERGY_TOP_MAX,
                              v->kind == YNODE_SCALAR ? v->text : "a list or mapping");
        else if (get_int_in(L, v, "measure.energy_top", 1, MEASURE_ENERGY_TOP_MAX, &m->energy_top))
            return -1;
    }
    return 0;
}

int sl_load_validate(loader *L, const ynode *n)
{
    static const char *const keys[] = {"enabled", "tolerance_scale"};
    space_validate *val = &L->sp->validate;
    if (sl_expect_kind(L, n, YNODE_MAP, "validate") != 0 ||
        sl_check_keys(L, n, "validate", keys, 2) != 0)
        return -1;
    const ynode *v;
    if ((v = ynode_get(n, "enabled")) && sl_get_bool(L, v, "validate.enabled", &val->enabled) != 0)
        return -1;
    if ((v = ynode_get(n, "tolerance_scale"))) {
        if (sl_get_float(L, v, "validate.tolerance_scale", &val->tolerance_scale) != 0)
            return -1;
        if (!(val->tolerance_scale > 0))
            return sl_fail_at(L, v, "validate.tolerance_scale: must be positive, found %g",
                           val->tolerance_scale);
    }
    return 0;
}

/* ---- defaults ---- */

void sl_set_defaults(space *sp)
{
    sp->search.budget_evals = 0;
    sp->search.budget_seconds = 0;
    sp->search.seed = 1;
    sp->measure.warmup = 2;   /* the validation launch, then one more (docs/time-to-tune.md) */
    sp->measure.min_runs = 10;
    sp->measure.max_runs = 200;
    sp->measure.rel_ci = 0.01;
    sp->measure.cold = MEASURE_COLD;
    sp->measure.timeout_s = 10;
    sp->measure.max_seconds = 2;
    sp->measure.race_margin = 0.05;
    sp->measure.energy_within = 0.25;
    sp->measure.energy_top = 4;
    sp->validate.enabled = 1;
    sp->validate.tolerance_scale = 1.0;
}
