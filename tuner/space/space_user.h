/* space_user.h: a space file's user kernel (docs/user-kernels.md): the `kernel:` mapping that
 * points at a CUDA source (function, template arguments, defines, options, include directories,
 * arguments, launch geometry) and the `reference:` the variants are validated against, as the
 * space loader checked them. Every expression is bound to the space's slots (parameters,
 * problem fields, dtype, dtype_size, ctype, op, device attributes), so the run loop, the compiler
 * and the worker evaluate them for a binding and a config through space_user_eval. This is data
 * and evaluation only (space_user_read.c, space_user_args.c, space_user_kernel.c and
 * space_user_nodes.c read, space_user_eval.c evaluates, space_user_files.c hashes): compiling is
 * tuner/build/, running is tuner/ops/user_kernel.c. */
#pragma once
#include <stdint.h>
#include <stddef.h>
#include "core/value.h"
#include "core/device.h"
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

/* An output's default tolerance by type: {abs, rel} (f64 1e-12, f32 1e-5, f16 1e-3, bf16 1e-2,
 * integers exact). */
void su_default_tolerance(int t, double *atol, double *rtol);

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

/* How an output is validated (its `compare:`): element by element against the reference's copy
 * (the default); what its first `count` elements reduce to (sum, min or max, in double
 * precision) within a tolerance; or a check kernel of the user's that maps the output to values
 * compared element by element. */
typedef enum su_compare { SU_CMP_ELEMENTS, SU_CMP_REDUCE, SU_CMP_CHECK } su_compare;
typedef enum su_reduce { SU_REDUCE_SUM, SU_REDUCE_MIN, SU_REDUCE_MAX } su_reduce;

struct su_kernel;

/* A check kernel's plan: its kernel (one launch, whose arguments are su_arg_ref codes), its own
 * scalars and its result buffer. */
typedef struct su_check su_check;

/* A field of a struct passed by value (su_arg.record; docs/user-kernels.md, "Structs passed by
 * value"): a value or a fixed-size array of one type, a pointer to one of the space's buffers (or
 * a null one), or a nested struct. Laid out by the C rules (su_struct_layout). */
typedef enum su_field_kind { SU_FIELD_VALUE, SU_FIELD_POINTER, SU_FIELD_STRUCT } su_field_kind;
typedef struct su_field {
    su_field_kind kind;
    char *name;              /* `name:`, or NULL: for messages only */
    int type;                /* VALUE: su_type, or SU_DTYPE */
    int is_bool;             /* VALUE: `bool` (a u8 that must be 0 or 1) */
    int n;                   /* VALUE: elements (1, or an array's length); STRUCT: members */
    int is_array;            /* VALUE: given as a list (an array, even of one element) */
    su_expr *values;         /* VALUE: n expressions */
    char *target;            /* POINTER: the buffer's name as written; NULL: a null pointer */
    int buffer;              /* POINTER: the buffer's index in space_user.args, -1 for null */
    struct su_field *members;/* STRUCT: n members in order */
    int align;               /* `align:` (a power of two), else 0: the natural alignment */
    int line, col;
} su_field;

/* A texture argument (su_arg.texture; docs/user-kernels.md, "Textures"): a cudaTextureObject_t
 * the tuner makes over one of the space's input buffers. One dimension: over the buffer itself
 * (a linear resource, read with tex1Dfetch); two or three: over a CUDA array the buffer's
 * contents are copied into (tex2D, tex3D, with filtering and address modes). */
typedef enum su_tex_address {
    SU_TEX_WRAP, SU_TEX_CLAMP, SU_TEX_MIRROR, SU_TEX_BORDER   /* cudaTextureAddressMode's order */
} su_tex_address;
typedef struct su_texture {
    char *target;            /* the buffer's name as written */
    int buffer;              /* its index in space_user.args */
    int n_dims;              /* 1 (linear), 2 or 3 (an array) */
    su_expr dims[3];         /* width, height, depth in texels (problem fields, not parameters) */
    int channels;            /* 1, 2 or 4 elements a texel */
    int linear_filter;       /* filter: linear (else point) */
    int address;             /* su_tex_address, every dimension */
    int normalized_coords;   /* coordinates in [0, 1) */
    int read_normalized;     /* read: normalized (8- and 16-bit integers as floats in [0, 1] or
                                [-1, 1]) */
    int line, col;
} su_texture;

