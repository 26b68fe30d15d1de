/* runtime_plan.c: how the run-time API (runtime.c) chooses a launch's config and builds its
 * plan. The config: the descriptor's table entry for the device (by name, else the same compute
 * capability with the nearest SM count, else the nearest compute capability) and the nearest
 * problem on a log scale, or the default config; the configs a run-time tuner starts from. The
 * plan of (device, dtype, problem): the config's variant (runtime_build.c) and each step's
 * geometry, evaluated from the descriptor's expressions over the slots (the parameters, the
 * problem's fields, dtype, dtype_size, ctype, op and the device attributes, in the tuner's slot
 * order, tuner/space/space_enum.c); plans are kept in the kernel's table by hash. */
#include "runtime_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/device.h"
#include "expr/expr.h"
#include "core/cuda_device.h"
#include "core/cuda_launch.h"

/* The device attributes an expression may read, in slot order (as space_enum.c's). */
const char *const rt_device_slot_names[N_DEVICE_SLOTS] = {
    "sm_count", "max_threads_per_sm", "max_threads_per_block", "l2_bytes",
    "mem_bytes", "cc", "regs_per_sm", "smem_per_sm", "smem_per_block",
};

/* ---- choosing the config ---- */

int rt_dtype_index(const tk_kernel_desc *d, const char *dtype)
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
const tk_kernel_entry *rt_lookup(const tk_kernel_desc *d, const char *device, int cc_major,
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
int rt_fill_slots(const tk_kernel *k, const char *config, const long long *problem, int dt,
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
            return rt_fail(TK_ERR_INVALID_ARGUMENT, "%s.%s: config '%s' has no %s", d->family,
                           d->op, config, d->params[p].name);
        if (d->params[p].is_string) {
            slots[p] = value_string(at);   /* up to the next ',': the evaluator reads strings
                                              whole, so they are copied below */
        } else {
            char *end;
            long long v = strtoll(at, &end, 10);
            if (end == at || (*end && *end != ','))
                return rt_fail(TK_ERR_INVALID_ARGUMENT, "%s.%s: config '%s': %s is not an integer",
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
            device_attr_lookup(dev, rt_device_slot_names[i], &v);
        slots[base + FIXED_COUNT + i] = v;
    }
    return 0;
}

/* String parameter values in slots point into the config text up to its next ','; the copies
 * here end at that comma. strings: n_params buffers of 128 bytes. */
void rt_cut_strings(const tk_kernel_desc *d, value *slots, char (*strings)[128])
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
        return rt_fail(TK_ERR_INVALID_ARGUMENT, "%s.%s: %s '%s': %s", k->d->family, k->d->op, what,
                       src, e.message);
    if (v.kind != VALUE_INT || v.i < lo || v.i > hi)
        return rt_fail(TK_ERR_INVALID_ARGUMENT, "%s.%s: %s '%s' gives %s%lld, out of [%lld, %lld]",
                       k->d->family, k->d->op, what, src,
                       v.kind == VALUE_INT ? "" : "a non-integer ",
                       v.kind == VALUE_INT ? (long long)v.i : 0LL, lo, hi);
    *out = v.i;
    return 0;
}


/* ---- plans ---- */

unsigned rt_plan_hash(int device, int dt, const long long *problem, int n)
{
    unsigned long long h = 1469598103934665603ull ^ (unsigned long long)(device * 131 + dt);
    for (int i = 0; i < n; i++)
        h = (h ^ (unsigned long long)problem[i]) * 1099511628211ull;
    return (unsigned)(h ^ (h >> 32)) & 255u;
}

/* The config text a device gets for a dtype and problem: the table's, when it has entries of
 * the device (by name); else the winner tuned on this machine for the exact problem
 * (runtime_tune.c, copied into buf[len]); else the table's nearest. *known: whether the
 * device's own entries or a tuned winner gave it (else a launch may start a tuner). */
const char *rt_config_for(const tk_kernel *k, const device_info *dev, int dt,
                          const long long *problem, char *buf, size_t len, int *known)
{
    const tk_kernel_desc *d = k->d;
    const tk_kernel_entry *e = rt_lookup(d, dev->name, dev->cc_major, dev->cc_minor, dev->sm_count,
                                      d->dtypes[dt].name, problem);
    *known = 1;
    if (e && strcmp(e->device, dev->name) == 0)
        return e->config;
    if (rt_online_winner(k->tune_dir, d, dev->name, dt, problem, buf, len))
        return buf;
    *known = 0;
    return e ? e->config : d->default_config;
}

/* Every buffer's element count in slots, -1 where it cannot be evaluated (the error is then
 * not the caller's: last_error is left as it was). */
void rt_buffer_counts(const tk_kernel *k, const value *slots, long long *count)
{
    for (int i = 0; i < k->d->n_args && i < MAX_ARGS; i++) {
        value v;
        expr_error e;
        count[i] = -1;
        if (k->counts[i] && expr_eval(k->counts[i], slots, &v, &e) == 0 &&
            v.kind == VALUE_INT && v.i >= 0)
            count[i] = v.i;
    }
}

/* The plan of (device, dtype, problem) in the table (the newest, when a tuner's winner has
 * replaced one), or NULL. k->mu held. */
plan *rt_find_plan(const tk_kernel *k, unsigned h, int device, int dt,
                   const long long *problem)
{
    plan *p = k->table[h];
    while (p && (p->device != device || p->dtype != dt ||
                 memcmp(p->problem, problem, (size_t)k->d->n_fields * sizeof *problem) != 0))
        p = p->next;
    return p;
}

/* The plan of (device dev, dtype, problem) at config; known: the table knows this device and
 * problem (else, with online tuning on, the plan asks to be tuned). k->mu held. */
static plan *make_plan(tk_kernel *k, int device, const device_info *dev, int dt,
                       const long long *problem, const char *config, int known, tk_status *st)
{
    const tk_kernel_desc *d = k->d;
    value slots[512];
    char strings[64][128];
    if (k->n_slots > 512 || d->n_params > 64) {
        *st = rt_fail(TK_ERR_INVALID_ARGUMENT, "%s.%s: too many parameters", d->family, d->op);
        return NULL;
    }
    if (rt_fill_slots(k, config, problem, dt, dev, slots) != 0) {
        *st = TK_ERR_INVALID_ARGUMENT;
        return NULL;
    }
    rt_cut_strings(d, slots, strings);
    plan *p = calloc(1, sizeof *p);
    if (!p || !(p->problem = malloc((size_t)d->n_fields * sizeof *p->problem))) {
        free(p);
        *st = rt_fail(TK_ERR_CUDA, "out of host memory");
        return NULL;
    }
    memcpy(p->problem, problem, (size_t)d->n_fields * sizeof *p->problem);
    p->device = device;
    p->dtype = dt;
    p->tune = !known && k->tune_on ? TUNE_WANTED : TUNE_NONE;
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
                                   device_smem_per_block(dev->cc_major, dev->cc_minor),
                                   "shared_bytes", &sh)) {
            *st = TK_ERR_UNSUPPORTED_CONFIG;
            goto fail;
        }
        if (b[0] * b[1] * b[2] > dev->max_threads_per_block) {
            *st = rt_fail(TK_ERR_UNSUPPORTED_CONFIG, "%s.%s: config %s: a block of %lld threads, "
                          "%s allows %d", d->family, d->op, config, b[0] * b[1] * b[2], dev->name,
                          dev->max_threads_per_block);
            goto fail;
        }
        long long c[3] = {0, 0, 0};
        for (int i = 0; i < 3 && ts->cluster_dims; i++) {
            c[i] = 1;
            if (ps->cluster[i] && eval_int(k, ps->cluster[i], ts->cluster[i], slots, 1,
                                           DEVICE_CLUSTER_MAX, "cluster", &c[i])) {
                *st = TK_ERR_UNSUPPORTED_CONFIG;
                goto fail;
            }
        }
        char why[200];
        const int64_t gi[3] = {g[0], g[1], g[2]}, ci[3] = {c[0], c[1], c[2]};
        if (c[0] &&
            device_cluster_check(dev->cc_major, dev->cc_minor, gi, ci, why, sizeof why) >= 0) {
            *st = rt_fail(TK_ERR_UNSUPPORTED_CONFIG, "%s.%s: config %s: %s", d->family, d->op,
                          config, why);
            goto fail;
        }
        p->grid[s] = (dim3){(unsigned)g[0], (unsigned)g[1], (unsigned)g[2]};
        p->block[s] = (dim3){(unsigned)b[0], (unsigned)b[1], (unsigned)b[2]};
        p->shared[s] = (size_t)sh;
        p->cluster[s] = (dim3){(unsigned)c[0], (unsigned)c[1], (unsigned)c[2]};
    }
    int arch = dev->cc_major * 10 + dev->cc_minor;
    if (!(p->v = rt_get_variant(k, config, arch, slots, st)))
        goto fail;
    rt_buffer_counts(k, slots, p->count);
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
            *st = rt_fail(TK_ERR_CUDA, "%s.%s: the variable %s: %s", d->family, d->op,
                          d->args[i].symbol, cudaGetErrorString(e));
            goto fail;
        }
        p->var_bytes[i] = (size_t)count * rt_type_size(t);
        if (p->var_bytes[i] > bytes) {
            *st = rt_fail(TK_ERR_INVALID_ARGUMENT, "%s.%s: %s: %lld elements (%zu bytes), the "
                          "variable %s holds %zu bytes", d->family, d->op, d->args[i].name, count,
                          p->var_bytes[i], d->args[i].symbol, bytes);
            goto fail;
        }
    }
    /* each step readied on this device, or why it cannot run here: the shared memory and
     * cluster consents, a cluster that fits, a cooperative grid resident whole (as the tuner's
     * worker asks before every launch) */
    for (int s = 0; s < d->n_steps; s++) {
        char why[300];
        int r = cuda_launch_ready((const void *)p->v->fn[s], p->grid[s], p->block[s],
                                  p->shared[s], p->cluster[s], d->steps[s].cooperative, why,
                                  sizeof why);
        if (r != 0) {
            *st = rt_fail(r > 0 ? TK_ERR_UNSUPPORTED_CONFIG : TK_ERR_CUDA, "%s.%s: %s: %s",
                          d->family, d->op, config, why);
            goto fail;
        }
    }
    *st = TK_OK;
    return p;
