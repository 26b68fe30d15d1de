/* runtime_internal.h: what the files of libtunekit's run-time API share (internal to the
 * library): a kernel (struct tk_kernel), its compiled variants and its launch plans, which
 * runtime.c opens and launches; the compiling of a variant (runtime_build.c); the capture of a
 * launch (runtime_capture.c); the calling thread's error message (runtime_error.c). */
#ifndef TUNEKIT_RUNTIME_INTERNAL_H
#define TUNEKIT_RUNTIME_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include "tunekit_runtime.h"
#include "build/compiler.h"
#include "core/module_meta.h"
#include "core/value.h"
#include "expr/expr.h"


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
    long long count[MAX_ARGS];         /* per buffer: its elements (-1: not known) */
    int captured;            /* capture on: its launch was captured (or is being) */
    struct plan *next;       /* hash chain */
} plan;

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
    char *capture_dir;       /* capture on (absolute), else NULL */
    long long capture_max;   /* its limit in bytes */
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
} capture_job;

/* Writes the capture of j under dir/<family>.<op>/<dtype>-<field>=<value>...: the inputs and
 * space.yaml, or one file SKIPPED (over max_bytes) or FAILED saying why. The folder appears
 * whole (written beside it, then renamed); one that exists already is left as it is. 0 when
 * the capture is there (or was there before); 1 when a note was written instead, err saying
 * it; -1 with err when not even a note could be written. */
int capture_write(const char *dir, long long max_bytes, const capture_job *j, char *err,
                  size_t len);

/* Whether $TUNEKIT_CAPTURE's list ("all", or "family.op" and "op" items, comma-separated)
 * names d. */
int capture_listed(const tk_kernel_desc *d, const char *list);

/* Bytes of an element type ("f32" 4, "bf16" 2, "u8" 1), 0 when unknown. */
size_t rt_type_size(const char *t);

#endif
