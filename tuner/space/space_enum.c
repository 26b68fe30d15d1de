/* space_enum.c: the configs a loaded space allows (tuner/space/space.h): the slot layout constraint
 * expressions are bound to, the pruning odometer behind space_iter (each constraint is tested
 * as soon as the last parameter it reads is assigned, so a rejected prefix is never expanded and
 * nothing is materialised), counting, checking one config, and canonical config text. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "space_internal.h"
#include "space_user.h"

/* The device attributes an expression may read (core/device.h), in slot order. */
static const char *const device_slot_names[] = {
    "sm_count", "max_threads_per_sm", "max_threads_per_block", "l2_bytes",
    "mem_bytes", "cc", "regs_per_sm", "smem_per_sm", "smem_per_block",
};
#define N_DEVICE_SLOTS ((int)(sizeof device_slot_names / sizeof device_slot_names[0]))

/* Offsets of the fixed names after the params and the problem fields. */
enum { FIXED_DTYPE, FIXED_DTYPE_SIZE, FIXED_CTYPE, FIXED_OP, FIXED_COUNT };

static int fields_base(const space *sp) { return sp->n_params; }
static int fixed_base(const space *sp) { return sp->n_params + sp->n_fields; }
static int device_base(const space *sp) { return fixed_base(sp) + FIXED_COUNT; }

int space_slot_count(const space *sp)
{
    return device_base(sp) + N_DEVICE_SLOTS;
}

int space_resolve_slot(const space *sp, const char *name, int *mask, int *is_device)
{
    *is_device = 0;
    for (int k = 0; k < sp->n_params; k++)
        if (strcmp(sp->params[k].name, name) == 0) {
            int m = 0;
            for (int v = 0; v < sp->params[k].n_values; v++)
                m |= sp->params[k].values[v].kind == VALUE_STRING ? SLOT_STRING : SLOT_INT;
            *mask = m ? m : SLOT_INT;
            return k;
        }
    for (int k = 0; k < sp->n_fields; k++)
        if (strcmp(sp->fields[k].name, name) == 0) {
            *mask = SLOT_INT;
            return fields_base(sp) + k;
        }
    if (strcmp(name, "dtype") == 0) {
        *mask = SLOT_STRING;
        return fixed_base(sp) + FIXED_DTYPE;
    }
    if (strcmp(name, "dtype_size") == 0) {
        *mask = SLOT_INT;
        return fixed_base(sp) + FIXED_DTYPE_SIZE;
    }
    if (strcmp(name, "ctype") == 0) {
        *mask = SLOT_STRING;
        return fixed_base(sp) + FIXED_CTYPE;
    }
    if (strcmp(name, "op") == 0) {
        *mask = SLOT_STRING;
        return fixed_base(sp) + FIXED_OP;
    }
    value unused;
    if (!device_attr_lookup(NULL, name, &unused))
        return -1;
    for (int k = 0; k < N_DEVICE_SLOTS; k++)
        if (strcmp(device_slot_names[k], name) == 0) {
            *mask = SLOT_INT;
            *is_device = 1;
            return device_base(sp) + k;
        }
    return -1;
}

int space_is_given_name(const char *name)
{
    static const char *const fixed[] = {"dtype", "dtype_size", "ctype", "op"};
    for (size_t k = 0; k < sizeof fixed / sizeof *fixed; k++)
        if (strcmp(fixed[k], name) == 0)
            return 1;
    return device_attr_lookup(NULL, name, NULL);
}

/* Bytes per element of a dtype name: its trailing bit count / 8 ("f32" 4, "bf16" 2), 0 if none. */
static int64_t dtype_bytes(const char *dtype)
{
    size_t n = dtype ? strlen(dtype) : 0, k = n;
    while (k > 0 && dtype[k - 1] >= '0' && dtype[k - 1] <= '9')
        k--;
    if (k == n || n - k > 4)
        return 0;
    return strtol(dtype + k, NULL, 10) / 8;
}