/* A tensor-map argument (su_arg.tensor_map; docs/user-kernels.md, "Tensor maps"): the
 * CUtensorMap a Hopper kernel takes as `const __grid_constant__ CUtensorMap` for its TMA copies
 * (cp.async.bulk.tensor), encoded by the tuner over one of the space's buffers. */
typedef struct su_tensor_map {
    char *target;            /* the buffer's name as written */
    int buffer;              /* its index in space_user.args */
    int rank;                /* 1 to 5 */
    su_expr dims[5];         /* the tensor's size, innermost first (problem fields) */
    int n_strides;           /* 0 (packed), or rank - 1 */
    su_expr strides[4];      /* elements between consecutive indices of dims 1.. (a leading
                                dimension), problem fields */
    su_expr box[5];          /* the tile one copy moves, innermost first (may be parameters) */
    int swizzle;             /* 0, 32, 64 or 128 (bytes) */
    int oob_nan;             /* out-of-bounds elements read as NaN (else zeros) */
    int line, col;
} su_tensor_map;

typedef struct su_arg {
    char *name;
    int line, col;
    int is_buffer;
    int type;                /* su_type, or SU_DTYPE for buffers */
    /* buffers */
    su_expr count;
    su_init init;
    double a, b;             /* random: [a, b]; constant: a; arange: start a, step b */
    su_expr init_x[2];       /* the same where written as expressions of the problem (random:
                                [0, rows - 1]); text NULL for a number */
    char *file;              /* init file pattern (relative to the space file's folder) */
    char *symbol;            /* a global variable of the module the buffer fills (constant
                                memory), instead of a parameter; NULL for a parameter */
    int output;
    double atol, rtol;       /* outputs: the tolerance (defaults by type when not given) */
    int has_tol;             /* the tolerance was given */
    double tol_by[SU_TYPE_COUNT][2];   /* per dtype ({ f16: { abs, rel } }): abs, rel */
    int has_tol_by[SU_TYPE_COUNT];
    /* outputs: the comparison plan */
    su_compare compare;
    su_reduce reduce;        /* SU_CMP_REDUCE */
    int has_cmp_count;
    su_expr cmp_count;       /* SU_CMP_REDUCE: how many elements (default: the buffer's count) */
    su_check *check;         /* SU_CMP_CHECK */
    int cmp_line, cmp_col;
    /* scalars */
    su_expr value;           /* a plain scalar's value */
    int is_bool;             /* `scalar: bool` (a u8 that must be 0 or 1) */
    su_field *record;        /* a struct passed by value (`struct:`, a STRUCT field whose
                                members are its fields), else NULL; its type is then -1 */
    int is_pointer;          /* `pointer:` (a buffer passed a second time, or null): record is
                                then a struct of that one pointer, which leaves the buffer a
                                parameter of its own */
    su_texture *texture;     /* `texture:` (a texture object over a buffer), else NULL; its type
                                is then -1 and the kernel takes 8 bytes */
    su_tensor_map *tensor_map;   /* `tensor_map:` (a CUtensorMap over a buffer), else NULL; its
                                    type is then -1 and the kernel takes 128 bytes */
} su_arg;


/* The layout of a struct argument (record: a STRUCT field) for a binding's dtype (the su_type
 * SU_DTYPE fields take; -1 when the binding has none): each field at the next multiple of its
 * alignment (its own size for a value, 8 for a pointer, its largest member's for a struct, or
 * its `align:`), the struct's size rounded up to a multiple of its alignment, as nvcc lays out
 * the C struct the kernel declares. When leaf is given it is called for every value element and
 * every pointer, in order, with its byte offset (type: the element's su_type, resolved; -1 for a
 * pointer); a leaf that returns non-zero stops the walk with that result. 0 with *size and
 * *align, -1 for a field of type dtype without a dtype, or the leaf's result. */
typedef int (*su_leaf_fn)(void *ctx, const su_field *f, int element, int type, size_t offset);
int su_struct_layout(const su_field *record, int dtype, size_t *size, size_t *align,
                     su_leaf_fn leaf, void *ctx);


