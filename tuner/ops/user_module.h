/* user_module.h: what the worker-side files of a user kernel (user_kernel.c, user_validate.c,
 * user_module.c) share and nothing else includes: the family built from a space, the prepared
 * problem (its buffers, the loaded variant, the reference's results, the check kernels' state),
 * and the low-level helpers over them that user_module.c holds: loading and unloading a
 * compiled module, the text of a CUDA failure, and storing a scalar argument's value. */
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "core/device.h"
#include "ops/ops.h"
#include "space/space.h"
#include "space/space_user.h"

typedef struct user_family {
    op_family base;          /* first: the members get back here from self */
    const space *sp;
    int has_dev;
    device_info dev;
} user_family;

/* One argument's memory. A buffer that fills a module's variable (su_arg.symbol) keeps its
 * contents in pristine and points dev at the variable of the module bound now. */
typedef struct ubuf {
    int type;                /* su_type, resolved for the dtype */
    void *dev;               /* the buffer (owned), or the bound module's variable */
    int64_t count;           /* elements the current config uses */
    size_t cap;              /* bytes allocated for dev (owned buffers) or pristine (variables) */
    void *pristine;          /* initial contents of an initialised output or of a variable */
    void *ref;               /* an output's reference contents (SU_CMP_ELEMENTS) */
    int64_t ref_count;
    double ref_value;        /* SU_CMP_REDUCE: what the reference's output reduces to */
    int64_t ref_reduced;     /* ... over that many elements */
    /* SU_CMP_CHECK: the check kernel's result on the variant and on the reference */
    void *check_out, *check_ref;
    int64_t check_count, check_ref_count;
    size_t check_cap;
    int check_type;
    uint64_t seed;
    unsigned fills;          /* how many times its contents were filled: a texture over it is
                                made again when this changes */
} ubuf;

/* A texture argument's object (user_views.c) and what it was made from. */
typedef struct utex {
    cudaTextureObject_t obj; /* 0: none yet */
    cudaArray_t array;       /* 2-D and 3-D: the copy it reads; NULL for 1-D (the buffer) */
    const void *from;        /* the buffer's address it was made from */
    unsigned fills;          /* ... and its fill count then */
    int64_t dims[3];
} utex;

/* A loaded module: one kernel per launch (the same one for launches of one function), and the
 * variables the arguments fill (per argument; NULL where the argument is a parameter). */
typedef struct umod {
    char *path;
    cudaLibrary_t lib;
    int n_launches;
    cudaKernel_t fn[16];
    struct cudaFuncAttributes attr[16];
    int max_threads[16];     /* per launch: the threads a block its __launch_bounds__ allow
                                (module_meta.max_threads; 0: none) */
    void **var;              /* per argument */
    size_t *var_bytes;
} umod;

struct op_instance {
    const user_family *uf;
    space_binding bind;
    problem problem;         /* the request's problem (the binding points here) */
    char *dtype, *op;
    uint64_t seed;
    double tol_scale;
    ubuf *bufs;              /* one per argument; scalars unused */
    unsigned char **values;  /* per argument passed by value: its bytes as the kernel takes
                                them (a scalar, or a struct with its pointers filled) */
    size_t *value_cap;       /* each one's room */
    void **params[16];       /* per launch: its arguments' pointers */
    int *choice;             /* the bound variant's config */
    umod variant;
    su_geometry geometry[16];
    int bound;
    int ref_ready;
    utex *tex;               /* per argument: a texture argument's object */
    umod *checks;            /* per argument: its check kernel's module (loaded at reference) */
    uint64_t *check_scalars; /* per argument: a check kernel's own scalars, 8 bytes each */
    void **check_params;     /* a check launch's argument pointers */
};

/* ---- helpers (user_module.c) ---- */
/* "what: cudaErrorName (its text)" into err; returns -1. */
int uk_cuda_fail(cudaError_t e, const char *what, char *err, size_t len);
/* The room argument a passed by value takes, in *slot (grown to its size, at least 8 bytes, and
 * zeroed): *slot, or NULL with err. uk_value_store and the views (user_views.c) write there. */
unsigned char *uk_value_slot(op_instance *in, const su_arg *a, unsigned char **slot,
                             size_t *cap, char *err, size_t len);
/* Argument a (a scalar or a struct) at config choice, stored as the kernel takes it into *slot
 * (a struct's pointers are its buffers' addresses now). 0 or -1 + err. */
int uk_value_store(op_instance *in, const su_arg *a, const int *choice, unsigned char **slot,
                   size_t *cap, char *err, size_t len);
/* Launches fn with geometry g on stream: with its cluster dimension and as a cooperative launch
 * where g asks (cudaLaunchKernelExC), else as cudaLaunchKernel does. The tuned kernel, the
 * reference and the check kernels all launch here. */
cudaError_t uk_launch(cudaKernel_t fn, const su_geometry *g, void **params, cudaStream_t stream);
/* Readies the compiled fn to launch with g on the current device, or says why it cannot: dynamic
 * shared memory past 48 KiB and a non-portable cluster size are asked for, a cluster must fit
 * on the device at once, a cooperative grid must be resident whole. The variant, the reference
 * and check kernels all pass here before they launch. TK_OK, TK_ERR_UNSUPPORTED_CONFIG with
 * why, or TK_ERR_CUDA. */
tk_status uk_launch_ready(cudaKernel_t fn, const su_geometry *g, char *why, size_t len);
/* ---- views of a buffer: textures and tensor maps (user_views.c) ---- */
/* Texture argument i at config choice: its object made (again when its buffer moved, was
 * refilled or the size changed) over the buffer, and its handle stored in in->values[i]. 0, or
 * -1 with err. */
int uk_texture_bind(op_instance *in, int i, const int *choice, char *err, size_t len);
void uk_texture_release(utex *t);
/* Tensor-map argument i at config choice: the CUtensorMap encoded over its buffer's current
 * address (cuTensorMapEncodeTiled, through the runtime's driver entry point) into
 * in->values[i] (128 bytes). 0, or -1 with err. */
int uk_tensor_map_bind(op_instance *in, int i, const int *choice, char *err, size_t len);

/* A plain scalar a (of any element type) at config choice into an 8-byte slot. */
int uk_scalar_store(op_instance *in, const su_arg *a, const int *choice, uint64_t *slot,
                    char *err, size_t len);

/* Loads path as the module of kernel k at config choice (the launches' kernels, and with
 * with_vars the variables the arguments fill). 0, or -1 with err. */
int uk_mod_load(op_instance *in, umod *m, const char *path, const su_kernel *k,
                const int *choice, int with_vars, char *err, size_t len);
void uk_mod_unload(umod *m);