void space_fill_fixed_slots(const space *sp, const space_binding *b, value *slots)
{
    for (int k = 0; k < sp->n_fields; k++) {
        const problem_field *f = &sp->fields[k];
        slots[fields_base(sp) + k] = value_int(b->problem ? problem_int(b->problem, f->name, f->def)
                                                          : f->def);
    }
    slots[fixed_base(sp) + FIXED_DTYPE] = value_string(b->dtype ? b->dtype : "");
    slots[fixed_base(sp) + FIXED_DTYPE_SIZE] = value_int(dtype_bytes(b->dtype));
    slots[fixed_base(sp) + FIXED_CTYPE] = value_string(su_ctype_of(b->dtype));
    slots[fixed_base(sp) + FIXED_OP] = value_string(b->op ? b->op : "");
    for (int k = 0; k < N_DEVICE_SLOTS; k++) {
        value v = value_int(0);
        if (b->device)
            device_attr_lookup(b->device, device_slot_names[k], &v);
        slots[device_base(sp) + k] = v;
    }
}

void space_constraint_error(const space *sp, int c, const expr_error *e, char *err, size_t len)
{
    const space_constraint *sc = &sp->constraints[c];
    space_errorf(err, len, sp->path, sc->line, sc->col + e->offset, "%s", e->message);
}

/* ---- iteration ---- */

/* Constraints grouped by the level (parameter index) at which they can first be tested:
 * order[start[L + 1] .. start[L + 2]) for level L, level -1 holding those that read no
 * parameter. Constraints on the device are left out when the binding has none. */
typedef struct iter_state {
    int *start;              /* n_params + 2 entries */
    int *order;              /* n_constraints entries */
} iter_state;

static void note_level(void *ctx, int slot)
{
    int *level = ctx;
    if (slot < level[1] && slot > level[0])
        level[0] = slot;
}

void space_iter_init(space_iter *it, const space *sp, const space_binding *b)
{
    memset(it, 0, sizeof *it);
    it->sp = sp;
    it->binding = *b;
    it->err_constraint = -1;
    int n = sp->n_params, nc = sp->n_constraints;
    iter_state *st = calloc(1, sizeof *st);
    int *levels = NULL;
    it->choice = calloc((size_t)n + 1, sizeof *it->choice);
    it->slots = calloc((size_t)space_slot_count(sp), sizeof *it->slots);
    if (st) {
        st->start = calloc((size_t)n + 3, sizeof *st->start);
        st->order = calloc((size_t)nc + 1, sizeof *st->order);
    }
    levels = calloc((size_t)nc + 1, sizeof *levels);
    if (!st || !st->start || !st->order || !levels || !it->choice || !it->slots) {
        snprintf(it->err.message, sizeof it->err.message, "out of memory");
        if (st) {
            free(st->start);
            free(st->order);
        }
        free(st);
        goto cleanup;
    }
    /* Counting sort of the applicable constraints by level. */
    for (int c = 0; c < nc; c++) {
        levels[c] = -2;
        if (sp->constraints[c].uses_device && !b->device)
            continue;
        int level[2] = {-1, n};
        expr_each_slot(sp->constraints[c].e, note_level, level);
        levels[c] = level[0];
        st->start[level[0] + 2]++;
    }
    for (int L = 0; L <= n; L++)
        st->start[L + 1] += st->start[L];
    int *fill = calloc((size_t)n + 2, sizeof *fill);
    if (!fill) {
        snprintf(it->err.message, sizeof it->err.message, "out of memory");
        free(st->start);
        free(st->order);
        free(st);
        goto cleanup;
    }
    for (int c = 0; c < nc; c++)
        if (levels[c] >= -1)
            st->order[st->start[levels[c] + 1] + fill[levels[c] + 1]++] = c;
    free(fill);
    space_fill_fixed_slots(sp, b, it->slots);
    it->priv = st;
cleanup:
    free(levels);
}

