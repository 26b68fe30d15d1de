/* tunekit_runtime.h: launching a kernel of your own with its tuned config, from C (docs/runtime.md).
 *
 * `tuner header --space SPACE` writes a header holding the kernel's descriptor: its source (and
 * the local files it includes), the function(s), the template and define expressions, the
 * arguments, the launch geometry as expressions, and the table of winners per GPU and problem.
 * Include this header before that one and the descriptor is defined; then
 *
 *     tk_kernel *k;
 *     if (tk_kernel_open(&k, &vector_saxpy_desc) != TK_OK) ... tk_kernel_error() says why
 *     void *args[] = { &y, &x, &a, &n };
 *     tk_kernel_launch(k, (const long long[]){ n }, args, stream);
 *
 * The library picks the config for the GPU the calling thread has current and the problem (as
 * the header's own lookup does: the device by name, else the same compute capability with the
 * nearest SM count, else the nearest compute capability; the problem nearest on a log scale),
 * compiles it with NVRTC (loaded at run time) into the same on-disk cubin cache as the tuner
 * (a variant the tuner compiled is found there, and the other way round), loads it once
 * (context-independent, so every device and context uses it), evaluates the grid, block and
 * shared memory with the tuner's own expression evaluator, and launches. The expressions and
 * the compilation are done once per (device, dtype, problem); a launch after that is a table
 * lookup and cudaLaunchKernel.
 *
 * Errors are tk_status values; tk_kernel_error() gives the calling thread's last message.
 * Nothing aborts or prints. Every function is thread-safe; a kernel may be launched from several
 * threads and on several devices at once. It works in programs that use the runtime API or the
 * driver API (the launch goes to the current context). */
#pragma once
#include <cuda_runtime_api.h>
#include "tunekit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Defined here so that a generated header, included after this one, defines its descriptor. */
#define TUNEKIT_RUNTIME_H 1
/* The descriptor layout this library reads; a generated header says which one it wrote. */
#define TK_KERNEL_DESC_ABI 5

/* ---- the descriptor (what `tuner header --space` writes) ---- */

typedef struct tk_kernel_file {
    const char *name;        /* [0]: the source's path as the tuner compiled it; the others: the
                                name a file includes them by (relative to the directory they
                                were found in) */
    const char *text;
    unsigned long len;
} tk_kernel_file;

typedef struct tk_kernel_arg {
    const char *name;
    int is_buffer;           /* 1: a buffer (a device pointer, or a variable's contents) */
    const char *type;        /* "f32", "i64", ..., "dtype" (the launch's dtype), "struct" (a
                                struct passed by value, which args[] points at), "pointer" (a
                                device pointer: a buffer passed again, or null), "texture" (a
                                cudaTextureObject_t of the program's, which args[] points at) or
                                "tensor_map" (a CUtensorMap of the program's, likewise) */
    const char *count;       /* buffers: how many elements, an expression */
    const char *symbol;      /* a module variable the buffer's contents fill (its args[] entry
                                is then a host pointer to count elements), or NULL */
    int output;              /* the kernel writes it (the tuner validates it) */
    int input;               /* the kernel reads its contents (not a pure output): a capture
                                keeps them */
} tk_kernel_arg;

typedef struct tk_kernel_step {        /* one launch of the kernel (a pipeline has several) */
    const char *function;
    int n_template;
    const char *const *templ;          /* expressions */
    int grid_dims, block_dims;
    const char *grid[3], *block[3];    /* expressions */
    const char *shared;                /* dynamic shared memory, an expression; NULL: 0 */
    int n_args;
    const int *args;                   /* indices into the descriptor's args, in parameter order */
    int cluster_dims;                  /* thread block clusters: 0 none, else 1 to 3 */
    const char *cluster[3];            /* blocks per cluster, expressions */
    int cooperative;                   /* a cooperative launch (the grid synchronises) */
} tk_kernel_step;

