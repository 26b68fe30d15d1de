/* space_load.c: space_load and space_free (tuner/space/space.h). Turns the YAML tree of a space file
 * (space_yaml.c) into a checked space: the kernel family and its ops, dtypes and problem
 * fields, every parameter's values against what the kernel library supports, the constraints
 * (parsed, bound to slots, type-checked, then evaluated over the whole space without a device),
 * and the search, measure and validate settings with their defaults (space_settings.c). The
 * first problem found is
 * reported as one line "path:line:col: error: message" at the offending node. */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "space_internal.h"
#include "measure/device_settings.h"
#include "space_user.h"

/* The most values one parameter may have (a range or pow2 expands to at most this many). */
#define SPACE_MAX_PARAM_VALUES 65536

/* ---- kernel, ops, dtypes ---- */

static int load_kernel(loader *L, const ynode *n)
{
    const char *name;
    if (sl_get_string(L, n, "kernel", &name) != 0)
        return -1;
    L->sp->kernel = strdup(name);
    if (!L->sp->kernel)
        return sl_fail_at(L, n, "out of memory");
    L->sp->family = op_family_find(name);
    if (!L->sp->family) {
        const op_family *const *all = op_families();
        const char *names[64];
        int count = 0;
        while (all[count] && count < 64) {
            names[count] = all[count]->kernel;
            count++;
        }
        char buf[512];
        return sl_fail_at(L, n, "kernel: unknown kernel '%.60s' (known: %s)", name,
                       sl_join_names(names, count, buf, sizeof buf));
    }
    L->sp->n_fields = L->sp->family->n_fields;
    L->sp->fields = L->sp->family->fields;
    L->cs = L->sp->family->config_space ? L->sp->family->config_space() : NULL;
    if (!L->cs)
        return sl_fail_at(L, n, "kernel: %s has no parameter space", name);
    return 0;
}

/* ops or dtypes: a non-empty list of distinct names, each one the family knows. */
static int load_name_list(loader *L, const ynode *n, const char *where, const char *const *known,
                          int n_known, int *out_n, char ***out)
{
    if (sl_expect_kind(L, n, YNODE_SEQ, where) != 0)
        return -1;
    if (n->n == 0)
        return sl_fail_at(L, n, "%s: the list is empty", where);
    *out = calloc((size_t)n->n, sizeof **out);
    if (!*out)
        return sl_fail_at(L, n, "out of memory");
    for (int k = 0; k < n->n; k++) {
        const ynode *item = n->items[k];
        const char *name;
        if (sl_get_string(L, item, where, &name) != 0)
            return -1;
        int i;
        for (i = 0; i < n_known; i++)
            if (strcmp(known[i], name) == 0)
                break;
        if (i == n_known) {
            char buf[512];
            return sl_fail_at(L, item, "%s: unknown %s '%.60s' for %s (known: %s)", where,
                           strcmp(where, "ops") == 0 ? "op" : "dtype", name, L->sp->kernel,
                           sl_join_names(known, n_known, buf, sizeof buf));
        }
        for (i = 0; i < *out_n; i++)
            if (strcmp((*out)[i], name) == 0)
                return sl_fail_at(L, item, "%s: '%s' is listed twice", where, name);
        (*out)[*out_n] = strdup(name);
        if (!(*out)[*out_n])
            return sl_fail_at(L, item, "out of memory");
        (*out_n)++;
    }
    return 0;
}

/* ---- problems ---- */

