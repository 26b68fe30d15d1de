/* runtime.c: the run-time API of user kernels (tunekit_runtime.h, docs/runtime.md).
 *
 * tk_kernel_open parses every expression of the descriptor once with the tuner's evaluator
 * (tuner/expr, compiled into this library: one evaluator). A launch finds its plan in a table
 * keyed by (device, dtype, problem); the first launch of a key builds the plan (runtime_plan.c:
 * the config from the descriptor's table, its variant, each step's geometry); with capture on,
 * the launch is captured first (runtime_capture.c), and with tuning on, a tuner is started on a
 * problem the table does not know for the device (runtime_tune.c). The table only grows; one
 * mutex guards it and the variants, and a launch holds it only for the lookup. */
#include "runtime_internal.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "core/device.h"
#include "expr/expr.h"
#include "core/cuda_device.h"
#include "core/cuda_launch.h"

/* ---- the kernel ---- */

#define TUNE_SECONDS 60.0    /* tuning at run time: the tuner's budget per problem */




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
        if (strcmp(rt_device_slot_names[k], name) == 0) {
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
        rt_fail(TK_ERR_INVALID_ARGUMENT, "%s.%s: %s '%s': %s", d->family, d->op, what, text,
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
    for (int i = 0; k->define_conds && i < d->n_defines; i++)
        expr_free(k->define_conds[i]);
    free(k->define_values);
    free(k->define_conds);
    for (int s = 0; k->steps && s < d->n_steps; s++) {
        parsed_step *p = &k->steps[s];
        for (int i = 0; p->templ && i < d->steps[s].n_template; i++)
            expr_free(p->templ[i]);
        free(p->templ);
        for (int i = 0; i < 3; i++) {
            expr_free(p->grid[i]);
            expr_free(p->block[i]);
            expr_free(p->cluster[i]);
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
            rt_tune_job_release(p->job);
            free(p->problem);
            free(p);
        }
    for (variant *v = k->variants, *next; v; v = next) {
        next = v->next;
        rt_variant_free(v, d);
    }
    if (k->nvrtc)
        k->nvrtc->vt->close(k->nvrtc);
    free(k->capture_dir);
    pthread_mutex_destroy(&k->mu);
    free(k);
}

tk_status tk_kernel_open(tk_kernel **out, const tk_kernel_desc *d)
{
    if (!out)
        return rt_fail(TK_ERR_INVALID_ARGUMENT, "tk_kernel_open: out is NULL");
    *out = NULL;
    if (!d)
        return rt_fail(TK_ERR_INVALID_ARGUMENT, "tk_kernel_open: the descriptor is NULL");
    /* ABI 4 is ABI 5 without the fields at the end */
    if (d->abi != TK_KERNEL_DESC_ABI && d->abi != 4)
        return rt_fail(TK_ERR_INVALID_ARGUMENT, "tk_kernel_open: a descriptor of ABI %d, this "
                       "library reads 4 and %d (regenerate the header with this tunekit's tuner)",
                       d->abi, TK_KERNEL_DESC_ABI);
    if (d->n_files < 1 || d->n_files > 64 || d->n_steps < 1 || d->n_steps > MAX_STEPS ||
        d->n_args > MAX_ARGS || d->n_dtypes < 1 || d->n_fields < 1 || !d->files || !d->steps ||
        !d->dtypes || !d->fields ||
        (d->arch_suffix && d->arch_suffix[0] && strcmp(d->arch_suffix, "a") != 0 &&
         strcmp(d->arch_suffix, "f") != 0))
        return rt_fail(TK_ERR_INVALID_ARGUMENT, "tk_kernel_open: a malformed descriptor");
    tk_kernel *k = calloc(1, sizeof *k);
    if (!k)
        return rt_fail(TK_ERR_CUDA, "out of host memory");
    k->d = d;
    pthread_mutex_init(&k->mu, NULL);
    k->n_slots = d->n_params + d->n_fields + FIXED_COUNT + N_DEVICE_SLOTS;
    k->define_values = calloc((size_t)d->n_defines + 1, sizeof *k->define_values);
    k->define_conds = calloc((size_t)d->n_defines + 1, sizeof *k->define_conds);
    k->steps = calloc((size_t)d->n_steps, sizeof *k->steps);
    k->counts = calloc((size_t)d->n_args + 1, sizeof *k->counts);
    if (!k->define_values || !k->define_conds || !k->steps || !k->counts) {
        tk_kernel_close(k);
        return rt_fail(TK_ERR_CUDA, "out of host memory");
    }
    int bad = 0;
    for (int i = 0; i < d->n_defines && !bad; i++)
        bad = parse(d, d->define_values[i], d->define_names[i], &k->define_values[i]) ||
              (d->abi >= 5 && d->define_conds &&
               parse(d, d->define_conds[i], d->define_names[i], &k->define_conds[i]));
    for (int s = 0; s < d->n_steps && !bad; s++) {
        const tk_kernel_step *st = &d->steps[s];
        parsed_step *p = &k->steps[s];
        if (!(p->templ = calloc((size_t)st->n_template + 1, sizeof *p->templ))) {
            bad = rt_fail(TK_ERR_CUDA, "out of host memory");
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
        for (int i = 0; i < 3 && !bad; i++)
            bad = parse(d, i < st->cluster_dims ? st->cluster[i] : NULL, "cluster",
                        &p->cluster[i]);
        for (int i = 0; i < st->n_args && !bad; i++)
            if (st->args[i] < 0 || st->args[i] >= d->n_args)
                bad = rt_fail(TK_ERR_INVALID_ARGUMENT, "%s.%s: step %d names argument %d of %d",
                              d->family, d->op, s, st->args[i], d->n_args);
    }
    /* every buffer's count: a variable's fill needs it; a capture, the others' (which the
     * launch does not need: one this library cannot read only leaves its capture undone) */
    for (int i = 0; i < d->n_args && !bad; i++)
        if (d->args[i].is_buffer && parse(d, d->args[i].count, d->args[i].name, &k->counts[i]))
            bad = d->args[i].symbol != NULL;
    rt_tune_dir(k->tune_dir, sizeof k->tune_dir);
    k->tune_seconds = TUNE_SECONDS;
    const char *tune = getenv("TUNEKIT_TUNE"), *secs = getenv("TUNEKIT_TUNE_SECONDS");
    if (tune && *tune && strcmp(tune, "0") != 0)
        k->tune_on = 1;
    if (secs && *secs && atof(secs) > 0)
        k->tune_seconds = atof(secs);
    const char *list = getenv("TUNEKIT_CAPTURE");
    if (!bad && list && capture_listed(d, list)) {
        const char *dir = getenv("TUNEKIT_CAPTURE_DIR"), *max = getenv("TUNEKIT_CAPTURE_MAX_BYTES");
        tk_status st = tk_kernel_capture(k, dir && *dir ? dir : "tunekit-capture",
                                         max && *max ? strtoll(max, NULL, 10) : 0);
        bad = st != TK_OK;
    }
    if (bad) {
        tk_kernel_close(k);
        return TK_ERR_INVALID_ARGUMENT;
    }
    *out = k;
    rt_clear_error();
    return TK_OK;
}

/* Whether work queued on stream is being captured into a CUDA graph (it cannot be waited for). */
static int stream_in_graph(cudaStream_t stream)
{
    enum cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(stream, &cs) != cudaSuccess || cs != cudaStreamCaptureStatusNone) {
        cudaGetLastError();
        return 1;
    }
    return 0;
}

/* The capture of p's launch, before it (docs/runtime.md): never fails the launch. A stream
 * being captured into a CUDA graph cannot be waited for: the next launch tries again. */
static void capture_launch(tk_kernel *k, plan *p, char *dir, long long max, void **args,
                           cudaStream_t stream)
{
    if (stream_in_graph(stream)) {
        pthread_mutex_lock(&k->mu);
        p->captured = 0;
        pthread_mutex_unlock(&k->mu);
        free(dir);
        return;
    }
    capture_job j = {k->d, p->dtype, p->problem, p->count, p->v->config, args, 1, stream,
                     NULL, 0, 0};
    char err[1400];
    if (capture_write(dir, max, &j, err, sizeof err) < 0)
        fprintf(stderr, "libtunekit: %s\n", err);
    free(dir);
}

/* Starts a tuner on p's problem (runtime_tune.c), before its first launch: the capture reads
 * the inputs. Never fails the launch; a stream being captured into a CUDA graph waits for the
 * next launch. */
static void tune_launch(tk_kernel *k, plan *p, void **args, cudaStream_t stream)
{
    tune_job *job = NULL;
    int again = stream_in_graph(stream);
    device_info dev;
    char err[512];
    if (!again && cuda_device_describe(p->device, &dev, err, sizeof err) == 0) {
        const char *start[32];
        int n_start = rt_start_configs(k->d, &dev, p->dtype, p->problem, start, 32);
        job = rt_tune_begin(k, &dev, p->device, p->dtype, p->problem, p->count, p->v->config,
                            start, n_start, args, stream);
    }
    rt_clear_error();
    pthread_mutex_lock(&k->mu);
    p->job = job;
    if (again)
        p->tune = TUNE_WANTED;
    pthread_mutex_unlock(&k->mu);
}

/* The tuner started on p's problem has ended: a plan of its winner takes p's place at the
 * head of the chain (p stays, a launch may still be using it). p, when there is no winner or
 * it is p's own config, or its plan cannot be built. k->mu held. */
static plan *take_tuned(tk_kernel *k, plan *p, unsigned h)
{
    p->replaced = 1;
    const char *won = p->job->config;
    if (!won[0] || strcmp(won, p->v->config) == 0)
        return p;
    tk_status st;
    plan *q = rt_make_plan(k, p->device, p->dtype, p->problem, won, &st);
    if (!q) {
        rt_clear_error();
        return p;
    }
    q->captured = p->captured;
    q->next = k->table[h];
    k->table[h] = q;
    return q;
}

/* A call's dtype (NULL: the first) as an index, and its problem, checked. */
static tk_status check_call(const tk_kernel *k, const char *dtype, const long long *problem,
                            int *dt)
{
    const tk_kernel_desc *d = k->d;
    *dt = dtype ? rt_dtype_index(d, dtype) : 0;
    if (*dt < 0)
        return rt_fail(TK_ERR_INVALID_ARGUMENT, "%s.%s: no dtype '%s'", d->family, d->op, dtype);
    for (int f = 0; f < d->n_fields; f++)
        if (problem[f] < 1)
            return rt_fail(TK_ERR_INVALID_ARGUMENT, "%s.%s: problem field %s is %lld", d->family,
                           d->op, d->fields[f], problem[f]);
    return TK_OK;
}

/* A call's key in the plan table: its dtype's index and problem (checked), the calling
 * thread's current device, and the hash of the three. */
static tk_status call_key(const tk_kernel *k, const char *dtype, const long long *problem,
                          int *dt, int *device, unsigned *h)
{
    tk_status bad = check_call(k, dtype, problem, dt);
    if (bad != TK_OK)
        return bad;
    cudaError_t e = cudaGetDevice(device);
    if (e != cudaSuccess)
        return rt_fail(TK_ERR_CUDA, "cudaGetDevice: %s", cudaGetErrorString(e));
    *h = rt_plan_hash(*device, *dt, problem, k->d->n_fields);
    return TK_OK;
}

tk_status tk_kernel_launch_dtype(tk_kernel *k, const char *dtype, const long long *problem,
                                 void **args, cudaStream_t stream)
{
    if (!k || !problem || (!args && k->d->n_args > 0))
        return rt_fail(TK_ERR_INVALID_ARGUMENT, "tk_kernel_launch: a NULL argument");
    const tk_kernel_desc *d = k->d;
    int dt, device;
    unsigned h;
    tk_status bad = call_key(k, dtype, problem, &dt, &device, &h);
    if (bad != TK_OK)
        return bad;
    tk_status st = TK_OK;
    pthread_mutex_lock(&k->mu);
    plan *p = rt_find_plan(k, h, device, dt, problem);
    if (!p && (p = rt_make_plan(k, device, dt, problem, NULL, &st)) != NULL) {
        p->next = k->table[h];
        k->table[h] = p;
    }
    if (p && p->job && !p->replaced && __atomic_load_n(&p->job->done, __ATOMIC_ACQUIRE))
        p = take_tuned(k, p, h);
    char *capture = NULL;
    long long capture_max = 0;
    if (p && k->capture_dir && !p->captured) {
        p->captured = 1;
        capture = strdup(k->capture_dir);
        capture_max = k->capture_max;
    }
    int tune = p && p->tune == TUNE_WANTED;
    if (tune)
        p->tune = TUNE_STARTED;
    pthread_mutex_unlock(&k->mu);
    if (!p)
        return st;
    if (capture)
        capture_launch(k, p, capture, capture_max, args, stream);
    if (tune)
        tune_launch(k, p, args, stream);
    /* the variables' contents, then the steps' launches, in order on the stream */
    cudaError_t e;
    for (int i = 0; i < d->n_args; i++) {
        if (!p->var[i])
            continue;
        e = cudaMemcpyAsync(p->var[i], *(void *const *)args[i], p->var_bytes[i],
                            cudaMemcpyHostToDevice, stream);
        if (e != cudaSuccess) {
            cudaGetLastError();
            return rt_fail(TK_ERR_CUDA, "%s.%s: filling %s: %s", d->family, d->op,
                           d->args[i].symbol, cudaGetErrorString(e));
        }
    }
    for (int s = 0; s < d->n_steps; s++) {
        const tk_kernel_step *ts = &d->steps[s];
        void *params[64];
        int n = ts->n_args < 64 ? ts->n_args : 64;
        for (int j = 0; j < n; j++)
            params[j] = args[ts->args[j]];
        e = cuda_launch((const void *)p->v->fn[s], p->grid[s], p->block[s], p->shared[s],
                        p->cluster[s], ts->cooperative, params, stream);
        if (e != cudaSuccess) {
            cudaGetLastError();
            return rt_fail(TK_ERR_LAUNCH, "%s.%s: launching %s (config %s): %s", d->family, d->op,
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
        return rt_fail(TK_ERR_INVALID_ARGUMENT, "tk_kernel_prepare: a NULL argument");
    const tk_kernel_desc *d = k->d;
    int dt;
    tk_status bad = check_call(k, dtype, problem, &dt);
    if (bad != TK_OK)
        return bad;
    device_info dev;
    memset(&dev, 0, sizeof dev);
    snprintf(dev.name, sizeof dev.name, "%s", device);
    dev.cc_major = cc_major;
    dev.cc_minor = cc_minor;
    dev.sm_count = sm_count;
    dev.max_threads_per_block = 1024;
    char tuned[1024];
    int known;
    const char *cfg = rt_config_for(k, &dev, dt, problem, tuned, sizeof tuned, &known);
    if (config)
        snprintf(config, len, "%s", cfg);
    value slots[512];
    char strings[64][128];
    if (k->n_slots > 512 || d->n_params > 64)
        return rt_fail(TK_ERR_INVALID_ARGUMENT, "%s.%s: too many parameters", d->family, d->op);
    if (rt_fill_slots(k, cfg, problem, dt, &dev, slots) != 0)
        return TK_ERR_INVALID_ARGUMENT;
    rt_cut_strings(d, slots, strings);
    compiled x;
    tk_status st = TK_OK;
    pthread_mutex_lock(&k->mu);
    int rc = rt_compile(k, cc_major * 10 + cc_minor, slots, &x, &st);
    pthread_mutex_unlock(&k->mu);
    rt_compiled_clear(&x);
    return rc == 0 ? TK_OK : st;
}

/* dir made absolute (against the current folder) into out[len]; who names the call in the
 * error. TK_OK, or TK_ERR_INVALID_ARGUMENT with the error said. */
static tk_status absolute_dir(const char *who, const char *dir, char *out, size_t len)
{
    if (!*dir)
        return rt_fail(TK_ERR_INVALID_ARGUMENT, "%s: an empty folder name", who);
    char cwd[PATH_MAX];
    errno = 0;
    if (dir[0] == '/' ? snprintf(out, len, "%s", dir) >= (int)len
                      : !getcwd(cwd, sizeof cwd) ||
                            snprintf(out, len, "%s/%s", cwd, dir) >= (int)len)
        return rt_fail(TK_ERR_INVALID_ARGUMENT, "%s: the folder %s: %s", who, dir,
                       errno ? strerror(errno) : "path too long");
    return TK_OK;
}

tk_status tk_kernel_capture(tk_kernel *k, const char *dir, long long max_bytes)
{
    if (!k)
        return rt_fail(TK_ERR_INVALID_ARGUMENT, "tk_kernel_capture: k is NULL");
    char *abs = NULL;
    if (dir) {
        char path[PATH_MAX];
        tk_status st = absolute_dir("tk_kernel_capture", dir, path, sizeof path);
        if (st != TK_OK)
            return st;
        if (!(abs = strdup(path)))
            return rt_fail(TK_ERR_CUDA, "out of host memory");
    }
    pthread_mutex_lock(&k->mu);
    free(k->capture_dir);
    k->capture_dir = abs;
    k->capture_max = max_bytes > 0 ? max_bytes : 1LL << 30;
    for (int h = 0; h < 256; h++)            /* a new folder captures every problem again */
        for (plan *p = k->table[h]; p; p = p->next)
            p->captured = 0;
    pthread_mutex_unlock(&k->mu);
    return TK_OK;
}

tk_status tk_kernel_capture_host(tk_kernel *k, const char *dir, const char *dtype,
                                 const long long *problem, void **args)
{
    if (!k || !dir || !problem || (!args && k->d->n_args > 0))
        return rt_fail(TK_ERR_INVALID_ARGUMENT, "tk_kernel_capture_host: a NULL argument");
    const tk_kernel_desc *d = k->d;
    int dt;
    tk_status bad = check_call(k, dtype, problem, &dt);
    if (bad != TK_OK)
        return bad;
    /* the counts at the default config, with no device */
    value slots[512];
    char strings[64][128];
    long long count[MAX_ARGS];
    if (k->n_slots > 512 || d->n_params > 64)
        return rt_fail(TK_ERR_INVALID_ARGUMENT, "%s.%s: too many parameters", d->family, d->op);
    if (rt_fill_slots(k, d->default_config, problem, dt, NULL, slots) != 0)
        return TK_ERR_INVALID_ARGUMENT;
    rt_cut_strings(d, slots, strings);
    rt_buffer_counts(k, slots, count);
    pthread_mutex_lock(&k->mu);
    long long max = k->capture_dir ? k->capture_max : LLONG_MAX;
    pthread_mutex_unlock(&k->mu);
    capture_job j = {d, dt, problem, count, d->default_config, args, 0, 0, NULL, 0, 0};
    char err[1400];
    if (capture_write(dir, max, &j, err, sizeof err) != 0)
        return rt_fail(TK_ERR_INVALID_ARGUMENT, "%s", err);
    rt_clear_error();
    return TK_OK;
}

tk_status tk_kernel_tune(tk_kernel *k, int on, const char *dir, double seconds)
{
    if (!k)
        return rt_fail(TK_ERR_INVALID_ARGUMENT, "tk_kernel_tune: k is NULL");
    char abs[PATH_MAX];
    if (dir) {
        tk_status st = absolute_dir("tk_kernel_tune", dir, abs, sizeof abs);
        if (st != TK_OK)
            return st;
    } else {
        rt_tune_dir(abs, sizeof abs);
    }
    pthread_mutex_lock(&k->mu);
    snprintf(k->tune_dir, sizeof k->tune_dir, "%s", abs);
    k->tune_on = on != 0;
    k->tune_seconds = seconds > 0 ? seconds : TUNE_SECONDS;
    pthread_mutex_unlock(&k->mu);
    rt_clear_error();
    return TK_OK;
}

tk_status tk_kernel_config(tk_kernel *k, const char *dtype, const long long *problem,
                           char *config, size_t len, int *tuning)
{
    if (!k || !problem || !config || !len)
        return rt_fail(TK_ERR_INVALID_ARGUMENT, "tk_kernel_config: a NULL argument");
    int dt, device;
    unsigned h;
    tk_status bad = call_key(k, dtype, problem, &dt, &device, &h);
    if (bad != TK_OK)
        return bad;
    pthread_mutex_lock(&k->mu);
    plan *p = rt_find_plan(k, h, device, dt, problem);
    if (p) {
        snprintf(config, len, "%s", p->v->config);
        if (tuning)
            *tuning = p->tune == TUNE_WANTED ||
                      (p->job && !__atomic_load_n(&p->job->done, __ATOMIC_ACQUIRE));
    }
    pthread_mutex_unlock(&k->mu);
    if (p) {
        rt_clear_error();
        return TK_OK;
    }
    /* not launched yet: what its first launch would take */
    device_info dev;
    char err[512], tuned[1024];
    int known;
    if (cuda_device_describe(device, &dev, err, sizeof err) != 0)
        return rt_fail(TK_ERR_CUDA, "%s", err);
    snprintf(config, len, "%s", rt_config_for(k, &dev, dt, problem, tuned, sizeof tuned, &known));
    if (tuning)
        *tuning = 0;
    rt_clear_error();
    return TK_OK;
}
