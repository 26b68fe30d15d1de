/* run_state.h: what the run loop's files share and nothing else includes: the tasks, the device
 * models with their queues, the state every device's loop shares and each device's own (run.c
 * sets up and drives; run_task.c tunes one problem on one device; run_eval.c is the one step that
 * sends a request to a device's backend; run_energy.c measures an energy search's contenders;
 * run_plan.c orders and shards the work; run_fault.c is the test hook that fails a device). */
#pragma once
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include "backend/backend.h"
#include "db/db.h"
#include "run.h"
#include "search/strategy.h"
#include "space/space.h"
#include "build/variant.h"

/* One unit of work: an op, a dtype and a problem of the space (indices), and what it should
 * cost to tune (run_plan_cost). */
typedef struct run_task {
    int op, dtype, prob;
    double cost;
} run_task;

/* The tasks of one device model (name, compute capability, SM count): the devices of a model
 * share its queue; different models each tune every task. */
typedef struct run_model {
    char name[256];
    int cc_major, cc_minor, sm_count;
    int *order;              /* task indices in the order they are handed out */
    int n, next;
    int *returned;           /* tasks a failed device gave back, handed out first */
    int n_returned;
    int alive;               /* devices of this model still working */
    int in_flight;           /* tasks its devices are tuning now: until none is, an idle device
                                waits, since a failing device gives its task back */
    variant_builder *builder; /* how this model's variants come to exist (build/variant.h) */
} run_model;

/* What every device's loop shares; the fields below mu are under it. */
typedef struct run_shared {
    const run_options *o;
    space *sp;
    const strategy_vtable *svt;
    const char *strategy_name;
    int objective;           /* what the search minimises (core/objective.h) */
    int device_settings;     /* the space tunes the GPU's clocks or power limit: no playoff */
    double energy_window_s;  /* > 0: an energy or edp search measures energy for each problem's
                                contenders only, over windows this long (run_energy.c); the
                                search itself then runs on time */
    int64_t budget_evals;
    double budget_seconds;
    uint64_t seed;
    const char *hash;
    char space_abs[PATH_MAX];
    db *transfer;            /* other GPUs' results the transfer search starts from, or NULL */
    run_task *tasks;
    int n_tasks;
    run_model *models;
    int n_models;
    double t0;
    pthread_mutex_t mu;
    pthread_cond_t changed;  /* broadcast when a task ends or comes back, or the run stops */
    run_summary *sum;
    int64_t planned, done;
    double *setup_ms;        /* every preparation's time the workers reported (run_note_setup) */
    int64_t n_setup, cap_setup;
    int stop;                /* a fatal error: every device stops */
    int rc;
    char err[2048];
} run_shared;

/* One device: its backend, its own database connection and run. */
typedef struct run_device {
    run_shared *s;
    int index;
    char spec[512];
    backend *be;
    device_info dev;
    int model;
    db *d;
    int64_t device_id, run_id;
    double copy_gbps;
    int64_t seq;
    int64_t evaluated;       /* this device's new evaluations */
    double busy_s;           /* its time in the backend */
    double wait_s;           /* its time waiting for compilations */
    double store_s;          /* its time writing evaluations */
    int fail_after;          /* test hook: the backend "fails" after this many (-1: never) */
    int fail_last;           /* ... and only once every other task of its model is done */
    char current[512];       /* what it tunes now, for the progress line */
    char device_state[PATH_MAX]; /* its GPU settings' state file (device settings), or "" */
    pthread_t thread;
} run_device;

/* run_fault.c, the test hook TUNEKIT_TEST_FAIL_DEVICE=I:N[:last]: run_fault_init sets dv's
 * fail_after and fail_last from it (dv->index set); run_fault_now returns 1, with why in err, when
 * dv's backend is to fail before its next evaluation (evaluated + pending have reached N; with
 * last, once every other task of its model is done), else 0. */
void run_fault_init(run_device *dv);
int run_fault_now(run_device *dv, int64_t pending, char *err, size_t len);

/* Tunes one task on one device (the strategy, the budget, resume, compile, evaluate, store).
 * Returns 0; 1 when the device's backend failed (dv->s->err untouched, why in err: the task
 * goes back to the queue); -1 on a fatal error (err: the run stops). */
int run_task_tune(run_device *dv, const run_task *t, char *err, size_t len);

/* The tasks of a space in space order (op, dtype, problem), with their costs for dev. */
int run_plan_tasks(const run_shared *s, const device_info *dev, run_task **out, int *n,
                   char *err, size_t len);
/* Keeps the tasks of shard k (1-based) of n: the tasks are dealt, most costly first, each to the
 * shard with the least cost so far (the lower shard on a tie), so the shards are balanced by
 * cost and every shard computes the same split. The kept tasks stay in space order. */
int run_plan_shard(run_task *tasks, int *n, int k, int shards);
/* Task indices by cost, most costly first (ties in space order): the queue order that keeps
 * several devices busy to the end. */
void run_plan_by_cost(const run_task *tasks, int n, int *order);

/* An energy or edp search's contenders of a problem (run_energy.c, docs/energy.md), after its
 * search and playoff: each without energy gets an energy window, stored on its evaluation; the
 * winner under the objective among those with energy becomes best_config, *best_us and *best_j
 * (unchanged, *best_j 0, when none has energy). best_config holds the time winner on entry,
 * which is always a contender. note says what failed, if anything did. 0, 1 when the device
 * failed (its task goes back), -1 on a fatal error. */
int run_task_energy(run_device *dv, const space_binding *bind, const vb_task *task,
                    int64_t problem_id, char *best_config, size_t best_len, double *best_us,
                    double *best_j, char *note, size_t note_len, char *err, size_t len);

/* run_eval.c: the run's clock (seconds, monotonic). */
double run_now_s(void);
/* Keeps a worker's preparation time of an evaluation (res->setup_ms, when it has one) for the
 * summary's set-up line. Takes s->mu. */
void run_note_setup(run_shared *s, const eval_result *res);
/* One request to dv's backend: its time added to dv->busy_s (and given in *took_s when not
 * NULL), the preparation time noted. 0, or -1 when the device failed (err says why). */
int run_evaluate(run_device *dv, const eval_request *req, eval_result *res, double *took_s,
                 char *err, size_t len);
