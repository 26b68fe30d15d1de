/* run.h: `tuner run`: load a space, open a backend and the database, and for every op, dtype and
 * problem let the strategy propose configs within the budget, evaluating and storing each (one
 * transaction per evaluation), skipping what the database already holds for this device,
 * problem, config and kernel source (resume). Variants come from a variant builder
 * (tuner/build/variant.h): a user kernel's are compiled ahead of the GPU. */
#pragma once
#include <stdint.h>
#include <stdio.h>

typedef struct run_options {
    const char *space_path;
    const char *db_path;          /* default "tunekit.db" */
    /* The devices: one backend spec each ("cuda:2", "replay:x.sql"); none: "cuda". Their
     * models each tune every task; devices of one model share the model's tasks. */
    const char *const *backends;
    int n_backends;
    const char *strategy;         /* NULL: the space's */
    int64_t budget_evals;         /* < 0: the space's */
    double budget_seconds;        /* < 0: the space's */
    int64_t seed;                 /* < 0: the space's */
    int progress;                 /* 1: progress line with ETA on stderr (a terminal) */
    FILE *out;                    /* summary; NULL: quiet */
    int warm_start;               /* 1: each problem starts from the winners recorded for other
                                     GPUs in the database (nearest compute capability first) */
    int jobs;                     /* user kernels: compiler processes at most (<= 0: cores) */
    const char *cache_dir;        /* user kernels: compile cache (NULL: cache.h's cache_dir) */
    const char *compiler;         /* user kernels: overrides kernel.compiler (NULL: the space's) */
    int shard_k, shard_n;         /* tune only shard k of n (1-based; n = 0: everything) */
    /* Where other GPUs' results come from for the transfer search (docs/time-to-tune.md):
     * these dumps or databases; none: the dumps in db/results/ when the backend runs kernels. */
    const char *const *transfer_from;
    int n_transfer_from;
    double race;                  /* racing's margin (docs/time-to-tune.md); < 0: the space's
                                     measure.race, 0: no racing and no playoff */
    int objective;                /* what the search minimises (core/objective.h); < 0: the
                                     space's search.objective */
} run_options;

/* The backend specs --devices stands for: "all" (every GPU the first worker sees), or a list of
 * ordinals "0,2,3", each as "cuda:N". *specs is malloc'd (each string too); -1 with err on a
 * bad list. count_all: how many devices "all" means (asked by the caller, who may start a
 * worker). */
int run_devices_specs(const char *devices, int count_all, char ***specs, int *n, char *err,
                      size_t len);
/* Parses "K/N" (1 <= K <= N). 0 or -1. */
int run_parse_shard(const char *text, int *k, int *n);

typedef struct run_device_summary {
    char spec[64];
    char name[256];
    int64_t evaluated;
    double busy_s;
    int failed;                   /* 1: its backend failed; its task went back to the queue */
    char why[512];
} run_device_summary;

typedef struct run_summary {
    int64_t evaluated, resumed, unrecorded, skipped_budget;
    int64_t by_status[16];
    int n_tasks;                  /* tasks (op, dtype, problem) this run (or shard) tunes */
    int n_devices;
    run_device_summary devices[64];
    double wall_s;                /* the whole run */
    double backend_s;             /* inside the backend: preparing problems, measuring */
    double start_s;               /* before the first task: backends, compilers, copy ceiling */
    double compile_wait_s;        /* the run loop waiting for a variant's compilation */
    double store_s;               /* writing evaluations to the database */
    int user_kernel;              /* 1: a user kernel was compiled for this run */
    int64_t compiled, compile_failed, compile_cached;
    double compile_cpu_s;         /* the compiler processes' CPU time */
    char strategy[32];            /* the strategy the run used */
    char transfer_from[512];      /* transfer: where the other GPUs' results came from */
    int64_t configs;              /* configs the constraints allow, summed over the tasks */
    int jobs;                     /* compiler processes at most */
    double race_margin;           /* racing's margin (0: off) */
    int64_t raced;                /* evaluations racing stopped early */
    int64_t playoffs;             /* problems whose contenders played off */
    int64_t playoff_changed;      /* ... where the playoff's winner is not the fastest median */
    /* The workers' preparations of problems (inputs and reference, eval_result.setup_ms):
     * how many, the median and the longest, in ms (0 when none: replay). */
    int64_t setup_n;
    double setup_median_ms, setup_max_ms;
    int objective;                /* what the search minimised (core/objective.h) */
    double energy_s;              /* the energy window (0: energy not measured) */
    int64_t with_energy;          /* ok evaluations that came back with their energy */
    int64_t without_energy;       /* ... and without (no NVML, or a window the counter did not
                                     move in twice) */
    int energy_top;               /* an energy or edp search: contenders per problem at most
                                     (0: every config measured, measure.energy_top all) */
    double energy_within;         /* ... within this fraction of the problem's best time */
    int64_t energy_windows;       /* energy windows taken */
    double energy_window_s;       /* their length, summed (s) */
    int64_t energy_problems;      /* problems with at least one */
} run_summary;

/* Exit-style result: 0 done, 1 runtime failure (err), 2 bad input (err; nothing written). */
int run_space(const run_options *o, run_summary *sum, char *err, size_t len);

/* `tuner retime` (run_retime.c): the winners of two inputs (databases or dumps) of one GPU
 * model re-timed side by side on the backend's device, each problem's pair in one playoff. */
typedef struct retime_options {
    const char *space_path;
    const char *a, *b;            /* the inputs: a's winners are judged against b's */
    const char *backend;          /* NULL: "cuda" */
    FILE *out;                    /* the per-problem table or CSV; NULL: quiet */
    int csv;
    int repeat;                   /* readings per pair, each in a new backend (0: 1) */
    int rounds;                   /* rounds per reading (0: RETIME_ROUNDS) */
    const char *cache_dir;        /* user kernels: the compile cache (NULL: cache.h's cache_dir) */
} retime_options;
#define RETIME_REPEAT_MAX 20
/* A reading of a pair is this many interleaved rounds (or RETIME_MAX_SECONDS of GPU time per
 * config), not the space's measure settings: a pair re-timed both ways with the space's
 * settings (at most 100 rounds, stopped when each median's interval is within 1%) disagreed
 * with itself by more than 1% in 84 of 206 pairs on an H100; with 500 rounds in 24
 * (docs/time-to-tune.md). */
#define RETIME_ROUNDS 500
#define RETIME_ROUNDS_MAX 100000
#define RETIME_MAX_SECONDS 2.0
typedef struct retime_summary {
    int problems;                 /* the space's problems */
    int missing;                  /* ... without a winner in one of the inputs */
    int same;                     /* ... where both chose the same config (regret 0) */
    int timed;                    /* ... re-timed side by side */
    int failed;                   /* ... whose playoff failed */
    int within1, within2;         /* regret <= 1%, <= 2% (same config included) */
    double median, p90, max;      /* of the regrets, same config included */
} retime_summary;
/* 0 done, 1 runtime failure (err), 2 bad input (err). */
int run_retime(const retime_options *o, retime_summary *sum, char *err, size_t len);
