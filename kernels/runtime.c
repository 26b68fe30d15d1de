/* runtime.c: the run-time API of user kernels (tunekit_runtime.h, docs/runtime.md).
 *
 * tk_kernel_open parses every expression of the descriptor once with the tuner's evaluator
 * (tuner/expr, compiled into this library: one evaluator). A launch finds its plan in a table
 * keyed by (device, dtype, problem); the first launch of a key builds the plan: the config from
 * the descriptor's table (the device by name, else the same compute capability with the nearest
 * SM count, else the nearest compute capability; then the nearest problem on a log scale; the
 * default config where the table has none), its variant (compiled by NVRTC into the compile cache
 * the tuner uses, tuner/build/cache.c, or found there; loaded once with cudaLibraryLoadData,
 * which every context can use) and each step's geometry. The table only grows; one mutex guards
 * it and the variants, and a launch holds it only for the lookup.
 *
 * The expressions' slots are the tuner's (tuner/space/space_enum.c): the parameters in the
 * descriptor's order, then the problem's fields, then dtype, dtype_size, ctype and op, then the
 * device attributes core/device.h names, in device_attr_names' order. */
#include "tunekit_runtime.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "build/cache.h"
#include "build/compiler.h"
#include "core/device.h"
#include "expr/expr.h"
#include "worker/cuda_device.h"

/* ---- errors ---- */

static _Thread_local char last_error[1024];

const char *tk_kernel_error(void)
{
    return last_error;
}

