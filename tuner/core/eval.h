/* eval.h: what one evaluation is, shared by every stage that handles one: the request (kernel,
 * op, dtype, problem, config, measure settings, seed, validation), the result (status, error,
 * statistics, every sample) and the status names. The run loop builds requests, a backend
 * answers them, the worker protocol carries them, the database stores results; none of those
 * depends on another for these types. */
#pragma once
#include <stdint.h>
#include "problem.h"
#include "stats.h"

typedef enum eval_status {
    EVAL_OK = 0,
    EVAL_INVALID,       /* ran, computed wrong results */
    EVAL_LAUNCH_ERROR,  /* the launch was refused (bad configuration for this device) */
    EVAL_FAULT,         /* the context was lost or the worker died */
    EVAL_TIMEOUT,       /* the watchdog killed the worker */
    EVAL_UNSUPPORTED,   /* the op or the device cannot run this config */
    EVAL_SKIPPED,       /* rejected by a constraint */
    EVAL_COMPILE_ERROR, /* user kernels: the compiler refused the variant (error: its log) */
    EVAL_UNRECORDED,    /* replay only: the source has no measurement; never stored */
    EVAL_STATUS_COUNT
} eval_status;

const char *eval_status_name(eval_status s);
/* Returns the status for a name, or -1. */
int eval_status_parse(const char *name);

enum { MEASURE_HOT = 0, MEASURE_COLD = 1, MEASURE_CLEAN = 2 };

typedef struct measure_settings {
    int warmup;              /* untimed runs first */
    int min_runs, max_runs;  /* timed runs: at least, at most */
    double rel_ci;           /* stop when the median's 95% CI half-width <= rel_ci * median */
    int cold;                /* L2 before every timed run: MEASURE_HOT (left as the last run left
                                it), MEASURE_COLD (1.25x L2 overwritten: every run starts from DRAM
                                with L2 full of dirty lines, as PERF.md's figures were taken) or
                                MEASURE_CLEAN (2x L2 read: clean lines only, as a profiler's cache
                                invalidation leaves it) */
    double timeout_s;        /* watchdog per evaluation */
    double max_seconds;      /* stop timing an evaluation after this much GPU time (>= min_runs) */
    double energy_s;         /* the energy window (docs/energy.md): after the timing, the config
                                runs back to back this long while the board's energy counter is
                                read; 0: energy not measured */
    double race_margin;      /* racing (docs/time-to-tune.md): stop timing a config as soon as its
                                median is surely above (1 + race_margin) x the problem's best so
                                far (eval_request.race_us); and the playoff's margin. 0: off */
    /* The run loop's, not sent to the worker: under an energy or edp objective, which configs
     * get an energy window (docs/energy.md, "Contenders only"): those whose median is within
     * (1 + energy_within) x the problem's best, at most energy_top of them, fastest first;
     * energy_top MEASURE_ENERGY_ALL: every config, racing and the playoff off. */
    double energy_within;
    int energy_top;
} measure_settings;

/* measure.energy_top: all (every config gets its energy window). */
#define MEASURE_ENERGY_ALL 0
/* measure.energy_top at most. */
#define MEASURE_ENERGY_TOP_MAX 32

/* The note that starts a raced evaluation's error text. */
#define EVAL_RACED_NOTE "raced:"

/* A playoff re-times at most this many configs interleaved. */
#define EVAL_PLAYOFF_MAX 4

typedef struct eval_request {
    const char *kernel;      /* family, "elementwise" */
    const char *op;          /* op within the family, "mul" */
    const char *dtype;       /* "f32" */
    const problem *problem;
    const char *config;      /* canonical config text */
    measure_settings measure;
    uint64_t seed;           /* input generation seed (the run's) */
    int validate;            /* 1: validate before timing (space validate.enabled) */
    double tolerance_scale;  /* multiplies the family's tolerances (space validate) */
    /* User kernels only (NULL otherwise): the space file the worker loads the kernel's
     * description from (absolute path), the compiled variant and the compiled reference
     * (cubin paths in the compile cache; ref_module NULL when the reference is not a kernel),
     * and the compiled check kernels, one path per line in the order of the outputs that have
     * one (NULL when none). */
    const char *space_path;
    const char *module;
    const char *ref_module;
    const char *checks;
    /* Racing: the best median so far of this problem on this device (µs); 0: none yet. */
    double race_us;
    /* A playoff (n_playoff >= 2): instead of evaluating config, re-time the configs playoff[i]
     * (each validated before, in its own evaluation) in rounds, one run of each per round, so
     * that drift hits them alike; playoff_module[i] is config i's compiled variant (user
     * kernels) or NULL. The result is ok with playoff samples, or the failure that stopped it. */
    int n_playoff;
    const char *playoff[EVAL_PLAYOFF_MAX];
    const char *playoff_module[EVAL_PLAYOFF_MAX];
    /* An energy window alone (> 0; docs/energy.md, "Contenders only"): instead of evaluating
     * config, run it back to back for measure.energy_s seconds while the energy counter is read,
     * as an evaluation's window after its timing; energy_us is its median from that evaluation
     * (validated and timed before). The result is ok with energy_only set, no samples, and the
     * energy (none when the counter did not move twice), or the failure that stopped it. */
    double energy_us;
    /* A space with device settings (gpu_clock_mhz, mem_clock_mhz, power_limit_w;
     * measure/device_settings.h): the GPU's state file, which the worker writes before it first
     * changes the GPU's settings to the config's; NULL otherwise (the config then sets nothing). */
    const char *device_state;
} eval_request;

/* What an evaluation's energy measurement found (docs/energy.md): the worker reads the board's
 * energy counter through NVML (loaded at run time) while the variant runs back to back for a
 * window, when the space's measure.energy is on and NVML answers. joules 0: not measured. */
typedef struct eval_energy {
    double joules;           /* per run of the variant (J); 0: not measured */
    double power_w;          /* the board's average power over the window (W) */
    double window_ms;        /* the window the counter was read over */
    int sm_mhz, mem_mhz;     /* clocks at the window's end (0: unknown) */
    int temp_c;              /* GPU temperature at the window's end (0: unknown) */
    long long throttle;      /* NVML's clock event reasons at the window's end; -1: unknown */
} eval_energy;

typedef struct eval_result {
    eval_status status;
    char error[1024];
    sample_stats stats;      /* valid when status == EVAL_OK */
    int n_samples;
    double *samples;         /* n_samples timings in µs, owned; eval_result_clear frees */
    int raced;               /* ok, but timing stopped early: surely slower than the best by more
                                than the race margin; error then starts with EVAL_RACED_NOTE and
                                says by how much (the database keeps that note: an ok row's
                                error is its note) */
    /* A playoff's answer: config i's timed runs, in order (owned; eval_result_clear frees). */
    int n_playoff;
    int playoff_n[EVAL_PLAYOFF_MAX];
    double *playoff_samples[EVAL_PLAYOFF_MAX];
    /* The worker's time preparing the problem (inputs and reference) for this evaluation, in
     * ms; 0 when it reused the problem prepared for the evaluation before (or has no worker:
     * replay). */
    double setup_ms;
    eval_energy energy;      /* ok evaluations with energy on (joules 0 otherwise) */
    int energy_only;         /* the answer to an energy window alone (eval_request.energy_us) */
} eval_result;

void eval_result_clear(eval_result *r);
