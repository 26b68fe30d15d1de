/* space_user_args.c: reading a user kernel's `args` (space_user_read.c calls it): buffers with
 * their type, count, initial contents, tolerance and the module variable they may fill (symbol),
 * scalars, and each output's comparison plan (`compare:` element by element, a reduction, or a
 * check kernel with its own arguments and result); and the tolerance a loaded output has. A
 * check kernel's compilation and launch are read by space_user_kernel.c, expressions by
 * space_user_nodes.c. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "space_user_internal.h"

/* One init value: a number, or an expression of the problem's fields, dtype and device (the
 * contents are the same for every config, so parameters are out of scope). */
static int read_init_value(su_ctx *c, const ynode *n, const char *w, double *num, su_expr *x)
{
    char *end = NULL;
    if (n->kind == YNODE_SCALAR && !n->quoted && n->len) {
        (void)strtod(n->text, &end);
        if (end && !*end)
            return sl_get_float(c->L, n, w, num);
    }
    su_ctx ic = *c;
    ic.allow_params = 0;
    ic.where = "the contents of a buffer are the same for every config: its init sees the "
               "problem, dtype and device only";
    return su_read_expr(&ic, n, w, 0, x);
}

/* init: zeros | { random: [lo, hi] } | { constant: v } | { arange: [start, step] } | { file: p };
 * the values numbers or expressions of the problem */
static int read_init(su_ctx *c, const ynode *n, su_arg *a, const char *where)
{
    loader *L = c->L;
    char buf[128];
    if (n->kind == YNODE_SCALAR && !n->quoted && strcmp(n->text, "zeros") == 0) {
        a->init = SU_INIT_ZEROS;
        return 0;
    }
    static const char *const kinds[] = {"random", "constant", "arange", "file"};
    if (n->kind != YNODE_MAP || n->n != 1)
        return sl_fail_at(L, n, "%s: expected zeros, or a mapping with one of random, constant, "
                                "arange or file, found %s", where, sl_node_desc(n, buf, sizeof buf));
    if (sl_check_keys(L, n, where, kinds, 4) != 0)
        return -1;
    const char *kind = n->items[0]->text;
    const ynode *v = n->items[1];
    char w[160];
    snprintf(w, sizeof w, "%s.%s", where, kind);
    if (strcmp(kind, "constant") == 0) {
        a->init = SU_INIT_CONSTANT;
        return read_init_value(c, v, w, &a->a, &a->init_x[0]);
    }
    if (strcmp(kind, "file") == 0) {
        const char *f;
        a->init = SU_INIT_FILE;
        if (sl_get_string(L, v, w, &f) != 0)
            return -1;
        return (a->file = su_path_join(c->u->dir, f)) ? 0 : sl_fail_at(L, v, "out of memory");
    }
    if (sl_expect_kind(L, v, YNODE_SEQ, w) != 0)
        return -1;
    if (v->n != 2)
        return sl_fail_at(L, v, "%s: expected [%s], found %d values", w,
                          strcmp(kind, "random") == 0 ? "lo, hi" : "start, step", v->n);
    if (read_init_value(c, v->items[0], w, &a->a, &a->init_x[0]) != 0 ||
        read_init_value(c, v->items[1], w, &a->b, &a->init_x[1]) != 0)
        return -1;
    if (strcmp(kind, "random") == 0) {
        a->init = SU_INIT_RANDOM;
        if (a->init_x[0].text || a->init_x[1].text)
            return 0;   /* checked per problem (space_user_init_values) */
        if (!(a->a <= a->b))
            return sl_fail_at(L, v, "%s: lo (%g) is greater than hi (%g)", w, a->a, a->b);
        if (!su_type_is_float(a->type) && a->type != SU_DTYPE &&
            (a->a != floor(a->a) || a->b != floor(a->b)))
            return sl_fail_at(L, v, "%s: an integer buffer needs integer bounds", w);
    } else {
        a->init = SU_INIT_ARANGE;
    }
    return 0;
}

/* { abs: a, rel: r } into *atol, *rtol (each optional). */
static int read_tolerance_pair(loader *L, const ynode *v, const char *w, double *atol,
                               double *rtol)
{
    static const char *const tol_keys[] = {"abs", "rel"};
    if (sl_expect_kind(L, v, YNODE_MAP, w) != 0 || sl_check_keys(L, v, w, tol_keys, 2) != 0)
        return -1;
    const ynode *t;
    if ((t = ynode_get(v, "abs")) && sl_get_float(L, t, w, atol) != 0)
        return -1;
    if ((t = ynode_get(v, "rel")) && sl_get_float(L, t, w, rtol) != 0)
        return -1;
    if (*atol < 0 || *rtol < 0)
        return sl_fail_at(L, v, "%s: must not be negative", w);
    return 0;
}

