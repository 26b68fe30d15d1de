/* space_user.h: a space file's user kernel (docs/user-kernels.md): the `kernel:` mapping that
 * points at a CUDA source (function, template arguments, defines, options, include directories,
 * arguments, launch geometry) and the `reference:` the variants are validated against, as the
 * space loader checked them. Every expression is bound to the space's slots (parameters,
 * problem fields, dtype, dtype_size, ctype, op, device attributes), so the run loop, the compiler
 * and the worker evaluate them for a binding and a config through space_user_eval. This is data
 * and evaluation only: compiling is tuner/user/user_build.c, running is tuner/user/. */
#pragma once
#include <stdint.h>
#include <stddef.h>
#include "core/value.h"
#include "expr/expr.h"

struct space;
struct space_binding;

/* Element types of buffers and scalars. SU_DTYPE: the space's current dtype. */
typedef enum su_type {
    SU_F64, SU_F32, SU_F16, SU_BF16, SU_I8, SU_I16, SU_I32, SU_I64, SU_U8, SU_U16, SU_U32,
    SU_U64, SU_TYPE_COUNT, SU_DTYPE = 64
} su_type;

/* "f32" -> SU_F32, ...; -1 for an unknown name. */
int su_type_parse(const char *name);
const char *su_type_name(int t);       /* "f32"; NULL when unknown */
size_t su_type_size(int t);            /* bytes; 0 when unknown */
const char *su_type_ctype(int t);      /* "float", "__half", "__nv_bfloat16", "int", ...; NULL */
int su_type_is_float(int t);
/* The C type of a dtype name ("f32" -> "float"), "" when the name is none of su_type's. */
const char *su_ctype_of(const char *dtype);

/* 1 when s is a C identifier (what expressions, macros and parameters may be named). */
int su_is_identifier(const char *s);

/* A bound expression and where it stands in the file (for errors). */
typedef struct su_expr {
    char *text;
    expr *e;
    int line, col;
} su_expr;

typedef enum su_init {
    SU_INIT_NONE, SU_INIT_ZEROS, SU_INIT_RANDOM, SU_INIT_CONSTANT, SU_INIT_ARANGE, SU_INIT_FILE
} su_init;

typedef struct su_arg {
    char *name;
    int line, col;
    int is_buffer;
    int type;                /* su_type, or SU_DTYPE for buffers */
    /* buffers */
    su_expr count;
    su_init init;
    double a, b;             /* random: [a, b]; constant: a; arange: start a, step b */
    char *file;              /* init file pattern (relative to the space file's folder) */
    int output;
    double atol, rtol;       /* outputs: the tolerance (defaults by type when not given) */
    int has_tol;             /* the tolerance was given */
    double tol_by[SU_TYPE_COUNT][2];   /* per dtype ({ f16: { abs, rel } }): abs, rel */
    int has_tol_by[SU_TYPE_COUNT];
    /* scalars */
    su_expr value;
} su_arg;

/* A kernel the tuner compiles and launches: the tuned one, or a reference kernel. */
typedef struct su_kernel {
    char *source;            /* path as the tuner opens it (the space file's folder + source) */
    char *source_dir;        /* its folder: the first include directory */
    char *function;
    int n_template;
    su_expr *templ;
    int n_defines;
    char **define_names;
    su_expr *define_values;
    int n_options;
    char **options;
    int n_include_dirs;
    char **include_dirs;     /* resolved like source */
    int grid_dims, block_dims;
    su_expr grid[3], block[3];
    int has_shared;
    su_expr shared;
    int line, col;           /* the mapping */
} su_kernel;

typedef enum su_ref { SU_REF_NONE, SU_REF_CONFIG, SU_REF_KERNEL, SU_REF_FILE } su_ref;

