/* runtime_internal.h: what the files of libtunekit's run-time API share (internal to the
 * library): a kernel (struct tk_kernel), its compiled variants and its launch plans, which
 * runtime.c opens and launches; the config a launch takes and its plan (runtime_plan.c); the
 * compiling of a variant (runtime_build.c); the capture of a launch (runtime_capture.c); the
 * calling thread's error message (runtime_error.c). */
#ifndef TUNEKIT_RUNTIME_INTERNAL_H
#define TUNEKIT_RUNTIME_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include "tunekit_runtime.h"
#include "build/compiler.h"
#include "core/device.h"
#include "core/module_meta.h"
#include "core/value.h"
#include "expr/expr.h"


enum { N_DEVICE_SLOTS = 9, FIXED_DTYPE = 0, FIXED_DTYPE_SIZE, FIXED_CTYPE, FIXED_OP, FIXED_COUNT };
enum { MAX_STEPS = 16, MAX_ARGS = 64 };

typedef struct parsed_step {
    expr **templ;
    expr *grid[3], *block[3], *shared, *cluster[3];
} parsed_step;

/* A compiled variant: one per config (and device architecture). */
typedef struct variant {
    char key[65];
    int arch;                /* cc major * 10 + minor */
    char *config;
    cudaLibrary_t lib;
    cudaKernel_t fn[MAX_STEPS];
    char *symbol[MAX_ARGS];            /* per argument: the lowered name of the variable it
                                          fills, or NULL */
    struct variant *next;
} variant;

/* A tuner started on a problem (runtime_tune.c), shared by its plan and the thread waiting
 * for it; freed by the last of them. */
typedef struct tune_job {
    int refs;                /* atomic */
    int done;                /* atomic: the tuner has ended; config then holds its winner */
    char config[1024];       /* ... or "" when the database has none */
    int pid;
    const tk_kernel_desc *d;
    int dt;
    long long *problem;
    char device[256];
    char tune_dir[PATH_MAX];
    char lock[PATH_MAX];     /* the lock file the tuner holds while it runs */
} tune_job;

enum { TUNE_NONE, TUNE_WANTED, TUNE_STARTED };

/* What a launch of one (device, dtype, problem) does. */
typedef struct plan {
    int device, dtype;
    long long *problem;
    variant *v;
    dim3 grid[MAX_STEPS], block[MAX_STEPS];
    size_t shared[MAX_STEPS];
    dim3 cluster[MAX_STEPS];           /* blocks per cluster; x 0: no clusters */
    void *var[MAX_ARGS];     /* per argument that fills a variable: its address on the device */
    size_t var_bytes[MAX_ARGS];        /* ... and how many bytes the launch copies there */
    long long count[MAX_ARGS];         /* per buffer: its elements (-1: not known) */
    int captured;            /* capture on: its launch was captured (or is being) */
    int tune;                /* TUNE_*: whether its first launch starts a tuner */
    tune_job *job;           /* the tuner started, or NULL */
    int replaced;            /* a plan of the tuner's winner has replaced it in the table */
    struct plan *next;       /* hash chain */
} plan;

struct tk_kernel {
    const tk_kernel_desc *d;
    int n_slots;
    expr **define_values;    /* NULL entries: a macro without a value */
    expr **define_conds;     /* NULL entries (or all): always */
    parsed_step *steps;
    expr **counts;           /* per argument: a buffer's count, NULL for scalars */
    pthread_mutex_t mu;
    plan *table[256];        /* plans by hash */
    variant *variants;
    compiler *nvrtc;         /* opened on the first compilation */
    compiler_info cc_info;
    int cc_info_arch;        /* the architecture cc_info was probed for, 0: none yet */
    char *capture_dir;       /* capture on (absolute), else NULL */
    long long capture_max;   /* its limit in bytes */
    char tune_dir[PATH_MAX]; /* where winners tuned on this machine are (runtime_tune.c) */
    int tune_on;             /* a launch on a device the table does not know starts a tuner */
    double tune_seconds;     /* its budget per problem */
};

