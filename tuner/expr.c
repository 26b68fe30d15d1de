/* expr.c: the constraint expression language of space files (tuner/expr.h): a recursive-descent
 * parser into a flat array of AST nodes, binding of identifiers to slots with a static type
 * check, and an evaluator that reads a slot array and never allocates.
 *
 * Limits: an expression is at most EXPR_MAX_LEN bytes and its tree at most EXPR_MAX_DEPTH
 * levels deep (parentheses, unary chains, operator chains), so neither parsing nor evaluation
 * can overflow the stack. Every error carries the byte offset where it went wrong. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "expr.h"

#define EXPR_MAX_LEN 4096
#define EXPR_MAX_DEPTH 200

typedef enum {
    N_INT, N_FLOAT, N_STRING, N_IDENT, N_NEG, N_PLUS, N_NOT, N_BIN, N_AND, N_OR, N_TERNARY, N_CALL
} node_kind;

typedef enum {
    OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE
} bin_op;

typedef enum { FN_MIN, FN_MAX, FN_CEIL_DIV, FN_LOG2, FN_UNKNOWN } fn_id;

static const char *const bin_op_text[] = {"+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">="};

typedef struct node {
    node_kind kind;
    int op;                  /* bin_op for N_BIN, fn_id for N_CALL */
    int offset;              /* operator, literal, identifier or function name position */
    int a, b, c;             /* children (node indices), -1 when absent */
    int arg0, nargs;         /* N_CALL: arguments are args[arg0 .. arg0 + nargs) */
    int name;                /* N_IDENT / N_CALL / N_STRING: offset into the string pool */
    int depth;               /* height of the subtree */
    int slot;                /* N_IDENT after binding */
    int type;                /* mask of slot_type_bits after binding */
    value lit;               /* N_INT, N_FLOAT, N_STRING */
} node;

struct expr {
    node *nodes;
    int n_nodes, cap_nodes;
    int *args;
    int n_args, cap_args;
    char *pool;              /* identifier names and string literals, NUL-separated */
    size_t pool_len, pool_cap;
    int root;
    int bound;
    int max_slot;
    int *slots;              /* distinct slots read, after binding */
    int n_slots;
};

/* ---- errors ---- */

static void set_error(expr_error *err, int offset, const char *fmt, ...)
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

static int fail(parser *p, int offset, const char *fmt, ...)
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
        return fail(p, start, "malformed number '%.*s'", i - start + 1, t + start);
    char buf[128];
    if (i - start >= (int)sizeof buf)
        return fail(p, start, "number too long");
    memcpy(buf, t + start, (size_t)(i - start));
    buf[i - start] = '\0';
    p->tok.start = start;
    p->tok.end = i;
    errno = 0;
    if (is_float) {
        p->tok.kind = T_FLOAT;
        p->tok.f = strtod(buf, NULL);
        if (errno == ERANGE && isinf(p->tok.f))
            return fail(p, start, "float literal %s is out of range", buf);
    } else {
        p->tok.kind = T_INT;
        p->tok.i = strtoll(buf, NULL, 10);
        if (errno == ERANGE)
            return fail(p, start, "integer literal %s does not fit in 64 bits", buf);
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
            return fail(p, start, "unterminated string");
        char c = t[i];
        if (c == quote)
            break;
        if (c == '\\') {
            if (i + 1 >= p->len)
                return fail(p, start, "unterminated string");
            char d = t[i + 1];
            if (d != '\\' && d != '"' && d != '\'')
                return fail(p, i, "unknown escape '\\%c' in string", d);
            c = d;
            i++;
        }
        buf[n++] = c;
        i++;
    }
    int at = pool_add(p->e, buf, (size_t)n);
    if (at < 0)
        return fail(p, start, "out of memory");
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
            return fail(p, s, "'=' is not an operator (use '==' to compare)");
        k = T_EQ; two = 1;
        break;
    case '&':
        if (d != '&')
            return fail(p, s, "'&' is not an operator (use '&&')");
        k = T_AND; two = 1;
        break;
    case '|':
        if (d != '|')
            return fail(p, s, "'|' is not an operator (use '||')");
        k = T_OR; two = 1;
        break;
    default:
        if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x7f)
            return fail(p, s, "unexpected character '%c'", c);
        return fail(p, s, "unexpected byte 0x%02x", (unsigned char)c);
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
        return fail(p, p->tok.start, "expected %s, found %s", wanted, token_desc(p, buf, sizeof buf));
    return fail(p, p->tok.start, "unexpected %s", token_desc(p, buf, sizeof buf));
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
        return fail(p, n->offset, "expression nested too deeply (more than %d levels)",
                    EXPR_MAX_DEPTH);
    return idx;
}

