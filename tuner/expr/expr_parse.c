/* expr_parse.c: the lexer and recursive-descent parser of the constraint expression language
 * (grammar in tuner/expr/expr.h), building the flat AST of expr_internal.h; expr_free; and the error
 * helper the expression modules share. Input over EXPR_MAX_LEN bytes and trees deeper than
 * EXPR_MAX_DEPTH are errors, never a stack overflow. Every error carries its byte offset. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "expr_internal.h"

/* ---- errors ---- */

void expr_set_error(expr_error *err, int offset, const char *fmt, ...)
{
    if (!err)
        return;
    err->offset = offset;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
}

/* ---- storage ---- */

/* Appends a node; returns its index, or -1 when out of memory. */
static int add_node(expr *e, node_kind kind, int offset)
{
    if (e->n_nodes == e->cap_nodes) {
        int cap = e->cap_nodes ? e->cap_nodes * 2 : 16;
        node *n = realloc(e->nodes, (size_t)cap * sizeof *n);
        if (!n)
            return -1;
        e->nodes = n;
        e->cap_nodes = cap;
    }
    node *n = &e->nodes[e->n_nodes];
    memset(n, 0, sizeof *n);
    n->kind = kind;
    n->offset = offset;
    n->a = n->b = n->c = -1;
    n->slot = -1;
    n->depth = 1;
    return e->n_nodes++;
}

static int add_arg(expr *e, int idx)
{
    if (e->n_args == e->cap_args) {
        int cap = e->cap_args ? e->cap_args * 2 : 8;
        int *a = realloc(e->args, (size_t)cap * sizeof *a);
        if (!a)
            return -1;
        e->args = a;
        e->cap_args = cap;
    }
    e->args[e->n_args++] = idx;
    return 0;
}

/* Copies len bytes plus a NUL into the pool; returns the offset, or -1 when out of memory. */
static int pool_add(expr *e, const char *s, size_t len)
{
    if (e->pool_len + len + 1 > e->pool_cap) {
        size_t cap = e->pool_cap ? e->pool_cap : 64;
        while (cap < e->pool_len + len + 1)
            cap *= 2;
        char *p = realloc(e->pool, cap);
        if (!p)
            return -1;
        e->pool = p;
        e->pool_cap = cap;
    }
    int at = (int)e->pool_len;
    memcpy(e->pool + at, s, len);
    e->pool[at + len] = '\0';
    e->pool_len += len + 1;
    return at;
}

/* ---- lexer ---- */

typedef enum {
    T_END, T_INT, T_FLOAT, T_STRING, T_IDENT, T_LPAREN, T_RPAREN, T_COMMA, T_QUESTION, T_COLON,
    T_PLUS, T_MINUS, T_STAR, T_SLASH, T_PERCENT, T_NOT, T_AND, T_OR,
    T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE
} token_kind;

typedef struct token {
    token_kind kind;
    int start, end;          /* byte range in the text */
    int64_t i;
    double f;
    int str;                 /* T_STRING: pool offset of the unescaped contents */
} token;

typedef struct parser {
    const char *text;
    int len;
    int pos;
    token tok;
    expr *e;
    expr_error *err;
    int depth;
    int failed;
} parser;

static int parse_fail(parser *p, int offset, const char *fmt, ...)
{
    if (!p->failed && p->err) {
        p->err->offset = offset;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->err->message, sizeof p->err->message, fmt, ap);
        va_end(ap);
    }
    p->failed = 1;
    return -1;
}

static int is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }

