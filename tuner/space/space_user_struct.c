/* space_user_struct.c: a kernel argument that is a C struct passed by value (`struct:` in
 * kernel.args, docs/user-kernels.md "Structs passed by value"): reading its fields as the space
 * file lists them (values and fixed-size arrays of every element type, pointers to the space's
 * buffers or null, nested structs, an `align:` where the C type has one of its own), resolving
 * the pointers once every argument is read, and the struct's layout under the C rules for a
 * binding's dtype with the walk over its leaves that checking and packing share (freeing it is
 * space_user_files.c's, with the rest of what the loader built). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "space_user_internal.h"

enum { SU_MAX_FIELDS = 256, SU_MAX_DEPTH = 8, SU_MAX_ARRAY = 1024 };

/* The type key of a field: the one key besides name and align. */
static const char *field_key(const ynode *n, const ynode **value)
{
    const char *key = NULL;
    for (int i = 0; i < n->n; i++) {
        const char *k = n->items[2 * i]->text;
        if (strcmp(k, "name") == 0 || strcmp(k, "align") == 0)
            continue;
        if (key)
            return "";
        key = k;
        *value = n->items[2 * i + 1];
    }
    return key;
}

static int read_members(su_ctx *c, const ynode *seq, su_field *f, const char *where, int depth,
                        int *total);

/* `align: N` (w names it) into f->align: a power of two from 1 to 256. */
static int read_align(loader *L, const ynode *v, const char *w, su_field *f)
{
    int64_t a;
    if (sl_get_int(L, v, w, &a) != 0)
        return -1;
    if (a < 1 || a > 256 || (a & (a - 1)))
        return sl_fail_at(L, v, "%s: %lld is not a power of two from 1 to 256", w, (long long)a);
    f->align = (int)a;
    return 0;
}

/* `pointer: BUFFER | null` (w names it) into the POINTER field f: the buffer's name, resolved
 * once every argument is read (su_resolve_pointers). */
static int read_pointer(loader *L, const ynode *v, const char *w, su_field *f)
{
    f->kind = SU_FIELD_POINTER;
    f->buffer = -1;
    if (sl_expect_kind(L, v, YNODE_SCALAR, w) != 0)
        return -1;
    if (strcmp(v->text, "null") == 0 || strcmp(v->text, "~") == 0)
        return 0;
    if (!su_is_identifier(v->text))
        return sl_fail_at(L, v, "%s: '%.60s' is not a buffer's name (or null)", w, v->text);
    if (!(f->target = strdup(v->text)))
        return sl_fail_at(L, v, "out of memory");
    return 0;
}

/* One field: { TYPE: EXPR | [EXPR, ...] } | { pointer: BUFFER | null } | { struct: [...] }, with
 * an optional name: and align:. */
static int read_field(su_ctx *c, const ynode *n, su_field *f, const char *where, int depth,
                      int *total)
{
    loader *L = c->L;
    f->line = n->line;
    f->col = n->col;
    f->buffer = -1;
    if (sl_expect_kind(L, n, YNODE_MAP, where) != 0)
        return -1;
    if (++*total > SU_MAX_FIELDS)
        return sl_fail_at(L, n, "%s: a struct of more than %d fields", where, SU_MAX_FIELDS);
    const ynode *v = ynode_get(n, "name"), *value = NULL;
    if (v) {
        const char *name;
        if (sl_get_string(L, v, where, &name) != 0)
            return -1;
        if (!su_is_identifier(name))
            return sl_fail_at(L, v, "%s.name: '%.60s' is not a name", where, name);
        if (!(f->name = strdup(name)))
            return sl_fail_at(L, v, "out of memory");
    }
    char w[240];
    snprintf(w, sizeof w, "%s%s%s", where, f->name ? " " : "", f->name ? f->name : "");
    if ((v = ynode_get(n, "align"))) {
        char aw[260];
        snprintf(aw, sizeof aw, "%s.align", w);
        if (read_align(L, v, aw, f) != 0)
            return -1;
    }
    const char *key = field_key(n, &value);
    if (!key || !*key)
        return sl_fail_at(L, n, "%s: give exactly one of TYPE: VALUE (f32: alpha, i32: [nx, ny]),"
                                " pointer: BUFFER or struct: [FIELDS] (besides name: and align:)",
                          w);
    if (strcmp(key, "struct") == 0) {
        if (depth >= SU_MAX_DEPTH)
            return sl_fail_at(L, value, "%s: structs nested more than %d deep", w, SU_MAX_DEPTH);
        f->kind = SU_FIELD_STRUCT;
        char mw[260];
        snprintf(mw, sizeof mw, "%s.struct", w);
        return read_members(c, value, f, mw, depth + 1, total);
    }
    if (strcmp(key, "pointer") == 0) {
        char pw[260];
        snprintf(pw, sizeof pw, "%s.pointer", w);
        return read_pointer(L, value, pw, f);
    }
    f->kind = SU_FIELD_VALUE;
    char names[256];
    if ((f->type = su_type_read(key, 1, &f->is_bool, names, sizeof names)) < 0) {
        return sl_fail_at(L, n, "%s: unknown field type '%.60s' (expected %sbool, dtype, "
                                "pointer or struct)", w, key, names);
    }
    const ynode *const *items = &value;
    f->n = 1;
    if (value->kind == YNODE_SEQ) {
        if (value->n < 1 || value->n > SU_MAX_ARRAY)
            return sl_fail_at(L, value, "%s: an array of 1 to %d values", w, SU_MAX_ARRAY);
        f->is_array = 1;
        f->n = value->n;
        items = (const ynode *const *)value->items;
    }
    if (!(f->values = calloc((size_t)f->n, sizeof *f->values)))
        return sl_fail_at(L, value, "out of memory");
    for (int i = 0; i < f->n; i++) {
        char ew[280];
        if (f->is_array)
            snprintf(ew, sizeof ew, "%s[%d]", w, i);
        else
            snprintf(ew, sizeof ew, "%s", w);
        if (su_read_expr(c, items[i], ew, 0, &f->values[i]) != 0)
            return -1;
    }
    return 0;
}

