/* test_expr.c: unit tests of the constraint expression language (tuner/expr/expr_parse.c, expr_bind.c,
 * expr_eval.c): precedence and associativity, types and promotion, functions, parse/bind/eval
 * errors with their offsets, overflow, division by zero, nesting and length limits, slot queries
 * and evaluation speed. */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include "check.h"
#include "expr/expr.h"

/* Slots of the test context: a=7, b=-3 (ints), f=2.5 (float), s="grid_stride" (string),
 * m: int or string (holds 4 unless a test changes it), z=0. */
static const struct {
    const char *name;
    int mask;
} test_names[] = {
    {"a", SLOT_INT}, {"b", SLOT_INT}, {"f", SLOT_FLOAT}, {"s", SLOT_STRING},
    {"m", SLOT_INT | SLOT_STRING}, {"z", SLOT_INT},
};
static value test_slots[6];

static int test_resolve(void *ctx, const char *name, int *mask)
{
    (void)ctx;
    for (int k = 0; k < (int)(sizeof test_names / sizeof test_names[0]); k++)
        if (strcmp(test_names[k].name, name) == 0) {
            *mask = test_names[k].mask;
            return k;
        }
    return -1;
}

static void reset_slots(void)
{
    test_slots[0] = value_int(7);
    test_slots[1] = value_int(-3);
    test_slots[2] = value_float(2.5);
    test_slots[3] = value_string("grid_stride");
    test_slots[4] = value_int(4);
    test_slots[5] = value_int(0);
}

/* Where an expression failed, if it did. */
enum { OK = 0, AT_PARSE = 1, AT_BIND = 2, AT_EVAL = 3 };

static int run(const char *text, value *out, expr_error *err)
{
    expr *e = expr_parse(text, err);
    if (!e)
        return AT_PARSE;
    int rc = OK;
    if (expr_bind(e, test_resolve, NULL, err) != 0)
        rc = AT_BIND;
    else if (expr_eval(e, test_slots, out, err) != 0)
        rc = AT_EVAL;
    expr_free(e);
    return rc;
}

static int64_t int_of(const char *text)
{
    value v;
    expr_error err;
    if (run(text, &v, &err) != OK || v.kind != VALUE_INT) {
        fprintf(stderr, "  int_of(%s) failed: %s\n", text, err.message);
        return INT64_MIN;
    }
    return v.i;
}

static double float_of(const char *text)
{
    value v;
    expr_error err;
    if (run(text, &v, &err) != OK || v.kind != VALUE_FLOAT) {
        fprintf(stderr, "  float_of(%s) failed: %s\n", text, err.message);
        return -1e300;
    }
    return v.f;
}

/* 1 when the text evaluates to the string want (checked before the expression is freed:
 * a string result may point into it). */
static int string_is(const char *text, const char *want)
{
    expr_error err;
    value v;
    expr *e = expr_parse(text, &err);
    int ok = e && expr_bind(e, test_resolve, NULL, &err) == 0 &&
             expr_eval(e, test_slots, &v, &err) == 0 && v.kind == VALUE_STRING &&
             strcmp(v.s, want) == 0;
    expr_free(e);
    return ok;
}

/* Expects the text to fail at stage `where` at byte `offset`, with `needle` in the message. */
static int fails(const char *text, int where, int offset, const char *needle)
{
    value v;
    expr_error err = {-1, ""};
    int rc = run(text, &v, &err);
    int ok = rc == where && err.offset == offset && strstr(err.message, needle) != NULL;
    if (!ok)
        fprintf(stderr, "  fails(%s): stage %d offset %d message \"%s\"\n", text, rc, err.offset,
                err.message);
    return ok;
}

static void test_precedence(void)
{
    CHECK(int_of("1 + 2 * 3") == 7);
    CHECK(int_of("(1 + 2) * 3") == 9);
    CHECK(int_of("10 - 4 - 3") == 3);            /* left associative */
    CHECK(int_of("100 / 10 / 5") == 2);
    CHECK(int_of("2 * 3 % 4") == 2);             /* (2*3)%4 */
    CHECK(int_of("-2 * -3") == 6);
    CHECK(int_of("- -5") == 5);
    CHECK(int_of("+5") == 5);
    CHECK(int_of("!0 + 1") == 2);                /* unary binds tighter */
    CHECK(int_of("1 + 2 < 4") == 1);
    CHECK(int_of("(1 < 2) == 1") == 1);
    CHECK(int_of("1 || 0 && 0") == 1);           /* && binds tighter than || */
    CHECK(int_of("(1 || 0) && 0") == 0);
    CHECK(int_of("0 ? 1 : 0 ? 2 : 3") == 3);     /* right associative */
    CHECK(int_of("1 ? 0 ? 4 : 5 : 6") == 5);
    CHECK(int_of("a > 5 ? a * 2 : b") == 14);
    CHECK(int_of("1 + 1 == 2 && 3 * 3 == 9") == 1);
    CHECK(int_of(" \t a\n+b ") == 4);
    CHECK(int_of("a - b") == 10);
    CHECK(int_of("a % 4") == 3);
    CHECK(int_of("-7 / 2") == -3);               /* truncates toward zero */
    CHECK(int_of("-7 % 2") == -1);
}