static int lex_number(parser *p, int start)
{
    const char *t = p->text;
    int i = start;
    int is_float = 0;
    while (i < p->len && is_digit(t[i]))
        i++;
    if (i < p->len && t[i] == '.') {
        is_float = 1;
        i++;
        while (i < p->len && is_digit(t[i]))
            i++;
    }
    if (i < p->len && (t[i] == 'e' || t[i] == 'E')) {
        int j = i + 1;
        if (j < p->len && (t[j] == '+' || t[j] == '-'))
            j++;
        if (j < p->len && is_digit(t[j])) {
            is_float = 1;
            i = j;
            while (i < p->len && is_digit(t[i]))
                i++;
        }
    }
    if (i < p->len && (is_ident_char(t[i]) || t[i] == '.'))
        return parse_fail(p, start, "malformed number '%.*s'", i - start + 1, t + start);
    char buf[128];
    if (i - start >= (int)sizeof buf)
        return parse_fail(p, start, "number too long");
    memcpy(buf, t + start, (size_t)(i - start));
    buf[i - start] = '\0';
    p->tok.start = start;
    p->tok.end = i;
    errno = 0;
    if (is_float) {
        p->tok.kind = T_FLOAT;
        p->tok.f = strtod(buf, NULL);
        if (errno == ERANGE && isinf(p->tok.f))
            return parse_fail(p, start, "float literal %s is out of range", buf);
    } else {
        p->tok.kind = T_INT;
        p->tok.i = strtoll(buf, NULL, 10);
        if (errno == ERANGE)
            return parse_fail(p, start, "integer literal %s does not fit in 64 bits", buf);
    }
    p->pos = i;
    return 0;
}

static int lex_string(parser *p, int start)
{
    const char *t = p->text;
    char quote = t[start];
    char buf[EXPR_MAX_LEN + 1];
    int n = 0;
    int i = start + 1;
    for (;;) {
        if (i >= p->len)
            return parse_fail(p, start, "unterminated string");
        char c = t[i];
        if (c == quote)
            break;
        if (c == '\\') {
            if (i + 1 >= p->len)
                return parse_fail(p, start, "unterminated string");
            char d = t[i + 1];
            if (d != '\\' && d != '"' && d != '\'')
                return parse_fail(p, i, "unknown escape '\\%c' in string", d);
            c = d;
            i++;
        }
        buf[n++] = c;
        i++;
    }
    int at = pool_add(p->e, buf, (size_t)n);
    if (at < 0)
        return parse_fail(p, start, "out of memory");
    p->tok.kind = T_STRING;
    p->tok.start = start;
    p->tok.end = i + 1;
    p->tok.str = at;
    p->pos = i + 1;
    return 0;
}

/* Reads the next token into p->tok. Returns 0 or -1 (error set). */
static int advance(parser *p)
{
    const char *t = p->text;
    while (p->pos < p->len && (t[p->pos] == ' ' || t[p->pos] == '\t' || t[p->pos] == '\n' ||
                               t[p->pos] == '\r'))
        p->pos++;
    int s = p->pos;
    p->tok.start = s;
    if (s >= p->len) {
        p->tok.kind = T_END;
        p->tok.end = s;
        return 0;
    }
    char c = t[s];
    char d = s + 1 < p->len ? t[s + 1] : '\0';
    if (is_digit(c) || (c == '.' && is_digit(d)))
        return lex_number(p, s);
    if (c == '"' || c == '\'')
        return lex_string(p, s);
    if (is_ident_start(c)) {
        int i = s;
        while (i < p->len && is_ident_char(t[i]))
            i++;
        p->tok.kind = T_IDENT;
        p->tok.end = i;
        p->pos = i;
        return 0;
    }
    int two = 0;
    token_kind k;
    switch (c) {
    case '(': k = T_LPAREN; break;
    case ')': k = T_RPAREN; break;
    case ',': k = T_COMMA; break;
    case '?': k = T_QUESTION; break;
    case ':': k = T_COLON; break;
    case '+': k = T_PLUS; break;
    case '-': k = T_MINUS; break;
    case '*': k = T_STAR; break;
    case '/': k = T_SLASH; break;
    case '%': k = T_PERCENT; break;
    case '!':
        if (d == '=') { k = T_NE; two = 1; } else k = T_NOT;
        break;
    case '<':
        if (d == '=') { k = T_LE; two = 1; } else k = T_LT;
        break;
    case '>':
        if (d == '=') { k = T_GE; two = 1; } else k = T_GT;
        break;
    case '=':
        if (d != '=')
            return parse_fail(p, s, "'=' is not an operator (use '==' to compare)");
        k = T_EQ; two = 1;
        break;
    case '&':
        if (d != '&')
            return parse_fail(p, s, "'&' is not an operator (use '&&')");
        k = T_AND; two = 1;
        break;
    case '|':
        if (d != '|')
            return parse_fail(p, s, "'|' is not an operator (use '||')");
        k = T_OR; two = 1;
        break;
    default:
        if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x7f)
            return parse_fail(p, s, "unexpected character '%c'", c);
        return parse_fail(p, s, "unexpected byte 0x%02x", (unsigned char)c);
    }
    p->tok.kind = k;
    p->tok.end = s + 1 + two;
    p->pos = s + 1 + two;
    return 0;
}

