/* expr_bind.c: binding of a parsed expression (tuner/expr/expr.h): every identifier resolved to a
 * slot through the caller's resolver, functions and their argument counts checked, and a static
 * type check that refuses operations no value of the slots' types could make well-typed
 * (string * int, ordering strings). Also the slot queries enumeration uses to prune early. */
#include <stdlib.h>
#include <string.h>
#include "expr_internal.h"

static fn_id fn_lookup(const char *name)
{
    if (strcmp(name, "min") == 0) return FN_MIN;
    if (strcmp(name, "max") == 0) return FN_MAX;
    if (strcmp(name, "ceil_div") == 0) return FN_CEIL_DIV;
    if (strcmp(name, "log2") == 0) return FN_LOG2;
    if (strcmp(name, "sqrt") == 0) return FN_SQRT;
    return FN_UNKNOWN;
}

enum { T_NUM = SLOT_INT | SLOT_FLOAT };

static const char *type_desc(int mask)
{
    switch (mask) {
    case SLOT_INT: return "an integer";
    case SLOT_FLOAT: return "a float";
    case SLOT_STRING: return "a string";
    case SLOT_INT | SLOT_FLOAT: return "a number";
    default: return "a value";
    }
}

typedef struct binder {
    expr *e;
    expr_resolve_fn resolve;
    void *ctx;
    expr_error *err;
} binder;

static int bind_node(binder *b, int idx);

/* Arithmetic result type from operand masks (both known to admit a number). */
static int arith_type(int a, int b)
{
    int t = 0;
    if ((a & SLOT_INT) && (b & SLOT_INT))
        t |= SLOT_INT;
    if (((a & SLOT_FLOAT) && (b & T_NUM)) || ((b & SLOT_FLOAT) && (a & T_NUM)))
        t |= SLOT_FLOAT;
    return t;
}

static int bind_call(binder *b, node *n)
{
    const char *name = b->e->pool + n->name;
    n->op = fn_lookup(name);
    if (n->op == FN_UNKNOWN) {
        expr_set_error(b->err, n->offset, "unknown function '%s' (known: min, max, ceil_div, log2, sqrt)",
                  name);
        return -1;
    }
    int want = n->op == FN_CEIL_DIV ? 2 : n->op == FN_LOG2 || n->op == FN_SQRT ? 1 : -1;
    if (want > 0 && n->nargs != want) {
        expr_set_error(b->err, n->offset, "%s takes %d argument%s, got %d", name, want,
                  want == 1 ? "" : "s", n->nargs);
        return -1;
    }
    if (want < 0 && n->nargs < 1) {
        expr_set_error(b->err, n->offset, "%s takes at least 1 argument, got 0", name);
        return -1;
    }
    int any_float = 0, all_int = 1;
    for (int k = 0; k < n->nargs; k++) {
        int a = b->e->args[n->arg0 + k];
        if (bind_node(b, a) < 0)
            return -1;
        int t = b->e->nodes[a].type;
        int need = n->op == FN_CEIL_DIV ? SLOT_INT : T_NUM;
        if (!(t & need)) {
            expr_set_error(b->err, b->e->nodes[a].offset, "%s needs %s argument, not %s", name,
                      need == SLOT_INT ? "an integer" : "a numeric", type_desc(t));
            return -1;
        }
        if (t & SLOT_FLOAT)
            any_float = 1;
        if (!(t & SLOT_INT))
            all_int = 0;
    }
    switch ((fn_id)n->op) {
    case FN_CEIL_DIV:
        n->type = SLOT_INT;
        break;
    case FN_LOG2:
    case FN_SQRT:
        n->type = b->e->nodes[b->e->args[n->arg0]].type & T_NUM;
        break;
    default:
        n->type = (all_int ? SLOT_INT : 0) | (any_float ? SLOT_FLOAT : 0);
        break;
    }
    return 0;
}