static int load_problem(loader *L, const ynode *n, problem *out)
{
    const space *sp = L->sp;
    const problem_field *fields = sp->fields;
    const char *names[64];
    value values[64];
    int given[64] = {0};
    char buf[512];
    if (sp->n_fields > 64)
        return sl_fail_at(L, n, "problems: %s has too many fields", sp->kernel);
    if (sl_expect_kind(L, n, YNODE_MAP, "problems") != 0)
        return -1;
    for (int k = 0; k < sp->n_fields; k++) {
        names[k] = fields[k].name;
        values[k] = value_int(fields[k].def);
    }
    for (int k = 0; k < n->n; k++) {
        const ynode *key = n->items[2 * k], *val = n->items[2 * k + 1];
        int i;
        for (i = 0; i < sp->n_fields; i++)
            if (strcmp(fields[i].name, key->text) == 0)
                break;
        if (i == sp->n_fields)
            return sl_fail_at(L, key, "problems: unknown field '%.60s' for %s (fields: %s)",
                              key->text, sp->kernel,
                              sl_join_names(names, sp->n_fields, buf, sizeof buf));
        char where[128];
        snprintf(where, sizeof where, "problems: %s", fields[i].name);
        int64_t v;
        if (sl_get_int(L, val, where, &v) != 0)
            return -1;
        if (v < fields[i].min || v > fields[i].max)
            return sl_fail_at(L, val, "%s: %" PRId64 " is out of range (%" PRId64 "..%" PRId64 ")",
                              where, v, fields[i].min, fields[i].max);
        values[i] = value_int(v);
        given[i] = 1;
    }
    for (int i = 0; i < sp->n_fields; i++)
        if (fields[i].required && !given[i])
            return sl_fail_at(L, n, "problems: missing required field '%s'", fields[i].name);
    if (problem_init(out, sp->n_fields, names, values) != 0)
        return sl_fail_at(L, n, "out of memory");
    return 0;
}

static int load_problems(loader *L, const ynode *n)
{
    space *sp = L->sp;
    if (sl_expect_kind(L, n, YNODE_SEQ, "problems") != 0)
        return -1;
    if (n->n == 0)
        return sl_fail_at(L, n, "problems: the list is empty");
    sp->problems = calloc((size_t)n->n, sizeof *sp->problems);
    if (!sp->problems)
        return sl_fail_at(L, n, "out of memory");
    for (int k = 0; k < n->n; k++) {
        const ynode *item = n->items[k];
        if (load_problem(L, item, &sp->problems[k]) != 0)
            return -1;
        sp->n_problems = k + 1;
        for (int j = 0; j < k; j++)
            if (strcmp(sp->problems[j].text, sp->problems[k].text) == 0)
                return sl_fail_at(L, item, "problems: %s is listed twice", sp->problems[k].text);
        if (!sp->family || !sp->family->check_problem)
            continue;
        for (int a = 0; a < sp->n_ops; a++)
            for (int b = 0; b < sp->n_dtypes; b++) {
                char why[512] = "";
                if (sp->family->check_problem(sp->family, sp->ops[a], sp->dtypes[b], &sp->problems[k], why,
                                              sizeof why) != 0)
                    return sl_fail_at(L, item, "problems: %s (%s %s): %s", sp->problems[k].text,
                                   sp->ops[a], sp->dtypes[b], why);
            }
    }
    return 0;
}

/* ---- params ---- */

/* The values a parameter supports, as text for messages: "32..1024, multiples of 32". */
static const char *support_desc(const tk_param_desc *d, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    if (d->n_values > 0) {
        at += (size_t)snprintf(buf, len, "supported: ");
        for (int k = 0; k < d->n_values && at < len; k++) {
            if (d->str_values)
                at += (size_t)snprintf(buf + at, len - at, "%s%s", k ? ", " : "", d->str_values[k]);
            else if (d->int_values)
                at += (size_t)snprintf(buf + at, len - at, "%s%" PRId64, k ? ", " : "",
                                       d->int_values[k]);
        }
        return buf;
    }
    int64_t m = d->multiple > 0 ? d->multiple : 1;
    if (m == 1)
        snprintf(buf, len, "%" PRId64 "..%" PRId64, d->lo, d->hi);
    else if (d->lo % m == 0)
        snprintf(buf, len, "%" PRId64 "..%" PRId64 ", multiples of %" PRId64, d->lo, d->hi, m);
    else
        snprintf(buf, len, "%" PRId64 "..%" PRId64 " in steps of %" PRId64, d->lo, d->hi, m);
    return buf;
}

