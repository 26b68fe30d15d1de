/* common.c: the host-only helpers of tunekit.h that every family shares: status strings, dtype
 * names and sizes, and parameter spaces (is a value supported; parse canonical config text
 * "k=v,k=v" into one value per parameter). Pure C, no CUDA calls, nothing allocated. */
#include <stdint.h>
#include <string.h>
#include "tunekit.h"

/* The most parameters a space may have (tk_config_parse tracks which it has seen in a bitmask). */
#define TK_MAX_PARAMS 64

const char *tk_status_string(tk_status s)
{
    switch (s) {
    case TK_OK: return "ok";
    case TK_ERR_INVALID_ARGUMENT: return "invalid argument";
    case TK_ERR_UNSUPPORTED_CONFIG: return "unsupported config";
    case TK_ERR_LAUNCH: return "kernel launch failed";
    case TK_ERR_CUDA: return "CUDA runtime call failed";
    case TK_ERR_OUT_OF_RANGE: return "index out of range";
    }
    return "unknown status";
}

int tk_dtype_parse(const char *name)
{
    if (!name) return -1;
    if (strcmp(name, "f32") == 0) return TK_F32;
    if (strcmp(name, "f16") == 0) return TK_F16;
    if (strcmp(name, "bf16") == 0) return TK_BF16;
    return -1;
}

const char *tk_dtype_name(tk_dtype d)
{
    switch (d) {
    case TK_F32: return "f32";
    case TK_F16: return "f16";
    case TK_BF16: return "bf16";
    }
    return NULL;
}

size_t tk_dtype_size(tk_dtype d)
{
    switch (d) {
    case TK_F32: return 4;
    case TK_F16: return 2;
    case TK_BF16: return 2;
    }
    return 0;
}

int tk_param_supports(const tk_param_desc *d, int64_t v)
{
    if (!d) return 0;
    if (d->n_values > 0) {
        if (d->int_values) {
            for (int i = 0; i < d->n_values; i++)
                if (d->int_values[i] == v) return 1;
            return 0;
        }
        return d->str_values && v >= 0 && v < d->n_values;
    }
    if (v < d->lo || v > d->hi) return 0;
    uint64_t step = d->multiple > 0 ? (uint64_t)d->multiple : 1u;
    return ((uint64_t)v - (uint64_t)d->lo) % step == 0; /* v >= lo: the exact distance */
}

/* Parses the decimal integer text[0..len) (optional leading '-') into *out without overflow.
 * Returns 0, or -1 when it is empty, has another character, or does not fit in int64_t. */
static int parse_int64(const char *text, size_t len, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    if (len > 0 && text[0] == '-') {
        neg = 1;
        i = 1;
    }
    if (i == len) return -1;
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX;
    uint64_t acc = 0;
    for (; i < len; i++) {
        if (text[i] < '0' || text[i] > '9') return -1;
        uint64_t digit = (uint64_t)(text[i] - '0');
        if (acc > (limit - digit) / 10u) return -1;
        acc = acc * 10u + digit;
    }
    *out = neg ? (int64_t)(0u - acc) : (int64_t)acc;
    return 0;
}

/* Index of the parameter named key[0..len) in space, or -1. */
static int find_param(const tk_config_space *space, const char *key, size_t len)
{
    for (int i = 0; i < space->n_params; i++) {
        const char *name = space->params[i].name;
        if (name && strlen(name) == len && memcmp(name, key, len) == 0) return i;
    }
    return -1;
}

/* Parses one value text[0..len) of parameter d: a string parameter's value becomes its index in
 * str_values. Returns TK_OK, TK_ERR_INVALID_ARGUMENT (not a number) or
 * TK_ERR_UNSUPPORTED_CONFIG (a value d does not support). */
static tk_status parse_value(const tk_param_desc *d, const char *text, size_t len, int64_t *out)
{
    if (d->n_values > 0 && d->str_values) {
        for (int i = 0; i < d->n_values; i++) {
            const char *s = d->str_values[i];
            if (s && strlen(s) == len && memcmp(s, text, len) == 0) {
                *out = i;
                return TK_OK;
            }
        }
        return TK_ERR_UNSUPPORTED_CONFIG;
    }
    if (parse_int64(text, len, out) != 0) return TK_ERR_INVALID_ARGUMENT;
    return tk_param_supports(d, *out) ? TK_OK : TK_ERR_UNSUPPORTED_CONFIG;
}

/* Syntax errors (an item without '=', an empty key or value, a number that does not parse)
 * give TK_ERR_INVALID_ARGUMENT; an unknown, repeated or missing parameter or an unsupported
 * value gives TK_ERR_UNSUPPORTED_CONFIG. values[] is written only on TK_OK. */
tk_status tk_config_parse(const tk_config_space *space, const char *text, int64_t *values)
{
    if (!space || !text || !values || space->n_params < 0 || space->n_params > TK_MAX_PARAMS ||
        (space->n_params > 0 && !space->params))
        return TK_ERR_INVALID_ARGUMENT;
    int64_t parsed[TK_MAX_PARAMS];
    uint64_t seen = 0;
    const char *p = text;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t item_len = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', item_len);
        if (!eq || eq == p || eq + 1 == p + item_len) return TK_ERR_INVALID_ARGUMENT;
        int k = find_param(space, p, (size_t)(eq - p));
        if (k < 0 || (seen >> k & 1u)) return TK_ERR_UNSUPPORTED_CONFIG;
        tk_status st = parse_value(&space->params[k], eq + 1, (size_t)(p + item_len - eq - 1),
                                   &parsed[k]);
        if (st != TK_OK) return st;
        seen |= (uint64_t)1 << k;
        if (!end) break;
        p = end + 1;
        if (!*p) return TK_ERR_INVALID_ARGUMENT; /* a trailing comma */
    }
    for (int k = 0; k < space->n_params; k++)
        if (!(seen >> k & 1u)) return TK_ERR_UNSUPPORTED_CONFIG;
    for (int k = 0; k < space->n_params; k++)
        values[k] = parsed[k];
    return TK_OK;
}