static void test_types(void)
{
    CHECK(float_of("1 + 0.5") == 1.5);
    CHECK(float_of("f * 2") == 5.0);
    CHECK(float_of("7 / 2.0") == 3.5);
    CHECK(float_of(".5 + 1e1") == 10.5);
    CHECK(float_of("2.5E-1") == 0.25);
    CHECK(float_of("-f") == -2.5);
    CHECK(int_of("f > 2") == 1);
    CHECK(int_of("2 == 2.0") == 1);
    CHECK(int_of("s == \"grid_stride\"") == 1);
    CHECK(int_of("s != 'one_shot'") == 1);
    CHECK(int_of("s == 'one_shot' || a == 7") == 1);
    CHECK(int_of("'a\\'b' == \"a'b\"") == 1);
    CHECK(int_of("!s") == 0);
    CHECK(int_of("!''") == 1);
    CHECK(int_of("!0.0") == 1);
    CHECK(int_of("2.5 && 1") == 1);
    CHECK(string_is("a > 100 ? 'big' : s", "grid_stride"));
    CHECK(string_is("a < 100 ? 'big' : s", "big"));
    CHECK(string_is("'lit'", "lit"));
    CHECK(string_is("\"\"", ""));

    /* Static type errors (bind). */
    CHECK(fails("s * 2", AT_BIND, 2, "'*' needs numbers"));
    CHECK(fails("a + 'x'", AT_BIND, 2, "'+' needs numbers"));
    CHECK(fails("s < 'z'", AT_BIND, 2, "strings compare only with == and !="));
    CHECK(fails("s == 1", AT_BIND, 2, "'==' compares a string with an integer"));
    CHECK(fails("f % 2", AT_BIND, 2, "'%' needs integers"));
    CHECK(fails("-s", AT_BIND, 0, "unary '-' needs a number"));
    CHECK(fails("min(a, s)", AT_BIND, 7, "min needs a numeric argument"));
    CHECK(fails("ceil_div(f, 2)", AT_BIND, 9, "ceil_div needs an integer argument"));

    /* A slot that may hold either: accepted at bind, checked at evaluation. */
    CHECK(int_of("m * 2") == 8);
    CHECK(int_of("m == 4") == 1);
    test_slots[4] = value_string("wide");
    CHECK(int_of("m == 'wide'") == 1);
    CHECK(fails("a + m * 2", AT_EVAL, 6, "'*' needs numbers, not a string"));
    CHECK(fails("m == 4", AT_EVAL, 2, "'==' compares a string with an integer"));
    CHECK(fails("m < 4", AT_EVAL, 2, "'<' needs numbers"));
    reset_slots();
}

static void test_functions(void)
{
    CHECK(int_of("min(3, 1, 2)") == 1);
    CHECK(int_of("max(3, 1, 2)") == 3);
    CHECK(int_of("min(a)") == 7);
    CHECK(float_of("max(1, 2.5)") == 2.5);
    CHECK(float_of("min(1, 2.5)") == 1.0);
    CHECK(int_of("ceil_div(10, 3)") == 4);
    CHECK(int_of("ceil_div(9, 3)") == 3);
    CHECK(int_of("ceil_div(-10, 3)") == -3);
    CHECK(int_of("ceil_div(-10, -3)") == 4);
    CHECK(int_of("ceil_div(0, 5)") == 0);
    CHECK(int_of("log2(1)") == 0);
    CHECK(int_of("log2(1024)") == 10);
    CHECK(int_of("log2(1023)") == 9);
    CHECK(int_of("log2(9223372036854775807)") == 62);
    CHECK(float_of("log2(8.0)") == 3.0);
    CHECK(int_of("max(min(a, 100), log2(ceil_div(64, 2)))") == 7);
    CHECK(int_of("min(a, b) + max(a, b)") == 4);

    CHECK(int_of("sqrt(0)") == 0);
    CHECK(int_of("sqrt(15)") == 3);
    CHECK(int_of("sqrt(16)") == 4);
    CHECK(int_of("sqrt(9223372036854775807)") == 3037000499);
    CHECK(float_of("sqrt(2.25)") == 1.5);
    CHECK(int_of("sqrt(ceil_div(1000, 3)) + 1") == 19);
    CHECK(fails("sqrt(0 - 4)", AT_EVAL, 0, "sqrt of -4 (needs a number >= 0)"));
    CHECK(fails("sqrt(-0.5)", AT_EVAL, 0, "needs a number >= 0"));
    CHECK(fails("sqrt(1, 2)", AT_BIND, 0, "sqrt takes 1 argument, got 2"));
    CHECK(fails("pow(4, 2)", AT_BIND, 0, "unknown function 'pow' (known: min, max, ceil_div, log2, sqrt)"));
    CHECK(fails("1 + ceil_div(1)", AT_BIND, 4, "ceil_div takes 2 arguments, got 1"));
    CHECK(fails("log2(1, 2)", AT_BIND, 0, "log2 takes 1 argument, got 2"));
    CHECK(fails("max()", AT_BIND, 0, "max takes at least 1 argument"));
    CHECK(fails("log2(z)", AT_EVAL, 0, "log2 of 0"));
    CHECK(fails("log2(-1.5)", AT_EVAL, 0, "needs a positive number"));
    CHECK(fails("ceil_div(a, z)", AT_EVAL, 0, "division by zero"));
    CHECK(fails("ceil_div(-9223372036854775807 - 1, -1)", AT_EVAL, 0, "overflow"));
    CHECK(fails("min(1, 2", AT_PARSE, 8, "expected ',' or ')'"));
}

