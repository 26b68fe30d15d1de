/* protocol.c: the worker protocol's one parser and formatter (see protocol.h), shared by
 * the parent (backend_cuda.c) and the worker (worker.c). Pure C, no CUDA, no I/O. */
#include "protocol.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- parsing ---- */

/* The parsers' errors quote what they read (a status, a value), which may hold line breaks
 * once unescaped: line breaks and tabs become spaces and other control bytes '?', so an error
 * stays one line. */
static void err_one_line(char *err, size_t len)
{
    for (size_t i = 0; i < len && err[i]; i++)
        if (err[i] == '\n' || err[i] == '\r' || err[i] == '\t')
            err[i] = ' ';
        else if ((unsigned char)err[i] < 0x20 || err[i] == 0x7f)
            err[i] = '?';
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static int key_ok(const char *k)
{
    if (!*k) return 0;
    for (; *k; k++)
        if (!((*k >= 'a' && *k <= 'z') || (*k >= '0' && *k <= '9') || *k == '_')) return 0;
    return 1;
}

/* Decodes %XX escapes in place. 0, or -1 on a malformed escape. */
static int unescape(char *s)
{
    char *w = s;
    for (const char *r = s; *r; r++) {
        if (*r != '%') { *w++ = *r; continue; }
        int hi = hex_value(r[1]), lo = hi < 0 ? -1 : hex_value(r[2]);
        if (hi < 0 || lo < 0) return -1;
        *w++ = (char)(hi * 16 + lo);
        r += 2;
    }
    *w = 0;
    return 0;
}

void wp_msg_clear(wp_msg *m)
{
    free(m->storage);
    memset(m, 0, sizeof *m);
}

static int wp_parse_lines(const char *line, size_t len, wp_msg *m, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    if (len > 0 && line[len - 1] == '\n') len--;
    if (memchr(line, '\n', len) || memchr(line, '\0', len)) {
        snprintf(err, errlen, "protocol: a line holds a newline or NUL byte");
        return -1;
    }
    m->storage = malloc(len + 1);
    if (!m->storage) { snprintf(err, errlen, "protocol: out of memory"); return -1; }
    memcpy(m->storage, line, len);
    m->storage[len] = 0;

    char *p = m->storage;
    char *tab = strchr(p, '\t');
    size_t tlen = tab ? (size_t)(tab - p) : strlen(p);
    if (tlen == 0 || tlen >= WP_TYPE_MAX) {
        snprintf(err, errlen, "protocol: bad message type in '%.60s'", m->storage);
        return -1;
    }
    memcpy(m->type, p, tlen);
    m->type[tlen] = 0;
    if (!key_ok(m->type)) {
        snprintf(err, errlen, "protocol: bad message type '%s'", m->type);
        return -1;
    }
    while (tab) {
        char *field = tab + 1;
        tab = strchr(field, '\t');
        if (tab) *tab = 0;
        char *eq = strchr(field, '=');
        if (!eq) {
            snprintf(err, errlen, "protocol: %s: field '%.40s' has no '='", m->type, field);
            return -1;
        }
        *eq = 0;
        if (!key_ok(field)) {
            snprintf(err, errlen, "protocol: %s: bad key '%.40s'", m->type, field);
            return -1;
        }
        if (m->n == WP_MAX_FIELDS) {
            snprintf(err, errlen, "protocol: %s: more than %d fields", m->type, WP_MAX_FIELDS);
            return -1;
        }
        if (unescape(eq + 1)) {
            snprintf(err, errlen, "protocol: %s: bad %%-escape in field %s", m->type, field);
            return -1;
        }
        m->keys[m->n] = field;
        m->vals[m->n] = eq + 1;
        m->n++;
    }
    return 0;
}

const char *wp_get(const wp_msg *m, const char *key)
{
    for (int i = 0; i < m->n; i++)
        if (strcmp(m->keys[i], key) == 0) return m->vals[i];
    return NULL;
}

int wp_parse_i64(const char *s, int64_t *out)
{
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end || errno) return -1;
    *out = v;
    return 0;
}