static int new_node(parser *p, node_kind kind, int offset)
{
    int idx = add_node(p->e, kind, offset);
    if (idx < 0)
        return fail(p, offset, "out of memory");
    return idx;
}

static int enter(parser *p)
{
    if (++p->depth > EXPR_MAX_DEPTH)
        return fail(p, p->tok.start, "expression nested too deeply (more than %d levels)",
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
        return fail(p, name_start, "out of memory");
    /* Arguments are collected first (nested calls append their own), then copied into args. */
    int local[64];
    int n = 0;
    if (advance(p) < 0)          /* past '(' */
        return -1;
    if (p->tok.kind != T_RPAREN) {
        for (;;) {
            if (n == (int)(sizeof local / sizeof local[0]))
                return fail(p, p->tok.start, "too many arguments (limit 64)");
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
            return fail(p, name_start, "out of memory");
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
            return fail(p, t.start, "out of memory");
        return idx;
    case T_LPAREN: {
        if (advance(p) < 0)
            return -1;
        idx = parse_expr(p);
        if (idx < 0)
            return -1;
        if (p->tok.kind != T_RPAREN) {
            char buf[64];
            return fail(p, p->tok.start, "unclosed '(': expected ')', found %s",
                        token_desc(p, buf, sizeof buf));
        }
        if (advance(p) < 0)
            return -1;
        return idx;
    }
    case T_END:
        return fail(p, t.start, "unexpected end of expression");
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
        return fail(p, p->tok.start,
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
        set_error(err, 0, "expression too long (%zu bytes; the limit is %d)", len, EXPR_MAX_LEN);
        return NULL;
    }
    expr *e = calloc(1, sizeof *e);
    if (!e) {
        set_error(err, 0, "out of memory");
        return NULL;
    }
    e->max_slot = -1;
    parser p = {.text = text, .len = (int)len, .pos = 0, .e = e, .err = err};
    if (advance(&p) < 0)
        goto fail;
    if (p.tok.kind == T_END) {
        set_error(err, 0, "empty expression");
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

/* ---- binding and static types ---- */

static fn_id fn_lookup(const char *name)
{
    if (strcmp(name, "min") == 0) return FN_MIN;
    if (strcmp(name, "max") == 0) return FN_MAX;
    if (strcmp(name, "ceil_div") == 0) return FN_CEIL_DIV;
    if (strcmp(name, "log2") == 0) return FN_LOG2;
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
        set_error(b->err, n->offset, "unknown function '%s' (known: min, max, ceil_div, log2)",
                  name);
        return -1;
    }
    int want = n->op == FN_CEIL_DIV ? 2 : n->op == FN_LOG2 ? 1 : -1;
    if (want > 0 && n->nargs != want) {
        set_error(b->err, n->offset, "%s takes %d argument%s, got %d", name, want,
                  want == 1 ? "" : "s", n->nargs);
        return -1;
    }
    if (want < 0 && n->nargs < 1) {
        set_error(b->err, n->offset, "%s takes at least 1 argument, got 0", name);
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
            set_error(b->err, b->e->nodes[a].offset, "%s needs %s argument, not %s", name,
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
            set_error(b->err, n->offset, "unknown identifier '%s'", name);
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
            set_error(b->err, n->offset, "unary '%s' needs a number, not %s",
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
        const char *op = bin_op_text[n->op];
        switch ((bin_op)n->op) {
        case OP_EQ:
        case OP_NE:
            /* Numbers compare with numbers, strings with strings. */
            if (!((ta & T_NUM) && (tb & T_NUM)) && !((ta & SLOT_STRING) && (tb & SLOT_STRING))) {
                set_error(b->err, n->offset, "'%s' compares %s with %s", op, type_desc(ta),
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
                set_error(b->err, n->offset, "'%s' needs numbers (strings compare only with == "
                          "and !=), not %s", op, type_desc(!(ta & T_NUM) ? ta : tb));
                return -1;
            }
            n->type = SLOT_INT;
            return 0;
        case OP_MOD:
            if (!(ta & SLOT_INT) || !(tb & SLOT_INT)) {
                set_error(b->err, n->offset, "'%%' needs integers, not %s",
                          type_desc(!(ta & SLOT_INT) ? ta : tb));
                return -1;
            }
            n->type = SLOT_INT;
            return 0;
        default:
            if (!(ta & T_NUM) || !(tb & T_NUM)) {
                set_error(b->err, n->offset, "'%s' needs numbers, not %s", op,
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
            set_error(err, 0, "out of memory");
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

/* ---- evaluation ---- */

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
    const char *opt = bin_op_text[op];
    if (op == OP_EQ || op == OP_NE) {
        int eq;
        if (a.kind == VALUE_STRING && b.kind == VALUE_STRING)
            eq = strcmp(a.s, b.s) == 0;
        else if (a.kind == VALUE_STRING || b.kind == VALUE_STRING) {
            set_error(err, n->offset, "'%s' compares %s with %s", opt, kind_desc(a.kind),
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
        set_error(err, n->offset, "'%s' needs numbers, not a string", opt);
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
                set_error(err, n->offset, op == OP_DIV ? "division by zero" : "modulo by zero");
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
        set_error(err, n->offset, "integer overflow in '%s'", opt);
        return -1;
    }
    double x = as_double(a), y = as_double(b);
    switch (op) {
    case OP_ADD: *out = value_float(x + y); return 0;
    case OP_SUB: *out = value_float(x - y); return 0;
    case OP_MUL: *out = value_float(x * y); return 0;
    case OP_DIV:
        if (y == 0.0) {
            set_error(err, n->offset, "division by zero");
            return -1;
        }
        *out = value_float(x / y);
        return 0;
    case OP_MOD:
        set_error(err, n->offset, "'%%' needs integers, not a float");
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
                set_error(err, n->offset, "%s needs numbers, not a string", name);
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
            set_error(err, n->offset, "ceil_div needs integers, not %s",
                      kind_desc(a.kind != VALUE_INT ? a.kind : b.kind));
            return -1;
        }
        if (b.i == 0) {
            set_error(err, n->offset, "division by zero in ceil_div");
            return -1;
        }
        if (a.i == INT64_MIN && b.i == -1) {
            set_error(err, n->offset, "integer overflow in ceil_div");
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
            set_error(err, n->offset, "log2 needs a number, not a string");
            return -1;
        }
        if (v.kind == VALUE_INT) {
            if (v.i <= 0) {
                set_error(err, n->offset, "log2 of %lld (needs a positive number)", (long long)v.i);
                return -1;
            }
            *out = value_int(63 - __builtin_clzll((unsigned long long)v.i));
            return 0;
        }
        if (!(v.f > 0.0)) {
            set_error(err, n->offset, "log2 of %g (needs a positive number)", v.f);
            return -1;
        }
        *out = value_float(log2(v.f));
        return 0;
    case FN_UNKNOWN:
        break;
    }
    set_error(err, n->offset, "unknown function '%s'", name);
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
            set_error(err, n->offset, "unary '%s' needs a number, not a string",
                      n->kind == N_NEG ? "-" : "+");
            return -1;
        }
        if (n->kind == N_PLUS)
            *out = v;
        else if (v.kind == VALUE_FLOAT)
            *out = value_float(-v.f);
        else if (v.i == INT64_MIN) {
            set_error(err, n->offset, "integer overflow in '-'");
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
    set_error(err, n->offset, "corrupt expression");
    return -1;
}

int expr_eval(const expr *e, const value *slots, value *out, expr_error *err)
{
    if (!e->bound) {
        set_error(err, 0, "expression evaluated before binding");
        return -1;
    }
    return eval_node(e, e->root, slots, out, err);
}