static void test_parse_errors(void)
{
    CHECK(fails("", AT_PARSE, 0, "empty expression"));
    CHECK(fails("   ", AT_PARSE, 0, "empty expression"));
    CHECK(fails("(", AT_PARSE, 1, "unexpected end of expression"));
    CHECK(fails("a +", AT_PARSE, 3, "unexpected end of expression"));
    CHECK(fails("a + * b", AT_PARSE, 4, "unexpected '*'"));
    CHECK(fails("(a + b", AT_PARSE, 6, "expected ')'"));
    CHECK(fails("a + b)", AT_PARSE, 5, "unexpected ')'"));
    CHECK(fails("a = 1", AT_PARSE, 2, "use '=='"));
    CHECK(fails("a & b", AT_PARSE, 2, "use '&&'"));
    CHECK(fails("a | b", AT_PARSE, 2, "use '||'"));
    CHECK(fails("a < b < 3", AT_PARSE, 6, "do not chain"));
    CHECK(fails("a == b != 1", AT_PARSE, 7, "do not chain"));
    CHECK(fails("s == \"open", AT_PARSE, 5, "unterminated string"));
    CHECK(fails("'a\\n'", AT_PARSE, 2, "unknown escape"));
    CHECK(fails("a $ b", AT_PARSE, 2, "unexpected character '$'"));
    CHECK(fails("a \x80 b", AT_PARSE, 2, "unexpected byte 0x80"));
    CHECK(fails("12abc", AT_PARSE, 0, "malformed number"));
    CHECK(fails("1.2.3", AT_PARSE, 0, "malformed number"));
    CHECK(fails("99999999999999999999", AT_PARSE, 0, "does not fit in 64 bits"));
    CHECK(fails("a ? 1", AT_PARSE, 5, "expected ':'"));
    CHECK(fails("a b", AT_PARSE, 2, "unexpected 'b'"));
    CHECK(fails("1 + blok_size * 2", AT_BIND, 4, "unknown identifier 'blok_size'"));
    CHECK(fails("a && (b || nope)", AT_BIND, 11, "unknown identifier 'nope'"));
}

static void test_eval_errors(void)
{
    CHECK(fails("a / z", AT_EVAL, 2, "division by zero"));
    CHECK(fails("a % z", AT_EVAL, 2, "modulo by zero"));
    CHECK(fails("f / 0.0", AT_EVAL, 2, "division by zero"));
    CHECK(fails("9223372036854775807 + 1", AT_EVAL, 20, "integer overflow in '+'"));
    CHECK(fails("-9223372036854775807 - 2", AT_EVAL, 21, "integer overflow in '-'"));
    CHECK(fails("4611686018427387904 * 2", AT_EVAL, 20, "integer overflow in '*'"));
    CHECK(fails("(-9223372036854775807 - 1) / -1", AT_EVAL, 27, "integer overflow in '/'"));
    CHECK(fails("-(-9223372036854775807 - 1)", AT_EVAL, 0, "integer overflow in '-'"));
    CHECK(int_of("(-9223372036854775807 - 1) % -1") == 0);
    CHECK(int_of("9223372036854775807 + 0") == INT64_MAX);
    CHECK(int_of("3037000499 * 3037000499") == 9223372030926249001LL);
    /* Short-circuit and the untaken ternary branch never evaluate their error. */
    CHECK(int_of("z == 0 || a / z > 1") == 1);
    CHECK(int_of("z != 0 && a / z > 1") == 0);
    CHECK(int_of("z ? a / z : 5") == 5);
}