int wp_parse_f64(const char *s, double *out)
{
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno == ERANGE || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

/* ---- formatting ---- */

static void buf_reserve(wp_buf *b, size_t extra)
{
    if (b->failed || b->len + extra + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) { b->failed = 1; return; }
    b->s = s;
    b->cap = cap;
}

static void buf_append(wp_buf *b, const char *s, size_t n)
{
    buf_reserve(b, n);
    if (b->failed) return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

void wp_begin(wp_buf *b, const char *type)
{
    b->len = 0;
    b->failed = 0;
    buf_append(b, type, strlen(type));
}

void wp_add(wp_buf *b, const char *key, const char *val)
{
    buf_append(b, "\t", 1);
    buf_append(b, key, strlen(key));
    buf_append(b, "=", 1);
    for (const char *v = val ? val : ""; *v; v++) {
        switch (*v) {
        case '%': buf_append(b, "%25", 3); break;
        case '\t': buf_append(b, "%09", 3); break;
        case '\n': buf_append(b, "%0A", 3); break;
        case '\r': buf_append(b, "%0D", 3); break;
        default: buf_append(b, v, 1); break;
        }
    }
}

void wp_add_int(wp_buf *b, const char *key, int64_t v)
{
    char num[32];
    snprintf(num, sizeof num, "%lld", (long long)v);
    wp_add(b, key, num);
}

void wp_add_double(wp_buf *b, const char *key, double v)
{
    char num[40];
    snprintf(num, sizeof num, "%.17g", v);
    wp_add(b, key, num);
}

int wp_end(wp_buf *b)
{
    buf_append(b, "\n", 1);
    return b->failed ? -1 : 0;
}

void wp_buf_free(wp_buf *b)
{
    free(b->s);
    memset(b, 0, sizeof *b);
}

/* ---- device ---- */

int wp_format_device(wp_buf *b, const device_info *d)
{
    wp_begin(b, "device");
    wp_add(b, "name", d->name);
    wp_add(b, "uuid", d->uuid);
    wp_add_int(b, "cc_major", d->cc_major);
    wp_add_int(b, "cc_minor", d->cc_minor);
    wp_add_int(b, "sm_count", d->sm_count);
    wp_add_int(b, "max_threads_per_sm", d->max_threads_per_sm);
    wp_add_int(b, "max_threads_per_block", d->max_threads_per_block);
    wp_add_int(b, "regs_per_sm", d->regs_per_sm);
    wp_add_int(b, "smem_per_sm", d->smem_per_sm);
    wp_add_int(b, "l2_bytes", d->l2_bytes);
    wp_add_int(b, "mem_bytes", d->mem_bytes);
    wp_add_int(b, "sm_clock_khz", d->sm_clock_khz);
    wp_add_int(b, "mem_clock_khz", d->mem_clock_khz);
    wp_add_int(b, "mem_bus_bits", d->mem_bus_bits);
    wp_add_int(b, "driver_version", d->driver_version);
    wp_add_int(b, "runtime_version", d->runtime_version);
    wp_add_int(b, "device_count", d->device_count);
    return wp_end(b);
}

static int get_string(const wp_msg *m, const char *key, char *dst, size_t cap, char *err,
                      size_t len)
{
    const char *v = wp_get(m, key);
    if (!v || strlen(v) >= cap) {
        snprintf(err, len, "protocol: %s: %s %s", m->type, key, v ? "too long" : "missing");
        return -1;
    }
    memcpy(dst, v, strlen(v) + 1);
    return 0;
}

static int get_i64(const wp_msg *m, const char *key, int64_t lo, int64_t hi, int64_t *out,
                   char *err, size_t len)
{
    const char *v = wp_get(m, key);
    if (!v || wp_parse_i64(v, out) || *out < lo || *out > hi) {
        snprintf(err, len, "protocol: %s: %s %s%s%s", m->type, key, v ? "malformed: '" : "missing",
                 v ? v : "", v ? "'" : "");
        return -1;
    }
    return 0;
}

static int get_int(const wp_msg *m, const char *key, int *out, char *err, size_t len)
{
    int64_t v;
    if (get_i64(m, key, -2147483647 - 1, 2147483647, &v, err, len)) return -1;
    *out = (int)v;
    return 0;
}

static int get_f64(const wp_msg *m, const char *key, double *out, char *err, size_t len)
{
    const char *v = wp_get(m, key);
    if (!v || wp_parse_f64(v, out)) {
        snprintf(err, len, "protocol: %s: %s %s%s%s", m->type, key, v ? "malformed: '" : "missing",
                 v ? v : "", v ? "'" : "");
        return -1;
    }
    return 0;
}

static int wp_parse_device_lines(const wp_msg *m, device_info *d, char *err, size_t len)
{
    memset(d, 0, sizeof *d);
    if (strcmp(m->type, "device") != 0) {
        snprintf(err, len, "protocol: expected a device message, got '%s'", m->type);
        return -1;
    }
    if (get_string(m, "name", d->name, sizeof d->name, err, len) ||
        get_string(m, "uuid", d->uuid, sizeof d->uuid, err, len) ||
        get_int(m, "cc_major", &d->cc_major, err, len) ||
        get_int(m, "cc_minor", &d->cc_minor, err, len) ||
        get_int(m, "sm_count", &d->sm_count, err, len) ||
        get_int(m, "max_threads_per_sm", &d->max_threads_per_sm, err, len) ||
        get_int(m, "max_threads_per_block", &d->max_threads_per_block, err, len) ||
        get_int(m, "regs_per_sm", &d->regs_per_sm, err, len) ||
        get_i64(m, "smem_per_sm", 0, INT64_MAX, &d->smem_per_sm, err, len) ||
        get_i64(m, "l2_bytes", 0, INT64_MAX, &d->l2_bytes, err, len) ||
        get_i64(m, "mem_bytes", 0, INT64_MAX, &d->mem_bytes, err, len) ||
        get_int(m, "sm_clock_khz", &d->sm_clock_khz, err, len) ||
        get_int(m, "mem_clock_khz", &d->mem_clock_khz, err, len) ||
        get_int(m, "mem_bus_bits", &d->mem_bus_bits, err, len) ||
        get_int(m, "driver_version", &d->driver_version, err, len) ||
        get_int(m, "runtime_version", &d->runtime_version, err, len))
        return -1;
    d->device_count = 1;   /* optional: a worker of an older tuner does not say */
    if (wp_get(m, "device_count") && get_int(m, "device_count", &d->device_count, err, len))
        return -1;
    return 0;
}

/* ---- eval ---- */

int wp_format_eval(wp_buf *b, const eval_request *r)
{
    wp_begin(b, "eval");
    wp_add(b, "kernel", r->kernel);
    wp_add(b, "op", r->op);
    wp_add(b, "dtype", r->dtype);
    wp_add(b, "problem", r->problem ? r->problem->text : "");
    wp_add(b, "config", r->config);
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)r->seed);
    wp_add(b, "seed", seed);
    wp_add_int(b, "validate", r->validate ? 1 : 0);
    wp_add_double(b, "tolerance_scale", r->tolerance_scale > 0 ? r->tolerance_scale : 1.0);
    wp_add_int(b, "warmup", r->measure.warmup);
    wp_add_int(b, "min_runs", r->measure.min_runs);
    wp_add_int(b, "max_runs", r->measure.max_runs);
    wp_add_double(b, "rel_ci", r->measure.rel_ci);
    wp_add_int(b, "cold", r->measure.cold);
    wp_add_double(b, "max_seconds", r->measure.max_seconds);
    if (r->space_path) wp_add(b, "space", r->space_path);
    if (r->module) wp_add(b, "module", r->module);
    if (r->ref_module) wp_add(b, "ref_module", r->ref_module);
    if (r->checks) wp_add(b, "checks", r->checks);
    if (r->measure.race_margin > 0) wp_add_double(b, "race_margin", r->measure.race_margin);
    if (r->measure.energy_s > 0) wp_add_double(b, "energy_s", r->measure.energy_s);
    if (r->race_us > 0) wp_add_double(b, "race_us", r->race_us);
    if (r->energy_us > 0) wp_add_double(b, "energy_of", r->energy_us);
    if (r->device_state) wp_add(b, "device_state", r->device_state);
    if (r->n_playoff > 0) {
        wp_add_int(b, "playoff", r->n_playoff);
        for (int i = 0; i < r->n_playoff && i < EVAL_PLAYOFF_MAX; i++) {
            char key[16];
            snprintf(key, sizeof key, "pc%d", i);
            wp_add(b, key, r->playoff[i] ? r->playoff[i] : "");
            if (r->playoff_module[i]) {
                snprintf(key, sizeof key, "pm%d", i);
                wp_add(b, key, r->playoff_module[i]);
            }
        }
    }
    return wp_end(b);
}