/* Checks one value against the library's support for the parameter; at is where to point. */
static int check_supported(loader *L, const tk_param_desc *d, value v, const ynode *at)
{
    if (!d)
        return 0;   /* a user kernel's parameter: any value */
    char buf[512];
    int ok;
    if (d->n_values > 0 && d->str_values) {
        ok = 0;
        if (v.kind == VALUE_STRING)
            for (int k = 0; k < d->n_values; k++)
                if (strcmp(d->str_values[k], v.s) == 0)
                    ok = tk_param_supports(d, k);
    } else {
        ok = v.kind == VALUE_INT && tk_param_supports(d, v.i);
    }
    if (ok)
        return 0;
    char text[128];
    if (v.kind == VALUE_STRING)
        snprintf(text, sizeof text, "'%.60s'", v.s);
    else
        value_format(v, text, sizeof text);
    return sl_fail_at(L, at, "%s: %s is not supported by %s (%s)", d->name, text, L->sp->kernel,
                   support_desc(d, buf, sizeof buf));
}

/* Appends a value to p (strings copied). Returns 0 or -1 (out of memory). */
static int param_add(space_param *p, value v, int cap)
{
    if (p->n_values >= cap)
        return -1;
    if (v.kind == VALUE_STRING) {
        v.s = strdup(v.s);
        if (!v.s)
            return -1;
    }
    p->values[p->n_values++] = v;
    return 0;
}

static int load_values_list(loader *L, const tk_param_desc *d, space_param *p, const ynode *list)
{
    if (sl_expect_kind(L, list, YNODE_SEQ, p->name) != 0)
        return -1;
    if (list->n == 0)
        return sl_fail_at(L, list, "%s: the list of values is empty", p->name);
    if (list->n > SPACE_MAX_PARAM_VALUES)
        return sl_fail_at(L, list, "%s: more than %d values", p->name, SPACE_MAX_PARAM_VALUES);
    p->values = calloc((size_t)list->n, sizeof *p->values);
    if (!p->values)
        return sl_fail_at(L, list, "out of memory");
    for (int k = 0; k < list->n; k++) {
        const ynode *item = list->items[k];
        char buf[128];
        if (item->kind != YNODE_SCALAR || (item->len == 0 && !item->quoted))
            return sl_fail_at(L, item, "%s: expected a value, found %s", p->name,
                           sl_node_desc(item, buf, sizeof buf));
        int64_t i;
        value v = sl_is_int_scalar(item, &i) ? value_int(i) : value_string(item->text);
        if (k > 0 && v.kind != p->values[0].kind)
            return sl_fail_at(L, item, "%s: values mix integers and strings", p->name);
        for (int j = 0; j < p->n_values; j++)
            if (value_equal(p->values[j], v)) {
                value_format(v, buf, sizeof buf);
                return sl_fail_at(L, item, "%s: %s is listed twice", p->name, buf);
            }
        if (check_supported(L, d, v, item) != 0)
            return -1;
        if (param_add(p, v, list->n) != 0)
            return sl_fail_at(L, item, "out of memory");
    }
    return 0;
}

/* pow2: [lo, hi] or range: [lo, hi, step]; expands to the values. */
static int load_generated(loader *L, const tk_param_desc *d, space_param *p, const ynode *list,
                          int is_pow2)
{
    const char *kind = is_pow2 ? "pow2" : "range";
    char where[160];
    snprintf(where, sizeof where, "%s: %s", p->name, kind);
    if (sl_expect_kind(L, list, YNODE_SEQ, where) != 0)
        return -1;
    if (is_pow2 ? list->n != 2 : (list->n != 2 && list->n != 3))
        return sl_fail_at(L, list, "%s: expected %s, found %d value%s", where,
                       is_pow2 ? "[lo, hi]" : "[lo, hi, step]", list->n, list->n == 1 ? "" : "s");
    int64_t b[3] = {0, 0, 1};
    for (int k = 0; k < list->n; k++)
        if (sl_get_int(L, list->items[k], where, &b[k]) != 0)
            return -1;
    uint64_t count;
    if (is_pow2) {
        for (int k = 0; k < 2; k++)
            if (b[k] < 1 || (b[k] & (b[k] - 1)) != 0)
                return sl_fail_at(L, list->items[k], "%s: %" PRId64 " is not a power of two", where,
                               b[k]);
        if (b[0] > b[1])
            return sl_fail_at(L, list, "%s: lo (%" PRId64 ") is greater than hi (%" PRId64 ")",
                           where, b[0], b[1]);
        count = (uint64_t)(__builtin_ctzll((unsigned long long)b[1]) -
                           __builtin_ctzll((unsigned long long)b[0])) + 1;
    } else {
        if (b[2] <= 0)
            return sl_fail_at(L, list->n == 3 ? list->items[2] : list,
                           "%s: step must be positive, found %" PRId64, where, b[2]);
        if (b[0] > b[1])
            return sl_fail_at(L, list, "%s: lo (%" PRId64 ") is greater than hi (%" PRId64 ")",
                           where, b[0], b[1]);
        count = ((uint64_t)b[1] - (uint64_t)b[0]) / (uint64_t)b[2] + 1;
    }
    if (count > SPACE_MAX_PARAM_VALUES)
        return sl_fail_at(L, list, "%s: gives %" PRIu64 " values (the limit is %d)", where, count,
                       SPACE_MAX_PARAM_VALUES);
    p->values = calloc((size_t)count, sizeof *p->values);
    if (!p->values)
        return sl_fail_at(L, list, "out of memory");
    int64_t v = b[0];
    for (uint64_t k = 0; k < count; k++) {
        if (check_supported(L, d, value_int(v), list) != 0)
            return -1;
        param_add(p, value_int(v), (int)count);
        if (k + 1 < count)
            v = is_pow2 ? v * 2 : v + b[2];
    }
    return 0;
}