/* Whether the kernel reads a buffer's contents: every buffer but an output given no init: (a pure
 * output), which a capture need not keep and whose contents no file may give. */
int su_arg_reads(const su_arg *a);

/* One launch of a kernel: the function, its template arguments, its geometry and the
 * arguments it takes in parameter order. For the tuned kernel and a reference kernel an
 * argument is an index into space_user.args; for a check kernel see su_arg_ref. */
typedef struct su_launch_spec {
    char *function;
    int n_template;
    su_expr *templ;
    int grid_dims, block_dims;
    su_expr grid[3], block[3];
    int has_shared;
    su_expr shared;
    int cluster_dims;        /* `cluster:` (thread block clusters, compute capability 9.0): 0
                                when not given, else 1 to 3 expressions */
    su_expr cluster[3];
    int cooperative;         /* `cooperative: true`: a cooperative launch (a grid that
                                synchronises, cg::this_grid().sync()) */
    int n_args;
    int *args;
    int line, col;
} su_launch_spec;

/* A check kernel's argument codes: >= 0 an index into space_user.args, SU_ARG_RESULT its
 * result buffer, SU_ARG_SCALAR(i) its own scalar i. */
#define SU_ARG_RESULT (-1)
#define SU_ARG_SCALAR(i) (-2 - (i))
#define SU_ARG_SCALAR_INDEX(code) (-2 - (code))

/* Kernels compiled from one source with one set of options: the tuned kernel (one launch, or a
 * pipeline of several in order), a reference kernel or a check kernel (one launch each). */
typedef struct su_kernel {
    char *source;            /* path as the tuner opens it (the space file's folder + source) */
    char *source_dir;        /* its folder: the first include directory */
    int defines_given;       /* `defines:` was given (an empty one too: then none) */
    int defines_default;     /* neither defines nor template given: the parameters the files
                                name are the defines */
    int n_defines;
    char **define_names;
    su_expr *define_values;  /* text NULL: a macro without a value (-D NAME) */
    su_expr *define_conds;   /* `{ if: COND }`: the macro only where COND holds; text NULL (or
                                the array NULL): always */
    int n_options;
    char **options;
    int n_include_dirs;
    char **include_dirs;     /* resolved like source */
    int n_launches;
    su_launch_spec *launches;
    int line, col;           /* the mapping */
} su_kernel;

struct su_check {
    su_kernel kernel;        /* one launch; template and defines see the problem, dtype and
                                device only, grid, block and scalars the parameters too */
    int n_scalars;
    su_arg *scalars;
    su_arg result;           /* a pure output buffer the check kernel writes */
};

typedef enum su_ref { SU_REF_NONE, SU_REF_CONFIG, SU_REF_KERNEL, SU_REF_FILE } su_ref;

typedef struct space_user {
    char *family;            /* results are stored under family.op */
    char *op;                /* the op: `name`, else the (first) function's name without
                                template arguments or scope */
    char *compiler;          /* "nvrtc" or "nvcc" */
    char arch_suffix[2];     /* "a" (sm_90a: architecture-specific features), "f" (sm_100f:
                                the family's), or "": appended to the GPU's architecture */
    int arch_suffix_line, arch_suffix_col;
    su_kernel kernel;
    int n_args;
    su_arg *args;
    int n_symbols;           /* buffers that fill a module's variable (su_arg.symbol) */
    int has_bytes, has_elements, has_flops;
    su_expr bytes, elements, flops;
    su_ref ref;
    int ref_line, ref_col;
    int *ref_choice;         /* SU_REF_CONFIG: value indices, one per parameter */
    su_kernel ref_kernel;    /* SU_REF_KERNEL */
    char **ref_files;        /* SU_REF_FILE: n_args entries, a pattern for each output */
    char *peer;              /* the peer script's path, or NULL */
    char *dir;               /* the space file's folder (its base's, when it extends one), ""
                                for the current one */
    char *base;              /* a space that extends another (`base:`, a capture): the other's
                                path, else NULL */
    char hash[17];           /* the kernel's identity: see space_user_hash */
} space_user;