void space_iter_free(space_iter *it)
{
    iter_state *st = it->priv;
    if (st) {
        free(st->start);
        free(st->order);
        free(st);
    }
    free(it->choice);
    free(it->slots);
    it->priv = NULL;
    it->choice = NULL;
    it->slots = NULL;
}

/* Tests the constraints of one level against the slots: 1 all hold, 0 one fails, -1 error. */
static int check_level(space_iter *it, int level)
{
    const iter_state *st = it->priv;
    for (int k = st->start[level + 1]; k < st->start[level + 2]; k++) {
        int c = st->order[k];
        value v;
        if (expr_eval(it->sp->constraints[c].e, it->slots, &v, &it->err) != 0) {
            it->err_constraint = c;
            return -1;
        }
        if (!value_truthy(v))
            return 0;
    }
    return 1;
}

int space_iter_next(space_iter *it, int *choice)
{
    if (!it->priv)
        return -1;
    if (it->finished)
        return 0;
    const space *sp = it->sp;
    int n = sp->n_params;
    int d;
    if (!it->started) {
        it->started = 1;
        int r = check_level(it, -1);
        if (r <= 0 || n == 0) {
            it->finished = 1;
            return r < 0 ? -1 : 0;
        }
        d = 0;
        it->choice[0] = 0;
    } else {
        d = n - 1;
        it->choice[d]++;
    }
    for (;;) {
        if (it->choice[d] >= sp->params[d].n_values) {
            if (d == 0) {
                it->finished = 1;
                return 0;
            }
            d--;
            it->choice[d]++;
            continue;
        }
        if (it->max_steps > 0 && ++it->steps > it->max_steps) {
            it->err_constraint = -2;
            it->finished = 1;
            return -1;
        }
        it->slots[d] = sp->params[d].values[it->choice[d]];
        int r = check_level(it, d);
        if (r < 0) {
            it->finished = 1;
            return -1;
        }
        if (r == 0) {
            it->choice[d]++;
            continue;
        }
        if (d == n - 1)
            break;
        d++;
        it->choice[d] = 0;
    }
    it->depth = d;
    memcpy(choice, it->choice, (size_t)n * sizeof *choice);
    return 1;
}

int64_t space_max_enum_steps = SPACE_MAX_ENUM_STEPS;

int64_t space_count(const space *sp, const space_binding *b, char *err, size_t len)
{
    return space_count_within(sp, b, NULL, err, len);
}

int64_t space_count_within(const space *sp, const space_binding *b, int64_t *budget, char *err,
                           size_t len)
{
    space_iter it;
    space_iter_init(&it, sp, b);
    int *choice = malloc(((size_t)sp->n_params + 1) * sizeof *choice);
    int64_t count = 0;
    int r = -1;
    if (budget)
        it.max_steps = *budget > 0 ? *budget : 1;
    if (choice && it.priv)
        while ((r = space_iter_next(&it, choice)) == 1)
            count++;
    if (budget)
        *budget -= it.steps;
    if (r < 0) {
        if (it.err_constraint >= 0)
            space_constraint_error(sp, it.err_constraint, &it.err, err, len);
        else if (it.err_constraint == -2) {
            /* at the parameters: what there is to narrow */
            int64_t raw = space_raw_size(sp);
            char points[64];
            if (raw == INT64_MAX)
                snprintf(points, sizeof points, "more than 2^63");
            else
                snprintf(points, sizeof points, "%" PRId64, raw);
            space_errorf(err, len, sp->path, sp->n_params ? sp->params[0].line : 0,
                         sp->n_params ? sp->params[0].col : 0, "the space is too large to "
                         "enumerate: its configs take more than %" PRId64 " steps to list (%s "
                         "raw points per problem); narrow the parameters' values, or add "
                         "constraints on the first parameters that prune early",
                         space_max_enum_steps, points);
        }
        else
            space_errorf(err, len, sp->path, 0, 0, "out of memory");
        count = -1;
    }
    free(choice);
    space_iter_free(&it);
    return count;
}

