/* measure.c: the worker's timing loop, validation flow, copy bandwidth, and the rules that turn
 * CUDA and library errors into evaluation statuses (see measure.h). A bad variant ends as one
 * status here; only a lost CUDA context makes the worker exit (the parent restarts it). */
#include "measure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "core/stats.h"
#include "energy.h"
#include "tk_check.h"

struct measure_ctx {
    cudaStream_t stream;
    cudaEvent_t start, stop;
    cudaEvent_t run_start[MEASURE_BATCH_MAX], run_stop[MEASURE_BATCH_MAX];   /* one pair a run */
    void *flush;             /* 2 x L2 bytes: read (clean) before a timed run */
    size_t cold_bytes;       /* 1.25 x L2: how much of it a cold run's flush overwrites
                              * (bench/l2_states/flush_size.py on an H100: from 1 x on, a kernel
                              * on data that fits L2 takes what it takes after 2 x, within 0.5%) */
    size_t flush_bytes;
    int64_t mem_bytes;
    unsigned flush_count;    /* cold: the byte value changes every time */
    volatile unsigned *hold; /* host word mapped for the device: a batch's go signal */
    unsigned hold_gen;       /* the last batch's signal value */
    energy_meter *meter;     /* the GPU's energy counter (energy.c), NULL without NVML */
};

/* The longest a batch waits on the GPU for its go signal before it runs anyway. */
#define MEASURE_HOLD_MAX_NS 200000000ull

/* ---- where the worker's time goes (one worker process, one thread) ---- */

static struct {
    double last_ms, ms[MP_N];
    long evals, playoffs, batches, runs;
} profile;

double measure_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

void measure_profile_mark(measure_phase phase)
{
    const double t = measure_now_ms();
    if (profile.last_ms > 0 && phase >= 0 && phase < MP_N) profile.ms[phase] += t - profile.last_ms;
    profile.last_ms = t;
}

void measure_profile_count(int playoff, int batches, int runs)
{
    if (playoff) profile.playoffs++;
    else profile.evals++;
    profile.batches += batches;
    profile.runs += runs;
}

void measure_profile_write(int ordinal)
{
    static const char *const names[MP_N] = {
        "waiting for the parent", "preparing", "poison and validation launch", "comparing",
        "warm-up", "queueing batches", "waiting for batches", "reading times and planning",
        "measuring energy", "formatting answers", "writing answers",
    };
    const char *path = getenv("TK_WORKER_PROFILE");
    if (!path || !*path) return;
    FILE *to = fopen(path, "a");   /* the worker's stderr goes to the parent's error tail */
    if (!to) return;
    double total = 0;
    for (int i = 0; i < MP_N; i++) total += profile.ms[i];
    fprintf(to, "worker cuda:%d: time: %.1f s over %ld evaluations and %ld playoffs (%ld batches, "
            "%ld timed runs):", ordinal, total / 1e3, profile.evals, profile.playoffs,
            profile.batches, profile.runs);
    for (int i = 0; i < MP_N; i++)
        fprintf(to, "%s %.2f s %s", i ? "," : "", profile.ms[i] / 1e3, names[i]);
    fprintf(to, "\n");
    fclose(to);
}

/* ---- status rules ---- */

int measure_error_is_sticky(cudaError_t e)
{
    switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorMisalignedAddress:
    case cudaErrorIllegalInstruction:
    case cudaErrorHardwareStackError:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
    case cudaErrorTensorMemoryLeak:
        return 1;
    default:
        return 0;
    }
}

int measure_error_is_resource(cudaError_t e)
{
    return e == cudaErrorInvalidConfiguration || e == cudaErrorLaunchOutOfResources ||
           e == cudaErrorCooperativeLaunchTooLarge;
}