static void test_limits(void)
{
    /* 150 parentheses deep is fine; 250 is an error at the level where the limit hits. */
    char buf[1200];
    int n = 150, at = 0;
    for (int k = 0; k < n; k++)
        buf[at++] = '(';
    buf[at++] = '1';
    for (int k = 0; k < n; k++)
        buf[at++] = ')';
    buf[at] = '\0';
    CHECK(int_of(buf) == 1);
    n = 250;
    at = 0;
    for (int k = 0; k < n; k++)
        buf[at++] = '(';
    buf[at++] = '1';
    for (int k = 0; k < n; k++)
        buf[at++] = ')';
    buf[at] = '\0';
    CHECK(fails(buf, AT_PARSE, 200, "nested too deeply"));

    /* Deep unary chains and long operator chains are limited too (the tree stays shallow). */
    memset(buf, '!', 1000);
    strcpy(buf + 1000, "1");
    value v;
    expr_error err;
    CHECK(run(buf, &v, &err) == AT_PARSE && strstr(err.message, "nested too deeply"));
    at = 0;
    for (int k = 0; k < 300; k++)
        at += sprintf(buf + at, "1+");
    strcpy(buf + at, "1");
    CHECK(run(buf, &v, &err) == AT_PARSE && strstr(err.message, "nested too deeply"));
    at = 0;
    for (int k = 0; k < 100; k++)
        at += sprintf(buf + at, "1+");
    strcpy(buf + at, "1");
    CHECK(int_of(buf) == 101);

    /* Very long input. */
    size_t big = 1 << 20;
    char *huge = malloc(big + 1);
    CHECK(huge != NULL);
    if (huge) {
        memset(huge, ' ', big);
        huge[big - 1] = '1';
        huge[big] = '\0';
        CHECK(fails(huge, AT_PARSE, 0, "expression too long"));
        free(huge);
    }
}

static void count_slot(void *ctx, int slot)
{
    int *seen = ctx;
    seen[slot]++;
}

static void test_slots_query(void)
{
    expr_error err;
    expr *e = expr_parse("a * s == 'x' ? b + a : f", &err);
    CHECK(e != NULL);
    if (!e)
        return;
    CHECK(expr_max_slot(e) == -1);               /* unbound */
    expr_free(e);
    e = expr_parse("a + b * a > f ? 1 : min(a, b)", &err);
    CHECK(e && expr_bind(e, test_resolve, NULL, &err) == 0);
    if (!e)
        return;
    CHECK(expr_max_slot(e) == 2);
    int seen[6] = {0};
    expr_each_slot(e, count_slot, seen);
    CHECK(seen[0] == 1 && seen[1] == 1 && seen[2] == 1 && seen[3] == 0 && seen[4] == 0);
    expr_free(e);
    e = expr_parse("1 + 2", &err);
    CHECK(e && expr_bind(e, test_resolve, NULL, &err) == 0);
    CHECK(e && expr_max_slot(e) == -1);
    expr_free(e);
    /* Evaluating before binding is an error, not a crash. */
    e = expr_parse("a", &err);
    value v;
    CHECK(e && expr_eval(e, test_slots, &v, &err) == -1);
    expr_free(e);

    CHECK(value_truthy(value_int(-1)) && !value_truthy(value_int(0)));
    CHECK(value_truthy(value_float(0.1)) && !value_truthy(value_float(0.0)));
    CHECK(value_truthy(value_string("x")) && !value_truthy(value_string("")));
}

static void test_speed(void)
{
    expr_error err;
    expr *e = expr_parse("a * 4 <= 16 && (s == 'grid_stride' || b == 1) && ceil_div(a, 3) < 100",
                         &err);
    CHECK(e && expr_bind(e, test_resolve, NULL, &err) == 0);
    if (!e)
        return;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    value slots[6];
    memcpy(slots, test_slots, sizeof slots);
    int64_t truths = 0;
    for (int k = 0; k < 1000000; k++) {
        slots[0] = value_int(k & 7);
        value v;
        if (expr_eval(e, slots, &v, &err) == 0)
            truths += value_truthy(v);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    CHECK(truths == 625000);
    CHECK(s < 0.5 * SANITIZER_SLOWDOWN);
    expr_free(e);
}

int main(void)
{
    reset_slots();
    test_precedence();
    test_types();
    test_functions();
    test_parse_errors();
    test_eval_errors();
    test_limits();
    test_slots_query();
    test_speed();
    return CHECK_DONE();
}