static tk_status fail(tk_status st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static tk_status fail(tk_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return st;
}

/* ---- the kernel ---- */

/* The device attributes an expression may read, in slot order (as space_enum.c's). */
static const char *const device_slot_names[] = {
    "sm_count", "max_threads_per_sm", "max_threads_per_block", "l2_bytes",
    "mem_bytes", "cc", "regs_per_sm", "smem_per_sm", "smem_per_block",
};
enum { N_DEVICE_SLOTS = 9, FIXED_DTYPE = 0, FIXED_DTYPE_SIZE, FIXED_CTYPE, FIXED_OP, FIXED_COUNT };
enum { MAX_STEPS = 16, MAX_ARGS = 64 };

typedef struct parsed_step {
    expr **templ;
    expr *grid[3], *block[3], *shared;
} parsed_step;

/* A compiled variant: one per config (and device architecture). */
typedef struct variant {
    char key[65];
    int arch;                /* cc major * 10 + minor */
    char *config;
    cudaLibrary_t lib;
    cudaKernel_t fn[MAX_STEPS];
    int shared_set[MAX_STEPS];         /* the kernel's dynamic shared memory limit raised to */
    char *symbol[MAX_ARGS];            /* per argument: the lowered name of the variable it
                                          fills, or NULL */
    struct variant *next;
} variant;

/* What a launch of one (device, dtype, problem) does. */
typedef struct plan {
    int device, dtype;
    long long *problem;
    variant *v;
    dim3 grid[MAX_STEPS], block[MAX_STEPS];
    size_t shared[MAX_STEPS];
    void *var[MAX_ARGS];     /* per argument that fills a variable: its address on the device */
    size_t var_bytes[MAX_ARGS];        /* ... and how many bytes the launch copies there */
    struct plan *next;       /* hash chain */
} plan;

static void variant_free(variant *v, const tk_kernel_desc *d)
{
    if (!v)
        return;
    if (v->lib)
        cudaLibraryUnload(v->lib);
    for (int i = 0; i < d->n_args && i < MAX_ARGS; i++)
        free(v->symbol[i]);
    free(v->config);
    free(v);
}

struct tk_kernel {
    const tk_kernel_desc *d;
    int n_slots;
    expr **define_values;
    parsed_step *steps;
    expr **counts;           /* per argument: a buffer's count, NULL for scalars */
    char source_dir_opt[PATH_MAX + 3];
    pthread_mutex_t mu;
    plan *table[256];        /* plans by hash */
    variant *variants;
    compiler *nvrtc;         /* opened on the first compilation */
    compiler_info cc_info;
    int cc_info_arch;        /* the architecture cc_info was probed for, 0: none yet */
};

typedef struct bind_ctx {
    const tk_kernel_desc *d;
} bind_ctx;

static int resolve(void *ctx, const char *name, int *mask)
{
    const tk_kernel_desc *d = ((bind_ctx *)ctx)->d;
    for (int k = 0; k < d->n_params; k++)
        if (strcmp(d->params[k].name, name) == 0) {
            *mask = d->params[k].is_string ? SLOT_STRING : SLOT_INT;
            return k;
        }
    for (int k = 0; k < d->n_fields; k++)
        if (strcmp(d->fields[k], name) == 0) {
            *mask = SLOT_INT;
            return d->n_params + k;
        }
    static const char *const fixed[] = {"dtype", "dtype_size", "ctype", "op"};
    for (int k = 0; k < FIXED_COUNT; k++)
        if (strcmp(fixed[k], name) == 0) {
            *mask = k == FIXED_DTYPE_SIZE ? SLOT_INT : SLOT_STRING;
            return d->n_params + d->n_fields + k;
        }
    for (int k = 0; k < N_DEVICE_SLOTS; k++)
        if (strcmp(device_slot_names[k], name) == 0) {
            *mask = SLOT_INT;
            return d->n_params + d->n_fields + FIXED_COUNT + k;
        }
    return -1;
}

/* Parses and binds text; NULL text gives NULL. -1 with the error said. */
static int parse(const tk_kernel_desc *d, const char *text, const char *what, expr **out)
{
    *out = NULL;
    if (!text)
        return 0;
    expr_error e;
    bind_ctx b = {d};
    expr *x = expr_parse(text, &e);
    if (!x || expr_bind(x, resolve, &b, &e) != 0) {
        fail(TK_ERR_INVALID_ARGUMENT, "%s.%s: %s '%s': %s", d->family, d->op, what, text,
             e.message);
        expr_free(x);
        return -1;
    }
    *out = x;
    return 0;
}

void tk_kernel_close(tk_kernel *k)
{
    if (!k)
        return;
    const tk_kernel_desc *d = k->d;
    for (int i = 0; k->define_values && i < d->n_defines; i++)
        expr_free(k->define_values[i]);
    free(k->define_values);
    for (int s = 0; k->steps && s < d->n_steps; s++) {
        parsed_step *p = &k->steps[s];
        for (int i = 0; p->templ && i < d->steps[s].n_template; i++)
            expr_free(p->templ[i]);
        free(p->templ);
        for (int i = 0; i < 3; i++) {
            expr_free(p->grid[i]);
            expr_free(p->block[i]);
        }
        expr_free(p->shared);
    }
    free(k->steps);
    for (int i = 0; k->counts && i < d->n_args; i++)
        expr_free(k->counts[i]);
    free(k->counts);
    for (int h = 0; h < 256; h++)
        for (plan *p = k->table[h], *next; p; p = next) {
            next = p->next;
            free(p->problem);
            free(p);
        }
    for (variant *v = k->variants, *next; v; v = next) {
        next = v->next;
        variant_free(v, d);
    }
    if (k->nvrtc)
        k->nvrtc->vt->close(k->nvrtc);
    pthread_mutex_destroy(&k->mu);
    free(k);
}

tk_status tk_kernel_open(tk_kernel **out, const tk_kernel_desc *d)
{
    if (!out)
        return fail(TK_ERR_INVALID_ARGUMENT, "tk_kernel_open: out is NULL");
    *out = NULL;
    if (!d)
        return fail(TK_ERR_INVALID_ARGUMENT, "tk_kernel_open: the descriptor is NULL");
    if (d->abi != TK_KERNEL_DESC_ABI)
        return fail(TK_ERR_INVALID_ARGUMENT, "tk_kernel_open: a descriptor of ABI %d, this "
                    "library reads %d (regenerate the header with this tunekit's tuner)",
                    d->abi, TK_KERNEL_DESC_ABI);
    if (d->n_files < 1 || d->n_files > 64 || d->n_steps < 1 || d->n_steps > MAX_STEPS ||
        d->n_args > MAX_ARGS || d->n_dtypes < 1 || d->n_fields < 1 || !d->files || !d->steps ||
        !d->dtypes || !d->fields)
        return fail(TK_ERR_INVALID_ARGUMENT, "tk_kernel_open: a malformed descriptor");
    tk_kernel *k = calloc(1, sizeof *k);
    if (!k)
        return fail(TK_ERR_CUDA, "out of host memory");
    k->d = d;
    pthread_mutex_init(&k->mu, NULL);
    k->n_slots = d->n_params + d->n_fields + FIXED_COUNT + N_DEVICE_SLOTS;
    snprintf(k->source_dir_opt, sizeof k->source_dir_opt, "-I%s", d->source_dir);
    k->define_values = calloc((size_t)d->n_defines + 1, sizeof *k->define_values);
    k->steps = calloc((size_t)d->n_steps, sizeof *k->steps);
    k->counts = calloc((size_t)d->n_args + 1, sizeof *k->counts);
    if (!k->define_values || !k->steps || !k->counts) {
        tk_kernel_close(k);
        return fail(TK_ERR_CUDA, "out of host memory");
    }
    int bad = 0;
    for (int i = 0; i < d->n_defines && !bad; i++)
        bad = parse(d, d->define_values[i], d->define_names[i], &k->define_values[i]);
    for (int s = 0; s < d->n_steps && !bad; s++) {
        const tk_kernel_step *st = &d->steps[s];
        parsed_step *p = &k->steps[s];
        if (!(p->templ = calloc((size_t)st->n_template + 1, sizeof *p->templ))) {
            bad = fail(TK_ERR_CUDA, "out of host memory");
            break;
        }
        for (int i = 0; i < st->n_template && !bad; i++)
            bad = parse(d, st->templ[i], "template", &p->templ[i]);
        for (int i = 0; i < 3 && !bad; i++) {
            bad = parse(d, i < st->grid_dims ? st->grid[i] : NULL, "grid", &p->grid[i]) ||
                  parse(d, i < st->block_dims ? st->block[i] : NULL, "block", &p->block[i]);
        }
        if (!bad)
            bad = parse(d, st->shared, "shared_bytes", &p->shared);
        for (int i = 0; i < st->n_args && !bad; i++)
            if (st->args[i] < 0 || st->args[i] >= d->n_args)
                bad = fail(TK_ERR_INVALID_ARGUMENT, "%s.%s: step %d names argument %d of %d",
                           d->family, d->op, s, st->args[i], d->n_args);
    }
    for (int i = 0; i < d->n_args && !bad; i++)
        if (d->args[i].is_buffer && d->args[i].symbol)
            bad = parse(d, d->args[i].count, d->args[i].name, &k->counts[i]);
    if (bad) {
        tk_kernel_close(k);
        return TK_ERR_INVALID_ARGUMENT;
    }
    *out = k;
    last_error[0] = 0;
    return TK_OK;
}

/* ---- choosing the config ---- */

static int dtype_index(const tk_kernel_desc *d, const char *dtype)
{
    for (int i = 0; i < d->n_dtypes; i++)
        if (strcmp(d->dtypes[i].name, dtype) == 0)
            return i;
    return -1;
}

static double distance(const long long *a, const long long *b, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) {
        double x = a[i] > 1 ? log2((double)a[i]) : 0, y = b[i] > 1 ? log2((double)b[i]) : 0;
        s += x > y ? x - y : y - x;
    }
    return s;
}