void space_user_free(space_user *u);

/* Whether buffer argument i is reached through a struct argument's pointer or read through a
 * texture argument (then it is not a parameter of its own). */
int su_arg_pointed_to(const space_user *u, int i);

/* Buffer a's init values (random: lo, hi; constant: v; arange: start, step) for a binding:
 * the numbers written, or the expressions evaluated; a random range checked (lo <= hi, integer
 * bounds for an integer buffer). 0, or -1 with err at the expression. */
int space_user_init_values(const struct space *sp, const struct space_binding *b,
                           const su_arg *a, double *lo, double *hi, char *err, size_t len);

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

/* A launch's geometry for a binding and a config. */
typedef struct su_geometry {
    int64_t grid[3], block[3];
    int64_t shared;
    int64_t cluster[3];      /* blocks per cluster along each axis; all 0: no clusters */
    int cooperative;
} su_geometry;
/* Evaluates launch l's grid, block (each >= 1), dynamic shared memory (>= 0) and cluster (each
 * >= 1 when given). Whether they fit the device is su_geometry_fits. 0, or -1 with err at the
 * expression. */
int space_user_geometry(const struct space *sp, const struct space_binding *b, const int *choice,
                        const su_launch_spec *l, su_geometry *out, char *err, size_t len);
/* 1 when g fits dev's limits (block and grid along each axis, threads per block, dynamic shared
 * memory per block; dev NULL: the limits every GPU since compute capability 3.0 has, and 48 KiB
 * of shared memory), else 0 with why (one line). */
int su_geometry_fits(const su_geometry *g, const struct device_info *dev, char *why,
                     size_t why_len);
/* The same, saying which limit (*what: SU_LIMIT_GRID + axis, SU_LIMIT_BLOCK + axis (block[0]
 * for threads per block), SU_LIMIT_SHARED, SU_LIMIT_CLUSTER + axis; clusters as
 * device_cluster_check has them). */
enum { SU_LIMIT_GRID = 0, SU_LIMIT_BLOCK = 3, SU_LIMIT_SHARED = 6, SU_LIMIT_CLUSTER = 7 };
int su_geometry_fits_at(const su_geometry *g, const struct device_info *dev, int *what,
                        char *why, size_t why_len);
/* Whether every launch of the tuned kernel fits the binding's device at config choice, and
 * every tensor map's box is one TMA can move (space_user_check.c): 1, 0 with why (the variant is
 * unsupported there; *at, when at is not NULL, the expression of the limit), or -1 with err (an
 * expression fails). */
int space_user_fits(const struct space *sp, const struct space_binding *b, const int *choice,
                    char *why, size_t why_len, char *err, size_t len);
int space_user_fits_at(const struct space *sp, const struct space_binding *b, const int *choice,
                       const su_expr **at, char *why, size_t why_len, char *err, size_t len);
/* How many of the space's configs (over every dtype and problem the constraints allow) do not
 * fit dev, of how many; first_why: the first one and why. 0, or -1 with err. */
int space_user_excluded(const struct space *sp, const struct device_info *dev,
                        int64_t *excluded, int64_t *total, char *first_why, size_t why_len,
                        char *err, size_t len);

/* A compilation as the compiler sees it: the options (without the architecture and the CUDA
 * include directories, which the compiler adds), the name expressions of the kernels (one per
 * distinct function of the launches) and the variables to look up. */
typedef struct su_compile {
    int n_options;
    char **options;
    int n_kernels;
    char **kernels;
    int n_symbols;
    char **symbols;
} su_compile;
/* k's compilation for a binding and a config (choice NULL: parameters out of scope, as for a
 * reference or check kernel); with_symbols: look up the variables the args fill. */
int space_user_compile(const struct space *sp, const struct space_binding *b, const int *choice,
                       const su_kernel *k, int with_symbols, su_compile *out, char *err,
                       size_t len);
void su_compile_clear(su_compile *c);
/* Which of c's kernels launch `launch` of k runs. Index, or -1 with err. */
int su_compile_kernel_index(const struct space *sp, const struct space_binding *b,
                            const int *choice, const su_kernel *k, const su_compile *c,
                            int launch, char *err, size_t len);

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
/* The same for any buffer (a check kernel's result). */
int space_user_arg_bytes(const struct space *sp, const struct space_binding *b, const int *choice,
                         const su_arg *a, int64_t *count, int64_t *bytes, char *err, size_t len);
