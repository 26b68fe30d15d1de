/* space_internal.h: what the space modules share and nothing else includes: the YAML tree that
 * space_yaml.c reads a file into (every node with its 1-based position), the error formatter
 * every space error goes through, and the slot layout of constraint expressions that the loader
 * (binding) and the enumerator (filling slots) must agree on. */
#pragma once
#include <stddef.h>
#include "space.h"

/* ---- YAML tree (space_yaml.c) ---- */

typedef enum { YNODE_SCALAR, YNODE_SEQ, YNODE_MAP } ynode_kind;

typedef struct ynode {
    ynode_kind kind;
    int line, col;           /* 1-based position of the node's first character */
    int end_line;            /* 1-based line of its last character */
    char *text;              /* YNODE_SCALAR: the value, NUL-terminated, owned */
    size_t len;
    int quoted;              /* YNODE_SCALAR: 1 for '...' or "...", 2 for | or >, 0 plain */
    int n;                   /* YNODE_SEQ: items; YNODE_MAP: complete key/value pairs */
    int pending;             /* YNODE_MAP while reading: items[2n] is a key awaiting its value */
    int cap;
    struct ynode **items;    /* YNODE_SEQ: items[n]; YNODE_MAP: key k at 2k, value at 2k+1 */
} ynode;

/* The largest space file read, and the deepest nesting of mappings and lists allowed. */
#define SPACE_MAX_FILE_BYTES (1 << 20)
#define SPACE_MAX_DEPTH 16

/* Reads path (at most SPACE_MAX_FILE_BYTES), writes the sha256 of its bytes to sha256[65] and
 * parses it as one YAML document. Refuses aliases, anchors, tags, duplicate mapping keys,
 * non-scalar keys, more than one document and nesting deeper than SPACE_MAX_DEPTH. Returns 0
 * with *root set (the caller frees it with ynode_free; NULL for an empty file), or -1 with err
 * holding "path:line:col: error: message". */
int space_yaml_read(const char *path, ynode **root, char sha256[65], char *err, size_t len);
void ynode_free(ynode *n);

/* In a mapping: the value for key, or NULL. */
const ynode *ynode_get(const ynode *map, const char *key);

/* ---- errors ---- */

/* Writes "path:line:col: error: message" to err (or "path: error: message" when line <= 0). */
void space_errorf(char *err, size_t len, const char *path, int line, int col, const char *fmt,
                  ...) __attribute__((format(printf, 6, 7)));

/* ---- slot layout (space_enum.c) ----
 * Slots of an expression: params [0, n_params) in file order, then the problem fields
 * (sp->fields) in order, then dtype, dtype_size, ctype, op, then the device attributes. */

/* Slot count for sp (its family and params must be set). */
int space_slot_count(const space *sp);

/* Resolves a constraint identifier to a slot for sp. Returns the slot and sets *mask (slot type
 * bits) and *is_device (1 for a device attribute), or -1 when the name is unknown. */
int space_resolve_slot(const space *sp, const char *name, int *mask, int *is_device);

/* 1 for the names the tuner gives every expression (dtype, dtype_size, ctype, op, the device
 * attributes), which parameters and problem fields may not take. */
int space_is_given_name(const char *name);

/* Fills the non-parameter slots from a binding (device NULL: device slots hold 0). */
void space_fill_fixed_slots(const space *sp, const space_binding *b, value *slots);

/* Writes the position of an evaluation error of constraint c (its start plus the error offset
 * in the expression) and the message to err as one "path:line:col: error: ..." line. */
void space_constraint_error(const space *sp, int c, const expr_error *e, char *err, size_t len);

/* ---- reading the tree (space_nodes.c) ---- */

/* What the loaders share while reading one file. */
typedef struct loader {
    space *sp;
    const char *path;
    char *err;
    size_t len;
    const tk_config_space *cs;    /* the built-in family's parameters; NULL for a user kernel */
    const char *base_path;        /* a space that extends another (`base:`): the other's path,
                                     which the user kernel's relative paths are relative to */
    const ynode *inputs;          /* its `inputs:`, overriding arguments' contents, or NULL */
} loader;

/* Writes "path:line:col: error: <fmt>" at node n (no position when n is NULL); returns -1. */
int sl_fail_at(loader *L, const ynode *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* What a node is, for "expected X, found Y" messages. */
const char *sl_node_desc(const ynode *n, char *buf, size_t len);
/* 0 when n is of kind, else -1 with "where: expected ..., found ...". */
int sl_expect_kind(loader *L, const ynode *n, ynode_kind kind, const char *where);
/* 1 when the text is a decimal integer that fits in int64 (*out set). */
int sl_parse_int_text(const char *s, int64_t *out);
/* 1 when n is an unquoted scalar holding such an integer. */
int sl_is_int_scalar(const ynode *n, int64_t *out);
/* Reads an integer / a finite number / true or false / a non-empty name; -1 with the error. */
int sl_get_int(loader *L, const ynode *n, const char *where, int64_t *out);
int sl_get_float(loader *L, const ynode *n, const char *where, double *out);
int sl_get_bool(loader *L, const ynode *n, const char *where, int *out);
int sl_get_string(loader *L, const ynode *n, const char *where, const char **out);
/* Checks that every key of map is one of keys[]; -1 naming the first other one. */
int sl_check_keys(loader *L, const ynode *map, const char *where, const char *const *keys,
                  int n_keys);
/* Joins names into buf as "a, b, c". */
const char *sl_join_names(const char *const *names, int n, char *buf, size_t len);

/* ---- user kernels (space_user_read.c, the entry of the space_user_*.c readers) ---- */
/* Reads what comes before problems and params: the family and op names, and the dtypes (given,
 * or the first output buffer's type). Creates sp->user. */
int su_load_head(loader *L, const ynode *kernel, const ynode *dtypes);
/* A user kernel's problem fields, from its first problem. */
int su_load_fields(loader *L, const ynode *problems);
/* The rest of the kernel mapping and the reference, bound to the loaded params and fields; then
 * the kernel's identity hash; then L->inputs, which leave the hash the base's. */
int su_load_body(loader *L, const ynode *kernel, const ynode *reference);

/* space_settings.c: the search, measure and validate sections, and the defaults they start
 * from. 0, or -1 with the loader's error set. */
int sl_load_search(loader *L, const ynode *n);
int sl_load_measure(loader *L, const ynode *n);
int sl_load_validate(loader *L, const ynode *n);
void sl_set_defaults(space *sp);
