/* fuzz_expr.c: libFuzzer target of the constraint expression language (tuner/expr). The input is
 * an expression's text; it is parsed, bound against a fixed set of names (ints, a float, strings,
 * and a name that may hold an int or a string, as a parameter of mixed values would) and
 * evaluated over assignments that include the integer extremes, zero and empty strings. Every
 * failure must be an error with a message and an offset inside the text; nothing may crash,
 * overflow (UBSan) or leak. */
#include "fuzz.h"
#include <stdint.h>
#include "expr/expr.h"

static const struct { const char *name; int mask; } names[] = {
    {"block_size", SLOT_INT}, {"pack_size", SLOT_INT}, {"n", SLOT_INT}, {"ratio", SLOT_FLOAT},
    {"dtype", SLOT_STRING}, {"op", SLOT_STRING}, {"mode", SLOT_INT | SLOT_STRING},
    {"x", SLOT_INT | SLOT_FLOAT},
};
#define N_NAMES ((int)(sizeof names / sizeof names[0]))

static int resolve(void *ctx, const char *name, int *type_mask)
{
    (void)ctx;
    for (int i = 0; i < N_NAMES; i++)
        if (strcmp(names[i].name, name) == 0) {
            *type_mask = names[i].mask;
            return i;
        }
    return -1;
}

static void check_error(const char *what, const expr_error *e, size_t textlen)
{
    FUZZ_ASSERT(e->message[0] != 0, "%s: no message", what);
    FUZZ_ASSERT(e->offset >= 0 && (size_t)e->offset <= textlen, "%s: offset %d outside the text "
                "(%zu bytes): %s", what, e->offset, textlen, e->message);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    size_t textlen = strlen(text);
    expr_error err = {0, ""};
    expr *e = expr_parse(text, &err);
    if (!e) {
        check_error("parse", &err, textlen);
        free(text);
        return 0;
    }
    if (expr_bind(e, resolve, NULL, &err) != 0) {
        check_error("bind", &err, textlen);
        expr_free(e);
        free(text);
        return 0;
    }
    FUZZ_ASSERT(expr_max_slot(e) < N_NAMES, "slot %d out of range", expr_max_slot(e));
    static const int64_t ints[] = {0, 1, -1, 256, INT64_MAX, INT64_MIN, 3};
    static const double floats[] = {0.0, -0.5, 1e308, 2.5};
    static const char *const strs[] = {"", "f32", "elementwise.mul", "x"};
    for (int a = 0; a < 7; a++) {
        value slots[N_NAMES];
        slots[0] = value_int(ints[a]);
        slots[1] = value_int(ints[(a + 1) % 7]);
        slots[2] = value_int(ints[(a + 4) % 7]);
        slots[3] = value_float(floats[a % 4]);
        slots[4] = value_string(strs[a % 4]);
        slots[5] = value_string(strs[(a + 2) % 4]);
        slots[6] = a % 2 ? value_string(strs[a % 4]) : value_int(ints[(a + 2) % 7]);
        slots[7] = a % 3 ? value_int(ints[(a + 5) % 7]) : value_float(floats[(a + 1) % 4]);
        value out;
        expr_error ee = {0, ""};
        if (expr_eval(e, slots, &out, &ee) != 0)
            check_error("eval", &ee, textlen);
        else
            (void)value_truthy(out);
    }
    expr_free(e);
    free(text);
    return 0;
}