eval_status measure_launch_status(tk_status st, cudaError_t e, const char *text)
{
    static const char *const resource_words[] = {
        "cudaErrorInvalidConfiguration", "cudaErrorLaunchOutOfResources",
        "cudaErrorCooperativeLaunchTooLarge", "too many resources requested",
        "invalid configuration argument",
    };
    if (st == TK_ERR_UNSUPPORTED_CONFIG) return EVAL_UNSUPPORTED;
    if (measure_error_is_resource(e)) return EVAL_UNSUPPORTED;
    for (size_t i = 0; text && i < sizeof resource_words / sizeof *resource_words; i++)
        if (strstr(text, resource_words[i])) return EVAL_UNSUPPORTED;
    return EVAL_LAUNCH_ERROR;
}

/* ---- context ---- */

int measure_ctx_create(const device_info *dev, measure_ctx **out, char *err, size_t len)
{
    *out = NULL;
    int rc = -1;
    cudaError_t e;
    const char *what = "";
    measure_ctx *c = calloc(1, sizeof *c);
    if (!c) { snprintf(err, len, "out of host memory"); goto done; }
    c->mem_bytes = dev->mem_bytes;
    c->flush_bytes = (size_t)(dev->l2_bytes > 0 ? 2 * dev->l2_bytes : 64 << 20);
    c->cold_bytes = (c->flush_bytes / 8 * 5) & ~(size_t)255;   /* 1.25 x L2 */
    what = "cudaStreamCreate";
    if ((e = cudaStreamCreate(&c->stream)) != cudaSuccess) goto cuda_fail;
    what = "cudaEventCreate";
    if ((e = cudaEventCreate(&c->start)) != cudaSuccess) goto cuda_fail;
    if ((e = cudaEventCreate(&c->stop)) != cudaSuccess) goto cuda_fail;
    for (int i = 0; i < MEASURE_BATCH_MAX; i++)
        if ((e = cudaEventCreate(&c->run_start[i])) != cudaSuccess ||
            (e = cudaEventCreate(&c->run_stop[i])) != cudaSuccess)
            goto cuda_fail;
    what = "cudaHostAlloc (batch hold word)";
    if ((e = cudaHostAlloc((void **)&c->hold, sizeof *c->hold, cudaHostAllocMapped)) != cudaSuccess)
        goto cuda_fail;
    *c->hold = 0;
    char why[256];
    c->meter = energy_meter_open(dev->uuid, why, sizeof why);   /* none: no energy figures */
    what = "cudaMalloc (L2 flush buffer)";
    if ((e = cudaMalloc(&c->flush, c->flush_bytes)) != cudaSuccess) goto cuda_fail;
    what = "cudaMemset (L2 flush buffer)";
    if ((e = cudaMemset(c->flush, 0x5a, c->flush_bytes)) != cudaSuccess) goto cuda_fail;
    *out = c;
    c = NULL;
    rc = 0;
    goto done;
cuda_fail:
    snprintf(err, len, "%s: %s", what, cudaGetErrorString(e));
done:
    measure_ctx_free(c);
    return rc;
}

void measure_ctx_free(measure_ctx *c)
{
    if (!c) return;
    energy_meter_close(c->meter);
    if (c->flush) cudaFree(c->flush);
    if (c->hold) cudaFreeHost((void *)c->hold);
    if (c->start) cudaEventDestroy(c->start);
    if (c->stop) cudaEventDestroy(c->stop);
    for (int i = 0; i < MEASURE_BATCH_MAX; i++) {
        if (c->run_start[i]) cudaEventDestroy(c->run_start[i]);
        if (c->run_stop[i]) cudaEventDestroy(c->run_stop[i]);
    }
    if (c->stream) cudaStreamDestroy(c->stream);
    free(c);
}

/* ---- one variant ---- */

/* 1 when the context is lost: a sticky error is returned by every later call. Clears a
 * non-sticky pending error. */
static int context_lost_now(void)
{
    cudaGetLastError();
    return cudaDeviceSynchronize() != cudaSuccess;
}