/* A device setting's parameter (gpu_clock_mhz, mem_clock_mhz, power_limit_w: measure/
 * device_settings.h): a user kernel's only, its values whole numbers from 0 (as the driver has
 * it) to DEVSET_MAX_VALUE, given as values or range. */
static int load_device_param(loader *L, const ynode *key, const ynode *body, space_param *p)
{
    static const char *const kinds[] = {"values", "range"};
    if (L->cs)
        return sl_fail_at(L, key, "params: %s is a device setting, which only a user kernel's "
                                  "space can tune (docs/energy.md)", key->text);
    if (sl_expect_kind(L, body, YNODE_MAP, p->name) != 0 ||
        sl_check_keys(L, body, p->name, kinds, 2) != 0)
        return -1;
    if (body->n != 1)
        return sl_fail_at(L, body, "%s: needs one of values or range", p->name);
    const ynode *list = body->items[1];
    if (list->kind == YNODE_SEQ)
        for (int k = 0; k < list->n; k++) {
            int64_t v;
            const ynode *item = list->items[k];
            if (!sl_is_int_scalar(item, &v) || v < 0 || v > DEVSET_MAX_VALUE)
                return sl_fail_at(L, item, "%s: a device setting takes whole numbers from 0 (as "
                                           "the driver has it) to %d, found '%.60s'", p->name,
                                  DEVSET_MAX_VALUE,
                                  item->kind == YNODE_SCALAR ? item->text : "a list or mapping");
        }
    if (strcmp(body->items[0]->text, "values") == 0 ? load_values_list(L, NULL, p, list)
                                                    : load_generated(L, NULL, p, list, 0))
        return -1;
    for (int k = 0; k < p->n_values; k++)
        if (p->values[k].kind != VALUE_INT || p->values[k].i < 0 ||
            p->values[k].i > DEVSET_MAX_VALUE)
            return sl_fail_at(L, list, "%s: a device setting takes whole numbers from 0 (as the "
                                       "driver has it) to %d", p->name, DEVSET_MAX_VALUE);
    return 0;
}