static int wp_parse_eval_lines(const wp_msg *m, wp_eval *out, char *err, size_t len)
{
    memset(out, 0, sizeof *out);
    if (strcmp(m->type, "eval") != 0) {
        snprintf(err, len, "protocol: expected an eval request, got '%s'", m->type);
        return -1;
    }
    const char **strs[] = { &out->kernel, &out->op, &out->dtype, &out->problem, &out->config };
    const char *names[] = { "kernel", "op", "dtype", "problem", "config" };
    for (int i = 0; i < 5; i++) {
        *strs[i] = wp_get(m, names[i]);
        if (!*strs[i]) {
            snprintf(err, len, "protocol: eval: %s missing", names[i]);
            return -1;
        }
    }
    const char *seed = wp_get(m, "seed");
    char *end;
    errno = 0;
    unsigned long long sv = seed && *seed && *seed != '-' ? strtoull(seed, &end, 10) : 0;
    if (!seed || !*seed || *seed == '-' || *end || errno) {
        snprintf(err, len, "protocol: eval: seed %s", seed ? "malformed" : "missing");
        return -1;
    }
    out->seed = sv;
    int64_t validate, cold;
    measure_settings *ms = &out->measure;
    if (get_i64(m, "validate", 0, 1, &validate, err, len) ||
        get_f64(m, "tolerance_scale", &out->tolerance_scale, err, len) ||
        get_int(m, "warmup", &ms->warmup, err, len) ||
        get_int(m, "min_runs", &ms->min_runs, err, len) ||
        get_int(m, "max_runs", &ms->max_runs, err, len) ||
        get_f64(m, "rel_ci", &ms->rel_ci, err, len) ||
        get_i64(m, "cold", 0, 2, &cold, err, len) ||
        get_f64(m, "max_seconds", &ms->max_seconds, err, len))
        return -1;
    out->validate = (int)validate;
    ms->cold = (int)cold;
    out->space = wp_get(m, "space");
    out->module = wp_get(m, "module");
    out->ref_module = wp_get(m, "ref_module");
    out->checks = wp_get(m, "checks");
    out->device_state = wp_get(m, "device_state");
    if (out->device_state && out->device_state[0] != '/') {
        snprintf(err, len, "protocol: eval: device_state must be an absolute path");
        return -1;
    }
    if (out->space && (!*out->space || !out->module || !*out->module)) {
        snprintf(err, len, "protocol: eval: a user kernel's request needs space= and module=");
        return -1;
    }
    if (ms->warmup < 0 || ms->min_runs < 1 || ms->max_runs < ms->min_runs) {
        snprintf(err, len, "protocol: eval: bad run counts (warmup %d, min_runs %d, max_runs %d)",
                 ms->warmup, ms->min_runs, ms->max_runs);
        return -1;
    }
    /* optional: racing and the playoff */
    if ((wp_get(m, "race_margin") && get_f64(m, "race_margin", &ms->race_margin, err, len)) ||
        (wp_get(m, "race_us") && get_f64(m, "race_us", &out->race_us, err, len)))
        return -1;
    if (wp_get(m, "energy_s") && get_f64(m, "energy_s", &ms->energy_s, err, len))
        return -1;
    if (ms->energy_s < 0 || ms->energy_s > 60) {
        snprintf(err, len, "protocol: eval: energy_s %g out of [0, 60]", ms->energy_s);
        return -1;
    }
    /* optional: an energy window alone, of a config whose median this is */
    if (wp_get(m, "energy_of")) {
        if (get_f64(m, "energy_of", &out->energy_us, err, len)) return -1;
        if (!(out->energy_us > 0) || !(ms->energy_s > 0)) {
            snprintf(err, len, "protocol: eval: energy_of needs a positive median and energy_s");
            return -1;
        }
    }
    if (ms->race_margin < 0 || out->race_us < 0) {
        snprintf(err, len, "protocol: eval: negative race_margin or race_us");
        return -1;
    }
    if (wp_get(m, "playoff")) {
        int64_t k;
        if (get_i64(m, "playoff", 2, EVAL_PLAYOFF_MAX, &k, err, len)) return -1;
        out->n_playoff = (int)k;
        for (int i = 0; i < out->n_playoff; i++) {
            char key[16];
            snprintf(key, sizeof key, "pc%d", i);
            if (!(out->playoff[i] = wp_get(m, key)) || !*out->playoff[i]) {
                snprintf(err, len, "protocol: eval: playoff config %s missing", key);
                return -1;
            }
            snprintf(key, sizeof key, "pm%d", i);
            out->playoff_module[i] = wp_get(m, key);
            if (out->space && (!out->playoff_module[i] || !*out->playoff_module[i])) {
                snprintf(err, len, "protocol: eval: a user kernel's playoff needs %s=", key);
                return -1;
            }
        }
    }
    return 0;
}

