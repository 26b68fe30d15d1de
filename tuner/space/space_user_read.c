/* space_user_read.c: reading a space file's user kernel (docs/user-kernels.md) with positioned
 * errors: the `kernel:` mapping (source, compiler, defines, options, include directories, the
 * function and its geometry, or a pipeline of `launches:`), its `args` (buffers, scalars, and
 * buffers that fill a module's variable), each output's comparison plan (element by element, a
 * reduction, or a check kernel of the user's), and the `reference:`; every expression bound to
 * the space's slots. space_user_eval.c evaluates what is read here. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "build/compiler.h"
#include "ops/ops.h"
#include "space_user_internal.h"

typedef struct su_ctx {
    loader *L;
    space_user *u;
    int allow_params;        /* 0: expressions may not read parameters */
    const char *where;       /* for binding errors */
} su_ctx;

typedef struct bind_ctx {
    const space *sp;
    int allow_params;
    const char *refused;     /* the parameter a scope-less expression named */
} bind_ctx;

static int resolve_name(void *ctx, const char *name, int *mask)
{
    bind_ctx *b = ctx;
    int is_device;
    int slot = space_resolve_slot(b->sp, name, mask, &is_device);
    if (slot >= 0 && slot < b->sp->n_params && !b->allow_params) {
        b->refused = b->sp->params[slot].name;
        return -1;
    }
    return slot;
}

/* Reads the scalar n as an expression bound to the space's slots. A quoted scalar with literal
 * set is literal text (a string value), not an expression. */
static int read_expr(su_ctx *c, const ynode *n, const char *where, int literal, su_expr *x)
{
    char buf[128];
    if (n->kind != YNODE_SCALAR || (n->len == 0 && !n->quoted))
        return sl_fail_at(c->L, n, "%s: expected an expression, found %s", where,
                          sl_node_desc(n, buf, sizeof buf));
    x->line = n->line;
    x->col = n->col + (n->quoted == 1 ? 1 : 0);
    if (literal && n->quoted) {
        /* a string literal of the expression language: quote it */
        size_t len = strlen(n->text);
        if (strchr(n->text, '\'') && strchr(n->text, '"'))
            return sl_fail_at(c->L, n, "%s: a literal may not hold both kinds of quote", where);
        x->text = malloc(len + 3);
        if (!x->text)
            return sl_fail_at(c->L, n, "out of memory");
        char q = strchr(n->text, '\'') ? '"' : '\'';
        snprintf(x->text, len + 3, "%c%s%c", q, n->text, q);
        x->col--;
    } else {
        x->text = strdup(n->text);
        if (!x->text)
            return sl_fail_at(c->L, n, "out of memory");
    }
    expr_error e;
    x->e = expr_parse(x->text, &e);
    bind_ctx b = {c->L->sp, c->allow_params, NULL};
    if (x->e && expr_bind(x->e, resolve_name, &b, &e) == 0)
        return 0;
    if (b.refused)
        return sl_fail_at(c->L, n, "%s: parameter '%s' is not in scope here (%s)", where,
                          b.refused, c->where ? c->where : "no parameters");
    int depth = 0;
    for (const char *t = x->text; *t; t++)
        depth += *t == '(' ? 1 : *t == ')' ? -1 : 0;
    space_errorf(c->L->err, c->L->len, c->L->path, x->line, x->col + e.offset, "%s: %s%s", where,
                 e.message, depth != 0 ? " (in a [ ] list a comma ends the item: quote an "
                                         "expression that holds one)" : "");
    return -1;
}

/* 1 when the expression's text, bound without parameters, fails only for naming one. */
static int reads_params(const space *sp, const su_expr *x, const char **which)
{
    bind_ctx b = {sp, 0, NULL};
    expr_error e;
    expr *copy = expr_parse(x->text, &e);
    int bad = !copy || expr_bind(copy, resolve_name, &b, &e) != 0;
    expr_free(copy);
    if (which)
        *which = b.refused;
    return bad && b.refused;
}

/* A list of 1..3 expressions, or one expression. */
static int read_dims(su_ctx *c, const ynode *n, const char *where, su_expr *dims, int *count)
{
    if (n->kind == YNODE_SCALAR) {
        *count = 1;
        return read_expr(c, n, where, 0, &dims[0]);
    }
    if (sl_expect_kind(c->L, n, YNODE_SEQ, where) != 0)
        return -1;
    if (n->n < 1 || n->n > 3)
        return sl_fail_at(c->L, n, "%s: expected 1 to 3 expressions (x, y, z), found %d", where,
                          n->n);
    *count = n->n;
    for (int i = 0; i < n->n; i++)
        if (read_expr(c, n->items[i], where, 0, &dims[i]) != 0)
            return -1;
    return 0;
}

static int read_string_list(su_ctx *c, const ynode *n, const char *where, char ***out, int *count)
{
    if (sl_expect_kind(c->L, n, YNODE_SEQ, where) != 0)
        return -1;
    *out = calloc((size_t)n->n + 1, sizeof **out);
    if (!*out)
        return sl_fail_at(c->L, n, "out of memory");
    for (int i = 0; i < n->n; i++) {
        const char *s;
        if (sl_get_string(c->L, n->items[i], where, &s) != 0)
            return -1;
        if (!((*out)[i] = strdup(s)))
            return sl_fail_at(c->L, n, "out of memory");
        *count = i + 1;
    }
    return 0;
}

