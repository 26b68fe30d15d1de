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
 * Slots of a constraint expression: params [0, n_params) in file order, then the family's
 * problem fields in family order, then dtype, dtype_size, op, then the device attributes. */

/* Slot count for sp (its family and params must be set). */
int space_slot_count(const space *sp);

/* Resolves a constraint identifier to a slot for sp. Returns the slot and sets *mask (slot type
 * bits) and *is_device (1 for a device attribute), or -1 when the name is unknown. */
int space_resolve_slot(const space *sp, const char *name, int *mask, int *is_device);

/* Fills the non-parameter slots from a binding (device NULL: device slots hold 0). */
void space_fill_fixed_slots(const space *sp, const space_binding *b, value *slots);

/* Writes the position of an evaluation error of constraint c (its start plus the error offset
 * in the expression) and the message to err as one "path:line:col: error: ..." line. */
void space_constraint_error(const space *sp, int c, const expr_error *e, char *err, size_t len);