static void set_fault(eval_result *out, int *lost, const char *what, cudaError_t e)
{
    out->status = EVAL_FAULT;
    snprintf(out->error, sizeof out->error, "%s: %s (%s)", what, cudaGetErrorName(e),
             cudaGetErrorString(e));
    *lost = measure_error_is_sticky(e) || context_lost_now();
}

/* A launch returned st != TK_OK with text. */
static void set_launch_failure(eval_result *out, int *lost, tk_status st, const char *text)
{
    cudaError_t e = cudaGetLastError();
    if (measure_error_is_sticky(e) || context_lost_now()) {
        out->status = EVAL_FAULT;
        *lost = 1;
    } else {
        out->status = measure_launch_status(st, e, text);
    }
    if (e != cudaSuccess)
        snprintf(out->error, sizeof out->error, "%s (%s: %s)", text, cudaGetErrorName(e),
                 cudaGetErrorString(e));
    else
        snprintf(out->error, sizeof out->error, "%s", text);
}

/* Validation pass: poison, one launch, synchronise, compare. 0 when the variant may be timed;
 * otherwise out holds its status. */
static int run_checked(measure_ctx *c, const op_family *f, op_instance *inst, const char *config,
                       int validate, eval_result *out, int *lost)
{
    char text[sizeof out->error];
    text[0] = 0;
    if (f->poison(inst, text, sizeof text)) {
        out->status = EVAL_FAULT;
        snprintf(out->error, sizeof out->error, "poison: %s", text);
        *lost = context_lost_now();
        return -1;
    }
    tk_status st = f->launch(inst, config, c->stream, text, sizeof text);
    if (st != TK_OK) {
        set_launch_failure(out, lost, st, text);
        return -1;
    }
    cudaError_t e = cudaStreamSynchronize(c->stream);
    measure_profile_mark(MP_CHECK);
    if (e != cudaSuccess) {
        set_fault(out, lost, "kernel", e);
        return -1;
    }
    if (!validate) return 0;
    text[0] = 0;
    int rc = f->validate(inst, text, sizeof text);
    measure_profile_mark(MP_VALIDATE);
    if (rc == 1) {
        out->status = EVAL_INVALID;
        snprintf(out->error, sizeof out->error, "%s", text);
        return -1;
    }
    if (rc != 0) {
        out->status = EVAL_FAULT;
        snprintf(out->error, sizeof out->error, "validate: %s", text);
        *lost = context_lost_now();
        return -1;
    }
    return 0;
}

/* What the timed runs launch: config i of configs[0..k), bound first when bind is set. */
typedef struct runner {
    const op_family *f;
    op_instance *inst;
    int k;
    const char *const *configs;
    measure_bind_fn bind;
    void *bind_ctx;
} runner;

/* Lets the held batch go (the GPU reads the word over the bus). */
static void release_hold(measure_ctx *c)
{
    __atomic_store_n(c->hold, c->hold_gen, __ATOMIC_RELEASE);
}

/* Makes config i the one a user kernel's launch runs, when the runner binds (loading its
 * module, which waits for the stream): outside any held batch. 0, or -1 with out set. */
static int bind_run(const runner *r, int i, eval_result *out, int *lost)
{
    if (!r->bind) return 0;
    char text[sizeof out->error];
    text[0] = 0;
    tk_status st = r->bind(r->bind_ctx, i, text, sizeof text);
    if (st != TK_OK) {
        set_launch_failure(out, lost, st, text);
        return -1;
    }
    return 0;
}

/* Queues one launch of config i (bound already when the runner binds). 0, or -1 with out set. */
static int launch_run(measure_ctx *c, const runner *r, int i, eval_result *out, int *lost)
{
    char text[sizeof out->error];
    text[0] = 0;
    tk_status st = r->f->launch(r->inst, r->configs[i], c->stream, text, sizeof text);
    if (st != TK_OK) {
        release_hold(c);   /* a held batch goes before the failure is looked into */
        set_launch_failure(out, lost, st, text);
        return -1;
    }
    return 0;
}