static int read_members(su_ctx *c, const ynode *seq, su_field *f, const char *where, int depth,
                        int *total)
{
    loader *L = c->L;
    if (sl_expect_kind(L, seq, YNODE_SEQ, where) != 0)
        return -1;
    if (seq->n == 0)
        return sl_fail_at(L, seq, "%s: a struct needs at least one field", where);
    if (!(f->members = calloc((size_t)seq->n, sizeof *f->members)))
        return sl_fail_at(L, seq, "out of memory");
    for (int i = 0; i < seq->n; i++) {
        char w[260];
        snprintf(w, sizeof w, "%s[%d]", where, i);
        f->n = i + 1;
        if (read_field(c, seq->items[i], &f->members[i], w, depth, total) != 0)
            return -1;
    }
    return 0;
}

int su_read_pointer(su_ctx *c, const ynode *n, su_arg *a, const char *where)
{
    a->is_buffer = 0;
    a->type = -1;
    a->is_pointer = 1;
    if (!(a->record = calloc(1, sizeof *a->record)) ||
        !(a->record->members = calloc(1, sizeof *a->record->members)))
        return sl_fail_at(c->L, n, "out of memory");
    a->record->kind = SU_FIELD_STRUCT;
    a->record->buffer = -1;
    a->record->n = 1;
    a->record->line = n->line;
    a->record->col = n->col;
    su_field *f = &a->record->members[0];
    const ynode *v = ynode_get(n, "pointer");
    f->line = v->line;
    f->col = v->col;
    char w[200];
    snprintf(w, sizeof w, "%s.pointer", where);
    return read_pointer(c->L, v, w, f);
}

int su_read_struct(su_ctx *c, const ynode *n, su_arg *a, const char *where)
{
    a->is_buffer = 0;
    a->type = -1;
    if (!(a->record = calloc(1, sizeof *a->record)))
        return sl_fail_at(c->L, n, "out of memory");
    a->record->kind = SU_FIELD_STRUCT;
    a->record->buffer = -1;
    a->record->line = n->line;
    a->record->col = n->col;
    char w[200];
    const ynode *v = ynode_get(n, "align");
    if (v) {   /* the argument's own type is aligned: struct __align__(16) Params */
        snprintf(w, sizeof w, "%s.align", where);
        if (read_align(c->L, v, w, a->record) != 0)
            return -1;
    }
    snprintf(w, sizeof w, "%s.struct", where);
    int total = 0;
    return read_members(c, ynode_get(n, "struct"), a->record, w, 0, &total);
}

/* ---- pointers ---- */