static const char *token_desc(const parser *p, char *buf, size_t len)
{
    if (p->tok.kind == T_END)
        return "end of expression";
    int n = p->tok.end - p->tok.start;
    if (n > 40)
        n = 40;
    snprintf(buf, len, "'%.*s'", n, p->text + p->tok.start);
    return buf;
}

static int unexpected(parser *p, const char *wanted)
{
    char buf[64];
    if (wanted)
        return parse_fail(p, p->tok.start, "expected %s, found %s", wanted, token_desc(p, buf, sizeof buf));
    return parse_fail(p, p->tok.start, "unexpected %s", token_desc(p, buf, sizeof buf));
}

/* ---- parser ---- */

static int parse_expr(parser *p);

/* Makes node idx's depth 1 + the deepest child, and refuses trees deeper than the limit. */
static int finish_node(parser *p, int idx)
{
    node *n = &p->e->nodes[idx];
    int d = 0;
    int kids[3] = {n->a, n->b, n->c};
    for (int k = 0; k < 3; k++)
        if (kids[k] >= 0 && p->e->nodes[kids[k]].depth > d)
            d = p->e->nodes[kids[k]].depth;
    if (n->kind == N_CALL)
        for (int k = 0; k < n->nargs; k++)
            if (p->e->nodes[p->e->args[n->arg0 + k]].depth > d)
                d = p->e->nodes[p->e->args[n->arg0 + k]].depth;
    n->depth = d + 1;
    if (n->depth > EXPR_MAX_DEPTH)
        return parse_fail(p, n->offset, "expression nested too deeply (more than %d levels)",
                    EXPR_MAX_DEPTH);
    return idx;
}

static int new_node(parser *p, node_kind kind, int offset)
{
    int idx = add_node(p->e, kind, offset);
    if (idx < 0)
        return parse_fail(p, offset, "out of memory");
    return idx;
}

static int enter(parser *p)
{
    if (++p->depth > EXPR_MAX_DEPTH)
        return parse_fail(p, p->tok.start, "expression nested too deeply (more than %d levels)",
                    EXPR_MAX_DEPTH);
    return 0;
}

static int parse_call(parser *p, int name_start, int name_end)
{
    int idx = new_node(p, N_CALL, name_start);
    if (idx < 0)
        return -1;
    int name = pool_add(p->e, p->text + name_start, (size_t)(name_end - name_start));
    if (name < 0)
        return parse_fail(p, name_start, "out of memory");
    /* Arguments are collected first (nested calls append their own), then copied into args. */
    int local[64];
    int n = 0;
    if (advance(p) < 0)          /* past '(' */
        return -1;
    if (p->tok.kind != T_RPAREN) {
        for (;;) {
            if (n == (int)(sizeof local / sizeof local[0]))
                return parse_fail(p, p->tok.start, "too many arguments (limit 64)");
            int a = parse_expr(p);
            if (a < 0)
                return -1;
            local[n++] = a;
            if (p->tok.kind == T_COMMA) {
                if (advance(p) < 0)
                    return -1;
                continue;
            }
            if (p->tok.kind != T_RPAREN)
                return unexpected(p, "',' or ')'");
            break;
        }
    }
    if (advance(p) < 0)          /* past ')' */
        return -1;
    node *nd = &p->e->nodes[idx];
    nd->name = name;
    nd->arg0 = p->e->n_args;
    nd->nargs = n;
    for (int k = 0; k < n; k++)
        if (add_arg(p->e, local[k]) < 0)
            return parse_fail(p, name_start, "out of memory");
    return finish_node(p, idx);
}

