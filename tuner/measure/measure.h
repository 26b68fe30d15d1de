/* measure.h: measuring one variant on the GPU in the worker (docs/architecture.md, "The worker
 * model"): poison, one launch, synchronise, validate, then warm-up and timed runs between CUDA
 * events with L2 flushed before each (cache cold), in batches, until the median's confidence
 * interval converges or racing shows the variant surely slower than the best so far; the
 * playoff that re-times a problem's closest contenders interleaved; and the device-to-device
 * copy bandwidth that every evaluation is compared with. Also the pure rules (CPU-testable):
 * the sampling plan, and how CUDA and library errors map to evaluation statuses. */
#pragma once
#include <stddef.h>
#include <cuda_runtime_api.h>
#include "core/eval.h"
#include "core/device.h"
#include "ops/ops.h"

typedef struct measure_ctx measure_ctx;

/* Creates the worker's measuring state on the current device: a stream, two timing events and
 * the L2 flush buffer (2 x L2, allocated once per worker). Returns 0, or -1 with err. The caller
 * frees it with measure_ctx_free. */
int measure_ctx_create(const device_info *dev, measure_ctx **out, char *err, size_t len);
void measure_ctx_free(measure_ctx *c);

/* Evaluates config on the prepared instance; fills *out (overwritten; out->samples malloc'd,
 * eval_result_clear frees). Statuses: unsupported (the library has no such variant, or the
 * launch needs more resources than the device has), launch_error (another refused launch),
 * fault (a CUDA error while running; *context_lost = 1 when the context is gone and the worker
 * must exit after answering), invalid (validation failed: never timed), ok (every timed run in
 * out->samples, in µs, with out->stats; out->raced when racing stopped it, with a note in
 * out->error). validate = 0 skips validation. race_us: the problem's best median so far (0:
 * none; racing also needs ms->race_margin > 0). */
void measure_variant(measure_ctx *c, const op_family *f, op_instance *inst, const char *config,
                     const measure_settings *ms, double race_us, int validate, eval_result *out,
                     int *context_lost);

/* The energy of config alone (docs/energy.md, "Contenders only"): the window an evaluation
 * takes after its timing (ms->energy_s seconds, back to back), for a config validated and timed
 * in an evaluation of its own whose median was median_us. out: ok with energy_only set and the
 * energy (joules 0 when the counter did not move twice, or there is no NVML), or the launch
 * failure that stopped it. */
void measure_energy_window(measure_ctx *c, const op_family *f, op_instance *inst,
                           const char *config, const measure_settings *ms, double median_us,
                           eval_result *out, int *context_lost);

/* Re-times the configs of a playoff (configs[0..k), 2 <= k <= EVAL_PLAYOFF_MAX) on the
 * prepared instance, interleaved: each round is one L2-flushed timed run of each config, so
 * drift between rounds hits them alike, in the order measure_playoff_config gives (rotated from
 * batch to batch, so no config always opens the batches or always follows the same one); rounds
 * go on (measure_plan, without racing) until every config's median has converged, or max_runs
 * rounds, or max_seconds of GPU time per config. bind, when not NULL, makes config i the one launch runs (user kernels bind one
 * compiled variant at a time); it returns TK_OK or a status with err. Fills out->n_playoff,
 * playoff_n and playoff_samples, status ok; or the failure that stopped it (as
 * measure_variant's statuses). Validation is the evaluations' business, not the playoff's. */
typedef tk_status (*measure_bind_fn)(void *ctx, int i, char *err, size_t len);
/* Which of a playoff's k configs the j-th timed run of its batch-th batch runs: (batch + j) % k.
 * A batch is whole rounds, so every round holds each config once; the first run of each batch
 * (the one after the host's gap) and each place in a round go to every config in turn. Without
 * the rotation, config 0 (the fastest by its own median) opened every batch, and on an H100
 * (2026-11-27) `tuner retime` A against B and its parts disagreed by a median 0.72%: the first
 * place was measured slower (docs/time-to-tune.md#judging-a-result-tuner-retime). */
int measure_playoff_config(int batch, int k, int j);
void measure_playoff(measure_ctx *c, const op_family *f, op_instance *inst, int k,
                     const char *const *configs, measure_bind_fn bind, void *bind_ctx,
                     const measure_settings *ms, eval_result *out, int *context_lost);