/* 1 when word occurs in text as a whole identifier. */
static int has_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
        int before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
        int after = isalnum((unsigned char)p[n]) || p[n] == '_';
        if (!before && !after)
            return 1;
    }
    return 0;
}

/* The name without scope or template arguments ("ns::f<T>" -> "f"). */
static char *base_name(const char *function)
{
    const char *lt = strchr(function, '<');
    size_t n = lt ? (size_t)(lt - function) : strlen(function);
    char *s = strndup(function, n);
    if (!s)
        return NULL;
    char *colon = strrchr(s, ':');
    if (colon)
        memmove(s, colon + 1, strlen(colon + 1) + 1);
    return s;
}

/* 1 when the base name of name appears in the kernel's source or a file it includes. */
static int kernel_mentions(const su_kernel *k, const char *base)
{
    char why[256];
    char **files = NULL;
    char err[512];
    int nf = su_kernel_files(k, &files, err, sizeof err), found = 0;
    for (int i = 0; i < nf && !found; i++) {
        char *t = su_read_text(files[i], NULL, why, sizeof why);
        found = t && has_word(t, base);
        free(t);
    }
    for (int i = 0; i < nf; i++)
        free(files[i]);
    free(files);
    return found;
}

/* What kind of kernel a mapping describes: which keys it may have and what its expressions
 * see. */
typedef enum kernel_kind { KK_TUNED, KK_REFERENCE, KK_CHECK } kernel_kind;

/* The function of a launch: a name that appears in the kernel's files. */
static int read_function(su_ctx *c, const su_kernel *k, const ynode *v, const char *w,
                         su_launch_spec *l)
{
    const char *fn;
    if (sl_get_string(c->L, v, w, &fn) != 0)
        return -1;
    char *base = base_name(fn);
    if (!base || !su_is_identifier(base)) {
        free(base);
        return sl_fail_at(c->L, v, "%s: '%.60s' is not a function name", w, fn);
    }
    int found = kernel_mentions(k, base);
    free(base);
    if (!found)
        return sl_fail_at(c->L, v, "%s: no function '%.60s' in %s", w, fn, k->source);
    if (!(l->function = strdup(fn)))
        return sl_fail_at(c->L, v, "out of memory");
    l->line = v->line;
    l->col = v->col;
    return 0;
}

/* function, template, grid, block, shared_bytes of one launch, from map. params_in_templ: the
 * template's expressions may read parameters (not for a reference or check kernel, which is
 * compiled once per problem). */
static int read_launch(su_ctx *c, const su_kernel *k, const ynode *map, const char *where,
                       int params_in_templ, su_launch_spec *l)
{
    loader *L = c->L;
    const ynode *v;
    char w[200];
    if (!(v = ynode_get(map, "function")))
        return sl_fail_at(L, map, "%s: missing required key 'function'", where);
    snprintf(w, sizeof w, "%s.function", where);
    if (read_function(c, k, v, w, l) != 0)
        return -1;
    if ((v = ynode_get(map, "template"))) {
        snprintf(w, sizeof w, "%s.template", where);
        if (sl_expect_kind(L, v, YNODE_SEQ, w) != 0)
            return -1;
        if (strchr(l->function, '<'))
            return sl_fail_at(L, v, "%s: the function already names template arguments", w);
        if (!(l->templ = calloc((size_t)v->n + 1, sizeof *l->templ)))
            return sl_fail_at(L, v, "out of memory");
        su_ctx tc = *c;
        if (!params_in_templ) {
            tc.allow_params = 0;
            tc.where = "this kernel is compiled once per problem: its template arguments see "
                       "the problem, dtype and device only";
        }
        for (int i = 0; i < v->n; i++) {
            l->n_template = i + 1;
            if (read_expr(&tc, v->items[i], w, 1, &l->templ[i]) != 0)
                return -1;
        }
    }
    if (!(v = ynode_get(map, "grid")))
        return sl_fail_at(L, map, "%s: missing required key 'grid'", where);
    snprintf(w, sizeof w, "%s.grid", where);
    if (read_dims(c, v, w, l->grid, &l->grid_dims) != 0)
        return -1;
    if (!(v = ynode_get(map, "block")))
        return sl_fail_at(L, map, "%s: missing required key 'block'", where);
    snprintf(w, sizeof w, "%s.block", where);
    if (read_dims(c, v, w, l->block, &l->block_dims) != 0)
        return -1;
    if ((v = ynode_get(map, "shared_bytes"))) {
        snprintf(w, sizeof w, "%s.shared_bytes", where);
        if (read_expr(c, v, w, 0, &l->shared) != 0)
            return -1;
        l->has_shared = 1;
    }
    return 0;
}