static int bind_node(binder *b, int idx)
{
    node *n = &b->e->nodes[idx];
    switch (n->kind) {
    case N_INT: n->type = SLOT_INT; return 0;
    case N_FLOAT: n->type = SLOT_FLOAT; return 0;
    case N_STRING: n->type = SLOT_STRING; return 0;
    case N_IDENT: {
        const char *name = b->e->pool + n->name;
        int mask = 0;
        int slot = b->resolve(b->ctx, name, &mask);
        if (slot < 0) {
            expr_set_error(b->err, n->offset, "unknown identifier '%s'", name);
            return -1;
        }
        if (!(mask & (SLOT_INT | SLOT_FLOAT | SLOT_STRING)))
            mask = SLOT_INT | SLOT_FLOAT | SLOT_STRING;
        n->slot = slot;
        n->type = mask & (SLOT_INT | SLOT_FLOAT | SLOT_STRING);
        return 0;
    }
    case N_NEG:
    case N_PLUS:
        if (bind_node(b, n->a) < 0)
            return -1;
        if (!(b->e->nodes[n->a].type & T_NUM)) {
            expr_set_error(b->err, n->offset, "unary '%s' needs a number, not %s",
                      n->kind == N_NEG ? "-" : "+", type_desc(b->e->nodes[n->a].type));
            return -1;
        }
        n->type = b->e->nodes[n->a].type & T_NUM;
        return 0;
    case N_NOT:
        if (bind_node(b, n->a) < 0)
            return -1;
        n->type = SLOT_INT;
        return 0;
    case N_AND:
    case N_OR:
        if (bind_node(b, n->a) < 0 || bind_node(b, n->b) < 0)
            return -1;
        n->type = SLOT_INT;
        return 0;
    case N_TERNARY:
        if (bind_node(b, n->a) < 0 || bind_node(b, n->b) < 0 || bind_node(b, n->c) < 0)
            return -1;
        n->type = b->e->nodes[n->b].type | b->e->nodes[n->c].type;
        return 0;
    case N_CALL:
        return bind_call(b, n);
    case N_BIN: {
        if (bind_node(b, n->a) < 0 || bind_node(b, n->b) < 0)
            return -1;
        int ta = b->e->nodes[n->a].type, tb = b->e->nodes[n->b].type;
        const char *op = expr_bin_op_text(n->op);
        switch ((bin_op)n->op) {
        case OP_EQ:
        case OP_NE:
            /* Numbers compare with numbers, strings with strings. */
            if (!((ta & T_NUM) && (tb & T_NUM)) && !((ta & SLOT_STRING) && (tb & SLOT_STRING))) {
                expr_set_error(b->err, n->offset, "'%s' compares %s with %s", op, type_desc(ta),
                          type_desc(tb));
                return -1;
            }
            n->type = SLOT_INT;
            return 0;
        case OP_LT:
        case OP_LE:
        case OP_GT:
        case OP_GE:
            if (!(ta & T_NUM) || !(tb & T_NUM)) {
                expr_set_error(b->err, n->offset, "'%s' needs numbers (strings compare only with == "
                          "and !=), not %s", op, type_desc(!(ta & T_NUM) ? ta : tb));
                return -1;
            }
            n->type = SLOT_INT;
            return 0;
        case OP_MOD:
            if (!(ta & SLOT_INT) || !(tb & SLOT_INT)) {
                expr_set_error(b->err, n->offset, "'%%' needs integers, not %s",
                          type_desc(!(ta & SLOT_INT) ? ta : tb));
                return -1;
            }
            n->type = SLOT_INT;
            return 0;
        default:
            if (!(ta & T_NUM) || !(tb & T_NUM)) {
                expr_set_error(b->err, n->offset, "'%s' needs numbers, not %s", op,
                          type_desc(!(ta & T_NUM) ? ta : tb));
                return -1;
            }
            n->type = arith_type(ta, tb);
            return 0;
        }
    }
    }
    return 0;
}

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int expr_bind(expr *e, expr_resolve_fn resolve, void *ctx, expr_error *err)
{
    binder b = {e, resolve, ctx, err};
    e->bound = 0;
    if (bind_node(&b, e->root) < 0)
        return -1;
    free(e->slots);
    e->slots = NULL;
    e->n_slots = 0;
    e->max_slot = -1;
    int n_ident = 0;
    for (int k = 0; k < e->n_nodes; k++)
        n_ident += e->nodes[k].kind == N_IDENT;
    if (n_ident > 0) {
        e->slots = malloc((size_t)n_ident * sizeof *e->slots);
        if (!e->slots) {
            expr_set_error(err, 0, "out of memory");
            return -1;
        }
        for (int k = 0; k < e->n_nodes; k++)
            if (e->nodes[k].kind == N_IDENT)
                e->slots[e->n_slots++] = e->nodes[k].slot;
        qsort(e->slots, (size_t)e->n_slots, sizeof *e->slots, int_cmp);
        int u = 0;
        for (int k = 0; k < e->n_slots; k++)
            if (u == 0 || e->slots[u - 1] != e->slots[k])
                e->slots[u++] = e->slots[k];
        e->n_slots = u;
        e->max_slot = e->slots[u - 1];
    }
    e->bound = 1;
    return 0;
}

int expr_max_slot(const expr *e)
{
    return e->bound ? e->max_slot : -1;
}

void expr_each_slot(const expr *e, void (*fn)(void *ctx, int slot), void *ctx)
{
    if (!e->bound)
        return;
    for (int k = 0; k < e->n_slots; k++)
        fn(ctx, e->slots[k]);
}

