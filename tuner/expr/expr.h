/* expr.h: the constraint expression language of space files.
 *
 * Grammar (C-like precedence, lowest first):
 *   expr    := ternary
 *   ternary := or ( '?' expr ':' ternary )?
 *   or      := and ( '||' and )*         and := cmp ( '&&' cmp )*
 *   cmp     := add ( ('=='|'!='|'<'|'<='|'>'|'>=') add )?   (chains like a<b<c are errors)
 *   add     := mul ( ('+'|'-') mul )*    mul := unary ( ('*'|'/'|'%') unary )*
 *   unary   := ('!'|'-'|'+') unary | primary
 *   primary := INT | FLOAT | STRING ("..." or '...') | IDENT | IDENT '(' args ')' | '(' expr ')'
 *   functions: min(a,b,...) max(a,b,...) ceil_div(a,b) log2(a)  (log2 of an int is floor log2;
 *              of a float, the float log2)
 * Integers are 64-bit; int op float promotes to float; '/' on two ints truncates toward zero;
 * '%' is integer only. Comparisons and logic yield int 0/1. Strings compare with == and != only.
 * Division or modulo by zero, overflow of + - *, and type mismatches are evaluation errors.
 *
 * Use: expr_parse once, expr_bind to resolve identifiers to slots (and type-check statically),
 * then expr_eval many times against a slot array. No interpreter, no system(). */
#pragma once
#include "core/value.h"

typedef struct expr expr;

typedef struct expr_error {
    int offset;              /* 0-based byte offset into the expression text where it went wrong */
    char message[256];
} expr_error;

/* Parses text. Returns a new expression (free with expr_free) or NULL with *err filled. */
expr *expr_parse(const char *text, expr_error *err);
void expr_free(expr *e);

/* Static type of a slot, for binding: what kinds of value the slot can hold. */
typedef enum { SLOT_INT = 1, SLOT_FLOAT = 2, SLOT_STRING = 4 } slot_type_bits;

/* Resolves an identifier to a slot index >= 0 and its possible types (a mask of slot_type_bits),
 * or returns -1 when the name is unknown. */
typedef int (*expr_resolve_fn)(void *ctx, const char *name, int *type_mask);

/* Resolves every identifier and type-checks the expression. Returns 0, or -1 with *err naming
 * the first unknown identifier, unknown function, wrong argument count, or operation that can
 * never be well-typed (e.g. string * int, ordering comparison of strings). */
int expr_bind(expr *e, expr_resolve_fn resolve, void *ctx, expr_error *err);

/* The largest slot index the bound expression reads, or -1 when it reads none. Enumeration uses
 * it to test a constraint as soon as every slot it reads is assigned. */
int expr_max_slot(const expr *e);

/* Calls fn(ctx, slot) once for every distinct slot the bound expression reads. */
void expr_each_slot(const expr *e, void (*fn)(void *ctx, int slot), void *ctx);

/* Evaluates a bound expression. Returns 0 with *out set, or -1 with *err (offset of the failing
 * operator). String results point into the expression or into the slots. */
int expr_eval(const expr *e, const value *slots, value *out, expr_error *err);

/* Truth of a value: non-zero number, non-empty string. */
int value_truthy(value v);