/* source (default: dflt), include_dirs, defines, options: what one compilation shares. */
static int read_compile_keys(su_ctx *c, const ynode *map, su_kernel *k, const char *where,
                             const su_kernel *dflt, int params_in_defines)
{
    loader *L = c->L;
    const ynode *v;
    char w[200];
    k->line = map->line;
    k->col = map->col;
    const char *src = NULL;
    if ((v = ynode_get(map, "source"))) {
        snprintf(w, sizeof w, "%s.source", where);
        if (sl_get_string(L, v, w, &src) != 0)
            return -1;
        if (!(k->source = su_path_join(c->u->dir, src)))
            return sl_fail_at(L, v, "out of memory");
    } else if (dflt) {
        if (!(k->source = strdup(dflt->source)))
            return sl_fail_at(L, map, "out of memory");
        v = map;
    } else {
        return sl_fail_at(L, map, "%s: missing required key 'source'", where);
    }
    if (!(k->source_dir = su_dir_of(k->source)))
        return sl_fail_at(L, v, "out of memory");
    char why[256];
    char *text = su_read_text(k->source, NULL, why, sizeof why);
    if (!text)
        return sl_fail_at(L, v, "%s.source: cannot read %s: %s", where, k->source, why);
    free(text);
    if ((v = ynode_get(map, "include_dirs"))) {
        snprintf(w, sizeof w, "%s.include_dirs", where);
        char **dirs = NULL;
        int n = 0;
        int bad = read_string_list(c, v, w, &dirs, &n);
        k->include_dirs = dirs;
        k->n_include_dirs = n;
        if (bad)
            return -1;
        for (int i = 0; i < n; i++) {
            char *p = su_path_join(c->u->dir, dirs[i]);
            if (!p || !su_is_dir(p)) {
                free(p);
                return sl_fail_at(L, v->items[i], "%s: %s is not a directory", w, dirs[i]);
            }
            free(dirs[i]);
            dirs[i] = p;
        }
    } else if (dflt && !ynode_get(map, "source")) {
        /* a check kernel in the tuned kernel's source finds what it finds */
        if (dflt->n_include_dirs &&
            !(k->include_dirs = calloc((size_t)dflt->n_include_dirs, sizeof *k->include_dirs)))
            return sl_fail_at(L, map, "out of memory");
        for (int i = 0; i < dflt->n_include_dirs; i++) {
            if (!(k->include_dirs[i] = strdup(dflt->include_dirs[i])))
                return sl_fail_at(L, map, "out of memory");
            k->n_include_dirs = i + 1;
        }
    }
    if ((v = ynode_get(map, "defines"))) {
        k->defines_given = 1;
        snprintf(w, sizeof w, "%s.defines", where);
        int n = v->kind == YNODE_MAP || v->kind == YNODE_SEQ ? v->n : 0;
        if (v->kind != YNODE_MAP && v->kind != YNODE_SEQ)
            return sl_expect_kind(L, v, YNODE_MAP, w);
        k->define_names = calloc((size_t)n + 1, sizeof *k->define_names);
        k->define_values = calloc((size_t)n + 1, sizeof *k->define_values);
        if (!k->define_names || !k->define_values)
            return sl_fail_at(L, v, "out of memory");
        su_ctx dc = *c;
        if (!params_in_defines) {
            dc.allow_params = 0;
            dc.where = "this kernel is compiled once per problem: its defines see the problem, "
                       "dtype and device only";
        }
        for (int i = 0; i < n; i++) {
            const ynode *key = v->kind == YNODE_MAP ? v->items[2 * i] : v->items[i];
            const char *name;
            if (sl_get_string(L, key, w, &name) != 0)
                return -1;
            if (!su_is_identifier(name))
                return sl_fail_at(L, key, "%s: '%.60s' is not a macro name", w, name);
            for (int j = 0; j < i; j++)
                if (strcmp(k->define_names[j], name) == 0)
                    return sl_fail_at(L, key, "%s: %s is defined twice", w, name);
            if (!(k->define_names[i] = strdup(name)))
                return sl_fail_at(L, key, "out of memory");
            k->n_defines = i + 1;
            if (v->kind == YNODE_MAP) {
                if (read_expr(&dc, v->items[2 * i + 1], w, 1, &k->define_values[i]) != 0)
                    return -1;
            } else if (read_expr(&dc, key, w, 0, &k->define_values[i]) != 0) {
                return -1;   /* a listed name is a parameter's own */
            }
        }
    }
    if ((v = ynode_get(map, "options"))) {
        snprintf(w, sizeof w, "%s.options", where);
        if (read_string_list(c, v, w, &k->options, &k->n_options) != 0)
            return -1;
        for (int i = 0; i < k->n_options; i++) {
            const char *o = k->options[i];
            if (o[0] != '-')
                return sl_fail_at(L, v->items[i], "%s: '%.60s' is not an option (it must start "
                                                  "with -)", w, o);
            if (strncmp(o, "-arch", 5) == 0 || strncmp(o, "--gpu-architecture", 18) == 0 ||
                strncmp(o, "-gencode", 8) == 0 || strncmp(o, "--generate-code", 15) == 0)
                return sl_fail_at(L, v->items[i], "%s: '%.60s': the tuner compiles for the GPU "
                                                  "it measures; leave the architecture out", w, o);
        }
    }
    return 0;
}

/* The arguments a launch takes, by name, into l->args (indices into u->args). */
static int read_launch_args(su_ctx *c, const ynode *v, const char *w, su_launch_spec *l)
{
    loader *L = c->L;
    space_user *u = c->u;
    if (sl_expect_kind(L, v, YNODE_SEQ, w) != 0)
        return -1;
    if (!(l->args = calloc((size_t)v->n + 1, sizeof *l->args)))
        return sl_fail_at(L, v, "out of memory");
    for (int i = 0; i < v->n; i++) {
        const char *name;
        if (sl_get_string(L, v->items[i], w, &name) != 0)
            return -1;
        int a = -1;
        for (int j = 0; j < u->n_args && a < 0; j++)
            if (strcmp(u->args[j].name, name) == 0)
                a = j;
        if (a < 0)
            return sl_fail_at(L, v->items[i], "%s: '%.60s' is not one of kernel.args", w, name);
        if (u->args[a].symbol)
            return sl_fail_at(L, v->items[i], "%s: '%s' fills the variable %s, which is not a "
                                              "parameter", w, name, u->args[a].symbol);
        for (int j = 0; j < i; j++)
            if (l->args[j] == a)
                return sl_fail_at(L, v->items[i], "%s: '%s' is listed twice", w, name);
        l->args[i] = a;
        l->n_args = i + 1;
    }
    return 0;
}