static int parse_primary(parser *p)
{
    token t = p->tok;
    int idx;
    switch (t.kind) {
    case T_INT:
    case T_FLOAT:
    case T_STRING:
        idx = new_node(p, t.kind == T_INT ? N_INT : t.kind == T_FLOAT ? N_FLOAT : N_STRING, t.start);
        if (idx < 0)
            return -1;
        if (t.kind == T_INT)
            p->e->nodes[idx].lit = value_int(t.i);
        else if (t.kind == T_FLOAT)
            p->e->nodes[idx].lit = value_float(t.f);
        else
            p->e->nodes[idx].name = t.str;     /* lit.s is set once the pool stops moving */
        if (advance(p) < 0)
            return -1;
        return idx;
    case T_IDENT:
        if (advance(p) < 0)
            return -1;
        if (p->tok.kind == T_LPAREN)
            return parse_call(p, t.start, t.end);
        idx = new_node(p, N_IDENT, t.start);
        if (idx < 0)
            return -1;
        p->e->nodes[idx].name = pool_add(p->e, p->text + t.start, (size_t)(t.end - t.start));
        if (p->e->nodes[idx].name < 0)
            return parse_fail(p, t.start, "out of memory");
        return idx;
    case T_LPAREN: {
        if (advance(p) < 0)
            return -1;
        idx = parse_expr(p);
        if (idx < 0)
            return -1;
        if (p->tok.kind != T_RPAREN) {
            char buf[64];
            return parse_fail(p, p->tok.start, "unclosed '(': expected ')', found %s",
                        token_desc(p, buf, sizeof buf));
        }
        if (advance(p) < 0)
            return -1;
        return idx;
    }
    case T_END:
        return parse_fail(p, t.start, "unexpected end of expression");
    default:
        return unexpected(p, NULL);
    }
}

static int parse_unary(parser *p)
{
    token_kind k = p->tok.kind;
    if (k != T_NOT && k != T_MINUS && k != T_PLUS)
        return parse_primary(p);
    int offset = p->tok.start;
    if (enter(p) < 0 || advance(p) < 0)
        return -1;
    int operand = parse_unary(p);
    p->depth--;
    if (operand < 0)
        return -1;
    int idx = new_node(p, k == T_NOT ? N_NOT : k == T_MINUS ? N_NEG : N_PLUS, offset);
    if (idx < 0)
        return -1;
    p->e->nodes[idx].a = operand;
    return finish_node(p, idx);
}

/* One left-associative binary level: operands from next, operators from the token list. */
static int parse_binary_level(parser *p, int (*next)(parser *), const token_kind *toks,
                              const bin_op *ops, int n_ops)
{
    int left = next(p);
    if (left < 0)
        return -1;
    for (;;) {
        int k;
        for (k = 0; k < n_ops; k++)
            if (p->tok.kind == toks[k])
                break;
        if (k == n_ops)
            return left;
        int offset = p->tok.start;
        if (advance(p) < 0)
            return -1;
        int right = next(p);
        if (right < 0)
            return -1;
        int idx = new_node(p, N_BIN, offset);
        if (idx < 0)
            return -1;
        p->e->nodes[idx].op = ops[k];
        p->e->nodes[idx].a = left;
        p->e->nodes[idx].b = right;
        left = finish_node(p, idx);
        if (left < 0)
            return -1;
    }
}

static int parse_mul(parser *p)
{
    static const token_kind toks[] = {T_STAR, T_SLASH, T_PERCENT};
    static const bin_op ops[] = {OP_MUL, OP_DIV, OP_MOD};
    return parse_binary_level(p, parse_unary, toks, ops, 3);
}

static int parse_add(parser *p)
{
    static const token_kind toks[] = {T_PLUS, T_MINUS};
    static const bin_op ops[] = {OP_ADD, OP_SUB};
    return parse_binary_level(p, parse_mul, toks, ops, 2);
}

static int cmp_op(token_kind k)
{
    switch (k) {
    case T_EQ: return OP_EQ;
    case T_NE: return OP_NE;
    case T_LT: return OP_LT;
    case T_LE: return OP_LE;
    case T_GT: return OP_GT;
    case T_GE: return OP_GE;
    default: return -1;
    }
}