fail:
    free(p->problem);
    free(p);
    return NULL;
}

/* Builds the plan of (device, dtype, problem): of the config given, else the one rt_config_for
 * gives. That one may not run on this device (the table's winner from another GPU: more shared
 * memory than this one has, a cluster or cooperative grid that does not fit): then the next of
 * rt_start_configs that does (the table's other winners, nearest first, then the default), as
 * a device the table does not know. k->mu held. */
plan *rt_make_plan(tk_kernel *k, int device, int dt, const long long *problem,
                   const char *given, tk_status *st)
{
    const tk_kernel_desc *d = k->d;
    device_info dev;
    char err[512], tuned[1024];
    if (cuda_device_describe(device, &dev, err, sizeof err) != 0) {
        *st = rt_fail(TK_ERR_CUDA, "%s", err);
        return NULL;
    }
    int known = 1;
    const char *config = given ? given : rt_config_for(k, &dev, dt, problem, tuned, sizeof tuned,
                                                    &known);
    plan *p = make_plan(k, device, &dev, dt, problem, config, known, st);
    if (p || given || *st != TK_ERR_UNSUPPORTED_CONFIG)
        return p;
    char first[1024];
    snprintf(first, sizeof first, "%s", tk_kernel_error());
    const char *others[64];
    int n = rt_start_configs(d, &dev, dt, problem, others, 64);
    for (int i = 0; i < n && !p; i++)
        if (strcmp(others[i], config) != 0)
            p = make_plan(k, device, &dev, dt, problem, others[i], 0, st);
    if (!p)
        *st = rt_fail(TK_ERR_UNSUPPORTED_CONFIG, "%s; and none of the table's other configs "
                      "for this dtype, nor the default, runs here", first);
    return p;
}

