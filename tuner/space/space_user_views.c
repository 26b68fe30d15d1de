/* space_user_views.c: the arguments of a user kernel's space that are views of one of its
 * buffers, made by the tuner: textures (docs/user-kernels.md, "Textures": `{ name: src, texture:
 * image, dims: [w, h], filter: linear, ... }`) and tensor maps ("Tensor maps": `{ name: tmap,
 * tensor_map: x, dims: [cols, rows], box: [64, 64], swizzle: 128 }`). Each is read, checked
 * against the buffer it names, and sized for a binding here; tuner/ops/user_views.c makes the
 * texture object or encodes the CUtensorMap on the GPU's side. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "space_user_internal.h"

/* The texel types a texture can have: 32-bit floats and halves, 8-, 16- and 32-bit integers. */
static int texel_type_ok(int t)
{
    return t == SU_F32 || t == SU_F16 || t == SU_I8 || t == SU_U8 || t == SU_I16 ||
           t == SU_U16 || t == SU_I32 || t == SU_U32;
}

static int small_int(int t)
{
    return t == SU_I8 || t == SU_U8 || t == SU_I16 || t == SU_U16;
}

/* One of names[] (n of them) as *out's index. */
static int read_word(loader *L, const ynode *v, const char *w, const char *const *names, int n,
                     int *out)
{
    const char *s;
    if (sl_get_string(L, v, w, &s) != 0)
        return -1;
    for (int i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = i;
            return 0;
        }
    char list[200] = "";
    for (int i = 0; i < n; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                 names[i]);
    return sl_fail_at(L, v, "%s: '%.60s' (expected %s)", w, s, list);
}

/* What a view's reader starts with: a is passed by value (no element type of its own), n has
 * only the keys given, and the buffer it names (key `key`) is read into *target (malloc'd).
 * -1 with the loader's error. */
static int read_view_head(loader *L, const ynode *n, su_arg *a, const char *where,
                          const char *const *keys, int n_keys, const char *key, char **target)
{
    char w[200];
    const char *name;
    a->is_buffer = 0;
    a->type = -1;
    if (sl_check_keys(L, n, where, keys, n_keys) != 0)
        return -1;
    snprintf(w, sizeof w, "%s.%s", where, key);
    if (sl_get_string(L, ynode_get(n, key), w, &name) != 0)
        return -1;
    if (!(*target = strdup(name)))
        return sl_fail_at(L, n, "out of memory");
    return 0;
}