/* n (<= MEASURE_BATCH_MAX) timed runs queued back to back, run j of config
 * measure_playoff_config(first, k, j): the L2 flush the settings ask for, then the launch
 * between its own pair of events. The batch is queued behind a hold (tk_check_hold) that the
 * host releases once the first run is queued whole, so that the GPU does not reach the first
 * run's start event before its launch is queued (the committed H100 dump, measured without it,
 * had the runs that opened a batch slower than the others; docs/time-to-tune.md); the later runs
 * are queued while the first ones run. When the runner binds (a user kernel's playoff), a batch
 * is one run and its config is bound before the hold is queued: binding loads and unloads
 * modules, which waits for the stream, and would otherwise wait out the hold's time limit. The
 * host waits once, for the last run, and reads every run's time into us[0..n). 0, or -1 with
 * out set. */
static int timed_batch(measure_ctx *c, const runner *r, int first, int n,
                       const measure_settings *ms, double *us, eval_result *out, int *lost)
{
    cudaError_t e;
    if (r->bind && n != 1) {
        out->status = EVAL_FAULT;
        snprintf(out->error, sizeof out->error, "a bound batch of %d runs (one at a time)", n);
        return -1;
    }
    if (bind_run(r, measure_playoff_config(first, r->k, 0), out, lost)) return -1;
    c->hold_gen++;
    if (tk_check_hold(c->hold, c->hold_gen, MEASURE_HOLD_MAX_NS, c->stream) != TK_OK) {
        set_fault(out, lost, "batch hold", cudaGetLastError());
        return -1;
    }
    const char *what = NULL;
    e = cudaSuccess;
    for (int j = 0; j < n && !what; j++) {
        if (ms->cold == MEASURE_COLD) {
            int byte = (int)(++c->flush_count & 0xff);
            if ((e = cudaMemsetAsync(c->flush, byte, c->cold_bytes, c->stream)) != cudaSuccess)
                what = "L2 flush";
        } else if (ms->cold == MEASURE_CLEAN) {
            if (tk_check_flush_l2(c->flush, c->flush_bytes, c->stream) != TK_OK) {
                e = cudaGetLastError();
                what = "L2 flush";
            }
        }
        if (!what && (e = cudaEventRecord(c->run_start[j], c->stream)) != cudaSuccess)
            what = "cudaEventRecord";
        if (!what && launch_run(c, r, measure_playoff_config(first, r->k, j), out, lost))
            return -1;
        if (!what && (e = cudaEventRecord(c->run_stop[j], c->stream)) != cudaSuccess)
            what = "cudaEventRecord";
        /* always reached at j = 0 (a failed launch releases it itself): before any error
         * handling, which synchronises the device; the later runs are queued while the first
         * one runs */
        if (j == 0) release_hold(c);
    }
    if (what) {
        set_fault(out, lost, what, e);
        return -1;
    }
    measure_profile_mark(MP_QUEUE);
    e = cudaEventSynchronize(c->run_stop[n - 1]);
    measure_profile_mark(MP_GPU_WAIT);
    if (e != cudaSuccess) {
        set_fault(out, lost, "timed run", e);
        return -1;
    }
    for (int j = 0; j < n; j++) {
        float ms_elapsed = 0;
        if ((e = cudaEventElapsedTime(&ms_elapsed, c->run_start[j], c->run_stop[j])) !=
            cudaSuccess) {
            set_fault(out, lost, "cudaEventElapsedTime", e);
            return -1;
        }
        us[j] = ms_elapsed * 1000.0;
    }
    return 0;
}

/* ---- energy (docs/energy.md) ---- */

#define ENERGY_CHUNK_US 2000.0   /* one chunk of back-to-back launches: about 2 ms of GPU time */
#define ENERGY_QUEUED 3          /* chunks queued ahead: the GPU never waits for the host */
#define ENERGY_STRETCH 4         /* a window whose counter moved fewer than twice grows to 4 x */

