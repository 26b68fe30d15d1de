/* space_user_internal.h: what the user-kernel files of the space loader share and nothing else
 * includes: reading the `kernel:` mapping (space_user_read.c on top, its arguments in
 * space_user_args.c, the structs among them in space_user_struct.c, its kernels in
 * space_user_kernel.c, the generic readers they all use in
 * space_user_nodes.c), the kernel's files and identity (space_user_files.c), evaluating for a
 * binding (space_user_eval.c), the views of a buffer (space_user_views.c) and the checks once the
 * device is known (space_user_check.c). */
#pragma once
#include <stddef.h>
#include "space_internal.h"
#include "space_user.h"

enum { SU_MAX_SOURCE = 16 << 20, SU_MAX_FILES = 1000 };

/* dir + "/" + rel (rel as it is when absolute or dir is empty); malloc'd, NULL when out of
 * memory. */
char *su_path_join(const char *dir, const char *rel);
/* The folder of path ("" when it has none); malloc'd. */
char *su_dir_of(const char *path);
/* Reads a whole file (at most SU_MAX_SOURCE bytes); malloc'd and NUL-terminated, *n its size
 * (n may be NULL); NULL with why. */
char *su_read_text(const char *path, size_t *n, char *why, size_t len);
int su_is_file(const char *path);
int su_is_dir(const char *path);

/* A type as kernel.args and struct fields write it: an element type, `dtype` (SU_DTYPE) or,
 * with_bool, `bool` (SU_U8 with *is_bool set). -1 when unknown, names then listing the element
 * types ("f64, f32, ..., u64, ") for the message. */
int su_type_read(const char *name, int with_bool, int *is_bool, char *names, size_t len);

/* The element type of a buffer or scalar for a binding's dtype (SU_DTYPE resolved). */
int su_arg_type(const su_arg *a, const space_binding *b);
/* The expression a limit code of su_geometry_fits_at is about, in launch l. */
const su_expr *su_limit_expr(const su_launch_spec *l, int what);

void su_expr_clear(su_expr *x);
void su_kernel_clear(su_kernel *k);
void su_arg_clear(su_arg *a);
void su_field_clear(su_field *f);

/* Computes u->hash (space_user_hash) once everything is read. -1 with the loader's error. */
int su_compute_hash(loader *L, space_user *u);

/* ---- reading (space_user_read.c, space_user_args.c, space_user_struct.c,
 * space_user_kernel.c, space_user_nodes.c) ---- */

typedef struct su_ctx {
    loader *L;
    space_user *u;
    int allow_params;        /* 0: expressions may not read parameters */
    const char *where;       /* for binding errors */
} su_ctx;

/* -- the generic readers (space_user_nodes.c) -- */
/* Binding an expression to the space's slots: expr_bind's resolver (expr.h) and its context;
 * with allow_params 0 a parameter is refused (refused: the one named). */
typedef struct su_bind_ctx {
    const space *sp;
    int allow_params;
    const char *refused;     /* the parameter a scope-less expression named */
} su_bind_ctx;
int su_resolve_name(void *ctx, const char *name, int *mask);
/* Reads the scalar n as an expression bound to the space's slots; literal: a quoted scalar is a
 * string value. -1 with the loader's error. */
int su_read_expr(su_ctx *c, const ynode *n, const char *where, int literal, su_expr *x);
/* 1 when x, bound without parameters, fails only for naming one (*which: that one). */
int su_reads_params(const space *sp, const su_expr *x, const char **which);
/* A list of 1..max expressions, or one expression, into x (*count of them); names, said after
 * "expected 1 to max expressions" when there are too many (" (x, y, z)", or ""). */
int su_read_exprs(su_ctx *c, const ynode *n, const char *where, int max, const char *names,
                  su_expr *x, int *count);
/* A list of 1..3 expressions (x, y, z), or one expression. */
int su_read_dims(su_ctx *c, const ynode *n, const char *where, su_expr *dims, int *count);
int su_read_string_list(su_ctx *c, const ynode *n, const char *where, char ***out, int *count);
/* The name without scope or template arguments ("ns::f<T>" -> "f"); malloc'd. */
char *su_base_name(const char *function);

/* -- views of a buffer: textures and tensor maps (space_user_views.c) -- */
/* Reads a `texture:` argument n into a (where: "kernel.args NAME"). */
int su_read_texture(su_ctx *c, const ynode *n, su_arg *a, const char *where);
/* Reads a `tensor_map:` argument n into a. */
int su_read_tensor_map(su_ctx *c, const ynode *n, su_arg *a, const char *where);
/* Finds each texture's and tensor map's buffer once every argument is read, and checks it is
 * one they can be made over. -1 with the loader's error. */
int su_resolve_views(loader *L, space_user *u);
/* Once the launches are read: a texture of 2 or 3 dimensions reads a copy of its buffer made
 * before the launches, so no launch of a pipeline may reach that buffer (take it, or a pointer
 * or struct that points to it), which could write it before the texture is read. -1 with the
 * loader's error. */
int su_check_views(loader *L, const space_user *u);
/* 1 when field f (a pointer, or a struct's members) points to buffer argument i. */
int su_field_points_to(const su_field *f, int i);

/* -- kernels (space_user_kernel.c) -- */
/* What kind of kernel a mapping describes: which keys it may have and what its expressions
 * see. */
typedef enum kernel_kind { KK_TUNED, KK_REFERENCE, KK_CHECK } kernel_kind;
/* A kernel: the tuned one (a single launch or `launches:`) or a reference kernel. */
int su_read_kernel(su_ctx *c, const ynode *map, su_kernel *k, const char *where,
                   kernel_kind kind);
/* What one compilation shares; source defaults to dflt's when dflt is given. */
int su_read_compile_keys(su_ctx *c, const ynode *map, su_kernel *k, const char *where,
                         const su_kernel *dflt, int params_in_defines);
/* One launch's function, template, grid, block and shared_bytes. */
int su_read_launch(su_ctx *c, const su_kernel *k, const ynode *map, const char *where,
                   int params_in_templ, su_launch_spec *l);

/* -- arguments (space_user_args.c) -- */
/* An item of kernel.args, and an output's `compare:`. */
int su_read_arg(su_ctx *c, const ynode *n, su_arg *a, int index);
int su_read_compare(su_ctx *c, const ynode *v, su_arg *a);
/* { scalar: TYPE, value: EXPR } into a. */
int su_read_scalar(su_ctx *c, const ynode *n, su_arg *a, const char *where);

/* -- structs passed by value (space_user_struct.c) -- */
/* { struct: [FIELD, ...] } into a (a->record). */
int su_read_struct(su_ctx *c, const ynode *n, su_arg *a, const char *where);
/* { pointer: BUFFER | null } into a (a->record of that one pointer, a->is_pointer). */
int su_read_pointer(su_ctx *c, const ynode *n, su_arg *a, const char *where);
/* Points every struct's pointer fields at their buffers, once all of kernel.args is read. */
int su_resolve_pointers(loader *L, space_user *u);
/* The first value of the struct field f that reads a parameter, or NULL (*which: its name). */
const su_expr *su_record_reads_params(const space *sp, const su_field *f, const char **which);
