/* space_nodes.c: reading values out of a space file's YAML tree with positioned errors, shared
 * by the loader of the built-in families' sections (space_load.c) and of user kernels
 * (space_user_*.c): "expected X, found Y" at the offending node, integers that must fit in 64
 * bits, finite floats, booleans, names, and the check that a mapping holds only known keys. */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "space_internal.h"

int sl_fail_at(loader *L, const ynode *n, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    space_errorf(L->err, L->len, L->path, n ? n->line : 0, n ? n->col : 0, "%s", msg);
    return -1;
}

/* What a node is, for "expected X, found Y" messages. */
const char *sl_node_desc(const ynode *n, char *buf, size_t len)
{
    if (n->kind == YNODE_MAP)
        return "a mapping";
    if (n->kind == YNODE_SEQ)
        return "a list";
    if (n->len == 0 && !n->quoted)
        return "nothing";
    snprintf(buf, len, "%s'%.60s%s'", n->quoted ? "the string " : "", n->text,
             n->len > 60 ? "..." : "");
    return buf;
}

int sl_expect_kind(loader *L, const ynode *n, ynode_kind kind, const char *where)
{
    if (n->kind == kind)
        return 0;
    char buf[128];
    return sl_fail_at(L, n, "%s: expected %s, found %s", where,
                   kind == YNODE_MAP ? "a mapping" : kind == YNODE_SEQ ? "a list" : "a value",
                   sl_node_desc(n, buf, sizeof buf));
}

/* 1 when the plain text is a decimal integer that fits in int64 (*out set). */
int sl_parse_int_text(const char *s, int64_t *out)
{
    const char *p = s;
    int neg = 0;
    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    if (!*p)
        return 0;
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX, acc = 0;
    for (; *p; p++) {
        if (*p < '0' || *p > '9')
            return 0;
        uint64_t digit = (uint64_t)(*p - '0');
        if (acc > (limit - digit) / 10u)
            return 0;
        acc = acc * 10u + digit;
    }
    *out = neg ? (int64_t)(0u - acc) : (int64_t)acc;
    return 1;
}

int sl_is_int_scalar(const ynode *n, int64_t *out)
{
    return n->kind == YNODE_SCALAR && !n->quoted && sl_parse_int_text(n->text, out);
}

int sl_get_int(loader *L, const ynode *n, const char *where, int64_t *out)
{
    if (sl_is_int_scalar(n, out))
        return 0;
    char buf[128];
    if (n->kind == YNODE_SCALAR && !n->quoted) {
        size_t sign = n->text[0] == '-' || n->text[0] == '+';
        if (n->len > sign && strspn(n->text + sign, "0123456789") == n->len - sign)
            return sl_fail_at(L, n, "%s: %.60s does not fit in a 64-bit integer", where, n->text);
    }
    return sl_fail_at(L, n, "%s: expected an integer, found %s", where,
                   sl_node_desc(n, buf, sizeof buf));
}

int sl_get_float(loader *L, const ynode *n, const char *where, double *out)
{
    if (n->kind == YNODE_SCALAR && !n->quoted && n->len > 0) {
        char *end = NULL;
        double v = strtod(n->text, &end);
        if (*end == '\0' && isfinite(v)) {
            *out = v;
            return 0;
        }
    }
    char buf[128];
    return sl_fail_at(L, n, "%s: expected a number, found %s", where, sl_node_desc(n, buf, sizeof buf));
}

int sl_get_bool(loader *L, const ynode *n, const char *where, int *out)
{
    if (n->kind == YNODE_SCALAR && !n->quoted) {
        if (strcmp(n->text, "true") == 0) {
            *out = 1;
            return 0;
        }
        if (strcmp(n->text, "false") == 0) {
            *out = 0;
            return 0;
        }
    }
    char buf[128];
    return sl_fail_at(L, n, "%s: expected true or false, found %s", where,
                   sl_node_desc(n, buf, sizeof buf));
}

int sl_get_string(loader *L, const ynode *n, const char *where, const char **out)
{
    if (n->kind == YNODE_SCALAR && n->len > 0 && strlen(n->text) == n->len) {
        *out = n->text;
        return 0;
    }
    char buf[128];
    return sl_fail_at(L, n, "%s: expected a name, found %s", where, sl_node_desc(n, buf, sizeof buf));
}

/* Checks that every key of map is in keys[]. */
int sl_check_keys(loader *L, const ynode *map, const char *where, const char *const *keys,
                      int n_keys)
{
    for (int k = 0; k < map->n; k++) {
        const ynode *key = map->items[2 * k];
        int i;
        for (i = 0; i < n_keys; i++)
            if (strcmp(key->text, keys[i]) == 0)
                break;
        if (i < n_keys)
            continue;
        char list[512];
        size_t at = 0;
        list[0] = '\0';
        for (i = 0; i < n_keys && at < sizeof list; i++)
            at += (size_t)snprintf(list + at, sizeof list - at, "%s%s",
                                   i == 0 ? "" : i == n_keys - 1 ? " or " : ", ", keys[i]);
        return sl_fail_at(L, key, "%s%sunknown key '%.60s' (expected %s)", where ? where : "",
                       where ? ": " : "", key->text, list);
    }
    return 0;
}

/* Joins names into buf as "a, b, c". */
const char *sl_join_names(const char *const *names, int n, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int k = 0; k < n && at < len; k++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", k ? ", " : "", names[k]);
    return buf;
}