static int load_param(loader *L, const ynode *key, const ynode *body, space_param *p)
{
    static const char *const kinds[] = {"values", "pow2", "range"};
    p->name = strdup(key->text);
    if (!p->name)
        return sl_fail_at(L, key, "out of memory");
    p->line = key->line;
    p->col = key->col;
    const tk_param_desc *d = NULL;
    const char *names[64];
    if (devset_param_index(key->text) >= 0)
        return load_device_param(L, key, body, p);
    if (!L->cs) {
        /* A user kernel's parameter: any name an expression can read and no other name has. */
        if (!su_is_identifier(key->text))
            return sl_fail_at(L, key, "params: '%.60s' is not a name expressions can read "
                                      "(letters, digits and _, not starting with a digit)",
                              key->text);
        for (int k = 0; k < L->sp->n_fields; k++)
            if (strcmp(L->sp->fields[k].name, key->text) == 0)
                return sl_fail_at(L, key, "params: '%s' is also a problem field", key->text);
        if (space_is_given_name(key->text))
            return sl_fail_at(L, key, "params: '%s' is a name the tuner gives (dtype, "
                                      "dtype_size, ctype, op or a device attribute)", key->text);
    }
    for (int k = 0; L->cs && k < L->cs->n_params && k < 64; k++) {
        names[k] = L->cs->params[k].name;
        if (strcmp(names[k], key->text) == 0)
            d = &L->cs->params[k];
    }
    if (!d && L->cs) {
        char buf[512];
        return sl_fail_at(L, key, "params: unknown parameter '%.60s' for %s (parameters: %s)",
                       key->text, L->sp->kernel,
                       sl_join_names(names, L->cs->n_params < 64 ? L->cs->n_params : 64, buf,
                                  sizeof buf));
    }
    if (sl_expect_kind(L, body, YNODE_MAP, p->name) != 0)
        return -1;
    if (sl_check_keys(L, body, p->name, kinds, 3) != 0)
        return -1;
    if (body->n == 0)
        return sl_fail_at(L, body, "%s: needs one of values, pow2 or range", p->name);
    if (body->n > 1)
        return sl_fail_at(L, body->items[2], "%s: give only one of values, pow2 or range", p->name);
    const char *kind = body->items[0]->text;
    const ynode *list = body->items[1];
    if (strcmp(kind, "values") == 0)
        return load_values_list(L, d, p, list);
    return load_generated(L, d, p, list, strcmp(kind, "pow2") == 0);
}

/* A family parameter the space does not list is fixed at the library's default value, so a
 * space keeps working when a family gains a parameter. It is declared where `params:` is. */
static int add_default_param(loader *L, const ynode *at, const tk_param_desc *d, space_param *p)
{
    p->name = strdup(d->name);
    p->values = calloc(1, sizeof *p->values);
    if (!p->name || !p->values)
        return sl_fail_at(L, at, "out of memory");
    p->line = at->line;
    p->col = at->col;
    value v = d->str_values ? value_string(d->str_values[d->default_value])
                            : value_int(d->default_value);
    if (param_add(p, v, 1) != 0)
        return sl_fail_at(L, at, "out of memory");
    return 0;
}

static int load_params(loader *L, const ynode *n)
{
    space *sp = L->sp;
    if (sl_expect_kind(L, n, YNODE_MAP, "params") != 0)
        return -1;
    if (n->n == 0)
        return sl_fail_at(L, n, "params: no parameters given");
    sp->params = calloc((size_t)(n->n + (L->cs ? L->cs->n_params : 0)), sizeof *sp->params);
    if (!sp->params)
        return sl_fail_at(L, n, "out of memory");
    for (int k = 0; k < n->n; k++) {
        sp->n_params = k + 1;
        if (load_param(L, n->items[2 * k], n->items[2 * k + 1], &sp->params[k]) != 0)
            return -1;
    }
    for (int i = 0; L->cs && i < L->cs->n_params; i++) {
        if (ynode_get(n, L->cs->params[i].name))
            continue;
        if (add_default_param(L, n, &L->cs->params[i], &sp->params[sp->n_params++]) != 0)
            return -1;
    }
    return 0;
}

/* ---- constraints ---- */

typedef struct resolve_ctx {
    const space *sp;
    int uses_device;
} resolve_ctx;

static int resolve(void *ctx, const char *name, int *mask)
{
    resolve_ctx *r = ctx;
    int is_device = 0;
    int slot = space_resolve_slot(r->sp, name, mask, &is_device);
    if (slot >= 0 && is_device)
        r->uses_device = 1;
    return slot;
}