/* Appends "\tkey=" and the samples as %.9g, comma-separated (one pass for a long list). */
static void add_samples(wp_buf *b, const char *key, const double *v, int n)
{
    char head[24];
    int h = snprintf(head, sizeof head, "\t%s=", key);
    buf_append(b, head, (size_t)h);
    for (int i = 0; i < n; i++) {
        char num[40];
        int k = snprintf(num, sizeof num, "%s%.9g", i ? "," : "", v[i]);
        buf_append(b, num, (size_t)k);
    }
}

/* Parses a comma-separated list of finite non-negative numbers into *out (malloc'd; NULL when
 * empty) and its count into *n. 0, or -1 with err naming what. */
static int parse_samples(const char *s, const char *what, double **out, int *n, char *err,
                         size_t len)
{
    *out = NULL;
    *n = 0;
    if (!s || !*s) return 0;
    int count = 1;
    for (const char *c = s; *c; c++) count += *c == ',';
    double *v = malloc((size_t)count * sizeof *v);
    if (!v) {
        snprintf(err, len, "protocol: out of memory");
        return -1;
    }
    const char *c = s;
    for (int i = 0; i < count; i++) {
        char *end;
        errno = 0;
        double x = strtod(c, &end);
        if (end == c || (*end && *end != ',') || errno == ERANGE || !isfinite(x) || x < 0) {
            snprintf(err, len, "protocol: result: %s %d malformed", what, i);
            free(v);
            return -1;
        }
        v[i] = x;
        c = *end ? end + 1 : end;
    }
    *out = v;
    *n = count;
    return 0;
}