/* The energy of one run of r's config 0, into out->energy (docs/energy.md): the config runs back
 * to back, in chunks of about ENERGY_CHUNK_US each between a pair of events, ENERGY_QUEUED chunks
 * ahead, for ms->energy_s seconds (longer, up to ENERGY_STRETCH x, until the counter has moved
 * twice), while the host polls the board's energy counter. The board's power is the counter's
 * rise from its first change seen once a chunk has completed to its last change seen while chunks
 * were still queued, over the host time between them; a run's energy is that power times a run's
 * back-to-back time (the chunks' events over their launches). A launch that fails here ends the
 * evaluation as it would in the timing (out set); a window the counter did not move in twice
 * leaves the energy unmeasured. */
static void measure_energy(measure_ctx *c, const runner *r, const measure_settings *ms,
                           double median_us, eval_result *out, int *lost)
{
    if (!c->meter || ms->energy_s <= 0 || median_us <= 0)
        return;
    int per_chunk = (int)(ENERGY_CHUNK_US / median_us);
    per_chunk = per_chunk < 1 ? 1 : per_chunk > 100000 ? 100000 : per_chunk;
    unsigned long long e_prev, e;
    if (energy_meter_read(c->meter, &e_prev) != 0)
        return;
    const double t0 = measure_now_ms(), window = ms->energy_s * 1e3;
    double a_t = -1, b_t = -1, gpu_ms = 0;
    unsigned long long a_e = 0, b_e = 0;
    long launches = 0;
    int head = 0, queued = 0, completed = 0;
    cudaError_t err = cudaSuccess;
    const char *what = NULL;
    for (;;) {
        double now = measure_now_ms();
        int more = now - t0 < window || (b_t < 0 && now - t0 < ENERGY_STRETCH * window);
        while (more && queued < ENERGY_QUEUED) {
            int slot = (head + queued) % ENERGY_QUEUED;
            if ((err = cudaEventRecord(c->run_start[slot], c->stream)) != cudaSuccess) {
                what = "cudaEventRecord";
                break;
            }
            for (int i = 0; i < per_chunk; i++)
                if (launch_run(c, r, 0, out, lost)) {
                    cudaStreamSynchronize(c->stream);
                    return;
                }
            if ((err = cudaEventRecord(c->run_stop[slot], c->stream)) != cudaSuccess) {
                what = "cudaEventRecord";
                break;
            }
            queued++;
        }
        if (what || queued == 0)
            break;
        if ((err = cudaEventQuery(c->run_stop[head])) == cudaSuccess) {
            float ms_elapsed = 0;
            if ((err = cudaEventElapsedTime(&ms_elapsed, c->run_start[head], c->run_stop[head])) !=
                cudaSuccess) {
                what = "cudaEventElapsedTime";
                break;
            }
            gpu_ms += ms_elapsed;
            launches += per_chunk;
            head = (head + 1) % ENERGY_QUEUED;
            queued--;
            completed = 1;
        } else if (err != cudaErrorNotReady) {
            what = "a run measuring energy";
            break;
        }
        if (energy_meter_read(c->meter, &e) == 0 && e != e_prev) {
            double t = measure_now_ms();
            if (completed && queued > 0) {
                if (a_t < 0) {
                    a_t = t;
                    a_e = e;
                } else {
                    b_t = t;
                    b_e = e;
                }
            }
            e_prev = e;
        }
    }
    if (what) {
        set_fault(out, lost, what, err);
        return;
    }
    if (b_t <= a_t || launches == 0 || b_e <= a_e)
        return;
    eval_energy *en = &out->energy;
    en->power_w = (double)(b_e - a_e) / (b_t - a_t);              /* mJ / ms */
    en->joules = en->power_w * (gpu_ms / (double)launches) * 1e-3;
    en->window_ms = measure_now_ms() - t0;
    energy_meter_state(c->meter, en);
}