static int load_constraints(loader *L, const ynode *n)
{
    space *sp = L->sp;
    if (sl_expect_kind(L, n, YNODE_SEQ, "constraints") != 0)
        return -1;
    sp->constraints = calloc((size_t)n->n + 1, sizeof *sp->constraints);
    if (!sp->constraints)
        return sl_fail_at(L, n, "out of memory");
    for (int k = 0; k < n->n; k++) {
        const ynode *item = n->items[k];
        char buf[128];
        if (item->kind != YNODE_SCALAR)
            return sl_fail_at(L, item, "constraints: expected an expression, found %s",
                           sl_node_desc(item, buf, sizeof buf));
        space_constraint *c = &sp->constraints[k];
        sp->n_constraints = k + 1;
        c->text = strdup(item->text);
        if (!c->text)
            return sl_fail_at(L, item, "out of memory");
        c->line = item->line;
        c->col = item->col + (item->quoted == 1 ? 1 : 0);
        expr_error e;
        c->e = expr_parse(c->text, &e);
        resolve_ctx r = {sp, 0};
        if (!c->e || expr_bind(c->e, resolve, &r, &e) != 0) {
            space_constraint_error(sp, k, &e, L->err, L->len);
            return -1;
        }
        c->uses_device = r.uses_device;
    }
    return 0;
}

/* Evaluates every constraint over the whole space for every op, dtype and problem (without a
 * device): an evaluation error anywhere, or no config at all, is an error. */
static int check_nonempty(loader *L, const ynode *constraints)
{
    space *sp = L->sp;
    int64_t total = 0;
    /* every config of every (op, dtype, problem) is checked here, within one budget of steps:
     * what the run would enumerate later anyway, bounded now */
    int64_t budget = space_max_enum_steps;
    for (int a = 0; a < sp->n_ops; a++)
        for (int b = 0; b < sp->n_dtypes; b++)
            for (int c = 0; c < sp->n_problems; c++) {
                space_binding bind = {sp->ops[a], sp->dtypes[b], &sp->problems[c], NULL};
                int64_t n = space_count_within(sp, &bind, &budget, L->err, L->len);
                if (n < 0)
                    return -1;
                total += n;
            }
    if (total == 0)
        return sl_fail_at(L, constraints, "constraints allow no config (for any op, dtype and "
                                       "problem)");
    return 0;
}

/* ---- the whole file ---- */


/* A user kernel's file (docs/user-kernels.md): `kernel:` is a mapping, `ops` is not given,
 * `dtypes` is optional, `reference` may be. */
static int load_user_root(loader *L, const ynode *root)
{
    static const char *const keys[] = {"kernel", "dtypes", "problems", "params", "constraints",
                                       "search", "measure", "validate", "reference"};
    static const char *const required[] = {"problems", "params"};
    if (ynode_get(root, "ops"))
        return sl_fail_at(L, ynode_get(root, "ops"), "ops: a user kernel has one op, its "
                                                     "function; leave ops out");
    if (sl_check_keys(L, root, NULL, keys, 9) != 0)
        return -1;
    if (L->inputs && sl_expect_kind(L, L->inputs, YNODE_MAP, "inputs") != 0)
        return -1;
    for (int k = 0; k < 2; k++)
        if (!ynode_get(root, required[k]))
            return sl_fail_at(L, root, "missing required key '%s'", required[k]);
    const ynode *kernel = ynode_get(root, "kernel"), *v;
    if (su_load_head(L, kernel, ynode_get(root, "dtypes")) != 0 ||
        su_load_fields(L, ynode_get(root, "problems")) != 0 ||
        load_problems(L, ynode_get(root, "problems")) != 0 ||
        load_params(L, ynode_get(root, "params")) != 0)
        return -1;
    if ((v = ynode_get(root, "constraints")) && load_constraints(L, v) != 0)
        return -1;
    if (su_load_body(L, kernel, ynode_get(root, "reference")) != 0)
        return -1;
    if ((v = ynode_get(root, "search")) && sl_load_search(L, v) != 0)
        return -1;
    if ((v = ynode_get(root, "measure")) && sl_load_measure(L, v) != 0)
        return -1;
    if ((v = ynode_get(root, "validate")) && sl_load_validate(L, v) != 0)
        return -1;
    if (!L->sp->user->ref && L->sp->validate.enabled)
        return sl_fail_at(L, root, "a user kernel needs a reference: to validate its variants "
                                   "against (or validate: { enabled: false })");
    return check_nonempty(L, ynode_get(root, "constraints"));
}

