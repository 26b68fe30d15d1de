/* expr_internal.h: what the expression modules share and nothing else includes: the AST (a flat
 * array of nodes with child indices, a string pool for names and literals) that expr_parse.c
 * builds, expr_bind.c resolves and type-checks, and expr_eval.c evaluates. */
#pragma once
#include <stddef.h>
#include "expr.h"

/* The longest expression text accepted, and the deepest nesting (parentheses, unary chains,
 * operator chains) of its tree, so neither parsing nor evaluation can overflow the stack. */
#define EXPR_MAX_LEN 4096
#define EXPR_MAX_DEPTH 200

typedef enum {
    N_INT, N_FLOAT, N_STRING, N_IDENT, N_NEG, N_PLUS, N_NOT, N_BIN, N_AND, N_OR, N_TERNARY, N_CALL
} node_kind;

typedef enum {
    OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE
} bin_op;

typedef enum { FN_MIN, FN_MAX, FN_CEIL_DIV, FN_LOG2, FN_SQRT, FN_UNKNOWN } fn_id;

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

/* The operator as written, for messages. */
static inline const char *expr_bin_op_text(int op)
{
    static const char *const text[] = {"+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">="};
    return op >= 0 && op <= OP_GE ? text[op] : "?";
}

/* Fills err (when not NULL) with offset and a printf-style message. */
void expr_set_error(expr_error *err, int offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