/* An output's `tolerance`: { abs, rel } for every dtype, or { f32: { abs, rel }, ... }. */
static int read_tolerance(loader *L, const ynode *v, const char *w, su_arg *a)
{
    if (sl_expect_kind(L, v, YNODE_MAP, w) != 0)
        return -1;
    int per_dtype = v->n > 0 && su_type_parse(v->items[0]->text) >= 0;
    for (int k = 0; k < (per_dtype ? v->n : 1); k++) {
        const ynode *tv = per_dtype ? v->items[2 * k + 1] : v;
        double atol = a->atol, rtol = a->rtol;
        char tw[240];
        int t = -1;
        if (per_dtype) {
            t = su_type_parse(v->items[2 * k]->text);
            if (t < 0)
                return sl_fail_at(L, v->items[2 * k], "%s: '%.60s' is not a dtype", w,
                                  v->items[2 * k]->text);
            snprintf(tw, sizeof tw, "%s.%s", w, su_type_name(t));
            su_default_tolerance(t, &atol, &rtol);
        } else {
            snprintf(tw, sizeof tw, "%s", w);
        }
        if (read_tolerance_pair(L, tv, tw, &atol, &rtol) != 0)
            return -1;
        if (per_dtype) {
            a->tol_by[t][0] = atol;
            a->tol_by[t][1] = rtol;
            a->has_tol_by[t] = 1;
        } else {
            a->atol = atol;
            a->rtol = rtol;
            a->has_tol = 1;
        }
    }
    return 0;
}

/* The type of a buffer: a type name or `dtype`. */
static int read_buffer_type(loader *L, const ynode *n, const char *where, int *type)
{
    const char *name;
    if (sl_get_string(L, n, where, &name) != 0)
        return -1;
    char names[256];
    if ((*type = su_type_read(name, 0, NULL, names, sizeof names)) >= 0)
        return 0;
    return sl_fail_at(L, n, "%s: unknown type '%.60s' (expected %sor dtype)", where, name, names);
}

/* A scalar: { scalar: TYPE, value: EXPR } (name given by the caller or read here). */
int su_read_scalar(su_ctx *c, const ynode *n, su_arg *a, const char *where)
{
    loader *L = c->L;
    const char *type;
    a->is_buffer = 0;
    if (sl_get_string(L, ynode_get(n, "scalar"), where, &type) != 0)
        return -1;
    /* every element type, `bool` (one byte: 0 or 1, as nvcc passes it) and the dtype (`T alpha`
     * of a template over the element type) */
    char names[256];
    if ((a->type = su_type_read(type, 1, &a->is_bool, names, sizeof names)) < 0) {
        return sl_fail_at(L, ynode_get(n, "scalar"), "%s: scalar type '%.60s' (expected %sbool "
                          "or dtype)", where, type, names);
    }
    const ynode *v = ynode_get(n, "value");
    if (!v)
        return sl_fail_at(L, n, "%s: missing required key 'value'", where);
    char w[220];
    snprintf(w, sizeof w, "%s.value", where);
    return su_read_expr(c, v, w, 0, &a->value);
}