static int load_root(loader *L, const ynode *root)
{
    static const char *const keys[] = {"kernel", "ops", "dtypes", "problems", "params",
                                       "constraints", "search", "measure", "validate"};
    static const char *const required[] = {"kernel", "ops", "dtypes", "problems", "params"};
    space *sp = L->sp;
    if (!root) {
        space_errorf(L->err, L->len, L->path, 1, 1,
                     "the file is empty (expected kernel, ops, dtypes, problems and params)");
        return -1;
    }
    if (root->kind != YNODE_MAP) {
        char buf[128];
        return sl_fail_at(L, root, "expected a mapping with kernel, ops, dtypes, problems and "
                                "params at the top level, found %s",
                       sl_node_desc(root, buf, sizeof buf));
    }
    const ynode *kernel = ynode_get(root, "kernel");
    if (kernel && kernel->kind == YNODE_MAP)
        return load_user_root(L, root);
    if (sl_check_keys(L, root, NULL, keys, 9) != 0)
        return -1;
    for (int k = 0; k < 5; k++)
        if (!ynode_get(root, required[k]))
            return sl_fail_at(L, root, "missing required key '%s'", required[k]);
    const op_family *f;
    if (load_kernel(L, kernel) != 0)
        return -1;
    f = sp->family;
    if (load_name_list(L, ynode_get(root, "ops"), "ops", f->ops, f->n_ops, &sp->n_ops,
                       &sp->ops) != 0 ||
        load_name_list(L, ynode_get(root, "dtypes"), "dtypes", f->dtypes, f->n_dtypes,
                       &sp->n_dtypes, &sp->dtypes) != 0 ||
        load_problems(L, ynode_get(root, "problems")) != 0 ||
        load_params(L, ynode_get(root, "params")) != 0)
        return -1;
    const ynode *v;
    if ((v = ynode_get(root, "constraints")) && load_constraints(L, v) != 0)
        return -1;
    if ((v = ynode_get(root, "search")) && sl_load_search(L, v) != 0)
        return -1;
    if ((v = ynode_get(root, "measure")) && sl_load_measure(L, v) != 0)
        return -1;
    if ((v = ynode_get(root, "validate")) && sl_load_validate(L, v) != 0)
        return -1;
    return check_nonempty(L, ynode_get(root, "constraints"));
}

/* The root a space that extends another (`base: PATH`, what libtunekit's capture writes) loads
 * as: every key of the base's root but those this file gives, and this file's (`base` and
 * `inputs` aside: L->base_path and L->inputs say them). A shallow map over both trees' nodes:
 * free it with free(m->items), free(m). 0, or -1 with the error. */
static int extend_root(loader *L, const ynode *root, ynode **base, char **base_path,
                       ynode **merged)
{
    const ynode *b = ynode_get(root, "base");
    const char *name;
    char sha[65];
    if (sl_get_string(L, b, "base", &name) != 0)
        return -1;
    const char *slash = strrchr(L->path, '/');
    size_t dir = slash ? (size_t)(slash - L->path) + 1 : 0;
    size_t n = dir + strlen(name) + 1;
    if (!(*base_path = malloc(n)))
        return sl_fail_at(L, b, "out of memory");
    if (name[0] == '/')
        snprintf(*base_path, n, "%s", name);
    else
        snprintf(*base_path, n, "%.*s%s", (int)dir, L->path, name);
    char err[1024];
    if (space_yaml_read(*base_path, base, sha, err, sizeof err) != 0) {
        /* "<path>: error: cannot open: ..." reads better without its own "error:" */
        size_t n_path = strlen(*base_path);
        const char *why = strncmp(err, *base_path, n_path) == 0 &&
                                  strncmp(err + n_path, ": error: ", 9) == 0
                              ? err + n_path + 9 : NULL;
        return why ? sl_fail_at(L, b, "base: %s: %s", *base_path, why)
                   : sl_fail_at(L, b, "base: %s", err);
    }
    if (!*base || (*base)->kind != YNODE_MAP)
        return sl_fail_at(L, b, "base: %s is not a space file", *base_path);
    if (ynode_get(*base, "base"))
        return sl_fail_at(L, b, "base: %s extends another space itself", *base_path);
    if (ynode_get(root, "kernel"))
        return sl_fail_at(L, ynode_get(root, "kernel"), "kernel: a space with a base: runs the "
                                                         "base's kernel; change it there");
    ynode *m = calloc(1, sizeof *m);
    if (!m || !(m->items = calloc((size_t)(root->n + (*base)->n) * 2 + 2, sizeof *m->items))) {
        free(m);
        return sl_fail_at(L, b, "out of memory");
    }
    *m = (ynode){.kind = YNODE_MAP, .line = root->line, .col = root->col, .items = m->items};
    for (int k = 0; k < (*base)->n; k++)
        if (!ynode_get(root, (*base)->items[2 * k]->text)) {
            m->items[2 * m->n] = (*base)->items[2 * k];
            m->items[2 * m->n + 1] = (*base)->items[2 * k + 1];
            m->n++;
        }
    for (int k = 0; k < root->n; k++) {
        const char *key = root->items[2 * k]->text;
        if (strcmp(key, "base") == 0 || strcmp(key, "inputs") == 0)
            continue;
        m->items[2 * m->n] = root->items[2 * k];
        m->items[2 * m->n + 1] = root->items[2 * k + 1];
        m->n++;
    }
    L->inputs = ynode_get(root, "inputs");
    L->base_path = *base_path;
    *merged = m;
    return 0;
}

