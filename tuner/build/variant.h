/* variant.h: the one seam between the run loop and how a variant comes to exist. The run loop
 * asks for a variant; it never builds one. A built-in family answers "ready" at once (its code
 * is in the library); a user kernel answers from the compile pool (variant_user.c): ready with
 * its compiled module, refused by the compiler (with the log), or unsupported on this device
 * (its geometry exceeds the device's limits: recorded without compiling or running; or its
 * block exceeds the compiled kernel's __launch_bounds__: recorded without running). The run
 * loop, racing, playoffs, `tuner compile` and `tuner retime` take one path for both.
 *
 * A task (a binding: op, dtype, problem) begins with vb_begin_task, which compiles ahead what
 * the search will ask for and the modules every evaluation of the task shares (the reference,
 * the check kernels), and gives what the worker needs to find them. */
#pragma once
#include <stddef.h>
#include <stdint.h>
#include "core/device.h"
#include "core/eval.h"
#include "space/space.h"

typedef enum vb_state { VB_READY, VB_REFUSED, VB_UNSUPPORTED } vb_state;

typedef struct vb_variant {
    vb_state state;
    char why[4096];          /* VB_REFUSED: the compiler's log; VB_UNSUPPORTED: which limit */
    const char *module;      /* VB_READY: the compiled variant (a cubin in the compile cache),
                                NULL for a built-in family or when nothing runs (replay) */
} vb_variant;

/* What every evaluation of a task shares. */
typedef struct vb_task {
    const char *space_path;  /* user kernels: the space file the worker loads; else NULL */
    const char *ref_module;  /* the compiled reference kernel, or NULL */
    char *checks;            /* the check kernels' cubins, one per line in the order of the
                                outputs that have one; NULL when none (owned: vb_task_clear) */
} vb_task;
void vb_task_clear(vb_task *t);

typedef struct vb_stats {
    int compiles;            /* 1 when the builder compiles (a user kernel on a GPU) */
    int64_t compiled, failed, cached;
    double cpu_s;
    int jobs;
} vb_stats;

typedef struct vb_options {
    const char *cache_dir;   /* NULL: the default (cache.h's cache_dir) */
    int jobs;                /* compiler processes; <= 0: one per core */
    const char *compiler;    /* overrides the space's kernel.compiler; NULL: the space's */
    int modules;             /* 1: the backend runs kernels, so user kernels are compiled;
                                0: it does not (replay): nothing is compiled */
    const char *space_path;  /* the space file as the worker opens it (absolute) */
    int quiet_precheck;      /* 1: skip compiling the first problem's variants at open */
} vb_options;

typedef struct variant_builder variant_builder;
typedef struct vb_vtable {
    int (*begin_task)(variant_builder *b, const space_binding *bind, int ahead, vb_task *task,
                      char *err, size_t len);
    int (*variant)(variant_builder *b, const space_binding *bind, const int *choice,
                   vb_variant *out, char *err, size_t len);
    void (*stats)(const variant_builder *b, vb_stats *out);
    void (*close)(variant_builder *b);
} vb_vtable;
struct variant_builder {
    const vb_vtable *vt;
};

/* The builder for sp on dev: for a built-in family, the one that answers ready; for a user
 * kernel, the compiling one. A user kernel's builder with o->modules finds the compiler (a
 * clear error when it is missing or cannot target dev), starts the pool, and before anything is
 * measured compiles the first problem's variants until one compiles (stopping after
 * VB_SAME_ERROR_STOP that fail with the same first error line, with that error), checks each
 * launch's arguments against its kernel's parameters (count and sizes; for every dtype, on the
 * first variant of each that compiles) and the buffers that fill module variables against the
 * variables' sizes in the cubin (again for every variant and reference built later), and
 * compiles the
 * reference and check kernels of the first problem. 0, or -1 with err ("path:line:col: error:
 * ..." for what the space must fix). */
int variant_builder_open(const space *sp, const device_info *dev, const vb_options *o,
                         variant_builder **out, char *err, size_t len);
void variant_builder_close(variant_builder *b);

/* A task begins: compiles ahead, in enumeration order, the first `ahead` variants the
 * constraints allow (0: none; < 0: all), and the task's reference and check kernels (a
 * reference or check kernel that does not compile stops the run: -1 with err). */
int vb_begin_task(variant_builder *b, const space_binding *bind, int64_t ahead, vb_task *task,
                  char *err, size_t len);
/* The variant of config choice: *out ready, refused or unsupported. 0, or -1 with err (an error
 * of the tuner's own or a compiler that cannot run: the run stops). */
int vb_get_variant(variant_builder *b, const space_binding *bind, const int *choice,
               vb_variant *out, char *err, size_t len);
void vb_get_stats(const variant_builder *b, vb_stats *out);

/* The fields of an evaluation request that say where the variant and the task's modules are. */
void vb_request(const vb_task *t, const vb_variant *v, eval_request *req);

/* Stop the first problem's compiling after this many variants fail with the same first error. */
#define VB_SAME_ERROR_STOP 8

/* The first line of a compiler log that says "error" (else its first line), into out. */
void vb_first_error(const char *log, char *out, size_t len);
/* A compile log's head on one line: the hint tunekit put first, then the first error line and
 * the two after it (a warning before it is not what stopped the compile); with no error line,
 * the first three lines. */
void vb_log_head(const char *log, char *out, size_t len);

/* For the implementations. */
int variant_builder_open_user(const space *sp, const device_info *dev, const vb_options *o,
                              variant_builder **out, char *err, size_t len);