/* ---- result ---- */

int wp_format_result(wp_buf *b, const eval_result *r)
{
    wp_begin(b, "result");
    wp_add(b, "status", eval_status_name(r->status));
    wp_add(b, "error", r->error);
    add_samples(b, "samples", r->samples, r->n_samples);
    if (r->raced) wp_add_int(b, "raced", 1);
    if (r->setup_ms > 0) wp_add_double(b, "setup_ms", r->setup_ms);
    if (r->energy_only) wp_add_int(b, "energy_only", 1);
    if (r->energy.joules > 0) {
        /* joules per run, W, window ms, SM MHz, memory MHz, temperature, throttle reasons */
        char en[256];
        snprintf(en, sizeof en, "%.9g,%.9g,%.9g,%d,%d,%d,%lld", r->energy.joules,
                 r->energy.power_w, r->energy.window_ms, r->energy.sm_mhz, r->energy.mem_mhz,
                 r->energy.temp_c, r->energy.throttle);
        wp_add(b, "energy", en);
    }
    if (r->n_playoff > 0) {
        wp_add_int(b, "playoff", r->n_playoff);
        for (int i = 0; i < r->n_playoff && i < EVAL_PLAYOFF_MAX; i++) {
            char key[16];
            snprintf(key, sizeof key, "ps%d", i);
            add_samples(b, key, r->playoff_samples[i], r->playoff_n[i]);
        }
    }
    return wp_end(b);
}