space *space_load(const char *path, char *err, size_t len)
{
    ynode *root = NULL, *base = NULL, *merged = NULL;
    char *base_path = NULL;
    space *sp = calloc(1, sizeof *sp);
    if (!sp) {
        space_errorf(err, len, path, 0, 0, "out of memory");
        return NULL;
    }
    loader L = {sp, path, err, len, NULL, NULL, NULL};
    sl_set_defaults(sp);
    sp->path = strdup(path);
    sp->search.strategy = strdup("exhaustive");
    if (!sp->path || !sp->search.strategy) {
        space_errorf(err, len, path, 0, 0, "out of memory");
        goto fail;
    }
    if (space_yaml_read(path, &root, sp->sha256, err, len) != 0)
        goto fail;
    if (root && root->kind == YNODE_MAP && ynode_get(root, "base")) {
        if (extend_root(&L, root, &base, &base_path, &merged) != 0)
            goto fail;
        if (load_root(&L, merged) != 0)
            goto fail;
        if (!sp->user) {
            sl_fail_at(&L, ynode_get(root, "base"), "base: only a user kernel's space may "
                                                     "extend another");
            goto fail;
        }
    } else {
        if (root && root->kind == YNODE_MAP && ynode_get(root, "inputs")) {
            sl_fail_at(&L, ynode_get(root, "inputs"), "inputs: only a space with a base: has "
                                                       "inputs");
            goto fail;
        }
        if (load_root(&L, root) != 0)
            goto fail;
    }
    if (merged)
        free(merged->items);
    free(merged);
    ynode_free(base);
    free(base_path);
    ynode_free(root);
    return sp;
fail:
    if (merged)
        free(merged->items);
    free(merged);
    ynode_free(base);
    free(base_path);
    ynode_free(root);
    space_free(sp);
    return NULL;
}

void space_free(space *sp)
{
    if (!sp)
        return;
    free(sp->path);
    free(sp->kernel);
    for (int k = 0; k < sp->n_ops; k++)
        free(sp->ops[k]);
    free(sp->ops);
    for (int k = 0; k < sp->n_dtypes; k++)
        free(sp->dtypes[k]);
    free(sp->dtypes);
    for (int k = 0; k < sp->n_problems; k++)
        problem_clear(&sp->problems[k]);
    free(sp->problems);
    for (int k = 0; k < sp->n_params; k++) {
        space_param *p = &sp->params[k];
        for (int v = 0; p->values && v < p->n_values; v++)
            if (p->values[v].kind == VALUE_STRING)
                free((char *)p->values[v].s);
        free(p->values);
        free(p->name);
    }
    free(sp->params);
    for (int k = 0; k < sp->n_constraints; k++) {
        free(sp->constraints[k].text);
        expr_free(sp->constraints[k].e);
    }
    free(sp->constraints);
    free(sp->search.strategy);
    free(sp->search.start);
    if (sp->user) {
        /* a user kernel's fields are its own */
        for (int k = 0; k < sp->n_fields; k++)
            free((char *)sp->fields[k].name);
        free((problem_field *)sp->fields);
        space_user_free(sp->user);
    }
    free(sp);
}
