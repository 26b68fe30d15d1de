/* space_user_nodes.c: the generic readers of a user kernel's space section, below the readers
 * of its kernels (space_user_kernel.c), arguments (space_user_args.c) and the section as a whole
 * (space_user_read.c), which all use them: the resolver that binds an expression's names to the
 * space's slots, an expression read and bound so (with parameters in scope or not), whether an
 * expression reads parameters, a list of 1 to 3 dimensions, a list of strings, and a function's
 * base name. The YAML values they build on are space_nodes.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "space_user_internal.h"

int su_resolve_name(void *ctx, const char *name, int *mask)
{
    su_bind_ctx *b = ctx;
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
int su_read_expr(su_ctx *c, const ynode *n, const char *where, int literal, su_expr *x)
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
    su_bind_ctx b = {c->L->sp, c->allow_params, NULL};
    if (x->e && expr_bind(x->e, su_resolve_name, &b, &e) == 0)
        return 0;
    if (b.refused)
        return sl_fail_at(c->L, n, "%s: parameter '%s' is not in scope here (%s)", where,
                          b.refused, c->where ? c->where : "no parameters");
    int depth = 0;
    for (const char *t = x->text; *t; t++)
        depth += *t == '(' ? 1 : *t == ')' ? -1 : 0;
    /* an unbalanced parenthesis: a comma of a flow list or mapping cut the expression. Where a
     * quoted value is literal text (defines, template arguments), quoting is no way out */
    char named[200] = "";
    if (literal && strncmp(e.message, "unknown identifier '", 20) == 0)
        snprintf(named, sizeof named, " (a name of the code, not a parameter, field or dtype "
                 "of the space, is written quoted: \"%.*s\")",
                 (int)strcspn(e.message + 20, "'"), e.message + 20);
    const char *why = !depth ? named
                      : literal ? " (in a [ ] list or a { } mapping a comma ends the item; a "
                                  "quoted value is literal text here, so write this one in block "
                                  "style, one item a line)"
                                : " (in a [ ] list a comma ends the item: quote an expression "
                                  "that holds one)";
    space_errorf(c->L->err, c->L->len, c->L->path, x->line, x->col + e.offset, "%s: %s%s", where,
                 e.message, why);
    return -1;
}

/* 1 when the expression's text, bound without parameters, fails only for naming one. */
int su_reads_params(const space *sp, const su_expr *x, const char **which)
{
    su_bind_ctx b = {sp, 0, NULL};
    expr_error e;
    expr *copy = expr_parse(x->text, &e);
    int bad = !copy || expr_bind(copy, su_resolve_name, &b, &e) != 0;
    expr_free(copy);
    if (which)
        *which = b.refused;
    return bad && b.refused;
}

/* A list of 1..3 expressions, or one expression. */
int su_read_exprs(su_ctx *c, const ynode *n, const char *where, int max, const char *names,
                  su_expr *x, int *count)
{
    if (n->kind == YNODE_SCALAR) {
        *count = 1;
        return su_read_expr(c, n, where, 0, &x[0]);
    }
    if (sl_expect_kind(c->L, n, YNODE_SEQ, where) != 0)
        return -1;
    if (n->n < 1 || n->n > max)
        return sl_fail_at(c->L, n, "%s: expected 1 to %d expressions%s, found %d", where, max,
                          names, n->n);
    *count = n->n;
    for (int i = 0; i < n->n; i++)
        if (su_read_expr(c, n->items[i], where, 0, &x[i]) != 0)
            return -1;
    return 0;
}

int su_read_dims(su_ctx *c, const ynode *n, const char *where, su_expr *dims, int *count)
{
    return su_read_exprs(c, n, where, 3, " (x, y, z)", dims, count);
}

int su_read_string_list(su_ctx *c, const ynode *n, const char *where, char ***out, int *count)
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

/* The name without scope or template arguments ("ns::f<T>" -> "f"). */
char *su_base_name(const char *function)
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