int su_read_arg(su_ctx *c, const ynode *n, su_arg *a, int index)
{
    static const char *const buffer_keys[] = {"name", "buffer", "count", "init", "output",
                                              "tolerance", "symbol", "compare"};
    static const char *const scalar_keys[] = {"name", "scalar", "value"};
    static const char *const struct_keys[] = {"name", "struct", "align"};
    static const char *const pointer_keys[] = {"name", "pointer"};
    loader *L = c->L;
    char where[160];
    snprintf(where, sizeof where, "kernel.args[%d]", index);
    if (sl_expect_kind(L, n, YNODE_MAP, where) != 0)
        return -1;
    a->line = n->line;
    a->col = n->col;
    const ynode *v = ynode_get(n, "name");
    const char *name;
    if (!v)
        return sl_fail_at(L, n, "%s: missing required key 'name'", where);
    if (sl_get_string(L, v, where, &name) != 0)
        return -1;
    if (!su_is_identifier(name))
        return sl_fail_at(L, v, "%s: '%.60s' is not a name", where, name);
    for (int j = 0; j < index; j++)
        if (strcmp(c->u->args[j].name, name) == 0)
            return sl_fail_at(L, v, "%s: '%s' is listed twice", where, name);
    if (!(a->name = strdup(name)))
        return sl_fail_at(L, v, "out of memory");
    snprintf(where, sizeof where, "kernel.args %s", name);
    const ynode *buf = ynode_get(n, "buffer"), *sc = ynode_get(n, "scalar");
    const ynode *st = ynode_get(n, "struct"), *ptr = ynode_get(n, "pointer");
    const ynode *tex = ynode_get(n, "texture"), *tm = ynode_get(n, "tensor_map");
    if (!!buf + !!sc + !!st + !!ptr + !!tex + !!tm != 1)
        return sl_fail_at(L, n, "%s: give exactly one of buffer: TYPE, scalar: TYPE, struct: "
                                "[FIELDS], pointer: BUFFER, texture: BUFFER or tensor_map: "
                                "BUFFER", where);
    if (tex)
        return su_read_texture(c, n, a, where);
    if (tm)
        return su_read_tensor_map(c, n, a, where);
    if (st)
        return sl_check_keys(L, n, where, struct_keys, 3) != 0 ? -1 : su_read_struct(c, n, a, where);
    if (ptr)
        return sl_check_keys(L, n, where, pointer_keys, 2) != 0 ? -1
                                                                : su_read_pointer(c, n, a, where);
    if (sc)
        return sl_check_keys(L, n, where, scalar_keys, 3) != 0 ? -1 : su_read_scalar(c, n, a, where);
    a->is_buffer = 1;
    if (sl_check_keys(L, n, where, buffer_keys, 8) != 0 ||
        read_buffer_type(L, buf, where, &a->type) != 0)
        return -1;
    if (!(v = ynode_get(n, "count")))
        return sl_fail_at(L, n, "%s: missing required key 'count'", where);
    char w[200];
    snprintf(w, sizeof w, "%s.count", where);
    if (su_read_expr(c, v, w, 0, &a->count) != 0)
        return -1;
    if ((v = ynode_get(n, "output")) && sl_get_bool(L, v, where, &a->output) != 0)
        return -1;
    a->init = a->output ? SU_INIT_NONE : SU_INIT_ZEROS;
    snprintf(w, sizeof w, "%s.init", where);
    if ((v = ynode_get(n, "init")) && read_init(c, v, a, w) != 0)
        return -1;
    if ((v = ynode_get(n, "symbol"))) {
        const char *sym;
        snprintf(w, sizeof w, "%s.symbol", where);
        if (sl_get_string(L, v, w, &sym) != 0)
            return -1;
        /* a C++ name, perhaps qualified: ns::table */
        for (const char *p = sym; *p; p++)
            if (!isalnum((unsigned char)*p) && *p != '_' && *p != ':')
                return sl_fail_at(L, v, "%s: '%.60s' is not a variable's name", w, sym);
        char *base = su_base_name(sym);
        int ok = base && su_is_identifier(base);
        free(base);
        if (!ok)
            return sl_fail_at(L, v, "%s: '%.60s' is not a variable's name", w, sym);
        if (!(a->symbol = strdup(sym)))
            return sl_fail_at(L, v, "out of memory");
        for (int j = 0; j < index; j++)
            if (c->u->args[j].symbol && strcmp(c->u->args[j].symbol, sym) == 0)
                return sl_fail_at(L, v, "%s: %s is filled by kernel.args %s already", w, sym,
                                  c->u->args[j].name);
        c->u->n_symbols++;
    }
    su_default_tolerance(a->type == SU_DTYPE ? SU_F32 : a->type, &a->atol, &a->rtol);
    if ((v = ynode_get(n, "tolerance"))) {
        snprintf(w, sizeof w, "%s.tolerance", where);
        if (!a->output)
            return sl_fail_at(L, v, "%s: only outputs have a tolerance", w);
        if (read_tolerance(L, v, w, a) != 0)
            return -1;
    }
    if ((v = ynode_get(n, "compare")) && !a->output)
        return sl_fail_at(L, v, "%s.compare: only outputs are compared", where);
    return 0;
}

/* ---- comparison plans ---- */