/* The table's winners of dtype, nearest to the device and problem first (as rt_lookup ranks
 * them), without repeats, then the default config: where the tuner starts. */
int rt_start_configs(const tk_kernel_desc *d, const device_info *dev, int dt,
                     const long long *problem, const char **out, int max)
{
    int n = 0;
    int *order = malloc((size_t)(d->n_entries ? d->n_entries : 1) * sizeof *order);
    double *score = malloc((size_t)(d->n_entries ? d->n_entries : 1) * sizeof *score);
    if (order && score) {
        int m = 0;
        for (int i = 0; i < d->n_entries; i++) {
            const tk_kernel_entry *e = &d->entries[i];
            if (strcmp(e->dtype, d->dtypes[dt].name) != 0)
                continue;
            long cc = labs((long)(e->cc_major - dev->cc_major) * 10 + (e->cc_minor - dev->cc_minor));
            double s = (double)cc * 1e6 + (double)labs((long)(e->sm_count - dev->sm_count)) * 1e2 +
                       distance(e->problem, problem, d->n_fields);
            int at = m++;
            while (at > 0 && score[at - 1] > s) {
                order[at] = order[at - 1];
                score[at] = score[at - 1];
                at--;
            }
            order[at] = i;
            score[at] = s;
        }
        for (int i = 0; i < m && n < max - 1; i++) {
            const char *c = d->entries[order[i]].config;
            int dup = 0;
            for (int k = 0; k < n && !dup; k++)
                dup = strcmp(out[k], c) == 0;
            if (!dup)
                out[n++] = c;
        }
    }
    free(order);
    free(score);
    int dup = 0;
    for (int k = 0; k < n && !dup; k++)
        dup = strcmp(out[k], d->default_config) == 0;
    if (!dup && n < max)
        out[n++] = d->default_config;
    return n;
}