/* The bytes an argument takes as a kernel parameter for a binding: 8 for a buffer (a pointer),
 * a scalar's type's, a struct's layout's. 0, or -1 with err (a dtype-typed value without an
 * element dtype). */
int space_user_value_size(const struct space *sp, const struct space_binding *b,
                          const su_arg *a, size_t *size, char *err, size_t len);
/* A texture's size in texels for a binding and a config: dims[3] (1 past n_dims). 0, or -1 with
 * err (a dimension below 1, a buffer too small for dims x channels, a texel type a texture
 * cannot have for the dtype). */
int space_user_texture_dims(const struct space *sp, const struct space_binding *b,
                            const int *choice, const su_arg *a, int64_t dims[3], char *err,
                            size_t len);
/* A tensor map's geometry for a binding and a config, checked against the rules of
 * cuTensorMapEncodeTiled and the buffer's size: dims, strides (in bytes, of dims 1..rank-1;
 * packed when the space gives none) and box, each rank long. 0; 1 when this config's box breaks
 * a rule of TMA (1 to 256 a dimension, the innermost a multiple of 16 bytes and no wider than
 * the swizzle): the config is unsupported, err says why (no position) and *box_dim (may be NULL)
 * which dimension; or -1 with err, an error of the space. */
int space_user_tensor_map_geometry(const struct space *sp, const struct space_binding *b,
                                   const int *choice, const su_arg *a, uint64_t dims[5],
                                   uint64_t strides[4], uint32_t box[5], int *box_dim, char *err,
                                   size_t len);

/* Checks a scalar's value (every value of a struct) fits its type. 0, or -1 with err. */
int space_user_scalar_check(const struct space *sp, const struct space_binding *b,
                            const int *choice, const su_arg *a, char *err, size_t len);
/* An output's tolerance for a binding's dtype (the default of the dtype for `buffer: dtype`
 * without a tolerance of its own). */
void space_user_tolerance(const su_arg *a, const char *dtype, double *atol, double *rtol);

/* Checks everything that can be evaluated once the device is known, for every dtype, problem and
 * config the constraints allow: buffer counts (>= 1, and all buffers with the reference's copies
 * of the outputs within the device's memory), scalar values (in range of their type), grid and
 * block (positive), shared memory (not negative), the comparison plans' counts and check
 * kernels, and that the reference (a config or a kernel) fits the device. A variant whose
 * geometry exceeds the device is not an error here: it is unsupported (space_user_fits). 0, or
 * -1 with err at the first offending expression. */
int space_user_check(const struct space *sp, const struct device_info *dev, char *err,
                     size_t len);
/* The architecture the kernel compiles for on a GPU of compute capability cc (90: "sm_90", or
 * "sm_90a" with kernel.arch_suffix: a), into arch. 0, or -1 with err (file:line:col) when the
 * suffix does not exist there: "a" from 9.0, "f" from 10.0. */
int space_user_arch(const space_user *u, const char *path, int cc, char *arch, size_t arch_len,
                    char *err, size_t len);

/* The kernel's identity, computed at load: SHA-256 (16 hex digits) of the source, every file it
 * includes from its own folder or the include directories (found by following #include lines),
 * the functions, template arguments, defines, options, arguments, geometry, comparison plans
 * (with a check kernel's files), and the compiler and architecture suffix as written. */
const char *space_user_hash(const space_user *u);

/* The files of a kernel: the source and every local file it includes (recursively, each once),
 * in a stable order. Returns the count (0 on error, err set); *paths malloc'd, each malloc'd. */
int su_kernel_files(const su_kernel *k, char ***paths, char *err, size_t len);
/* Which of names[n] the kernel's files name as a word (an identifier in code or macros, not in
 * comments or string literals), into named[n]. 0, or -1 with err when a file cannot be read. */
int su_kernel_names(const su_kernel *k, const char *const *names, int n, int *named, char *err,
                    size_t len);