static int parse_cmp(parser *p)
{
    int left = parse_add(p);
    if (left < 0)
        return -1;
    int op = cmp_op(p->tok.kind);
    if (op < 0)
        return left;
    int offset = p->tok.start;
    if (advance(p) < 0)
        return -1;
    int right = parse_add(p);
    if (right < 0)
        return -1;
    if (cmp_op(p->tok.kind) >= 0)
        return parse_fail(p, p->tok.start,
                    "comparisons do not chain (a < b < c); write a < b && b < c");
    int idx = new_node(p, N_BIN, offset);
    if (idx < 0)
        return -1;
    p->e->nodes[idx].op = op;
    p->e->nodes[idx].a = left;
    p->e->nodes[idx].b = right;
    return finish_node(p, idx);
}

static int parse_logic(parser *p, token_kind tok, node_kind kind, int (*next)(parser *))
{
    int left = next(p);
    if (left < 0)
        return -1;
    while (p->tok.kind == tok) {
        int offset = p->tok.start;
        if (advance(p) < 0)
            return -1;
        int right = next(p);
        if (right < 0)
            return -1;
        int idx = new_node(p, kind, offset);
        if (idx < 0)
            return -1;
        p->e->nodes[idx].a = left;
        p->e->nodes[idx].b = right;
        left = finish_node(p, idx);
        if (left < 0)
            return -1;
    }
    return left;
}

static int parse_and(parser *p) { return parse_logic(p, T_AND, N_AND, parse_cmp); }
static int parse_or(parser *p) { return parse_logic(p, T_OR, N_OR, parse_and); }

static int parse_ternary(parser *p)
{
    int cond = parse_or(p);
    if (cond < 0 || p->tok.kind != T_QUESTION)
        return cond;
    int offset = p->tok.start;
    if (advance(p) < 0)
        return -1;
    int yes = parse_expr(p);
    if (yes < 0)
        return -1;
    if (p->tok.kind != T_COLON)
        return unexpected(p, "':' of the '?:'");
    if (advance(p) < 0)
        return -1;
    if (enter(p) < 0)
        return -1;
    int no = parse_ternary(p);
    p->depth--;
    if (no < 0)
        return -1;
    int idx = new_node(p, N_TERNARY, offset);
    if (idx < 0)
        return -1;
    p->e->nodes[idx].a = cond;
    p->e->nodes[idx].b = yes;
    p->e->nodes[idx].c = no;
    return finish_node(p, idx);
}

static int parse_expr(parser *p)
{
    if (enter(p) < 0)
        return -1;
    int rc = parse_ternary(p);
    p->depth--;
    return rc;
}

expr *expr_parse(const char *text, expr_error *err)
{
    if (err) {
        err->offset = 0;
        err->message[0] = '\0';
    }
    size_t len = strlen(text);
    if (len > EXPR_MAX_LEN) {
        expr_set_error(err, 0, "expression too long (%zu bytes; the limit is %d)", len, EXPR_MAX_LEN);
        return NULL;
    }
    expr *e = calloc(1, sizeof *e);
    if (!e) {
        expr_set_error(err, 0, "out of memory");
        return NULL;
    }
    e->max_slot = -1;
    parser p = {.text = text, .len = (int)len, .pos = 0, .e = e, .err = err};
    if (advance(&p) < 0)
        goto fail;
    if (p.tok.kind == T_END) {
        expr_set_error(err, 0, "empty expression");
        goto fail;
    }
    e->root = parse_expr(&p);
    if (e->root < 0)
        goto fail;
    if (p.tok.kind != T_END) {
        unexpected(&p, NULL);
        goto fail;
    }
    for (int k = 0; k < e->n_nodes; k++)
        if (e->nodes[k].kind == N_STRING)
            e->nodes[k].lit = value_string(e->pool + e->nodes[k].name);
    return e;
fail:
    expr_free(e);
    return NULL;
}

void expr_free(expr *e)
{
    if (!e)
        return;
    free(e->nodes);
    free(e->args);
    free(e->pool);
    free(e->slots);
    free(e);
}