/* The entry for a device and a problem in dtype, or NULL when the table has none. */
static const tk_kernel_entry *lookup(const tk_kernel_desc *d, const char *device, int cc_major,
                                     int cc_minor, int sm_count, const char *dtype,
                                     const long long *problem)
{
    const char *model = NULL;
    long best = -1;
    for (int i = 0; i < d->n_entries; i++) {
        const tk_kernel_entry *e = &d->entries[i];
        if (strcmp(e->dtype, dtype) != 0)
            continue;
        long cc = (long)(e->cc_major - cc_major) * 10 + (e->cc_minor - cc_minor);
        long sm = e->sm_count - sm_count;
        long score = strcmp(e->device, device) == 0
                         ? 0 : 1 + (cc < 0 ? -cc : cc) * 100000 + (sm < 0 ? -sm : sm);
        if (best < 0 || score < best) {
            best = score;
            model = e->device;
        }
    }
    const tk_kernel_entry *pick = NULL;
    double pick_d = 0;
    for (int i = 0; model && i < d->n_entries; i++) {
        const tk_kernel_entry *e = &d->entries[i];
        if (strcmp(e->device, model) != 0 || strcmp(e->dtype, dtype) != 0)
            continue;
        double dist = distance(e->problem, problem, d->n_fields);
        if (!pick || dist < pick_d) {
            pick = e;
            pick_d = dist;
        }
    }
    return pick;
}

/* The slots of a config (its canonical text), a problem, a dtype and a device. */
static int fill_slots(const tk_kernel *k, const char *config, const long long *problem, int dt,
                      const device_info *dev, value *slots)
{
    const tk_kernel_desc *d = k->d;
    for (int p = 0; p < d->n_params; p++) {
        /* "name=value" among the config's items */
        size_t n = strlen(d->params[p].name);
        const char *at = NULL;
        for (const char *s = config; s && *s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL)
            if (strncmp(s, d->params[p].name, n) == 0 && s[n] == '=') {
                at = s + n + 1;
                break;
            }
        if (!at)
            return fail(TK_ERR_INVALID_ARGUMENT, "%s.%s: config '%s' has no %s", d->family,
                        d->op, config, d->params[p].name);
        if (d->params[p].is_string) {
            slots[p] = value_string(at);   /* up to the next ',': the evaluator reads strings
                                              whole, so they are copied below */
        } else {
            char *end;
            long long v = strtoll(at, &end, 10);
            if (end == at || (*end && *end != ','))
                return fail(TK_ERR_INVALID_ARGUMENT, "%s.%s: config '%s': %s is not an integer",
                            d->family, d->op, config, d->params[p].name);
            slots[p] = value_int(v);
        }
    }
    for (int f = 0; f < d->n_fields; f++)
        slots[d->n_params + f] = value_int(problem[f]);
    int base = d->n_params + d->n_fields;
    slots[base + FIXED_DTYPE] = value_string(d->dtypes[dt].name);
    slots[base + FIXED_DTYPE_SIZE] = value_int(d->dtypes[dt].size);
    slots[base + FIXED_CTYPE] = value_string(d->dtypes[dt].ctype);
    slots[base + FIXED_OP] = value_string(d->op);
    for (int i = 0; i < N_DEVICE_SLOTS; i++) {
        value v = value_int(0);
        if (dev)
            device_attr_lookup(dev, device_slot_names[i], &v);
        slots[base + FIXED_COUNT + i] = v;
    }
    return 0;
}

/* String parameter values in slots point into the config text up to its next ','; the copies
 * here end at that comma. strings: n_params buffers of 128 bytes. */
static void cut_strings(const tk_kernel_desc *d, value *slots, char (*strings)[128])
{
    for (int p = 0; p < d->n_params; p++)
        if (d->params[p].is_string && slots[p].kind == VALUE_STRING) {
            size_t n = strcspn(slots[p].s, ",");
            snprintf(strings[p], 128, "%.*s", (int)(n < 127 ? n : 127), slots[p].s);
            slots[p] = value_string(strings[p]);
        }
}