/* Every parameter argument in order: what a single kernel (or a reference kernel) takes. */
static int all_parameter_args(su_ctx *c, const ynode *at, su_launch_spec *l)
{
    space_user *u = c->u;
    if (!(l->args = calloc((size_t)u->n_args + 1, sizeof *l->args)))
        return sl_fail_at(c->L, at, "out of memory");
    for (int i = 0; i < u->n_args; i++)
        if (!u->args[i].symbol)
            l->args[l->n_args++] = i;
    return 0;
}

/* The tuned kernel (kind KK_TUNED: a single launch or `launches:`) or a reference kernel. */
static int read_kernel(su_ctx *c, const ynode *map, su_kernel *k, const char *where,
                       kernel_kind kind)
{
    loader *L = c->L;
    if (read_compile_keys(c, map, k, where, NULL, kind == KK_TUNED) != 0)
        return -1;
    const ynode *launches = kind == KK_TUNED ? ynode_get(map, "launches") : NULL;
    if (!launches) {
        if (!(k->launches = calloc(1, sizeof *k->launches)))
            return sl_fail_at(L, map, "out of memory");
        k->n_launches = 1;
        if (read_launch(c, k, map, where, kind == KK_TUNED, &k->launches[0]) != 0)
            return -1;
        return all_parameter_args(c, map, &k->launches[0]);
    }
    static const char *const single[] = {"function", "template", "grid", "block", "shared_bytes"};
    for (int i = 0; i < 5; i++)
        if (ynode_get(map, single[i]))
            return sl_fail_at(L, ynode_get(map, single[i]), "%s.%s: give it in each of "
                              "launches, not beside them", where, single[i]);
    char w[200];
    snprintf(w, sizeof w, "%s.launches", where);
    if (sl_expect_kind(L, launches, YNODE_SEQ, w) != 0)
        return -1;
    if (launches->n == 0)
        return sl_fail_at(L, launches, "%s: the list is empty", w);
    if (launches->n > 16)
        return sl_fail_at(L, launches, "%s: at most 16 launches", w);
    if (!(k->launches = calloc((size_t)launches->n, sizeof *k->launches)))
        return sl_fail_at(L, launches, "out of memory");
    static const char *const keys[] = {"function", "template", "grid", "block", "shared_bytes",
                                       "args"};
    for (int i = 0; i < launches->n; i++) {
        const ynode *lm = launches->items[i];
        char lw[200];
        snprintf(lw, sizeof lw, "%s[%d]", w, i);
        k->n_launches = i + 1;
        if (sl_expect_kind(L, lm, YNODE_MAP, lw) != 0 || sl_check_keys(L, lm, lw, keys, 6) != 0 ||
            read_launch(c, k, lm, lw, 1, &k->launches[i]) != 0)
            return -1;
        const ynode *v = ynode_get(lm, "args");
        if (!v)
            return sl_fail_at(L, lm, "%s: missing required key 'args' (the arguments this "
                                     "launch takes, by name, in order)", lw);
        char aw[220];
        snprintf(aw, sizeof aw, "%s.args", lw);
        if (read_launch_args(c, v, aw, &k->launches[i]) != 0)
            return -1;
    }
    /* an argument no launch takes is a slip (a typo, a leftover) */
    for (int a = 0; a < c->u->n_args; a++) {
        int taken = c->u->args[a].symbol != NULL;
        for (int i = 0; i < k->n_launches && !taken; i++)
            for (int j = 0; j < k->launches[i].n_args && !taken; j++)
                taken = k->launches[i].args[j] == a;
        if (!taken)
            return sl_fail_at(L, launches, "%s: no launch takes kernel.args %s", w,
                              c->u->args[a].name);
    }
    return 0;
}