static int fail_at(loader *L, const su_field *f, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_at(loader *L, const su_field *f, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    space_errorf(L->err, L->len, L->path, f->line, f->col, "%s", msg);
    return -1;
}

static int resolve(loader *L, space_user *u, const su_arg *owner, su_field *f)
{
    if (f->kind == SU_FIELD_STRUCT) {
        for (int i = 0; i < f->n; i++)
            if (resolve(L, u, owner, &f->members[i]) != 0)
                return -1;
        return 0;
    }
    if (f->kind != SU_FIELD_POINTER || !f->target)
        return 0;
    char who[200];
    if (owner->is_pointer)
        snprintf(who, sizeof who, "kernel.args %s", owner->name);
    else
        snprintf(who, sizeof who, "kernel.args %s.struct%s%s", owner->name, f->name ? " " : "",
                 f->name ? f->name : "");
    for (int i = 0; i < u->n_args; i++) {
        const su_arg *b = &u->args[i];
        if (strcmp(b->name, f->target) != 0)
            continue;
        if (!b->is_buffer)
            return fail_at(L, f, "%s: pointer: %s is a %s, not a buffer", who, f->target,
                           b->is_pointer ? "pointer" : b->record ? "struct"
                           : b->texture ? "texture" : b->tensor_map ? "tensor map" : "scalar");
        if (b->symbol)
            return fail_at(L, f, "%s: pointer: %s fills the variable %s, which the kernel reads "
                           "by name, not through a pointer", who, f->target, b->symbol);
        f->buffer = i;
        return 0;
    }
    return fail_at(L, f, "%s: pointer: '%.60s' is not a buffer of kernel.args", who, f->target);
}

int su_resolve_pointers(loader *L, space_user *u)
{
    for (int i = 0; i < u->n_args; i++)
        if (u->args[i].record && resolve(L, u, &u->args[i], u->args[i].record) != 0)
            return -1;
    return 0;
}

int su_field_points_to(const su_field *f, int i)
{
    if (f->kind == SU_FIELD_POINTER)
        return f->buffer == i;
    for (int m = 0; f->kind == SU_FIELD_STRUCT && m < f->n; m++)
        if (su_field_points_to(&f->members[m], i))
            return 1;
    return 0;
}

int su_arg_pointed_to(const space_user *u, int i)
{
    for (int j = 0; j < u->n_args; j++)
        if ((u->args[j].record && !u->args[j].is_pointer &&
             su_field_points_to(u->args[j].record, i)) ||
            (u->args[j].texture && u->args[j].texture->buffer == i) ||
            (u->args[j].tensor_map && u->args[j].tensor_map->buffer == i))
            return 1;
    return 0;
}

/* ---- layout ---- */

static size_t round_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

/* f's size and alignment; with leaf, its leaves at base onwards. */
static int layout(const su_field *f, int dtype, size_t base, size_t *size, size_t *align,
                  su_leaf_fn leaf, void *ctx)
{
    size_t sz = 0, al = 1;
    if (f->kind == SU_FIELD_VALUE) {
        int t = f->type == SU_DTYPE ? dtype : f->type;
        size_t es = su_type_size(t);
        if (!es)
            return -1;
        al = es;
        sz = es * (size_t)f->n;
        for (int i = 0; leaf && i < f->n; i++) {
            int rc = leaf(ctx, f, i, t, base + (size_t)i * es);
            if (rc)
                return rc;
        }
    } else if (f->kind == SU_FIELD_POINTER) {
        sz = al = 8;
        int rc = leaf ? leaf(ctx, f, 0, -1, base) : 0;
        if (rc)
            return rc;
    } else {
        for (int i = 0; i < f->n; i++) {
            size_t msz, mal;
            int rc = layout(&f->members[i], dtype, 0, &msz, &mal, NULL, NULL);
            if (rc)
                return rc;
            sz = round_up(sz, mal);
            if (leaf && (rc = layout(&f->members[i], dtype, base + sz, &msz, &mal, leaf, ctx)))
                return rc;
            sz += msz;
            if (mal > al)
                al = mal;
        }
    }
    /* align: on a value or pointer is alignas(N) on the member: where it starts, not its size;
     * on a struct it is an aligned type (__align__(16), float4): its size rounds up too */
    if (f->align && (size_t)f->align > al)
        al = (size_t)f->align;
    *size = f->kind == SU_FIELD_STRUCT ? round_up(sz, al) : sz;
    *align = al;
    return 0;
}

int su_struct_layout(const su_field *record, int dtype, size_t *size, size_t *align,
                     su_leaf_fn leaf, void *ctx)
{
    return layout(record, dtype, 0, size, align, leaf, ctx);
}

/* ---- what the rest of the loader asks of a struct ---- */

/* The first value expression of f that reads a parameter, or NULL (*which: the one named). */
const su_expr *su_record_reads_params(const space *sp, const su_field *f, const char **which)
{
    for (int i = 0; i < f->n; i++) {
        if (f->kind == SU_FIELD_VALUE && su_reads_params(sp, &f->values[i], which))
            return &f->values[i];
        const su_expr *x;
        if (f->kind == SU_FIELD_STRUCT && (x = su_record_reads_params(sp, &f->members[i], which)))
            return x;
    }
    return NULL;
}