void measure_variant(measure_ctx *c, const op_family *f, op_instance *inst, const char *config,
                     const measure_settings *ms, double race_us, int validate, eval_result *out,
                     int *context_lost)
{
    memset(out, 0, sizeof *out);
    *context_lost = 0;
    double *samples = NULL;
    cudaError_t e;
    runner r = { f, inst, 1, &config, NULL, NULL };

    if (run_checked(c, f, inst, config, validate, out, context_lost)) goto done;

    /* the validation launch was the first warm-up run: it loaded the module and touched the
     * data, which is what warming up is for */
    for (int w = 1; w < ms->warmup; w++)
        if (launch_run(c, &r, 0, out, context_lost)) goto done;
    e = cudaStreamSynchronize(c->stream);
    measure_profile_mark(MP_WARMUP);
    if (e != cudaSuccess) {
        set_fault(out, context_lost, "warm-up", e);
        goto done;
    }

    measure_plan plan;
    measure_plan_init(&plan, ms, race_us);
    samples = malloc((size_t)plan.max_runs * sizeof *samples);
    if (!samples) {
        out->status = EVAL_FAULT;
        snprintf(out->error, sizeof out->error, "out of host memory for %d samples", plan.max_runs);
        goto done;
    }
    int n = 0, batch, batches = 0;
    while ((batch = measure_plan_next(&plan, samples, n)) > 0) {
        measure_profile_mark(MP_PLAN);
        if (timed_batch(c, &r, n, batch, ms, samples + n, out, context_lost)) goto done;
        n += batch;
        batches++;
    }
    measure_profile_mark(MP_PLAN);
    measure_profile_count(0, batches, n);
    out->status = EVAL_OK;
    out->samples = samples;
    out->n_samples = n;
    out->stats = plan.stats;
    if (plan.raced) {
        out->raced = 1;
        snprintf(out->error, sizeof out->error,
                 EVAL_RACED_NOTE " after %d runs its median is surely above %.4g us (%g%% "
                 "over the best so far, %.4g us)",
                 n, plan.race_above, 100.0 * ms->race_margin, race_us);
    }
    samples = NULL;
    /* energy, of a config the timing kept (not raced) */
    if (!out->raced)
        measure_energy(c, &r, ms, out->stats.median, out, context_lost);
    measure_profile_mark(MP_ENERGY);
done:
    free(samples);
}

void measure_energy_window(measure_ctx *c, const op_family *f, op_instance *inst,
                           const char *config, const measure_settings *ms, double median_us,
                           eval_result *out, int *context_lost)
{
    memset(out, 0, sizeof *out);
    *context_lost = 0;
    runner r = { f, inst, 1, &config, NULL, NULL };
    out->status = EVAL_OK;
    out->energy_only = 1;
    measure_energy(c, &r, ms, median_us, out, context_lost);
    if (out->status == EVAL_OK) {
        cudaError_t e = cudaStreamSynchronize(c->stream);
        if (e != cudaSuccess) set_fault(out, context_lost, "energy window", e);
    }
    measure_profile_mark(MP_ENERGY);
}

