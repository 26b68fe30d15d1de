/* value.c: formatting and comparison of the scalar value type (tuner/core/value.h) shared by
 * expressions, space files, problems and configs. */
#include <stdio.h>
#include <string.h>
#include <inttypes.h>
#include "value.h"

int value_format(value v, char *buf, size_t len)
{
    switch (v.kind) {
    case VALUE_INT:
        return snprintf(buf, len, "%" PRId64, v.i);
    case VALUE_FLOAT:
        return snprintf(buf, len, "%.17g", v.f);
    case VALUE_STRING:
        return snprintf(buf, len, "%s", v.s ? v.s : "");
    }
    return snprintf(buf, len, "%s", "");
}

int value_equal(value a, value b)
{
    if (a.kind != b.kind)
        return 0;
    switch (a.kind) {
    case VALUE_INT:
        return a.i == b.i;
    case VALUE_FLOAT:
        return a.f == b.f;
    case VALUE_STRING:
        if (!a.s || !b.s)
            return a.s == b.s;
        return strcmp(a.s, b.s) == 0;
    }
    return 0;
}