/* A check kernel's arguments: names of kernel args, of its result, or inline scalars. */
static int read_check_args(su_ctx *c, const ynode *v, const char *w, su_check *ck)
{
    loader *L = c->L;
    space_user *u = c->u;
    su_launch_spec *l = &ck->kernel.launches[0];
    if (sl_expect_kind(L, v, YNODE_SEQ, w) != 0)
        return -1;
    if (!(l->args = calloc((size_t)v->n + 1, sizeof *l->args)) ||
        !(ck->scalars = calloc((size_t)v->n + 1, sizeof *ck->scalars)))
        return sl_fail_at(L, v, "out of memory");
    int has_result = 0;
    for (int i = 0; i < v->n; i++) {
        const ynode *it = v->items[i];
        char iw[240];
        snprintf(iw, sizeof iw, "%s[%d]", w, i);
        if (it->kind == YNODE_MAP) {
            static const char *const keys[] = {"scalar", "value"};
            if (sl_check_keys(L, it, iw, keys, 2) != 0 || !ynode_get(it, "scalar"))
                return sl_fail_at(L, it, "%s: expected an argument's name or { scalar: TYPE, "
                                         "value: EXPR }", iw);
            su_arg *s = &ck->scalars[ck->n_scalars];
            s->line = it->line;
            s->col = it->col;
            if (!(s->name = strdup("scalar")))
                return sl_fail_at(L, it, "out of memory");
            ck->n_scalars++;
            if (su_read_scalar(c, it, s, iw) != 0)
                return -1;
            l->args[l->n_args++] = SU_ARG_SCALAR(ck->n_scalars - 1);
            continue;
        }
        const char *name;
        if (sl_get_string(L, it, iw, &name) != 0)
            return -1;
        int code = 0, found = 0;
        if (strcmp(name, ck->result.name) == 0) {
            code = SU_ARG_RESULT;
            found = 1;
            has_result = 1;
        }
        for (int j = 0; j < u->n_args && !found; j++)
            if (strcmp(u->args[j].name, name) == 0) {
                code = j;
                found = 1;
            }
        if (!found)
            return sl_fail_at(L, it, "%s: '%.60s' is neither one of kernel.args nor the check's "
                                     "result (%s)", iw, name, ck->result.name);
        if (code >= 0 && u->args[code].symbol)
            return sl_fail_at(L, it, "%s: '%s' fills the variable %s, which the check kernel "
                                     "cannot take", iw, name, u->args[code].symbol);
        l->args[l->n_args++] = code;
    }
    if (!has_result)
        return sl_fail_at(L, v, "%s: the check kernel must take its result (%s)", w,
                          ck->result.name);
    return 0;
}

/* compare: { check: { ..., result: {...} }, tolerance? } */
static int read_check(su_ctx *c, const ynode *v, const char *where, su_arg *a,
                      const ynode *tol)
{
    static const char *const keys[] = {"source", "function", "template", "defines", "options",
                                       "include_dirs", "grid", "block", "shared_bytes", "args",
                                       "result", "cluster", "cooperative"};
    static const char *const result_keys[] = {"name", "buffer", "count", "tolerance"};
    loader *L = c->L;
    char w[200];
    snprintf(w, sizeof w, "%s.check", where);
    if (sl_expect_kind(L, v, YNODE_MAP, w) != 0 || sl_check_keys(L, v, w, keys, 13) != 0)
        return -1;
    su_check *ck = a->check = calloc(1, sizeof *ck);
    if (!ck)
        return sl_fail_at(L, v, "out of memory");
    /* its result first: the args name it */
    const ynode *r = ynode_get(v, "result");
    char rw[220];
    snprintf(rw, sizeof rw, "%s.result", w);
    if (!r)
        return sl_fail_at(L, v, "%s: missing required key 'result' ({ name, buffer, count }: "
                                "what the check kernel writes)", w);
    if (sl_expect_kind(L, r, YNODE_MAP, rw) != 0 || sl_check_keys(L, r, rw, result_keys, 4) != 0)
        return -1;
    su_arg *res = &ck->result;
    const ynode *x;
    const char *name;
    res->line = r->line;
    res->col = r->col;
    if (!(x = ynode_get(r, "name")))
        return sl_fail_at(L, r, "%s: missing required key 'name'", rw);
    if (sl_get_string(L, x, rw, &name) != 0)
        return -1;
    if (!su_is_identifier(name))
        return sl_fail_at(L, x, "%s: '%.60s' is not a name", rw, name);
    for (int j = 0; j < c->u->n_args; j++)
        if (strcmp(c->u->args[j].name, name) == 0)
            return sl_fail_at(L, x, "%s: '%s' is one of kernel.args already", rw, name);
    if (!(res->name = strdup(name)))
        return sl_fail_at(L, x, "out of memory");
    if (!(x = ynode_get(r, "buffer")))
        return sl_fail_at(L, r, "%s: missing required key 'buffer'", rw);
    if (read_buffer_type(L, x, rw, &res->type) != 0)
        return -1;
    res->is_buffer = 1;
    res->output = 1;
    res->init = SU_INIT_NONE;
    if (!(x = ynode_get(r, "count")))
        return sl_fail_at(L, r, "%s: missing required key 'count'", rw);
    char cw[240];
    snprintf(cw, sizeof cw, "%s.count", rw);
    if (su_read_expr(c, x, cw, 0, &res->count) != 0)
        return -1;
    su_default_tolerance(res->type == SU_DTYPE ? SU_F32 : res->type, &res->atol, &res->rtol);
    snprintf(cw, sizeof cw, "%s.tolerance", rw);
    if ((x = ynode_get(r, "tolerance")) ? read_tolerance(L, x, cw, res) != 0
                                        : tol && read_tolerance(L, tol, cw, res) != 0)
        return -1;
    /* its kernel: compiled once per problem, launched per variant */
    if (su_read_compile_keys(c, v, &ck->kernel, w, &c->u->kernel, 0) != 0)
        return -1;
    if (!(ck->kernel.launches = calloc(1, sizeof *ck->kernel.launches)))
        return sl_fail_at(L, v, "out of memory");
    ck->kernel.n_launches = 1;
    if (su_read_launch(c, &ck->kernel, v, w, 0, &ck->kernel.launches[0]) != 0)
        return -1;
    if (!(x = ynode_get(v, "args")))
        return sl_fail_at(L, v, "%s: missing required key 'args' (the check kernel's "
                                "arguments: names of kernel.args and of its result)", w);
    snprintf(cw, sizeof cw, "%s.args", w);
    return read_check_args(c, x, cw, ck);
}