static int eval_int(const tk_kernel *k, const expr *x, const char *src, const value *slots,
                    long long lo, long long hi, const char *what, long long *out)
{
    value v;
    expr_error e;
    if (expr_eval(x, slots, &v, &e) != 0)
        return fail(TK_ERR_INVALID_ARGUMENT, "%s.%s: %s '%s': %s", k->d->family, k->d->op, what,
                    src, e.message);
    if (v.kind != VALUE_INT || v.i < lo || v.i > hi)
        return fail(TK_ERR_INVALID_ARGUMENT, "%s.%s: %s '%s' gives %s%lld, out of [%lld, %lld]",
                    k->d->family, k->d->op, what, src, v.kind == VALUE_INT ? "" : "a non-integer ",
                    v.kind == VALUE_INT ? (long long)v.i : 0LL, lo, hi);
    *out = v.i;
    return 0;
}

/* Bytes of an element type ("f32" 4, "bf16" 2, "u8" 1), 0 when unknown. */
static size_t type_size(const char *t)
{
    static const struct { const char *name; size_t size; } types[] = {
        {"f64", 8}, {"f32", 4}, {"f16", 2}, {"bf16", 2}, {"i8", 1}, {"i16", 2}, {"i32", 4},
        {"i64", 8}, {"u8", 1}, {"u16", 2}, {"u32", 4}, {"u64", 8},
    };
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (strcmp(types[i].name, t) == 0)
            return types[i].size;
    return 0;
}

/* ---- compiling ---- */

/* The compilation of a config, as the tuner's (space_user_compile): -std=c++17 unless the
 * options give one, -I the source's folder and each include directory, -D each define, the
 * options; a name expression per distinct step function. Strings malloc'd into the lists. */
typedef struct compile_lists {
    char *opts[256];
    int n_opts;
    char *kernels[MAX_STEPS];
    int n_kernels;
    int step_kernel[MAX_STEPS];
    char *symbols[64];
    int n_symbols;
} compile_lists;

static void lists_clear(compile_lists *c)
{
    for (int i = 0; i < c->n_opts; i++)
        free(c->opts[i]);
    for (int i = 0; i < c->n_kernels; i++)
        free(c->kernels[i]);
    for (int i = 0; i < c->n_symbols; i++)
        free(c->symbols[i]);
    memset(c, 0, sizeof *c);
}

