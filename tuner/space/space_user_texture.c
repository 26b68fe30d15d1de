/* space_user_texture.c: texture arguments of a user kernel's space (docs/user-kernels.md,
 * "Textures"): `{ name: src, texture: image, dims: [w, h], filter: linear, ... }` read and
 * checked against the buffer it names (an input of a type a texture can hold), and its size for
 * a binding. The texture object itself is made on the GPU by tuner/ops/user_texture.c. */
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

int su_read_texture(su_ctx *c, const ynode *n, su_arg *a, const char *where)
{
    static const char *const keys[] = {"name", "texture", "dims", "channels", "filter",
                                       "address", "normalized_coords", "read"};
    static const char *const filters[] = {"point", "linear"};
    static const char *const addresses[] = {"wrap", "clamp", "mirror", "border"};
    static const char *const reads[] = {"element", "normalized"};
    loader *L = c->L;
    char w[200];
    a->is_buffer = 0;
    a->type = -1;
    if (sl_check_keys(L, n, where, keys, 8) != 0)
        return -1;
    su_texture *t = a->texture = calloc(1, sizeof *a->texture);
    if (!t)
        return sl_fail_at(L, n, "out of memory");
    t->buffer = -1;
    t->channels = 1;
    t->address = SU_TEX_CLAMP;
    t->line = n->line;
    t->col = n->col;
    const ynode *v = ynode_get(n, "texture");
    const char *target;
    snprintf(w, sizeof w, "%s.texture", where);
    if (sl_get_string(L, v, w, &target) != 0)
        return -1;
    if (!(t->target = strdup(target)))
        return sl_fail_at(L, v, "out of memory");
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

int su_resolve_textures(loader *L, space_user *u)
{
    for (int i = 0; i < u->n_args; i++) {
        su_arg *a = &u->args[i];
        su_texture *t = a->texture;
        if (!t)
            continue;
        for (int j = 0; j < u->n_args && t->buffer < 0; j++)
            if (strcmp(u->args[j].name, t->target) == 0)
                t->buffer = j;
        if (t->buffer < 0) {
            space_errorf(L->err, L->len, L->path, t->line, t->col, "kernel.args %s: texture: "
                         "'%.60s' is not a buffer of kernel.args", a->name, t->target);
            return -1;
        }
        const su_arg *b = &u->args[t->buffer];
        const char *not = !b->is_buffer ? "is not a buffer"
                          : b->output ? "is an output, and a texture is read-only"
                          : b->symbol ? "fills a variable, which the kernel reads by name"
                                      : NULL;
        if (not) {
            space_errorf(L->err, L->len, L->path, t->line, t->col, "kernel.args %s: texture: %s "
                         "%s", a->name, t->target, not);
            return -1;
        }
        if (b->type != SU_DTYPE &&
            type_checks(L->path, a, b->type, t->line, t->col, L->err, L->len, NULL) != 0)
            return -1;
    }
    return 0;
}

int su_texture_type(const space_user *u, const su_texture *t, const char *dtype)
{
    int bt = u->args[t->buffer].type;
    return bt == SU_DTYPE ? su_type_parse(dtype) : bt;
}

int space_user_texture_dims(const space *sp, const space_binding *b, const int *choice,
                            const su_arg *a, int64_t dims[3], char *err, size_t len)
{
    const space_user *u = sp->user;
    const su_texture *t = a->texture;
    int type = su_texture_type(u, t, b->dtype);
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