/* An output's `compare:`: elements | { reduce: sum|min|max, count?, tolerance? } |
 * { check: {...}, tolerance? } */
int su_read_compare(su_ctx *c, const ynode *v, su_arg *a)
{
    static const char *const keys[] = {"reduce", "count", "tolerance", "check"};
    loader *L = c->L;
    char where[200], buf[128];
    snprintf(where, sizeof where, "kernel.args %s.compare", a->name);
    a->cmp_line = v->line;
    a->cmp_col = v->col;
    if (v->kind == YNODE_SCALAR && !v->quoted && strcmp(v->text, "elements") == 0) {
        a->compare = SU_CMP_ELEMENTS;
        return 0;
    }
    if (v->kind != YNODE_MAP)
        return sl_fail_at(L, v, "%s: expected elements, { reduce: sum|min|max } or { check: "
                                "{...} }, found %s", where, sl_node_desc(v, buf, sizeof buf));
    if (sl_check_keys(L, v, where, keys, 4) != 0)
        return -1;
    const ynode *red = ynode_get(v, "reduce"), *chk = ynode_get(v, "check");
    const ynode *tol = ynode_get(v, "tolerance"), *cnt = ynode_get(v, "count");
    if (!!red == !!chk)
        return sl_fail_at(L, v, "%s: give one of reduce or check", where);
    char w[240];
    if (chk) {
        if (cnt)
            return sl_fail_at(L, cnt, "%s.count: a check kernel reads what it needs (give "
                                      "result.count)", where);
        a->compare = SU_CMP_CHECK;
        return read_check(c, chk, where, a, tol);
    }
    const char *op;
    snprintf(w, sizeof w, "%s.reduce", where);
    if (sl_get_string(L, red, w, &op) != 0)
        return -1;
    if (strcmp(op, "sum") == 0)
        a->reduce = SU_REDUCE_SUM;
    else if (strcmp(op, "min") == 0)
        a->reduce = SU_REDUCE_MIN;
    else if (strcmp(op, "max") == 0)
        a->reduce = SU_REDUCE_MAX;
    else
        return sl_fail_at(L, red, "%s: '%.60s' (expected sum, min or max)", w, op);
    a->compare = SU_CMP_REDUCE;
    if (cnt) {
        snprintf(w, sizeof w, "%s.count", where);
        if (su_read_expr(c, cnt, w, 0, &a->cmp_count) != 0)
            return -1;
        a->has_cmp_count = 1;
    }
    if (tol) {
        snprintf(w, sizeof w, "%s.tolerance", where);
        a->has_tol = 0;
        /* the reduction's own tolerance replaces the element-wise one */
        double atol = 0, rtol = 0;
        if (read_tolerance_pair(L, tol, w, &atol, &rtol) != 0)
            return -1;
        a->atol = atol;
        a->rtol = rtol;
        a->has_tol = 1;
        memset(a->has_tol_by, 0, sizeof a->has_tol_by);
    }
    return 0;
}

int su_arg_reads(const su_arg *a)
{
    return a->is_buffer && !(a->output && a->init == SU_INIT_NONE);
}