static int add(char **list, int *n, int max, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int add(char **list, int *n, int max, const char *fmt, ...)
{
    if (*n >= max)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    char buf[4096];
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (!(list[*n] = strdup(buf)))
        return -1;
    (*n)++;
    return 0;
}

static int compile_lists_for(const tk_kernel *k, const value *slots, compile_lists *c)
{
    const tk_kernel_desc *d = k->d;
    char text[512];
    memset(c, 0, sizeof *c);
    int has_std = 0;
    for (int i = 0; i < d->n_options; i++)
        has_std |= strncmp(d->options[i], "-std=", 5) == 0 || strncmp(d->options[i], "--std", 5) == 0;
    if ((!has_std && add(c->opts, &c->n_opts, 256, "-std=c++17")) ||
        add(c->opts, &c->n_opts, 256, "%s", k->source_dir_opt))
        goto oom;
    for (int i = 0; i < d->n_include_dirs; i++)
        if (add(c->opts, &c->n_opts, 256, "-I%s", d->include_dirs[i]))
            goto oom;
    for (int i = 0; i < d->n_defines; i++) {
        value v;
        expr_error e;
        if (expr_eval(k->define_values[i], slots, &v, &e) != 0) {
            fail(TK_ERR_INVALID_ARGUMENT, "%s.%s: define %s '%s': %s", d->family, d->op,
                 d->define_names[i], d->define_values[i], e.message);
            lists_clear(c);
            return -1;
        }
        value_format(v, text, sizeof text);
        if (add(c->opts, &c->n_opts, 256, "-D%s=%s", d->define_names[i], text))
            goto oom;
    }
    for (int i = 0; i < d->n_options; i++)
        if (add(c->opts, &c->n_opts, 256, "%s", d->options[i]))
            goto oom;
    for (int s = 0; s < d->n_steps; s++) {
        const tk_kernel_step *st = &d->steps[s];
        char name[4096];
        size_t at = (size_t)snprintf(name, sizeof name, "%s", st->function);
        for (int i = 0; i < st->n_template; i++) {
            value v;
            expr_error e;
            if (expr_eval(k->steps[s].templ[i], slots, &v, &e) != 0) {
                fail(TK_ERR_INVALID_ARGUMENT, "%s.%s: template '%s': %s", d->family, d->op,
                     st->templ[i], e.message);
                lists_clear(c);
                return -1;
            }
            value_format(v, text, sizeof text);
            at += (size_t)snprintf(name + at, at < sizeof name ? sizeof name - at : 0, "%s%s",
                                   i == 0 ? "<" : ", ", text);
        }
        if (st->n_template && at < sizeof name)
            snprintf(name + at, sizeof name - at, ">");
        int found = -1;
        for (int j = 0; j < c->n_kernels && found < 0; j++)
            if (strcmp(c->kernels[j], name) == 0)
                found = j;
        if (found < 0) {
            if (add(c->kernels, &c->n_kernels, MAX_STEPS, "%s", name))
                goto oom;
            found = c->n_kernels - 1;
        }
        c->step_kernel[s] = found;
    }
    for (int i = 0; i < d->n_args; i++)
        if (d->args[i].symbol && add(c->symbols, &c->n_symbols, 64, "%s", d->args[i].symbol))
            goto oom;
    return 0;
oom:
    lists_clear(c);
    return fail(TK_ERR_CUDA, "out of host memory"), -1;
}

/* The compiler's identity for the cache key, as compiler_nvrtc_probe gives it, remembered in the
 * cache folder (<dir>/nvrtc-sm_<arch>.probe: the library's path, size and modification time,
 * and the version): loading NVRTC only to learn its version cost a fresh process's first launch
 * most of its time. A library whose size or time differs is probed again. 0, or -1 with err. */
static int probe_nvrtc(const char *dir, int arch, compiler_info *info, char *err, size_t len)
{
    char path[PATH_MAX + 64], line[3][1100];
    snprintf(path, sizeof path, "%s/nvrtc-sm_%d.probe", dir, arch);
    FILE *f = fopen(path, "r");
    if (f) {
        int n = 0;
        while (n < 3 && fgets(line[n], sizeof line[n], f))
            line[n][strcspn(line[n], "\n")] = 0, n++;
        fclose(f);
        struct stat st;
        long long size = 0, mtime = 0;
        if (n == 3 && sscanf(line[1], "%lld %lld", &size, &mtime) == 2 &&
            stat(line[0], &st) == 0 && (long long)st.st_size == size &&
            (long long)st.st_mtime == mtime) {
            memset(info, 0, sizeof *info);
            snprintf(info->kind, sizeof info->kind, "nvrtc");
            snprintf(info->tool, sizeof info->tool, "%s", line[0]);
            snprintf(info->version, sizeof info->version, "%s", line[2]);
            return 0;
        }
    }
    if (compiler_nvrtc_probe(arch, info, err, len) != 0)
        return -1;
    struct stat st;
    char tmp[PATH_MAX + 96];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    if (stat(info->tool, &st) == 0 && cache_make_dir(dir, line[0], sizeof line[0]) == 0 &&
        (f = fopen(tmp, "w")) != NULL) {
        fprintf(f, "%s\n%lld %lld\n%s\n", info->tool, (long long)st.st_size,
                (long long)st.st_mtime, info->version);
        if (fclose(f) != 0 || rename(tmp, path) != 0)
            unlink(tmp);
    }
    return 0;
}

/* The cubin of a config for an architecture: from the cache, else compiled now and stored.
 * k->mu held. 0 with *cubin (malloc'd), *meta; -1 with the error said. */
static int build(tk_kernel *k, int arch, const compile_lists *c, char key[65], void **cubin,
                 size_t *cubin_n, module_meta *meta, tk_status *st)
{
    const tk_kernel_desc *d = k->d;
    char err[1024], arch_name[32], dir[PATH_MAX];
    *st = TK_ERR_CUDA;
    snprintf(arch_name, sizeof arch_name, "sm_%d", arch);
    cache_dir(dir, sizeof dir);
    if (k->cc_info_arch != arch) {
        if (probe_nvrtc(dir, arch, &k->cc_info, err, sizeof err) != 0)
            return fail(TK_ERR_CUDA, "%s.%s: %s", d->family, d->op, err), -1;
        k->cc_info_arch = arch;
    }
    /* the digest of the embedded files: the tuner's of the files on its disk */
    cache_text texts[64];
    int n_files = d->n_files < 64 ? d->n_files : 64;
    for (int i = 0; i < n_files; i++)
        texts[i] = (cache_text){d->files[i].text, d->files[i].len};
    char digest[65];
    cache_digest(texts, n_files, digest);
    cache_compile cc = {
        .compiler = "nvrtc", .version = k->cc_info.version, .tool = k->cc_info.tool,
        .arch = arch_name, .source = d->files[0].name, .digest = digest,
        .n_options = c->n_opts, .options = c->opts, .n_kernels = c->n_kernels,
        .kernels = c->kernels, .n_symbols = c->n_symbols, .symbols = c->symbols,
    };
    if (cache_key(&cc, key) != 0)
        return fail(TK_ERR_CUDA, "out of host memory"), -1;
    char prefix[PATH_MAX + 80];
    snprintf(prefix, sizeof prefix, "%s/%s", dir, key);
    char *log = NULL;
    int got = cache_load(prefix, cubin, cubin_n, meta, &log);
    if (got == 1) {
        fail(TK_ERR_CUDA, "%s.%s: NVRTC refused the variant (from the cache %s.fail): %.600s",
             d->family, d->op, prefix, log);
        free(log);
        return -1;
    }
    if (got == 0)
        return 0;
    /* compile it now */
    if (!k->nvrtc && !(k->nvrtc = compiler_nvrtc_open(err, sizeof err)))
        return fail(TK_ERR_CUDA, "%s.%s: %s", d->family, d->op, err), -1;
    const char *hdr_names[64], *hdr_texts[64];
    for (int i = 1; i < n_files; i++) {
        hdr_names[i - 1] = d->files[i].name;
        hdr_texts[i - 1] = d->files[i].text;
    }
    cc_input in = {
        .source = d->files[0].name, .source_text = d->files[0].text,
        .n_kernels = c->n_kernels, .kernels = (const char *const *)c->kernels,
        .n_symbols = c->n_symbols, .symbols = (const char *const *)c->symbols,
        .n_options = c->n_opts, .options = (const char *const *)c->opts, .arch = arch_name,
        .n_headers = n_files - 1, .header_names = hdr_names, .header_texts = hdr_texts,
    };
    cc_output o;
    int r = k->nvrtc->vt->compile(k->nvrtc, &in, &o);
    if (r == CC_BROKEN) {
        fail(TK_ERR_CUDA, "%s.%s: NVRTC cannot run: %.600s", d->family, d->op,
             o.log ? o.log : "no log");
        cc_output_clear(&o);
        return -1;
    }
    /* into the cache for the next process (and the tuner); a cache that cannot be written only
     * costs the next process a compile */
    if (cache_make_dir(dir, err, sizeof err) == 0)
        cache_store(prefix, r == CC_REFUSED, &o, err, sizeof err);
    if (r == CC_REFUSED) {
        fail(TK_ERR_CUDA, "%s.%s: NVRTC refused the variant: %.600s", d->family, d->op,
             o.log ? o.log : "no log");
        cc_output_clear(&o);
        return -1;
    }
    /* the meta as the cache would give it */
    memset(meta, 0, sizeof *meta);
    meta->n_kernels = o.n_kernels;
    meta->lowered = o.lowered;
    meta->n_params = o.n_params;
    meta->params = o.param_sizes;
    meta->n_symbols = o.n_symbols;
    meta->symbols = o.symbol_lowered;
    *cubin = o.cubin;
    *cubin_n = o.cubin_n;
    o.lowered = NULL, o.n_params = NULL, o.param_sizes = NULL, o.symbol_lowered = NULL;
    o.cubin = NULL;
    o.n_kernels = o.n_symbols = 0;
    cc_output_clear(&o);
    return 0;
}

/* The variant of a config for an architecture: compiled (or found in the cache), loaded once.
 * k->mu held. NULL with the error said (*st). */
static variant *get_variant(tk_kernel *k, const char *config, int arch, const value *slots,
                            tk_status *st)
{
    const tk_kernel_desc *d = k->d;
    for (variant *v = k->variants; v; v = v->next)
        if (v->arch == arch && strcmp(v->config, config) == 0)
            return v;
    compile_lists c;
    if (compile_lists_for(k, slots, &c) != 0) {
        *st = TK_ERR_INVALID_ARGUMENT;
        return NULL;
    }
    char key[65];
    void *cubin = NULL;
    size_t cubin_n = 0;
    module_meta meta;
    memset(&meta, 0, sizeof meta);
    variant *v = NULL;
    if (build(k, arch, &c, key, &cubin, &cubin_n, &meta, st) != 0)
        goto done;
    v = calloc(1, sizeof *v);
    if (!v || !(v->config = strdup(config))) {
        free(v);
        v = NULL;
        *st = fail(TK_ERR_CUDA, "out of host memory");
        goto done;
    }
    memcpy(v->key, key, sizeof key);
    v->arch = arch;
    cudaError_t e = cudaLibraryLoadData(&v->lib, cubin, NULL, NULL, 0, NULL, NULL, 0);
    for (int s = 0; e == cudaSuccess && s < d->n_steps; s++) {
        int ki = c.step_kernel[s];
        e = ki < meta.n_kernels ? cudaLibraryGetKernel(&v->fn[s], v->lib, meta.lowered[ki])
                                : cudaErrorInvalidKernelImage;
    }
    for (int i = 0, sym = 0; e == cudaSuccess && i < d->n_args; i++)
        if (d->args[i].symbol) {
            if (sym >= meta.n_symbols || !(v->symbol[i] = strdup(meta.symbols[sym++])))
                e = cudaErrorSymbolNotFound;
        }
    if (e != cudaSuccess) {
        cudaGetLastError();
        *st = fail(TK_ERR_CUDA, "%s.%s: loading the variant %s: %s", d->family, d->op, config,
                   cudaGetErrorString(e));
        variant_free(v, d);
        v = NULL;
        goto done;
    }
    v->next = k->variants;
    k->variants = v;
    *st = TK_OK;
done:
    lists_clear(&c);
    module_meta_clear(&meta);
    free(cubin);
    return v;
}

/* ---- plans ---- */

static unsigned plan_hash(int device, int dt, const long long *problem, int n)
{
    unsigned long long h = 1469598103934665603ull ^ (unsigned long long)(device * 131 + dt);
    for (int i = 0; i < n; i++)
        h = (h ^ (unsigned long long)problem[i]) * 1099511628211ull;
    return (unsigned)(h ^ (h >> 32)) & 255u;
}

/* The config text a device gets for a dtype and problem. */
static const char *config_for(const tk_kernel_desc *d, const device_info *dev, int dt,
                              const long long *problem)
{
    const tk_kernel_entry *e = lookup(d, dev->name, dev->cc_major, dev->cc_minor, dev->sm_count,
                                      d->dtypes[dt].name, problem);
    return e ? e->config : d->default_config;
}

/* Builds the plan of (device, dtype, problem). k->mu held. */
static plan *make_plan(tk_kernel *k, int device, int dt, const long long *problem,
                       tk_status *st)
{
    const tk_kernel_desc *d = k->d;
    device_info dev;
    char err[512];
    if (cuda_device_describe(device, &dev, err, sizeof err) != 0) {
        *st = fail(TK_ERR_CUDA, "%s", err);
        return NULL;
    }
    const char *config = config_for(d, &dev, dt, problem);
    value slots[512];
    char strings[64][128];
    if (k->n_slots > 512 || d->n_params > 64) {
        *st = fail(TK_ERR_INVALID_ARGUMENT, "%s.%s: too many parameters", d->family, d->op);
        return NULL;
    }
    if (fill_slots(k, config, problem, dt, &dev, slots) != 0) {
        *st = TK_ERR_INVALID_ARGUMENT;
        return NULL;
    }
    cut_strings(d, slots, strings);
    plan *p = calloc(1, sizeof *p);
    if (!p || !(p->problem = malloc((size_t)d->n_fields * sizeof *p->problem))) {
        free(p);
        *st = fail(TK_ERR_CUDA, "out of host memory");
        return NULL;
    }
    memcpy(p->problem, problem, (size_t)d->n_fields * sizeof *p->problem);
    p->device = device;
    p->dtype = dt;
    for (int s = 0; s < d->n_steps; s++) {
        const tk_kernel_step *ts = &d->steps[s];
        const parsed_step *ps = &k->steps[s];
        long long g[3] = {1, 1, 1}, b[3] = {1, 1, 1}, sh = 0;
        for (int i = 0; i < 3; i++) {
            if ((ps->grid[i] && eval_int(k, ps->grid[i], ts->grid[i], slots, 1,
                                         i == 0 ? 2147483647LL : 65535, "grid", &g[i])) ||
                (ps->block[i] && eval_int(k, ps->block[i], ts->block[i], slots, 1,
                                          i == 2 ? 64 : 1024, "block", &b[i]))) {
                *st = TK_ERR_UNSUPPORTED_CONFIG;
                goto fail;
            }
        }
        if (ps->shared && eval_int(k, ps->shared, ts->shared, slots, 0,
                                   device_smem_per_block(dev.cc_major, dev.cc_minor),
                                   "shared_bytes", &sh)) {
            *st = TK_ERR_UNSUPPORTED_CONFIG;
            goto fail;
        }
        if (b[0] * b[1] * b[2] > dev.max_threads_per_block) {
            *st = fail(TK_ERR_UNSUPPORTED_CONFIG, "%s.%s: config %s: a block of %lld threads, "
                       "%s allows %d", d->family, d->op, config, b[0] * b[1] * b[2], dev.name,
                       dev.max_threads_per_block);
            goto fail;
        }
        p->grid[s] = (dim3){(unsigned)g[0], (unsigned)g[1], (unsigned)g[2]};
        p->block[s] = (dim3){(unsigned)b[0], (unsigned)b[1], (unsigned)b[2]};
        p->shared[s] = (size_t)sh;
    }
    int arch = dev.cc_major * 10 + dev.cc_minor;
    if (!(p->v = get_variant(k, config, arch, slots, st)))
        goto fail;
    /* the variables the arguments fill: where they are on this device, how much goes there */
    for (int i = 0; i < d->n_args; i++) {
        if (!d->args[i].symbol)
            continue;
        long long count;
        const char *t = strcmp(d->args[i].type, "dtype") == 0 ? d->dtypes[dt].name
                                                               : d->args[i].type;
        size_t bytes;
        if (eval_int(k, k->counts[i], d->args[i].count, slots, 1, LLONG_MAX / 16, "count",
                     &count)) {
            *st = TK_ERR_INVALID_ARGUMENT;
            goto fail;
        }
        cudaError_t e = cudaLibraryGetGlobal(&p->var[i], &bytes, p->v->lib, p->v->symbol[i]);
        if (e != cudaSuccess) {
            cudaGetLastError();
            *st = fail(TK_ERR_CUDA, "%s.%s: the variable %s: %s", d->family, d->op,
                       d->args[i].symbol, cudaGetErrorString(e));
            goto fail;
        }
        p->var_bytes[i] = (size_t)count * type_size(t);
        if (p->var_bytes[i] > bytes) {
            *st = fail(TK_ERR_INVALID_ARGUMENT, "%s.%s: %s: %lld elements (%zu bytes), the "
                       "variable %s holds %zu bytes", d->family, d->op, d->args[i].name, count,
                       p->var_bytes[i], d->args[i].symbol, bytes);
            goto fail;
        }
    }
    for (int s = 0; s < d->n_steps; s++)
        if (p->shared[s] > 48 * 1024 && (size_t)p->v->shared_set[s] < p->shared[s]) {
            cudaError_t e = cudaFuncSetAttribute((const void *)p->v->fn[s],
                                                 cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                 (int)p->shared[s]);
            if (e != cudaSuccess) {
                cudaGetLastError();
                *st = fail(TK_ERR_UNSUPPORTED_CONFIG, "%s.%s: %zu bytes of dynamic shared "
                           "memory refused: %s", d->family, d->op, p->shared[s],
                           cudaGetErrorString(e));
                goto fail;
            }
            p->v->shared_set[s] = (int)p->shared[s];
        }
    *st = TK_OK;
    return p;
fail:
    free(p->problem);
    free(p);
    return NULL;
}

tk_status tk_kernel_launch_dtype(tk_kernel *k, const char *dtype, const long long *problem,
                                 void **args, cudaStream_t stream)
{
    if (!k || !problem || (!args && k->d->n_args > 0))
        return fail(TK_ERR_INVALID_ARGUMENT, "tk_kernel_launch: a NULL argument");
    const tk_kernel_desc *d = k->d;
    int dt = dtype ? dtype_index(d, dtype) : 0;
    if (dt < 0)
        return fail(TK_ERR_INVALID_ARGUMENT, "%s.%s: no dtype '%s'", d->family, d->op, dtype);
    for (int f = 0; f < d->n_fields; f++)
        if (problem[f] < 1)
            return fail(TK_ERR_INVALID_ARGUMENT, "%s.%s: problem field %s is %lld", d->family,
                        d->op, d->fields[f], problem[f]);
    int device;
    cudaError_t e = cudaGetDevice(&device);
    if (e != cudaSuccess)
        return fail(TK_ERR_CUDA, "cudaGetDevice: %s", cudaGetErrorString(e));
    unsigned h = plan_hash(device, dt, problem, d->n_fields);
    tk_status st = TK_OK;
    pthread_mutex_lock(&k->mu);
    plan *p = k->table[h];
    while (p && (p->device != device || p->dtype != dt ||
                 memcmp(p->problem, problem, (size_t)d->n_fields * sizeof *problem) != 0))
        p = p->next;
    if (!p && (p = make_plan(k, device, dt, problem, &st)) != NULL) {
        p->next = k->table[h];
        k->table[h] = p;
    }
    pthread_mutex_unlock(&k->mu);
    if (!p)
        return st;
    /* the variables' contents, then the steps' launches, in order on the stream */
    for (int i = 0; i < d->n_args; i++) {
        if (!p->var[i])
            continue;
        e = cudaMemcpyAsync(p->var[i], *(void *const *)args[i], p->var_bytes[i],
                            cudaMemcpyHostToDevice, stream);
        if (e != cudaSuccess) {
            cudaGetLastError();
            return fail(TK_ERR_CUDA, "%s.%s: filling %s: %s", d->family, d->op,
                        d->args[i].symbol, cudaGetErrorString(e));
        }
    }
    for (int s = 0; s < d->n_steps; s++) {
        const tk_kernel_step *ts = &d->steps[s];
        void *params[64];
        int n = ts->n_args < 64 ? ts->n_args : 64;
        for (int j = 0; j < n; j++)
            params[j] = args[ts->args[j]];
        e = cudaLaunchKernel((const void *)p->v->fn[s], p->grid[s], p->block[s], params,
                             p->shared[s], stream);
        if (e != cudaSuccess) {
            cudaGetLastError();
            return fail(TK_ERR_LAUNCH, "%s.%s: launching %s (config %s): %s", d->family, d->op,
                        ts->function, p->v->config, cudaGetErrorString(e));
        }
    }
    return TK_OK;
}

tk_status tk_kernel_launch(tk_kernel *k, const long long *problem, void **args,
                           cudaStream_t stream)
{
    return tk_kernel_launch_dtype(k, NULL, problem, args, stream);
}

tk_status tk_kernel_prepare(tk_kernel *k, const char *device, int cc_major, int cc_minor,
                            int sm_count, const char *dtype, const long long *problem,
                            char *config, size_t len)
{
    if (!k || !device || !problem)
        return fail(TK_ERR_INVALID_ARGUMENT, "tk_kernel_prepare: a NULL argument");
    const tk_kernel_desc *d = k->d;
    int dt = dtype ? dtype_index(d, dtype) : 0;
    if (dt < 0)
        return fail(TK_ERR_INVALID_ARGUMENT, "%s.%s: no dtype '%s'", d->family, d->op, dtype);
    device_info dev;
    memset(&dev, 0, sizeof dev);
    snprintf(dev.name, sizeof dev.name, "%s", device);
    dev.cc_major = cc_major;
    dev.cc_minor = cc_minor;
    dev.sm_count = sm_count;
    dev.max_threads_per_block = 1024;
    const char *cfg = config_for(d, &dev, dt, problem);
    if (config)
        snprintf(config, len, "%s", cfg);
    value slots[512];
    char strings[64][128];
    if (k->n_slots > 512 || d->n_params > 64)
        return fail(TK_ERR_INVALID_ARGUMENT, "%s.%s: too many parameters", d->family, d->op);
    if (fill_slots(k, cfg, problem, dt, &dev, slots) != 0)
        return TK_ERR_INVALID_ARGUMENT;
    cut_strings(d, slots, strings);
    compile_lists c;
    if (compile_lists_for(k, slots, &c) != 0)
        return TK_ERR_INVALID_ARGUMENT;
    char key[65];
    void *cubin = NULL;
    size_t cubin_n = 0;
    module_meta meta;
    memset(&meta, 0, sizeof meta);
    tk_status st = TK_OK;
    pthread_mutex_lock(&k->mu);
    int rc = build(k, cc_major * 10 + cc_minor, &c, key, &cubin, &cubin_n, &meta, &st);
    pthread_mutex_unlock(&k->mu);
    lists_clear(&c);
    module_meta_clear(&meta);
    free(cubin);
    return rc == 0 ? TK_OK : st;
}