/* init: zeros | { random: [lo, hi] } | { constant: v } | { arange: [start, step] } | { file: p } */
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
        return sl_get_float(L, v, w, &a->a);
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
    if (sl_get_float(L, v->items[0], w, &a->a) != 0 || sl_get_float(L, v->items[1], w, &a->b))
        return -1;
    if (strcmp(kind, "random") == 0) {
        a->init = SU_INIT_RANDOM;
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
    if (strcmp(name, "dtype") == 0) {
        *type = SU_DTYPE;
        return 0;
    }
    if ((*type = su_type_parse(name)) >= 0)
        return 0;
    char names[256] = "";
    for (int t = 0; t < SU_TYPE_COUNT; t++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s, ", su_type_name(t));
    return sl_fail_at(L, n, "%s: unknown type '%.60s' (expected %sor dtype)", where, name, names);
}

/* A scalar: { scalar: TYPE, value: EXPR } (name given by the caller or read here). */
static int read_scalar(su_ctx *c, const ynode *n, su_arg *a, const char *where)
{
    loader *L = c->L;
    const char *type;
    a->is_buffer = 0;
    if (sl_get_string(L, ynode_get(n, "scalar"), where, &type) != 0)
        return -1;
    a->type = su_type_parse(type);
    if (a->type != SU_I32 && a->type != SU_I64 && a->type != SU_U32 && a->type != SU_U64 &&
        a->type != SU_F32 && a->type != SU_F64)
        return sl_fail_at(L, ynode_get(n, "scalar"), "%s: scalar type '%.60s' (expected i32, "
                          "i64, u32, u64, f32 or f64)", where, type);
    const ynode *v = ynode_get(n, "value");
    if (!v)
        return sl_fail_at(L, n, "%s: missing required key 'value'", where);
    char w[220];
    snprintf(w, sizeof w, "%s.value", where);
    return read_expr(c, v, w, 0, &a->value);
}

static int read_arg(su_ctx *c, const ynode *n, su_arg *a, int index)
{
    static const char *const buffer_keys[] = {"name", "buffer", "count", "init", "output",
                                              "tolerance", "symbol", "compare"};
    static const char *const scalar_keys[] = {"name", "scalar", "value"};
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
    if (!!buf == !!sc)
        return sl_fail_at(L, n, "%s: give exactly one of buffer: TYPE or scalar: TYPE", where);
    if (sc)
        return sl_check_keys(L, n, where, scalar_keys, 3) != 0 ? -1 : read_scalar(c, n, a, where);
    a->is_buffer = 1;
    if (sl_check_keys(L, n, where, buffer_keys, 8) != 0 ||
        read_buffer_type(L, buf, where, &a->type) != 0)
        return -1;
    if (!(v = ynode_get(n, "count")))
        return sl_fail_at(L, n, "%s: missing required key 'count'", where);
    char w[200];
    snprintf(w, sizeof w, "%s.count", where);
    if (read_expr(c, v, w, 0, &a->count) != 0)
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
        char *base = base_name(sym);
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
            if (read_scalar(c, it, s, iw) != 0)
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
                                       "result"};
    static const char *const result_keys[] = {"name", "buffer", "count", "tolerance"};
    loader *L = c->L;
    char w[200];
    snprintf(w, sizeof w, "%s.check", where);
    if (sl_expect_kind(L, v, YNODE_MAP, w) != 0 || sl_check_keys(L, v, w, keys, 11) != 0)
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
    if (read_expr(c, x, cw, 0, &res->count) != 0)
        return -1;
    su_default_tolerance(res->type == SU_DTYPE ? SU_F32 : res->type, &res->atol, &res->rtol);
    snprintf(cw, sizeof cw, "%s.tolerance", rw);
    if ((x = ynode_get(r, "tolerance")) ? read_tolerance(L, x, cw, res) != 0
                                        : tol && read_tolerance(L, tol, cw, res) != 0)
        return -1;
    /* its kernel: compiled once per problem, launched per variant */
    if (read_compile_keys(c, v, &ck->kernel, w, &c->u->kernel, 0) != 0)
        return -1;
    if (!(ck->kernel.launches = calloc(1, sizeof *ck->kernel.launches)))
        return sl_fail_at(L, v, "out of memory");
    ck->kernel.n_launches = 1;
    if (read_launch(c, &ck->kernel, v, w, 0, &ck->kernel.launches[0]) != 0)
        return -1;
    if (!(x = ynode_get(v, "args")))
        return sl_fail_at(L, v, "%s: missing required key 'args' (the check kernel's "
                                "arguments: names of kernel.args and of its result)", w);
    snprintf(cw, sizeof cw, "%s.args", w);
    return read_check_args(c, x, cw, ck);
}

/* An output's `compare:`: elements | { reduce: sum|min|max, count?, tolerance? } |
 * { check: {...}, tolerance? } */
static int read_compare(su_ctx *c, const ynode *v, su_arg *a)
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
        if (read_expr(c, cnt, w, 0, &a->cmp_count) != 0)
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

/* ---- the tolerance a loaded output has ---- */

void space_user_tolerance(const su_arg *a, const char *dtype, double *atol, double *rtol)
{
    int t = su_type_parse(dtype);
    if (t >= 0 && a->has_tol_by[t]) {
        *atol = a->tol_by[t][0];
        *rtol = a->tol_by[t][1];
        return;
    }
    if (a->has_tol || a->type != SU_DTYPE) {
        *atol = a->atol;
        *rtol = a->rtol;
        return;
    }
    su_default_tolerance(su_type_parse(dtype), atol, rtol);
}

/* ---- loading: the parts that come before problems and params ---- */

static const char *const kernel_keys[] = {"source", "function", "template", "defines", "options",
                                          "include_dirs", "family", "args", "grid", "block",
                                          "shared_bytes", "bytes", "elements", "flops", "peer",
                                          "compiler", "launches", "name"};