void measure_playoff(measure_ctx *c, const op_family *f, op_instance *inst, int k,
                     const char *const *configs, measure_bind_fn bind, void *bind_ctx,
                     const measure_settings *ms, eval_result *out, int *context_lost)
{
    memset(out, 0, sizeof *out);
    *context_lost = 0;
    if (k < 2 || k > EVAL_PLAYOFF_MAX) {
        out->status = EVAL_LAUNCH_ERROR;
        snprintf(out->error, sizeof out->error, "a playoff of %d configs (2 to %d)", k,
                 EVAL_PLAYOFF_MAX);
        return;
    }
    runner r = { f, inst, k, configs, bind, bind_ctx };
    /* warm-up: a few untimed runs of each, in round order */
    for (int w = 0; w < ms->warmup; w++)
        for (int i = 0; i < k; i++)
            if (bind_run(&r, i, out, context_lost) || launch_run(c, &r, i, out, context_lost))
                goto fail;
    cudaError_t e = cudaStreamSynchronize(c->stream);
    measure_profile_mark(MP_WARMUP);
    if (e != cudaSuccess) {
        set_fault(out, context_lost, "warm-up", e);
        goto fail;
    }
    measure_plan plan[EVAL_PLAYOFF_MAX];
    measure_settings per = *ms;
    for (int i = 0; i < k; i++) {
        measure_plan_init(&plan[i], &per, 0);
        if (!(out->playoff_samples[i] = malloc((size_t)plan[i].max_runs * sizeof(double)))) {
            out->status = EVAL_FAULT;
            snprintf(out->error, sizeof out->error, "out of host memory");
            goto fail;
        }
    }
    /* rounds until every config's plan says stop; a config done early keeps running with the
     * others (its extra runs are kept: more precision, same interleaving) up to max_runs */
    int rounds = 0, max_rounds = plan[0].max_runs, batches = 0;
    double *round_us = malloc((size_t)MEASURE_BATCH_MAX * sizeof *round_us);
    if (!round_us) {
        out->status = EVAL_FAULT;
        snprintf(out->error, sizeof out->error, "out of host memory");
        goto fail;
    }
    for (;;) {
        int want = 0;
        for (int i = 0; i < k; i++) {
            int next = measure_plan_next(&plan[i], out->playoff_samples[i], rounds);
            if (next > want) want = next;
        }
        measure_profile_mark(MP_PLAN);
        if (want == 0 || rounds >= max_rounds) break;
        if (want > max_rounds - rounds) want = max_rounds - rounds;
        /* a batch is whole rounds: as many as fit (one run at a time when binding, in the
         * order a batch of the round would have) */
        int per_batch = bind ? 1 : MEASURE_BATCH_MAX / k;
        for (int done = 0; done < want;) {
            int nr = want - done < per_batch ? want - done : per_batch;
            if (bind) {
                for (int j = 0; j < k; j++) {
                    int i = measure_playoff_config(rounds + done, k, j);
                    if (timed_batch(c, &r, i, 1, ms, round_us, out, context_lost)) goto fail_free;
                    out->playoff_samples[i][rounds + done] = round_us[0];
                }
                batches += k;
            } else {
                if (timed_batch(c, &r, batches, nr * k, ms, round_us, out, context_lost))
                    goto fail_free;
                for (int j = 0; j < nr * k; j++)
                    out->playoff_samples[measure_playoff_config(batches, k, j)]
                                        [rounds + done + j / k] = round_us[j];
                batches++;
            }
            done += bind ? 1 : nr;
        }
        rounds += want;
    }
    free(round_us);
    measure_profile_count(1, batches, rounds * k);
    out->status = EVAL_OK;
    out->n_playoff = k;
    for (int i = 0; i < k; i++) out->playoff_n[i] = rounds;
    return;
fail_free:
    free(round_us);
fail:
    for (int i = 0; i < k; i++) {
        free(out->playoff_samples[i]);
        out->playoff_samples[i] = NULL;
    }
}

int measure_playoff_config(int batch, int k, int j)
{
    return (batch % k + j) % k;
}

/* ---- the sampling plan ---- */

void measure_plan_init(measure_plan *p, const measure_settings *ms, double race_us)
{
    memset(p, 0, sizeof *p);
    p->max_runs = ms->max_runs > 0 ? ms->max_runs : 1;
    p->min_runs = ms->min_runs < 1 ? 1 : ms->min_runs > p->max_runs ? p->max_runs : ms->min_runs;
    p->rel_ci = ms->rel_ci;
    p->max_seconds = ms->max_seconds;
    if (ms->race_margin > 0 && race_us > 0) p->race_above = race_us * (1.0 + ms->race_margin);
}