int su_read_texture(su_ctx *c, const ynode *n, su_arg *a, const char *where)
{
    static const char *const keys[] = {"name", "texture", "dims", "channels", "filter",
                                       "address", "normalized_coords", "read"};
    static const char *const filters[] = {"point", "linear"};
    static const char *const addresses[] = {"wrap", "clamp", "mirror", "border"};
    static const char *const reads[] = {"element", "normalized"};
    loader *L = c->L;
    char w[200];
    su_texture *t = a->texture = calloc(1, sizeof *a->texture);
    if (!t)
        return sl_fail_at(L, n, "out of memory");
    t->buffer = -1;
    t->channels = 1;
    t->address = SU_TEX_CLAMP;
    t->line = n->line;
    t->col = n->col;
    if (read_view_head(L, n, a, where, keys, 8, "texture", &t->target) != 0)
        return -1;
    const ynode *v;
    if (!(v = ynode_get(n, "dims")))
        return sl_fail_at(L, n, "%s: missing required key 'dims' (the texture's width, height "
                                "and depth in texels: 1 to 3 expressions)", where);
    snprintf(w, sizeof w, "%s.dims", where);
    su_ctx dc = *c;
    dc.allow_params = 0;
    dc.where = "a texture's size is the problem's, not a parameter's";
    if (su_read_dims(&dc, v, w, t->dims, &t->n_dims) != 0)
        return -1;
    if ((v = ynode_get(n, "channels"))) {
        int64_t ch;
        snprintf(w, sizeof w, "%s.channels", where);
        if (sl_get_int(L, v, w, &ch) != 0)
            return -1;
        if (ch != 1 && ch != 2 && ch != 4)
            return sl_fail_at(L, v, "%s: %lld (a texel has 1, 2 or 4 elements: float, float2, "
                                    "float4, uchar4, ...)", w, (long long)ch);
        t->channels = (int)ch;
    }
    if ((v = ynode_get(n, "filter"))) {
        snprintf(w, sizeof w, "%s.filter", where);
        if (read_word(L, v, w, filters, 2, &t->linear_filter) != 0)
            return -1;
    }
    const ynode *addr = ynode_get(n, "address");
    if (addr) {
        snprintf(w, sizeof w, "%s.address", where);
        if (read_word(L, addr, w, addresses, 4, &t->address) != 0)
            return -1;
    }
    const ynode *norm = ynode_get(n, "normalized_coords");
    if (norm) {
        snprintf(w, sizeof w, "%s.normalized_coords", where);
        if (sl_get_bool(L, norm, w, &t->normalized_coords) != 0)
            return -1;
    }
    if ((v = ynode_get(n, "read"))) {
        snprintf(w, sizeof w, "%s.read", where);
        if (read_word(L, v, w, reads, 2, &t->read_normalized) != 0)
            return -1;
    }
    /* one dimension is the buffer itself: tex1Dfetch by integer index, nothing else */
    if (t->n_dims == 1 && (t->linear_filter || addr || norm))
        return sl_fail_at(L, t->linear_filter ? ynode_get(n, "filter") : addr ? addr : norm,
                          "%s: a texture of one dimension is over the buffer itself, which "
                          "tex1Dfetch reads by index: no filtering, address mode or normalized "
                          "coordinates (give dims: [w, h] or [w, h, d] for those)", where);
    if ((t->address == SU_TEX_WRAP || t->address == SU_TEX_MIRROR) && !t->normalized_coords)
        return sl_fail_at(L, addr, "%s.address: %s needs normalized_coords: true (CUDA wraps and "
                                   "mirrors normalized coordinates only)", where,
                          addresses[t->address]);
    return 0;
}

/* The checks that need the texel type t (an su_type, resolved), said at line:col. */
static int type_checks(const char *path, const su_arg *a, int t, int line, int col, char *err,
                       size_t len, const char *dtype)
{
    const su_texture *x = a->texture;
    const char *why = NULL;
    if (!texel_type_ok(t))
        why = "a texture's texels are f32, f16, or 8-, 16- or 32-bit integers";
    else if (x->read_normalized && !small_int(t))
        why = "read: normalized is for 8- and 16-bit integers (others are read as they are)";
    else if (x->linear_filter && !(t == SU_F32 || t == SU_F16 || x->read_normalized))
        why = "filter: linear needs texels read as floats: f32, f16, or 8- and 16-bit integers "
              "with read: normalized";
    if (!why)
        return 0;
    char msg[400];
    snprintf(msg, sizeof msg, "kernel.args %s: texture over %s, of type %s%s%s: %s", a->name,
             x->target, su_type_name(t) ? su_type_name(t) : "?", dtype ? " for dtype " : "",
             dtype ? dtype : "", why);
    space_errorf(err, len, path, line, col, "%s", msg);
    return -1;
}

/* The buffer a view of kind ("texture", "tensor_map") named target reads: its index in
 * u->args, or -1 with the loader's error at line:col (not an argument, not a buffer, a
 * variable's, or an output where the view is read-only). */
static int view_buffer(loader *L, const space_user *u, const su_arg *a, const char *kind,
                       const char *target, int read_only, int line, int col)
{
    int i = -1;
    for (int j = 0; j < u->n_args && i < 0; j++)
        if (strcmp(u->args[j].name, target) == 0)
            i = j;
    const su_arg *b = i >= 0 ? &u->args[i] : NULL;
    const char *not = !b ? "is not a buffer of kernel.args" : !b->is_buffer ? "is not a buffer"
                      : b->symbol ? "fills a variable, which has no address to read from"
                      : read_only && b->output ? "is an output, and a texture is read-only"
                                                : NULL;
    if (not) {
        space_errorf(L->err, L->len, L->path, line, col, "kernel.args %s: %s: '%.60s' %s",
                     a->name, kind, target, not);
        return -1;
    }
    return i;
}

static int resolve_tensor_map(loader *L, space_user *u, su_arg *a);