typedef struct space_user {
    char *family;            /* results are stored under family.op */
    char *op;                /* the function's name without template arguments or scope */
    su_kernel kernel;
    int n_args;
    su_arg *args;
    int has_bytes, has_elements, has_flops;
    su_expr bytes, elements, flops;
    su_ref ref;
    int ref_line, ref_col;
    int *ref_choice;         /* SU_REF_CONFIG: value indices, one per parameter */
    su_kernel ref_kernel;    /* SU_REF_KERNEL */
    char **ref_files;        /* SU_REF_FILE: n_args entries, a pattern for each output */
    char *peer;              /* the peer script's path, or NULL */
    char *dir;               /* the space file's folder, "" for the current one */
    char hash[17];           /* the kernel's identity: see space_user_hash */
} space_user;

void space_user_free(space_user *u);

/* Evaluates x for a binding and a config (choice: value indices, one per parameter; NULL when
 * parameters are out of scope, as for a reference kernel). 0 with *out, or -1 with err holding
 * "path:line:col: error: ..." at the expression. */
int space_user_eval(const struct space *sp, const struct space_binding *b, const int *choice,
                    const su_expr *x, value *out, char *err, size_t len);
/* The same for an expression that must give an integer in [lo, hi]; what names the quantity in
 * messages ("count of buffer 'x'"). */
int space_user_eval_int(const struct space *sp, const struct space_binding *b, const int *choice,
                        const su_expr *x, int64_t lo, int64_t hi, const char *what,
                        int64_t *out, char *err, size_t len);

/* The launch of a kernel for a binding and a config. */
typedef struct su_launch {
    int64_t grid[3], block[3];
    int64_t shared;
} su_launch;
int space_user_launch(const struct space *sp, const struct space_binding *b, const int *choice,
                      const su_kernel *k, su_launch *out, char *err, size_t len);

/* A variant as the compiler sees it: the NVRTC options (without the architecture and the CUDA
 * include directory, which the compiler adds) and the name expression of the function. */
typedef struct su_compile {
    int n_options;
    char **options;
    char *name_expr;
} su_compile;
int space_user_compile(const struct space *sp, const struct space_binding *b, const int *choice,
                       const su_kernel *k, su_compile *out, char *err, size_t len);
void su_compile_clear(su_compile *c);

/* The bytes the kernel must move and its element count for a binding (parameters out of scope
 * unless the expressions give them; choice may be NULL), by the space's `bytes`/`elements` or
 * by the buffers' sizes. -1 with err. */
int64_t space_user_bytes(const struct space *sp, const struct space_binding *b, const int *choice,
                         char *err, size_t len);
int64_t space_user_elements(const struct space *sp, const struct space_binding *b,
                            const int *choice, char *err, size_t len);

/* The floating-point operations one run of the kernel does for a binding (the space's `flops`,
 * per problem); 0 when the space does not say. -1 with err. */
int64_t space_user_flops(const struct space *sp, const struct space_binding *b, char *err,
                         size_t len);

/* A buffer argument's element count and bytes for a binding and a config. 0 or -1 with err. */
int space_user_buffer_bytes(const struct space *sp, const struct space_binding *b,
                            const int *choice, int arg, int64_t *count, int64_t *bytes,
                            char *err, size_t len);
/* An output's tolerance for a binding's dtype (the default of the dtype for `buffer: dtype`
 * without a tolerance of its own). */
void space_user_tolerance(const su_arg *a, const char *dtype, double *atol, double *rtol);

/* Checks everything that can be evaluated once the device is known, for every dtype, problem and
 * config the constraints allow: buffer counts (>= 1, and all buffers with the reference's copies
 * of the outputs within the device's memory), scalar values (in range of their type), grid and
 * block (positive, within the device's limits), shared memory (within smem_per_block), and the
 * reference kernel's geometry. 0, or -1 with err at the first offending expression. */
int space_user_check(const struct space *sp, const struct device_info *dev, char *err,
                     size_t len);

/* The kernel's identity, computed at load: SHA-256 (16 hex digits) of the source, every file it
 * includes from its own folder or the include directories (found by following #include lines),
 * the function, template arguments, defines, options, arguments and geometry as written. */
const char *space_user_hash(const space_user *u);

/* The files of a kernel: the source and every local file it includes (recursively, each once),
 * in a stable order. Returns the count (0 on error, err set); *paths malloc'd, each malloc'd. */
int su_kernel_files(const su_kernel *k, char ***paths, char *err, size_t len);