static int wp_parse_result_lines(const wp_msg *m, eval_result *out, char *err, size_t len)
{
    memset(out, 0, sizeof *out);
    if (strcmp(m->type, "result") != 0) {
        snprintf(err, len, "protocol: expected a result, got '%s'", m->type);
        return -1;
    }
    const char *status = wp_get(m, "status");
    int st = eval_status_parse(status);
    if (st < 0 || st == EVAL_UNRECORDED || st == EVAL_SKIPPED || st == EVAL_COMPILE_ERROR) {
        snprintf(err, len, "protocol: result: status '%s' %s", status ? status : "",
                 status ? "is not a worker status" : "missing");
        return -1;
    }
    const char *error = wp_get(m, "error");
    snprintf(out->error, sizeof out->error, "%s", error ? error : "");
    if (parse_samples(wp_get(m, "samples"), "sample", &out->samples, &out->n_samples, err, len))
        goto fail;
    out->status = (eval_status)st;
    if (wp_get(m, "raced")) {
        int64_t raced;
        if (get_i64(m, "raced", 0, 1, &raced, err, len)) goto fail;
        out->raced = (int)raced;
    }
    const char *setup = wp_get(m, "setup_ms");
    if (setup && (wp_parse_f64(setup, &out->setup_ms) || out->setup_ms < 0)) {
        snprintf(err, len, "protocol: result: bad setup_ms '%s'", setup);
        goto fail;
    }
    if (wp_get(m, "energy_only")) {
        int64_t only;
        if (get_i64(m, "energy_only", 0, 1, &only, err, len)) goto fail;
        out->energy_only = (int)only;
    }
    const char *en = wp_get(m, "energy");
    if (en) {
        eval_energy *x = &out->energy;
        int used = 0;
        if (sscanf(en, "%lf,%lf,%lf,%d,%d,%d,%lld%n", &x->joules, &x->power_w, &x->window_ms,
                   &x->sm_mhz, &x->mem_mhz, &x->temp_c, &x->throttle, &used) != 7 ||
            en[used] || !isfinite(x->joules) || !(x->joules > 0) || !isfinite(x->power_w) ||
            x->power_w < 0 || !isfinite(x->window_ms) || x->window_ms < 0 || st != EVAL_OK) {
            snprintf(err, len, "protocol: result: bad energy '%.80s'", en);
            goto fail;
        }
    }
    int64_t k = 0;
    if (wp_get(m, "playoff") && get_i64(m, "playoff", 2, EVAL_PLAYOFF_MAX, &k, err, len)) goto fail;
    out->n_playoff = (int)k;
    for (int i = 0; i < out->n_playoff; i++) {
        char key[16];
        snprintf(key, sizeof key, "ps%d", i);
        if (parse_samples(wp_get(m, key), "playoff sample", &out->playoff_samples[i],
                          &out->playoff_n[i], err, len))
            goto fail;
        if (st == EVAL_OK && (out->playoff_n[i] == 0 || out->playoff_n[i] != out->playoff_n[0])) {
            snprintf(err, len, "protocol: result: playoff config %d has %d samples, config 0 %d", i,
                     out->playoff_n[i], out->playoff_n[0]);
            goto fail;
        }
    }
    if (st == EVAL_OK) {
        if (out->n_samples == 0 && out->n_playoff == 0 && !out->energy_only) {
            snprintf(err, len, "protocol: result: status ok without samples");
            goto fail;
        }
        if (out->n_samples > 0) stats_summarize(out->samples, out->n_samples, &out->stats);
    }
    return 0;
fail:
    eval_result_clear(out);
    return -1;
}

int wp_parse(const char *line, size_t len, wp_msg *m, char *err, size_t errlen)
{
    int rc = wp_parse_lines(line, len, m, err, errlen);
    if (rc != 0)
        err_one_line(err, errlen);
    return rc;
}

int wp_parse_device(const wp_msg *m, device_info *d, char *err, size_t len)
{
    int rc = wp_parse_device_lines(m, d, err, len);
    if (rc != 0)
        err_one_line(err, len);
    return rc;
}

int wp_parse_eval(const wp_msg *m, wp_eval *out, char *err, size_t len)
{
    int rc = wp_parse_eval_lines(m, out, err, len);
    if (rc != 0)
        err_one_line(err, len);
    return rc;
}

int wp_parse_result(const wp_msg *m, eval_result *out, char *err, size_t len)
{
    int rc = wp_parse_result_lines(m, out, err, len);
    if (rc != 0)
        err_one_line(err, len);
    return rc;
}