int space_allows(const space *sp, const space_binding *b, const int *choice)
{
    value local[64];
    int n_slots = space_slot_count(sp);
    value *slots = n_slots <= 64 ? local : malloc((size_t)n_slots * sizeof *slots);
    if (!slots)
        return -1;
    int rc = 1;
    for (int k = 0; k < sp->n_params; k++) {
        if (choice[k] < 0 || choice[k] >= sp->params[k].n_values) {
            rc = -1;
            goto cleanup;
        }
        slots[k] = sp->params[k].values[choice[k]];
    }
    space_fill_fixed_slots(sp, b, slots);
    for (int c = 0; c < sp->n_constraints && rc == 1; c++) {
        if (sp->constraints[c].uses_device && !b->device)
            continue;
        value v;
        expr_error e;
        if (expr_eval(sp->constraints[c].e, slots, &v, &e) != 0)
            rc = -1;
        else if (!value_truthy(v))
            rc = 0;
    }
cleanup:
    if (slots != local)
        free(slots);
    return rc;
}

/* ---- canonical config text ---- */

/* Index of the parameter whose name comes next after `after` (NULL: the first), by strcmp. */
static int next_param_by_name(const space *sp, const char *after)
{
    int best = -1;
    for (int k = 0; k < sp->n_params; k++) {
        const char *name = sp->params[k].name;
        if (after && strcmp(name, after) <= 0)
            continue;
        if (best < 0 || strcmp(name, sp->params[best].name) < 0)
            best = k;
    }
    return best;
}

int space_config_text(const space *sp, const int *choice, char *buf, size_t len)
{
    size_t total = 0;
    const char *last = NULL;
    if (len > 0)
        buf[0] = '\0';
    for (int i = 0; i < sp->n_params; i++) {
        int k = next_param_by_name(sp, last);
        last = sp->params[k].name;
        size_t at = total < len ? total : len;
        int w = snprintf(buf + at, len - at, "%s%s=", i ? "," : "", last);
        if (w < 0)
            return -1;
        total += (size_t)w;
        at = total < len ? total : len;
        w = value_format(sp->params[k].values[choice[k]], buf + at, len - at);
        if (w < 0)
            return -1;
        total += (size_t)w;
    }
    return (int)total;
}

int space_config_parse(const space *sp, const char *text, int *choice)
{
    for (int k = 0; k < sp->n_params; k++)
        choice[k] = -1;
    const char *p = text;
    int found = 0;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t item = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', item);
        if (!eq)
            return -1;
        size_t name_len = (size_t)(eq - p), value_len = item - name_len - 1;
        int k;
        for (k = 0; k < sp->n_params; k++)
            if (strlen(sp->params[k].name) == name_len &&
                memcmp(sp->params[k].name, p, name_len) == 0)
                break;
        if (k == sp->n_params || choice[k] >= 0)
            return -1;
        for (int v = 0; v < sp->params[k].n_values; v++) {
            char formatted[256];
            int w = value_format(sp->params[k].values[v], formatted, sizeof formatted);
            if (w >= 0 && (size_t)w == value_len && memcmp(formatted, eq + 1, value_len) == 0) {
                choice[k] = v;
                break;
            }
        }
        if (choice[k] < 0)
            return -1;
        found++;
        if (!end)
            break;
        p = end + 1;
        if (!*p)
            return -1;
    }
    return found == sp->n_params ? 0 : -1;
}

int64_t space_raw_size(const space *sp)
{
    int64_t total = 1;
    for (int k = 0; k < sp->n_params; k++)
        if (__builtin_mul_overflow(total, (int64_t)sp->params[k].n_values, &total))
            return INT64_MAX;
    return total;
}