int su_load_head(loader *L, const ynode *kernel, const ynode *dtypes)
{
    space *sp = L->sp;
    space_user *u = calloc(1, sizeof *u);
    if (!u)
        return sl_fail_at(L, kernel, "out of memory");
    sp->user = u;
    if (sl_check_keys(L, kernel, "kernel", kernel_keys,
                      (int)(sizeof kernel_keys / sizeof *kernel_keys)) != 0)
        return -1;
    if (!(u->dir = su_dir_of(sp->path)))
        return sl_fail_at(L, kernel, "out of memory");
    /* the op: `name`, else the function's (the first launch's) */
    const ynode *v = ynode_get(kernel, "name");
    const char *fn, *what = "kernel.name";
    if (!v) {
        const ynode *ls = ynode_get(kernel, "launches");
        v = ynode_get(kernel, "function");
        what = "kernel.function";
        if (!v && ls && ls->kind == YNODE_SEQ && ls->n > 0 && ls->items[0]->kind == YNODE_MAP) {
            v = ynode_get(ls->items[0], "function");
            what = "kernel.launches[0].function";
        }
    }
    if (!v)
        return sl_fail_at(L, kernel, "kernel: missing required key 'function' (or launches:)");
    if (sl_get_string(L, v, what, &fn) != 0)
        return -1;
    if (!(u->op = base_name(fn)))
        return sl_fail_at(L, v, "out of memory");
    if (!su_is_identifier(u->op))
        return sl_fail_at(L, v, "%s: '%.60s' is not a name", what, fn);
    if ((v = ynode_get(kernel, "family"))) {
        const char *name;
        if (sl_get_string(L, v, "kernel.family", &name) != 0)
            return -1;
        if (!su_is_identifier(name))
            return sl_fail_at(L, v, "kernel.family: '%.60s' is not a name", name);
        if (!(u->family = strdup(name)))
            return sl_fail_at(L, v, "out of memory");
    } else {
        /* the space file's folder, as a name */
        char *dir = su_dir_of(sp->path);
        const char *base = dir && strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
        if (!base || !*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
            base = "user";
        u->family = strdup(base);
        free(dir);
        if (!u->family)
            return sl_fail_at(L, kernel, "out of memory");
        for (char *p = u->family; *p; p++)
            if (!isalnum((unsigned char)*p) && *p != '_')
                *p = '_';
        if (isdigit((unsigned char)u->family[0]))
            u->family[0] = '_';
        v = kernel;
    }
    if (op_family_find(u->family))
        return sl_fail_at(L, v, "kernel.family: '%s' is a built-in family; give this kernel a "
                                "family of its own (kernel.family)", u->family);
    if (!(sp->kernel = strdup(u->family)) || !(sp->ops = calloc(1, sizeof *sp->ops)) ||
        !(sp->ops[0] = strdup(u->op)))
        return sl_fail_at(L, kernel, "out of memory");
    sp->n_ops = 1;
    /* dtypes: as given, else the first output buffer's type */
    if (dtypes) {
        if (sl_expect_kind(L, dtypes, YNODE_SEQ, "dtypes") != 0)
            return -1;
        if (dtypes->n == 0)
            return sl_fail_at(L, dtypes, "dtypes: the list is empty");
        if (!(sp->dtypes = calloc((size_t)dtypes->n, sizeof *sp->dtypes)))
            return sl_fail_at(L, dtypes, "out of memory");
        for (int i = 0; i < dtypes->n; i++) {
            const char *name;
            if (sl_get_string(L, dtypes->items[i], "dtypes", &name) != 0)
                return -1;
            if (su_type_parse(name) < 0)
                return sl_fail_at(L, dtypes->items[i], "dtypes: unknown type '%.60s'", name);
            for (int j = 0; j < i; j++)
                if (strcmp(sp->dtypes[j], name) == 0)
                    return sl_fail_at(L, dtypes->items[i], "dtypes: '%s' is listed twice", name);
            if (!(sp->dtypes[i] = strdup(name)))
                return sl_fail_at(L, dtypes, "out of memory");
            sp->n_dtypes = i + 1;
        }
        return 0;
    }
    const ynode *args = ynode_get(kernel, "args");
    const char *type = NULL;
    for (int i = 0; args && args->kind == YNODE_SEQ && i < args->n && !type; i++) {
        const ynode *a = args->items[i], *b, *o;
        int out = 0;
        if (a->kind == YNODE_MAP && (b = ynode_get(a, "buffer")) && b->kind == YNODE_SCALAR &&
            (o = ynode_get(a, "output")) && o->kind == YNODE_SCALAR &&
            strcmp(o->text, "true") == 0)
            out = 1;
        if (out) {
            type = b->text;
            if (strcmp(type, "dtype") == 0)
                return sl_fail_at(L, b, "kernel.args: 'buffer: dtype' needs a dtypes: list");
        }
    }
    if (!type)
        type = "f32";   /* the body reports the missing output */
    if (!(sp->dtypes = calloc(1, sizeof *sp->dtypes)) || !(sp->dtypes[0] = strdup(type)))
        return sl_fail_at(L, kernel, "out of memory");
    sp->n_dtypes = 1;
    return 0;
}

/* A user kernel's problem fields: the keys of its first problem, every one an integer that
 * every problem gives. */
int su_load_fields(loader *L, const ynode *problems)
{
    space *sp = L->sp;
    if (sl_expect_kind(L, problems, YNODE_SEQ, "problems") != 0)
        return -1;
    if (problems->n == 0)
        return sl_fail_at(L, problems, "problems: the list is empty");
    const ynode *first = problems->items[0];
    if (sl_expect_kind(L, first, YNODE_MAP, "problems") != 0)
        return -1;
    if (first->n == 0)
        return sl_fail_at(L, first, "problems: a problem needs at least one field");
    if (first->n > 64)
        return sl_fail_at(L, first, "problems: more than 64 fields");
    problem_field *f = calloc((size_t)first->n, sizeof *f);
    if (!f)
        return sl_fail_at(L, first, "out of memory");
    sp->fields = f;
    for (int k = 0; k < first->n; k++) {
        const ynode *key = first->items[2 * k];
        if (!su_is_identifier(key->text))
            return sl_fail_at(L, key, "problems: '%.60s' is not a name expressions can read",
                              key->text);
        if (space_is_given_name(key->text))
            return sl_fail_at(L, key, "problems: '%s' is a name the tuner gives (dtype, "
                                      "dtype_size, ctype, op or a device attribute)", key->text);
        if (!(f[k].name = strdup(key->text)))
            return sl_fail_at(L, key, "out of memory");
        f[k].required = 1;
        f[k].min = INT64_MIN;
        f[k].max = INT64_MAX;
        sp->n_fields = k + 1;
    }
    return 0;
}

/* ---- loading: the parts bound to parameters ---- */

static int read_reference(su_ctx *c, const ynode *ref)
{
    static const char *const keys[] = {"config", "kernel", "file"};
    static const char *const ref_kernel_keys[] = {"source", "function", "template", "defines",
                                                  "options", "include_dirs", "grid", "block",
                                                  "shared_bytes"};
    loader *L = c->L;
    space *sp = L->sp;
    space_user *u = c->u;
    u->ref_line = ref->line;
    u->ref_col = ref->col;
    if (sl_expect_kind(L, ref, YNODE_MAP, "reference") != 0 ||
        sl_check_keys(L, ref, "reference", keys, 3) != 0)
        return -1;
    if (ref->n != 1)
        return sl_fail_at(L, ref, "reference: give one of config, kernel or file");
    const char *kind = ref->items[0]->text;
    const ynode *v = ref->items[1];
    if (strcmp(kind, "config") == 0) {
        u->ref = SU_REF_CONFIG;
        if (sl_expect_kind(L, v, YNODE_MAP, "reference.config") != 0)
            return -1;
        if (!(u->ref_choice = calloc((size_t)sp->n_params + 1, sizeof *u->ref_choice)))
            return sl_fail_at(L, v, "out of memory");
        for (int p = 0; p < sp->n_params; p++) {
            const ynode *x = ynode_get(v, sp->params[p].name);
            if (!x)
                return sl_fail_at(L, v, "reference.config: missing parameter '%s'",
                                  sp->params[p].name);
            int64_t i;
            value want = sl_is_int_scalar(x, &i) ? value_int(i) : value_string(x->text);
            int found = -1;
            for (int k = 0; k < sp->params[p].n_values && found < 0; k++)
                if (value_equal(sp->params[p].values[k], want))
                    found = k;
            if (found < 0)
                return sl_fail_at(L, x, "reference.config: %s = %.60s is not one of the "
                                        "parameter's values", sp->params[p].name, x->text);
            u->ref_choice[p] = found;
        }
        for (int k = 0; k < v->n; k++) {
            const ynode *key = v->items[2 * k];
            int known = 0;
            for (int p = 0; p < sp->n_params && !known; p++)
                known = strcmp(sp->params[p].name, key->text) == 0;
            if (!known)
                return sl_fail_at(L, key, "reference.config: unknown parameter '%.60s'",
                                  key->text);
        }
        return 0;
    }
    if (strcmp(kind, "kernel") == 0) {
        u->ref = SU_REF_KERNEL;
        if (sl_expect_kind(L, v, YNODE_MAP, "reference.kernel") != 0 ||
            sl_check_keys(L, v, "reference.kernel", ref_kernel_keys, 9) != 0)
            return -1;
        if (u->kernel.n_launches > 1)
            return sl_fail_at(L, v, "reference.kernel: a pipeline's reference is a config of "
                                    "its own (reference: config:) or files");
        su_ctx rc = *c;
        rc.allow_params = 0;
        rc.where = "a reference kernel's expressions see the problem, dtype and device only";
        return read_kernel(&rc, v, &u->ref_kernel, "reference.kernel", KK_REFERENCE);
    }
    u->ref = SU_REF_FILE;
    if (sl_expect_kind(L, v, YNODE_MAP, "reference.file") != 0)
        return -1;
    if (!(u->ref_files = calloc((size_t)u->n_args + 1, sizeof *u->ref_files)))
        return sl_fail_at(L, v, "out of memory");
    for (int k = 0; k < v->n; k++) {
        const ynode *key = v->items[2 * k];
        int i;
        for (i = 0; i < u->n_args; i++)
            if (strcmp(u->args[i].name, key->text) == 0)
                break;
        if (i == u->n_args || !u->args[i].output)
            return sl_fail_at(L, key, "reference.file: '%.60s' is not an output buffer",
                              key->text);
        const char *f;
        if (sl_get_string(L, v->items[2 * k + 1], "reference.file", &f) != 0)
            return -1;
        if (!(u->ref_files[i] = su_path_join(u->dir, f)))
            return sl_fail_at(L, key, "out of memory");
    }
    for (int i = 0; i < u->n_args; i++)
        if (u->args[i].output && !u->ref_files[i])
            return sl_fail_at(L, v, "reference.file: no file for output '%s'", u->args[i].name);
    return 0;
}

/* Every parameter as -D name=value: the default when neither defines nor template is given. */
static int default_defines(loader *L, const ynode *kernel, su_kernel *k)
{
    space *sp = L->sp;
    k->define_names = calloc((size_t)sp->n_params, sizeof *k->define_names);
    k->define_values = calloc((size_t)sp->n_params, sizeof *k->define_values);
    if (!k->define_names || !k->define_values)
        return sl_fail_at(L, kernel, "out of memory");
    for (int p = 0; p < sp->n_params; p++) {
        k->n_defines = p + 1;
        if (!(k->define_names[p] = strdup(sp->params[p].name)) ||
            !(k->define_values[p].text = strdup(sp->params[p].name)))
            return sl_fail_at(L, kernel, "out of memory");
        expr_error e;
        bind_ctx b = {sp, 1, NULL};
        k->define_values[p].line = sp->params[p].line;
        k->define_values[p].col = sp->params[p].col;
        if (!(k->define_values[p].e = expr_parse(sp->params[p].name, &e)) ||
            expr_bind(k->define_values[p].e, resolve_name, &b, &e) != 0)
            return sl_fail_at(L, kernel, "parameter %s: %s", sp->params[p].name, e.message);
    }
    return 0;
}

int su_load_body(loader *L, const ynode *kernel, const ynode *reference)
{
    space *sp = L->sp;
    space_user *u = sp->user;
    su_ctx c = {L, u, 1, NULL};
    const ynode *v;
    /* the compiler */
    const char *cc = "nvrtc";
    if ((v = ynode_get(kernel, "compiler"))) {
        if (sl_get_string(L, v, "kernel.compiler", &cc) != 0)
            return -1;
        if (!compiler_kind_known(cc))
            return sl_fail_at(L, v, "kernel.compiler: '%.60s' (expected nvrtc or nvcc)", cc);
    }
    if (!(u->compiler = strdup(cc)))
        return sl_fail_at(L, kernel, "out of memory");
    /* the arguments first: launches name them */
    const ynode *args = ynode_get(kernel, "args");
    if (!args)
        return sl_fail_at(L, kernel, "kernel: missing required key 'args'");
    if (sl_expect_kind(L, args, YNODE_SEQ, "kernel.args") != 0)
        return -1;
    if (args->n == 0)
        return sl_fail_at(L, args, "kernel.args: the list is empty");
    if (!(u->args = calloc((size_t)args->n, sizeof *u->args)))
        return sl_fail_at(L, args, "out of memory");
    int outputs = 0;
    for (int i = 0; i < args->n; i++) {
        u->n_args = i + 1;
        if (read_arg(&c, args->items[i], &u->args[i], i) != 0)
            return -1;
        outputs += u->args[i].is_buffer && u->args[i].output;
    }
    if (outputs == 0)
        return sl_fail_at(L, args, "kernel.args: no buffer is an output (output: true)");
    if (read_kernel(&c, kernel, &u->kernel, "kernel", KK_TUNED) != 0)
        return -1;
    su_kernel *k = &u->kernel;
    int templated = 0;
    for (int i = 0; i < k->n_launches; i++)
        templated |= k->launches[i].n_template > 0;
    if (!k->defines_given && !templated && sp->n_params > 0 &&
        default_defines(L, kernel, k) != 0)
        return -1;
    /* the outputs' comparison plans (a check kernel defaults to the kernel's source) */
    for (int i = 0; i < args->n; i++)
        if ((v = ynode_get(args->items[i], "compare")) && read_compare(&c, v, &u->args[i]) != 0)
            return -1;
    c.allow_params = 0;
    c.where = "bytes, elements and flops are per problem";
    if ((v = ynode_get(kernel, "bytes"))) {
        if (read_expr(&c, v, "kernel.bytes", 0, &u->bytes) != 0)
            return -1;
        u->has_bytes = 1;
    }
    if ((v = ynode_get(kernel, "elements"))) {
        if (read_expr(&c, v, "kernel.elements", 0, &u->elements) != 0)
            return -1;
        u->has_elements = 1;
    }
    if ((v = ynode_get(kernel, "flops"))) {
        if (read_expr(&c, v, "kernel.flops", 0, &u->flops) != 0)
            return -1;
        u->has_flops = 1;
    }
    if ((v = ynode_get(kernel, "peer"))) {
        const char *p;
        if (sl_get_string(L, v, "kernel.peer", &p) != 0)
            return -1;
        if (!(u->peer = su_path_join(u->dir, p)))
            return sl_fail_at(L, v, "out of memory");
        if (!su_is_file(u->peer))
            return sl_fail_at(L, v, "kernel.peer: no file %s", u->peer);
    }
    if (reference) {
        c.allow_params = 1;
        c.where = NULL;
        if (read_reference(&c, reference) != 0)
            return -1;
        if (u->ref == SU_REF_KERNEL || u->ref == SU_REF_FILE)
            for (int i = 0; i < u->n_args; i++) {
                /* the reference's launch (or files) shares the buffers: their sizes, and what an
                 * output reduces to, may not hang on a parameter the reference does not have */
                const su_arg *a = &u->args[i];
                const su_expr *x = a->is_buffer ? &a->count : &a->value;
                const char *which = NULL;
                if (u->ref == SU_REF_FILE && !a->is_buffer)
                    continue;
                if (!reads_params(sp, x, &which) && a->has_cmp_count)
                    x = &a->cmp_count;
                if (reads_params(sp, x, &which)) {
                    space_errorf(L->err, L->len, L->path, x->line, x->col,
                                 "kernel.args %s: reads parameter '%s', but the reference %s "
                                 "has no parameters (use reference: config: instead)", a->name,
                                 which, u->ref == SU_REF_KERNEL ? "kernel" : "file");
                    return -1;
                }
            }
    }
    return su_compute_hash(L, u);
}