typedef struct tk_kernel_param {
    const char *name;
    int is_string;           /* its values are names, not integers */
} tk_kernel_param;

typedef struct tk_kernel_dtype {
    const char *name;        /* "f32" */
    const char *ctype;       /* "float" */
    int size;                /* bytes */
} tk_kernel_dtype;

typedef struct tk_kernel_entry {       /* a winner */
    const char *device;                /* cudaDeviceProp.name */
    int cc_major, cc_minor, sm_count;
    const char *dtype;
    const long long *problem;          /* the problem's fields, in the descriptor's order */
    const char *config;                /* canonical text: "block_size=256,items=4" */
    double median_us;
} tk_kernel_entry;

typedef struct tk_kernel_desc {
    int abi;                           /* TK_KERNEL_DESC_ABI */
    const char *family, *op;           /* results are stored under family.op */
    const char *kernel_hash;           /* the tuner's identity of the kernel */
    const char *space_path;            /* the space file, absolute: a capture's base */
    int reference_files;               /* the space's reference is files (of its own problems
                                          only): a capture's reference is the launched config */
    int n_files;
    const tk_kernel_file *files;
    const char *source_dir;            /* absolute: -I for the compile (as the tuner's) */
    int n_include_dirs;
    const char *const *include_dirs;   /* absolute */
    int n_options;
    const char *const *options;        /* the space's kernel.options */
    int n_defines;
    const char *const *define_names;
    const char *const *define_values;  /* expressions; NULL: a macro without a value (-D NAME) */
    int n_fields;
    const char *const *fields;         /* the problem's fields, in order */
    int n_params;
    const tk_kernel_param *params;
    int n_dtypes;
    const tk_kernel_dtype *dtypes;     /* [0] is the default dtype */
    int n_args;
    const tk_kernel_arg *args;         /* in the space's order: what args[] of a launch holds */
    int n_steps;
    const tk_kernel_step *steps;
    const char *default_config;        /* where the table has no entry for the dtype: the
                                          space's reference config (or every first value) */
    int n_entries;
    const tk_kernel_entry *entries;
    const char *arch_suffix;           /* the space's kernel.arch_suffix: "a" (sm_90a), "f"
                                          (sm_100f) or "" */
    /* ABI 5 and later (a descriptor of ABI 4 ends above) */
    const char *const *define_conds;   /* per define, an expression: the macro is passed only
                                          where it is not 0 (`{ if: COND }`); NULL: always */
} tk_kernel_desc;

/* ---- the calls ---- */

typedef struct tk_kernel tk_kernel;

/* Reads the descriptor (its expressions parsed and checked once). *out is freed by
 * tk_kernel_close. TK_ERR_INVALID_ARGUMENT when the descriptor is malformed or of another ABI. */
tk_status tk_kernel_open(tk_kernel **out, const tk_kernel_desc *desc);
void tk_kernel_close(tk_kernel *k);

/* Launches the kernel (every step of a pipeline, in order) on stream for problem (one value
 * per field) in the descriptor's first dtype / in dtype, on the current device. args holds one
 * pointer per descriptor argument, in its order, as cudaLaunchKernel takes them: the address of
 * a device pointer for a buffer, of the value for a scalar; for a buffer that fills a variable,
 * the address of a host pointer to its count elements (copied to the variable on stream).
 * TK_ERR_INVALID_ARGUMENT for a bad problem or dtype; TK_ERR_UNSUPPORTED_CONFIG when the chosen
 * config cannot run on this GPU; TK_ERR_CUDA when NVRTC is missing or refuses the variant, or a
 * CUDA call fails; TK_ERR_LAUNCH when the launch itself is refused. */
tk_status tk_kernel_launch(tk_kernel *k, const long long *problem, void **args,
                           cudaStream_t stream);
tk_status tk_kernel_launch_dtype(tk_kernel *k, const char *dtype, const long long *problem,
                                 void **args, cudaStream_t stream);

