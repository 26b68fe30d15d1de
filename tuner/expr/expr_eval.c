/* expr_eval.c: evaluation of a bound expression (tuner/expr/expr.h) against a slot array: 64-bit
 * integers with overflow of + - * and division by zero as errors, promotion to float, short
 * circuits, the built-in functions. Never allocates: enumeration calls it per config. */
#include <math.h>
#include <string.h>
#include "expr_internal.h"

int value_truthy(value v)
{
    switch (v.kind) {
    case VALUE_INT: return v.i != 0;
    case VALUE_FLOAT: return v.f != 0.0;
    case VALUE_STRING: return v.s && v.s[0] != '\0';
    }
    return 0;
}

static const char *kind_desc(value_kind k)
{
    return k == VALUE_INT ? "an integer" : k == VALUE_FLOAT ? "a float" : "a string";
}

static double as_double(value v) { return v.kind == VALUE_INT ? (double)v.i : v.f; }

static int eval_node(const expr *e, int idx, const value *slots, value *out, expr_error *err);

static int eval_bin(const expr *e, const node *n, const value *slots, value *out, expr_error *err)
{
    value a, b;
    if (eval_node(e, n->a, slots, &a, err) < 0 || eval_node(e, n->b, slots, &b, err) < 0)
        return -1;
    bin_op op = (bin_op)n->op;
    const char *opt = expr_bin_op_text(op);
    if (op == OP_EQ || op == OP_NE) {
        int eq;
        if (a.kind == VALUE_STRING && b.kind == VALUE_STRING)
            eq = strcmp(a.s, b.s) == 0;
        else if (a.kind == VALUE_STRING || b.kind == VALUE_STRING) {
            expr_set_error(err, n->offset, "'%s' compares %s with %s", opt, kind_desc(a.kind),
                      kind_desc(b.kind));
            return -1;
        } else if (a.kind == VALUE_INT && b.kind == VALUE_INT)
            eq = a.i == b.i;
        else
            eq = as_double(a) == as_double(b);
        *out = value_int(op == OP_EQ ? eq : !eq);
        return 0;
    }
    if (a.kind == VALUE_STRING || b.kind == VALUE_STRING) {
        expr_set_error(err, n->offset, "'%s' needs numbers, not a string", opt);
        return -1;
    }
    if (a.kind == VALUE_INT && b.kind == VALUE_INT) {
        int64_t x = a.i, y = b.i, r = 0;
        switch (op) {
        case OP_ADD:
            if (__builtin_add_overflow(x, y, &r))
                goto overflow;
            break;
        case OP_SUB:
            if (__builtin_sub_overflow(x, y, &r))
                goto overflow;
            break;
        case OP_MUL:
            if (__builtin_mul_overflow(x, y, &r))
                goto overflow;
            break;
        case OP_DIV:
        case OP_MOD:
            if (y == 0) {
                expr_set_error(err, n->offset, op == OP_DIV ? "division by zero" : "modulo by zero");
                return -1;
            }
            if (x == INT64_MIN && y == -1) {
                if (op == OP_MOD) {
                    r = 0;
                    break;
                }
                goto overflow;
            }
            r = op == OP_DIV ? x / y : x % y;
            break;
        case OP_LT: r = x < y; break;
        case OP_LE: r = x <= y; break;
        case OP_GT: r = x > y; break;
        case OP_GE: r = x >= y; break;
        default: break;
        }
        *out = value_int(r);
        return 0;
    overflow:
        expr_set_error(err, n->offset, "integer overflow in '%s'", opt);
        return -1;
    }
    double x = as_double(a), y = as_double(b);
    switch (op) {
    case OP_ADD: *out = value_float(x + y); return 0;
    case OP_SUB: *out = value_float(x - y); return 0;
    case OP_MUL: *out = value_float(x * y); return 0;
    case OP_DIV:
        if (y == 0.0) {
            expr_set_error(err, n->offset, "division by zero");
            return -1;
        }
        *out = value_float(x / y);
        return 0;
    case OP_MOD:
        expr_set_error(err, n->offset, "'%%' needs integers, not a float");
        return -1;
    case OP_LT: *out = value_int(x < y); return 0;
    case OP_LE: *out = value_int(x <= y); return 0;
    case OP_GT: *out = value_int(x > y); return 0;
    case OP_GE: *out = value_int(x >= y); return 0;
    default: break;
    }
    *out = value_int(0);
    return 0;
}