int measure_plan_next(measure_plan *p, const double *samples, int n)
{
    if (n == 0) {
        int first = p->min_runs;
        if (p->race_above > 0 && first > STATS_RACE_MIN_RUNS) first = STATS_RACE_MIN_RUNS;
        return first < MEASURE_BATCH_MAX ? first : MEASURE_BATCH_MAX;
    }
    if (n >= p->max_runs) {
        stats_summarize(samples, n, &p->stats);
        return 0;
    }
    stats_summarize(samples, n, &p->stats);
    if (p->race_above > 0 && stats_surely_above(&p->stats, p->race_above)) {
        p->raced = 1;
        return 0;
    }
    if (n >= p->min_runs) {
        double total = 0;
        for (int i = 0; i < n; i++) total += samples[i];
        if (p->max_seconds > 0 && total >= p->max_seconds * 1e6) return 0;
        if (stats_converged(&p->stats, p->rel_ci)) return 0;
    }
    int next = n < p->min_runs ? p->min_runs - n : n / 8;
    if (next < 2) next = 2;
    if (next > MEASURE_BATCH_MAX) next = MEASURE_BATCH_MAX;
    if (next > p->max_runs - n) next = p->max_runs - n;
    return next;
}

/* ---- copy bandwidth ---- */

int measure_copy_gbps(measure_ctx *c, double *gbps, char *err, size_t len)
{
    enum { WARMUP = 3, RUNS = 25 };
    int rc = -1;
    void *src = NULL, *dst = NULL;
    double us[RUNS];
    cudaError_t e;
    const char *what = "cudaMalloc";
    *gbps = 0;
    size_t size = (size_t)1 << 30;
    if (c->mem_bytes > 0 && (size_t)(c->mem_bytes / 8) < size) size = (size_t)(c->mem_bytes / 8);
    size &= ~(size_t)255;
    if (size == 0) { snprintf(err, len, "copy bandwidth: device memory size unknown"); goto done; }
    if ((e = cudaMalloc(&src, size)) != cudaSuccess) goto cuda_fail;
    if ((e = cudaMalloc(&dst, size)) != cudaSuccess) goto cuda_fail;
    what = "random fill";
    if (tk_check_fill_random(src, size, 0x5eed, c->stream) != TK_OK) {
        e = cudaGetLastError();
        goto cuda_fail;
    }
    what = "cudaMemcpyAsync";
    for (int i = 0; i < WARMUP; i++)
        if ((e = cudaMemcpyAsync(dst, src, size, cudaMemcpyDeviceToDevice, c->stream)) !=
            cudaSuccess)
            goto cuda_fail;
    for (int i = 0; i < RUNS; i++) {
        what = "timed copy";
        float ms = 0;
        if ((e = cudaEventRecord(c->start, c->stream)) != cudaSuccess ||
            (e = cudaMemcpyAsync(dst, src, size, cudaMemcpyDeviceToDevice, c->stream)) !=
                cudaSuccess ||
            (e = cudaEventRecord(c->stop, c->stream)) != cudaSuccess ||
            (e = cudaEventSynchronize(c->stop)) != cudaSuccess ||
            (e = cudaEventElapsedTime(&ms, c->start, c->stop)) != cudaSuccess)
            goto cuda_fail;
        us[i] = ms * 1000.0;
    }
    double median_us = stats_quantile(us, RUNS, 0.5);
    if (median_us <= 0) { snprintf(err, len, "copy bandwidth: zero copy time"); goto done; }
    *gbps = 2.0 * (double)size / (median_us * 1e3);
    rc = 0;
    goto done;
cuda_fail:
    snprintf(err, len, "copy bandwidth (%zu bytes): %s: %s", size, what, cudaGetErrorString(e));
done:
    if (src) cudaFree(src);
    if (dst) cudaFree(dst);
    return rc;
}