/* Without a GPU: the config the table gives a device (its name, compute capability and SM
 * count) for dtype and problem, into config[len], compiled into the cache now (so that a
 * deployment's first launch finds it). TK_OK, or an error as for the launch. */
tk_status tk_kernel_prepare(tk_kernel *k, const char *device, int cc_major, int cc_minor,
                            int sm_count, const char *dtype, const long long *problem,
                            char *config, size_t len);

/* Capture (docs/runtime.md): from now on, the first launch of each (dtype, problem) in this
 * process also writes, under dir/<family>.<op>/<dtype>-<field=value...>/, the contents of every
 * argument the kernel reads (read back after the stream has done the work queued before it, and
 * before the launch) and a space file, space.yaml, that `tuner run` takes as it is: the kernel's
 * own space as its base, the captured problem, and the captured contents as its inputs. A
 * problem whose inputs exceed max_bytes (<= 0: 1 GiB) is not captured (a file SKIPPED says
 * why). The launch's results are unchanged; a capture that fails never fails the launch (a file
 * FAILED says why). dir NULL turns capture off. Also turned on for the ops listed in
 * $TUNEKIT_CAPTURE ("family.op" or "op", comma-separated, or "all") at tk_kernel_open, into
 * $TUNEKIT_CAPTURE_DIR (default ./tunekit-capture), limited by $TUNEKIT_CAPTURE_MAX_BYTES. */
tk_status tk_kernel_capture(tk_kernel *k, const char *dir, long long max_bytes);
/* Writes a capture into dir now, from the inputs on the host: args as for a launch, but every
 * buffer's entry the address of a host pointer to its contents (counts evaluated at the default
 * config; limited as launches are while capture is on). For a program that keeps its inputs on
 * the host, or a test; needs no GPU. TK_OK when
 * the capture is there (one there before is kept); TK_ERR_INVALID_ARGUMENT with the reason when
 * it cannot be written (a FAILED file in its folder says it too). */
tk_status tk_kernel_capture_host(tk_kernel *k, const char *dir, const char *dtype,
                                 const long long *problem, void **args);

/* Tuning at run time (docs/runtime.md): a launch on a GPU the table has no entry of (for the
 * launch's dtype) takes the winner tuned on this machine before, for its exact problem, from
 * the tune folder's database (dir/results.db; SQLite is loaded at run time), whether tuning is
 * on or not. With on, a launch that finds none there starts tuning that problem: its inputs
 * are captured into dir (as tk_kernel_capture does) with a transfer search starting from the
 * table's winners nearest to this GPU, and `tuner run` tunes it in a process of its own (a
 * variant that faults, hangs or computes wrong results is the tuner's to isolate), within
 * seconds (<= 0: 60) of search; its output goes to tune.log in the capture's folder. Meanwhile
 * the launch uses the table's nearest config; once the tuner has ended, the next launch of the
 * problem uses its winner. One tuner per problem at a time, across processes. The tuner
 * started is $TUNEKIT_TUNER, else the one of this build or install, else `tuner` on the PATH.
 * dir NULL: $TUNEKIT_TUNE_DIR, else "online" beside the compile cache (~/.cache/tunekit/online).
 * Also turned on at tk_kernel_open by $TUNEKIT_TUNE=1 (budget $TUNEKIT_TUNE_SECONDS).
 * `tuner db merge dir/results.db` brings the winners into a project's results. */
tk_status tk_kernel_tune(tk_kernel *k, int on, const char *dir, double seconds);

/* The config the current device runs for dtype (NULL: the first) and problem: the one its
 * launches use now, or the one its first launch will take. *tuning (may be NULL): 1 while a
 * tuner started by this process works on the problem. */
tk_status tk_kernel_config(tk_kernel *k, const char *dtype, const long long *problem,
                           char *config, size_t len, int *tuning);

/* The calling thread's last error message ("" when none). Valid until its next call. */
const char *tk_kernel_error(void);

#ifdef __cplusplus
}
#endif