int su_resolve_views(loader *L, space_user *u)
{
    for (int i = 0; i < u->n_args; i++) {
        su_arg *a = &u->args[i];
        su_texture *t = a->texture;
        if (a->tensor_map && resolve_tensor_map(L, u, a) != 0)
            return -1;
        if (!t)
            continue;
        if ((t->buffer = view_buffer(L, u, a, "texture", t->target, 1, t->line, t->col)) < 0)
            return -1;
        const su_arg *b = &u->args[t->buffer];
        if (b->type != SU_DTYPE &&
            type_checks(L->path, a, b->type, t->line, t->col, L->err, L->len, NULL) != 0)
            return -1;
    }
    return 0;
}

int su_check_views(loader *L, const space_user *u)
{
    const su_kernel *k = &u->kernel;
    for (int i = 0; i < u->n_args && k->n_launches > 1; i++) {
        const su_texture *t = u->args[i].texture;
        if (!t || t->n_dims == 1)
            continue;
        for (int l = 0; l < k->n_launches; l++)
            for (int j = 0; j < k->launches[l].n_args; j++) {
                const su_arg *b = &u->args[k->launches[l].args[j]];
                if (k->launches[l].args[j] != t->buffer &&
                    !(b->record && su_field_points_to(b->record, t->buffer)))
                    continue;
                space_errorf(L->err, L->len, L->path, t->line, t->col, "kernel.args %s: a "
                             "texture of %d dimensions reads a copy of %s made before the "
                             "launches, and launches[%d] (%s) takes %s, so it could write it "
                             "first; a pipeline's texture over a buffer its launches reach must "
                             "be 1-D (over the buffer itself)", u->args[i].name, t->n_dims,
                             t->target, l, k->launches[l].function, b->name);
                return -1;
            }
    }
    return 0;
}

int space_user_texture_dims(const space *sp, const space_binding *b, const int *choice,
                            const su_arg *a, int64_t dims[3], char *err, size_t len)
{
    const space_user *u = sp->user;
    const su_texture *t = a->texture;
    int type = su_arg_type(&u->args[t->buffer], b);
    if (u->args[t->buffer].type == SU_DTYPE &&
        type_checks(sp->path, a, type, t->line, t->col, err, len, b->dtype) != 0)
        return -1;
    int64_t texels = t->channels;
    for (int i = 0; i < 3; i++) {
        dims[i] = 1;
        if (i >= t->n_dims)
            continue;
        char what[160];
        snprintf(what, sizeof what, "kernel.args %s.dims", a->name);
        if (space_user_eval_int(sp, b, choice, &t->dims[i], 1, INT32_MAX, what, &dims[i], err,
                                len) != 0)
            return -1;
        if (__builtin_mul_overflow(texels, dims[i], &texels))
            texels = INT64_MAX;
    }
    int64_t count, bytes;
    if (space_user_buffer_bytes(sp, b, choice, t->buffer, &count, &bytes, err, len) != 0)
        return -1;
    if (count < texels) {
        space_errorf(err, len, sp->path, t->dims[0].line, t->dims[0].col,
                     "kernel.args %s: a texture of %lld x %lld x %lld texels of %d element%s "
                     "needs %lld elements, and buffer %s has %lld (%s %s)", a->name,
                     (long long)dims[0], (long long)dims[1], (long long)dims[2], t->channels,
                     t->channels == 1 ? "" : "s", (long long)texels, t->target, (long long)count,
                     b->dtype, b->problem->text);
        return -1;
    }
    return 0;
}

/* ---- tensor maps ---- */

/* Key `key` of map: 1 to max expressions into x (*count of them; 0 when the key is absent and
 * not required). */
static int read_list(su_ctx *c, const ynode *map, const char *key, const char *where, int max,
                     su_expr *x, int *count, int required)
{
    loader *L = c->L;
    char w[200];
    const ynode *v = ynode_get(map, key);
    snprintf(w, sizeof w, "%s.%s", where, key);
    if (!v) {
        *count = 0;
        return required ? sl_fail_at(L, map, "%s: missing required key '%s'", where, key) : 0;
    }
    return su_read_exprs(c, v, w, max, "", x, count);
}