/* Sets the calling thread's message (tk_kernel_error) and returns st (runtime_error.c). */
tk_status rt_fail(tk_status st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Empties it: a call that succeeds leaves no stale message. */
void rt_clear_error(void);

/* ---- compiling (runtime_build.c) ---- */

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

/* A config's compilation for an architecture: its lists, and its cubin from the cache or
 * compiled now (and stored there). */
typedef struct compiled {
    compile_lists c;
    char key[65];
    void *cubin;
    size_t cubin_n;
    module_meta meta;
} compiled;

void rt_variant_free(variant *v, const tk_kernel_desc *d);
/* The compilation of the config whose slots are given. k->mu held. 0, or -1 with the error said
 * (*st); x is cleared by rt_compiled_clear either way. */
int rt_compile(tk_kernel *k, int arch, const value *slots, compiled *x, tk_status *st);
void rt_compiled_clear(compiled *x);
/* The variant of a config for an architecture: compiled (or found in the cache), loaded once.
 * k->mu held. NULL with the error said (*st). */
variant *rt_get_variant(tk_kernel *k, const char *config, int arch, const value *slots,
                        tk_status *st);

/* ---- capture (runtime_capture.c) ---- */

/* One launch to capture. */
typedef struct capture_job {
    const tk_kernel_desc *d;
    int dt;                        /* index into d->dtypes */
    const long long *problem;      /* d->n_fields values */
    const long long *count;        /* per argument: a buffer's elements, -1 when unknown */
    const char *config;            /* the config the launch runs ("a=1,b=2") */
    void **args;                   /* as the launch's */
    int on_device;                 /* 1: buffers' entries hold device pointers (variables' host
                                      pointers), read on stream; 0: every buffer's entry is the
                                      address of a host pointer */
    cudaStream_t stream;
    const char *const *start;      /* tuning at run time: the search's start configs, */
    int n_start;                   /* written as search.start (0: no search section) */
    double budget_seconds;         /* ... and its budget */
} capture_job;

/* Writes the capture of j under dir/<family>.<op>/<dtype>-<field>=<value>...: the inputs and
 * space.yaml, or one file SKIPPED (over max_bytes) or FAILED saying why. The folder appears
 * whole (written beside it, then renamed); one that exists already is left as it is. 0 when
 * the capture is there (or was there before); 1 when a note was written instead, err saying
 * it; -1 with err when not even a note could be written. */
int capture_write(const char *dir, long long max_bytes, const capture_job *j, char *err,
                  size_t len);

/* The folder capture_write writes j's problem into: dir/<family>.<op>/<dtype>-<field>=<v>...
 * 0, or -1 when the path is too long. */
int capture_folder(const char *dir, const tk_kernel_desc *d, int dt, const long long *problem,
                   char *out, size_t len);

/* Whether $TUNEKIT_CAPTURE's list ("all", or "family.op" and "op" items, comma-separated)
 * names d. */
int capture_listed(const tk_kernel_desc *d, const char *list);

/* ---- tuning at run time (runtime_tune.c) ---- */

/* The tune folder: $TUNEKIT_TUNE_DIR, else "online" beside the compile cache. */
void rt_tune_dir(char *out, size_t len);
/* The winner that the tune folder's database holds for this kernel, device (by name), dtype and
 * exact problem, into config[len]: 1, or 0 when there is none (no database, no SQLite). */
int rt_online_winner(const char *tune_dir, const tk_kernel_desc *d, const char *device, int dt,
                     const long long *problem, char *config, size_t len);
/* Captures the launch's problem into the tune folder with a search of its own, starting from
 * start[0..n_start), and starts a tuner on it in a process of its own (docs/runtime.md); dev is
 * the launch's device (ordinal device). k->mu not held. The job, or NULL when none was started
 * (a note in the tune folder says why, where it can). */
tune_job *rt_tune_begin(tk_kernel *k, const device_info *dev, int device, int dt,
                        const long long *problem, const long long *count, const char *config,
                        const char *const *start, int n_start, void **args, cudaStream_t stream);
void rt_tune_job_release(tune_job *j);

/* Bytes of an element type ("f32" 4, "bf16" 2, "u8" 1), 0 when unknown. */
size_t rt_type_size(const char *t);


/* ---- runtime_plan.c: the config a launch takes, and its plan ---- */

/* The device attributes an expression may read, in slot order (as space_enum.c's). */
extern const char *const rt_device_slot_names[N_DEVICE_SLOTS];
/* The index of dtype among the descriptor's dtypes, or -1. */
int rt_dtype_index(const tk_kernel_desc *d, const char *dtype);
/* The entry for a device and a problem in dtype, or NULL when the table has none. */
const tk_kernel_entry *rt_lookup(const tk_kernel_desc *d, const char *device, int cc_major,
                                 int cc_minor, int sm_count, const char *dtype,
                                 const long long *problem);
/* The slots of a config (its canonical text), a problem, a dtype and a device. */
int rt_fill_slots(const tk_kernel *k, const char *config, const long long *problem, int dt,
                  const device_info *dev, value *slots);
/* String parameter values in slots point into the config text up to its next ','; the copies
 * here end at that comma. strings: n_params buffers of 128 bytes. */
void rt_cut_strings(const tk_kernel_desc *d, value *slots, char (*strings)[128]);
/* The plan table's hash of (device, dtype, problem). */
unsigned rt_plan_hash(int device, int dt, const long long *problem, int n);
/* The config text a device gets for a dtype and problem: the table's, when it has entries of
 * the device (by name); else the winner tuned on this machine for the exact problem
 * (runtime_tune.c, copied into buf[len]); else the table's nearest. *known: whether the
 * device's own entries or a tuned winner gave it (else a launch may start a tuner). */
const char *rt_config_for(const tk_kernel *k, const device_info *dev, int dt,
                          const long long *problem, char *buf, size_t len, int *known);
/* Every buffer's element count in slots, -1 where it cannot be evaluated (the error is then
 * not the caller's: last_error is left as it was). */
void rt_buffer_counts(const tk_kernel *k, const value *slots, long long *count);
/* The plan of (device, dtype, problem) in the table (the newest, when a tuner's winner has
 * replaced one), or NULL. k->mu held. */
plan *rt_find_plan(const tk_kernel *k, unsigned h, int device, int dt,
                   const long long *problem);
/* Builds the plan of (device, dtype, problem): of the config given, else the one rt_config_for
 * gives. k->mu held. */
plan *rt_make_plan(tk_kernel *k, int device, int dt, const long long *problem,
                   const char *given, tk_status *st);
/* The table's winners of dtype, nearest to the device and problem first (as rt_lookup ranks
 * them), without repeats, then the default config: where the tuner starts. */
int rt_start_configs(const tk_kernel_desc *d, const device_info *dev, int dt,
                     const long long *problem, const char **out, int max);

#endif