static int eval_call(const expr *e, const node *n, const value *slots, value *out,
                     expr_error *err)
{
    const char *name = e->pool + n->name;
    value v;
    switch ((fn_id)n->op) {
    case FN_MIN:
    case FN_MAX: {
        value best = value_int(0);
        for (int k = 0; k < n->nargs; k++) {
            if (eval_node(e, e->args[n->arg0 + k], slots, &v, err) < 0)
                return -1;
            if (v.kind == VALUE_STRING) {
                expr_set_error(err, n->offset, "%s needs numbers, not a string", name);
                return -1;
            }
            if (k == 0) {
                best = v;
                continue;
            }
            if (best.kind == VALUE_INT && v.kind == VALUE_INT) {
                if (n->op == FN_MIN ? v.i < best.i : v.i > best.i)
                    best = v;
            } else {
                double x = as_double(best), y = as_double(v);
                best = value_float(n->op == FN_MIN ? (y < x ? y : x) : (y > x ? y : x));
            }
        }
        *out = best;
        return 0;
    }
    case FN_CEIL_DIV: {
        value a, b;
        if (eval_node(e, e->args[n->arg0], slots, &a, err) < 0 ||
            eval_node(e, e->args[n->arg0 + 1], slots, &b, err) < 0)
            return -1;
        if (a.kind != VALUE_INT || b.kind != VALUE_INT) {
            expr_set_error(err, n->offset, "ceil_div needs integers, not %s",
                      kind_desc(a.kind != VALUE_INT ? a.kind : b.kind));
            return -1;
        }
        if (b.i == 0) {
            expr_set_error(err, n->offset, "division by zero in ceil_div");
            return -1;
        }
        if (a.i == INT64_MIN && b.i == -1) {
            expr_set_error(err, n->offset, "integer overflow in ceil_div");
            return -1;
        }
        int64_t q = a.i / b.i;
        if (a.i % b.i != 0 && ((a.i < 0) == (b.i < 0)))
            q++;
        *out = value_int(q);
        return 0;
    }
    case FN_LOG2:
        if (eval_node(e, e->args[n->arg0], slots, &v, err) < 0)
            return -1;
        if (v.kind == VALUE_STRING) {
            expr_set_error(err, n->offset, "log2 needs a number, not a string");
            return -1;
        }
        if (v.kind == VALUE_INT) {
            if (v.i <= 0) {
                expr_set_error(err, n->offset, "log2 of %lld (needs a positive number)", (long long)v.i);
                return -1;
            }
            *out = value_int(63 - __builtin_clzll((unsigned long long)v.i));
            return 0;
        }
        if (!(v.f > 0.0)) {
            expr_set_error(err, n->offset, "log2 of %g (needs a positive number)", v.f);
            return -1;
        }
        *out = value_float(log2(v.f));
        return 0;
    case FN_SQRT:
        /* as log2: the floor for an integer (Rodinia's (int)sqrt((double)blocks)), the float
         * root for a float */
        if (eval_node(e, e->args[n->arg0], slots, &v, err) < 0)
            return -1;
        if (v.kind == VALUE_STRING) {
            expr_set_error(err, n->offset, "sqrt needs a number, not a string");
            return -1;
        }
        if (v.kind == VALUE_INT) {
            if (v.i < 0) {
                expr_set_error(err, n->offset, "sqrt of %lld (needs a number >= 0)", (long long)v.i);
                return -1;
            }
            /* the double's root, corrected by division (no product that overflows) */
            int64_t r = (int64_t)sqrt((double)v.i);
            while (r > 0 && r > v.i / r)
                r--;
            while (r + 1 <= v.i / (r + 1))
                r++;
            *out = value_int(r);
            return 0;
        }
        if (!(v.f >= 0.0)) {
            expr_set_error(err, n->offset, "sqrt of %g (needs a number >= 0)", v.f);
            return -1;
        }
        *out = value_float(sqrt(v.f));
        return 0;
    case FN_UNKNOWN:
        break;
    }
    expr_set_error(err, n->offset, "unknown function '%s'", name);
    return -1;
}

static int eval_node(const expr *e, int idx, const value *slots, value *out, expr_error *err)
{
    const node *n = &e->nodes[idx];
    value v;
    switch (n->kind) {
    case N_INT:
    case N_FLOAT:
    case N_STRING:
        *out = n->lit;
        return 0;
    case N_IDENT:
        *out = slots[n->slot];
        return 0;
    case N_NEG:
    case N_PLUS:
        if (eval_node(e, n->a, slots, &v, err) < 0)
            return -1;
        if (v.kind == VALUE_STRING) {
            expr_set_error(err, n->offset, "unary '%s' needs a number, not a string",
                      n->kind == N_NEG ? "-" : "+");
            return -1;
        }
        if (n->kind == N_PLUS)
            *out = v;
        else if (v.kind == VALUE_FLOAT)
            *out = value_float(-v.f);
        else if (v.i == INT64_MIN) {
            expr_set_error(err, n->offset, "integer overflow in '-'");
            return -1;
        } else
            *out = value_int(-v.i);
        return 0;
    case N_NOT:
        if (eval_node(e, n->a, slots, &v, err) < 0)
            return -1;
        *out = value_int(!value_truthy(v));
        return 0;
    case N_AND:
    case N_OR:
        if (eval_node(e, n->a, slots, &v, err) < 0)
            return -1;
        if (value_truthy(v) == (n->kind == N_OR)) {
            *out = value_int(n->kind == N_OR);
            return 0;
        }
        if (eval_node(e, n->b, slots, &v, err) < 0)
            return -1;
        *out = value_int(value_truthy(v));
        return 0;
    case N_TERNARY:
        if (eval_node(e, n->a, slots, &v, err) < 0)
            return -1;
        return eval_node(e, value_truthy(v) ? n->b : n->c, slots, out, err);
    case N_BIN:
        return eval_bin(e, n, slots, out, err);
    case N_CALL:
        return eval_call(e, n, slots, out, err);
    }
    expr_set_error(err, n->offset, "corrupt expression");
    return -1;
}

int expr_eval(const expr *e, const value *slots, value *out, expr_error *err)
{
    if (!e->bound) {
        expr_set_error(err, 0, "expression evaluated before binding");
        return -1;
    }
    return eval_node(e, e->root, slots, out, err);
}