int su_read_tensor_map(su_ctx *c, const ynode *n, su_arg *a, const char *where)
{
    static const char *const keys[] = {"name", "tensor_map", "dims", "strides", "box",
                                       "swizzle", "oob"};
    static const char *const oobs[] = {"zeros", "nan"};
    loader *L = c->L;
    char w[200];
    su_tensor_map *t = a->tensor_map = calloc(1, sizeof *a->tensor_map);
    if (!t)
        return sl_fail_at(L, n, "out of memory");
    t->buffer = -1;
    t->line = n->line;
    t->col = n->col;
    if (read_view_head(L, n, a, where, keys, 7, "tensor_map", &t->target) != 0)
        return -1;
    const ynode *v;
    su_ctx dc = *c;
    dc.allow_params = 0;
    dc.where = "a tensor's size is the problem's, not a parameter's; the box may be one";
    int n_box = 0;
    if (read_list(&dc, n, "dims", where, 5, t->dims, &t->rank, 1) != 0 ||
        read_list(&dc, n, "strides", where, 4, t->strides, &t->n_strides, 0) != 0 ||
        read_list(c, n, "box", where, 5, t->box, &n_box, 1) != 0)
        return -1;
    if (n_box != t->rank)
        return sl_fail_at(L, ynode_get(n, "box"), "%s.box: %d expressions for a tensor of rank %d "
                                                   "(one per dimension of dims, innermost first)",
                          where, n_box, t->rank);
    if (t->n_strides && t->n_strides != t->rank - 1)
        return sl_fail_at(L, ynode_get(n, "strides"), "%s.strides: %d expressions for a tensor "
                          "of rank %d (one per dimension but the innermost: elements between "
                          "consecutive indices)", where, t->n_strides, t->rank);
    if ((v = ynode_get(n, "swizzle"))) {
        int64_t sw;
        snprintf(w, sizeof w, "%s.swizzle", where);
        if (sl_get_int(L, v, w, &sw) != 0)
            return -1;
        if (sw != 0 && sw != 32 && sw != 64 && sw != 128)
            return sl_fail_at(L, v, "%s: %lld (expected 0, 32, 64 or 128: the bytes of "
                                    "CU_TENSOR_MAP_SWIZZLE_32B, ...)", w, (long long)sw);
        t->swizzle = (int)sw;
    }
    if ((v = ynode_get(n, "oob"))) {
        snprintf(w, sizeof w, "%s.oob", where);
        if (read_word(L, v, w, oobs, 2, &t->oob_nan) != 0)
            return -1;
    }
    return 0;
}

static int resolve_tensor_map(loader *L, space_user *u, su_arg *a)
{
    su_tensor_map *t = a->tensor_map;
    if ((t->buffer = view_buffer(L, u, a, "tensor_map", t->target, 0, t->line, t->col)) < 0)
        return -1;
    const su_arg *b = &u->args[t->buffer];
    if (t->oob_nan && b->type != SU_DTYPE && !su_type_is_float(b->type)) {
        space_errorf(L->err, L->len, L->path, t->line, t->col, "kernel.args %s: oob: nan over "
                     "%s, of type %s: only floating-point elements have a NaN", a->name,
                     t->target, su_type_name(b->type));
        return -1;
    }
    return 0;
}