/* ---- the sampling plan (pure) ----
 * How many timed runs an evaluation takes, decided between batches: the runs of a batch are
 * queued back to back (each after its L2 flush, between its own pair of events) and the host
 * waits once per batch. The first batch is min_runs, or STATS_RACE_MIN_RUNS when racing; after
 * each batch the evaluation stops when it has max_runs, when racing finds it surely slower than
 * (1 + race_margin) x race_us (stats_surely_above: raced), or, from min_runs on, when max_seconds
 * of GPU time are spent or the median's interval has converged (rel_ci); else the next batch is
 * what min_runs still needs, or an eighth of the runs so far (at least 2, at most
 * MEASURE_BATCH_MAX). */
#define MEASURE_BATCH_MAX 32
typedef struct measure_plan {
    int min_runs, max_runs;
    double rel_ci, max_seconds;
    double race_above;       /* raced when surely above this (µs); 0: no racing */
    int raced;               /* set when it stopped by racing */
    sample_stats stats;      /* of the samples at the last decision */
} measure_plan;
void measure_plan_init(measure_plan *p, const measure_settings *ms, double race_us);
/* Given the n samples so far (n = 0 before the first batch), the number of runs to queue next,
 * or 0 to stop. */
int measure_plan_next(measure_plan *p, const double *samples, int n);

/* Device-to-device copy bandwidth in GB/s counting bytes read + written: cudaMemcpyAsync of
 * min(1 GiB, memory / 8) of random bytes (as the kernels it judges read; PyTorch's copy_ on
 * random data measured this way) between two buffers, 3 warm-ups, the median of 25 timed copies.
 * Returns 0, or -1 with err (a CUDA error). */
int measure_copy_gbps(measure_ctx *c, double *gbps, char *err, size_t len);

/* ---- where the worker's time goes ----
 * The worker's wall time split by phase, summed over its life: what the parent asks the
 * measuring loop to explain when a run is slower than its kernels (docs/time-to-tune.md). The
 * loop adds its own phases; the worker adds the time it waits for the parent's next request,
 * prepares problems and answers. measure_profile_write appends one line, "worker cuda:N: time:
 * ...", to the file TK_WORKER_PROFILE names, when it is set (the worker's stderr is the
 * parent's, which keeps only its tail for error messages). */
typedef enum measure_phase {
    MP_WAIT,        /* blocked reading the parent's next request */
    MP_PREPARE,     /* parsing the request, preparing the problem, binding a user variant */
    MP_CHECK,       /* poison, the validation launch and its synchronisation */
    MP_VALIDATE,    /* comparing with the reference */
    MP_WARMUP,      /* untimed runs and their synchronisation */
    MP_QUEUE,       /* queueing a batch's flushes, events and launches */
    MP_GPU_WAIT,    /* waiting for a batch's last event */
    MP_PLAN,        /* reading the events' times, the sampling plan's statistics */
    MP_ENERGY,      /* the energy window (docs/energy.md) */
    MP_ANSWER,      /* formatting the answer, clearing up */
    MP_SEND,        /* writing the answer to the parent */
    MP_N
} measure_phase;
/* The monotonic clock the profile reads, in ms (the worker times problem set-up with it too). */
double measure_now_ms(void);
/* Gives the time since the previous mark (or since the process started) to phase. */
void measure_profile_mark(measure_phase phase);
/* Counts one evaluation (playoff 0) or playoff (1), its batches and timed runs. */
void measure_profile_count(int playoff, int batches, int runs);
void measure_profile_write(int ordinal);

/* ---- status rules (pure) ---- */
/* 1 for the errors that leave the CUDA context unusable (illegal address, launch failure,
 * misaligned address, illegal instruction, hardware stack error, ...). */
int measure_error_is_sticky(cudaError_t e);
/* 1 for launch errors that mean the variant needs more than the device gives (invalid
 * configuration, out of resources, cooperative launch too large). */
int measure_error_is_resource(cudaError_t e);
/* The status of a launch that returned st (not TK_OK): e is the CUDA error still pending after it
 * (cudaSuccess when the library consumed it) and text the harness's error text, searched for the
 * resource errors' names and messages when e says nothing. */
eval_status measure_launch_status(tk_status st, cudaError_t e, const char *text);