int space_user_tensor_map_geometry(const space *sp, const space_binding *b, const int *choice,
                                   const su_arg *a, uint64_t dims[5], uint64_t strides[4],
                                   uint32_t box[5], int *box_dim, char *err, size_t len)
{
    const space_user *u = sp->user;
    const su_tensor_map *t = a->tensor_map;
    int type = su_arg_type(&u->args[t->buffer], b);
    size_t es = su_type_size(type);
    char what[160];
    if (!es) {   /* every element type has a TMA data type; dtype must be one */
        space_errorf(err, len, sp->path, t->line, t->col, "kernel.args %s: tensor map over %s: "
                     "dtype %s is not an element type", a->name, t->target, b->dtype);
        return -1;
    }
    if (t->oob_nan && !su_type_is_float(type)) {
        space_errorf(err, len, sp->path, t->line, t->col, "kernel.args %s: oob: nan over %s, of "
                     "type %s for dtype %s: only floating-point elements have a NaN", a->name,
                     t->target, su_type_name(type), b->dtype);
        return -1;
    }
    uint64_t span = 0;   /* the element one past the last the tensor reaches */
    for (int i = 0; i < t->rank; i++) {
        int64_t v;
        snprintf(what, sizeof what, "kernel.args %s.dims", a->name);
        if (space_user_eval_int(sp, b, choice, &t->dims[i], 1, (int64_t)1 << 32, what, &v, err,
                                len) != 0)
            return -1;
        dims[i] = (uint64_t)v;
        snprintf(what, sizeof what, "kernel.args %s.box", a->name);
        if (space_user_eval_int(sp, b, choice, &t->box[i], -((int64_t)1 << 40),
                                (int64_t)1 << 40, what, &v, err, len) != 0)
            return -1;
        if (v < 1 || v > 256) {   /* this config's tile: unsupported, not an error */
            if (box_dim)
                *box_dim = i;
            snprintf(err, len, "tensor map %s: box dimension %d is %lld: TMA moves 1 to 256 "
                     "elements a dimension", a->name, i, (long long)v);
            return 1;
        }
        box[i] = (uint32_t)v;
    }
    /* strides in elements between consecutive indices of dims 1..: given, else packed */
    uint64_t stride = 1;
    for (int i = 1; i < t->rank; i++) {
        if (t->n_strides) {
            int64_t v;
            snprintf(what, sizeof what, "kernel.args %s.strides", a->name);
            if (space_user_eval_int(sp, b, choice, &t->strides[i - 1], 1, (int64_t)1 << 40, what,
                                    &v, err, len) != 0)
                return -1;
            stride = (uint64_t)v;
        }
        /* packed: the product of the dimensions inside; every product checked, as TMA's
         * limits are far below what 64 bits hold */
        int over = 0;
        if (!t->n_strides)
            over = i == 1 ? (stride = dims[0], 0)
                          : __builtin_mul_overflow(stride, dims[i - 1], &stride);
        uint64_t bytes = 0;
        over = over || __builtin_mul_overflow(stride, (uint64_t)es, &bytes);
        const su_expr *at = t->n_strides ? &t->strides[i - 1] : &t->dims[0];
        if (over || bytes % 16 != 0 || bytes >= ((uint64_t)1 << 40)) {
            char start[80];
            if (over)
                snprintf(start, sizeof start, "more than 2^64 bytes");
            else
                snprintf(start, sizeof start, "%llu elements (%llu bytes)",
                         (unsigned long long)stride, (unsigned long long)bytes);
            space_errorf(err, len, sp->path, at->line, at->col, "kernel.args %s: dimension %d "
                         "of the tensor map over %s starts every %s: TMA needs a multiple of 16 "
                         "bytes below 2^40 (%s %s)", a->name, i, t->target, start, b->dtype,
                         b->problem->text);
            return -1;
        }
        strides[i - 1] = bytes;
        uint64_t reach;
        if (__builtin_mul_overflow(dims[i] - 1, stride, &reach) ||
            __builtin_add_overflow(span, reach, &span))
            span = UINT64_MAX;
    }
    if (__builtin_add_overflow(span, dims[0], &span))
        span = UINT64_MAX;
    if (box[0] * es % 16 != 0 || (t->swizzle && box[0] * es > (uint64_t)t->swizzle)) {
        if (box_dim)
            *box_dim = 0;
        snprintf(err, len, "tensor map %s: a box %u elements wide (%zu bytes) over %s: TMA "
                 "needs the innermost box dimension to be a multiple of 16 bytes%s", a->name,
                 box[0], (size_t)box[0] * es, t->target,
                 t->swizzle ? ", and no wider than the swizzle" : "");
        return 1;
    }
    int64_t count, bytes;
    if (space_user_buffer_bytes(sp, b, choice, t->buffer, &count, &bytes, err, len) != 0)
        return -1;
    if ((uint64_t)count < span) {
        char reach[60];
        if (span == UINT64_MAX)
            snprintf(reach, sizeof reach, "more than 2^64");
        else
            snprintf(reach, sizeof reach, "%llu", (unsigned long long)span);
        space_errorf(err, len, sp->path, t->dims[0].line, t->dims[0].col, "kernel.args %s: the "
                     "tensor map reaches %s elements of %s, which has %lld (%s %s)", a->name,
                     reach, t->target, (long long)count, b->dtype, b->problem->text);
        return -1;
    }
    return 0;
}
