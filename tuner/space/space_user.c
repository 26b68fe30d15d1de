/* space_user.c: the user-kernel sections of a space file (space_user.h, docs/user-kernels.md):
 * reading the `kernel:` mapping and `reference:` with positioned errors, binding their
 * expressions to the space's slots, the kernel's identity hash over its source and the files it
 * includes, and evaluating counts, scalars, launch geometry and compile options for a binding and
 * a config. The checks that need the device (sizes against its memory, geometry against its
 * limits) are space_user_check, which `tuner run` calls once the device is known. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "core/device.h"
#include "core/sha256.h"
#include "ops/ops.h"
#include "space_internal.h"
#include "space_user.h"

/* ---- element types ---- */

static const struct {
    const char *name, *ctype;
    size_t size;
    int is_float;
} su_types[SU_TYPE_COUNT] = {
    [SU_F64] = {"f64", "double", 8, 1},         [SU_F32] = {"f32", "float", 4, 1},
    [SU_F16] = {"f16", "__half", 2, 1},         [SU_BF16] = {"bf16", "__nv_bfloat16", 2, 1},
    [SU_I8] = {"i8", "signed char", 1, 0},      [SU_I16] = {"i16", "short", 2, 0},
    [SU_I32] = {"i32", "int", 4, 0},            [SU_I64] = {"i64", "long long", 8, 0},
    [SU_U8] = {"u8", "unsigned char", 1, 0},    [SU_U16] = {"u16", "unsigned short", 2, 0},
    [SU_U32] = {"u32", "unsigned int", 4, 0},   [SU_U64] = {"u64", "unsigned long long", 8, 0},
};

int su_type_parse(const char *name)
{
    for (int t = 0; name && t < SU_TYPE_COUNT; t++)
        if (strcmp(su_types[t].name, name) == 0)
            return t;
    return -1;
}

const char *su_type_name(int t) { return t >= 0 && t < SU_TYPE_COUNT ? su_types[t].name : NULL; }
size_t su_type_size(int t) { return t >= 0 && t < SU_TYPE_COUNT ? su_types[t].size : 0; }
const char *su_type_ctype(int t) { return t >= 0 && t < SU_TYPE_COUNT ? su_types[t].ctype : NULL; }
int su_type_is_float(int t) { return t >= 0 && t < SU_TYPE_COUNT && su_types[t].is_float; }

const char *su_ctype_of(const char *dtype)
{
    int t = su_type_parse(dtype);
    return t < 0 ? "" : su_types[t].ctype;
}

int su_is_identifier(const char *s)
{
    if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
        return 0;
    for (s++; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return 0;
    return 1;
}

/* Default tolerance of an output by type: {abs, rel}. */
static void default_tolerance(int t, double *atol, double *rtol)
{
    switch (t) {
    case SU_F64: *atol = *rtol = 1e-12; break;
    case SU_F32: *atol = *rtol = 1e-5; break;
    case SU_F16: *atol = *rtol = 1e-3; break;
    case SU_BF16: *atol = *rtol = 1e-2; break;
    default: *atol = *rtol = 0; break;
    }
}

/* ---- freeing ---- */

static void expr_clear(su_expr *x)
{
    free(x->text);
    expr_free(x->e);
    memset(x, 0, sizeof *x);
}

static void kernel_clear(su_kernel *k)
{
    free(k->source);
    free(k->source_dir);
    free(k->function);
    for (int i = 0; i < k->n_template; i++)
        expr_clear(&k->templ[i]);
    free(k->templ);
    for (int i = 0; i < k->n_defines; i++) {
        free(k->define_names[i]);
        expr_clear(&k->define_values[i]);
    }
    free(k->define_names);
    free(k->define_values);
    for (int i = 0; i < k->n_options; i++)
        free(k->options[i]);
    free(k->options);
    for (int i = 0; i < k->n_include_dirs; i++)
        free(k->include_dirs[i]);
    free(k->include_dirs);
    for (int i = 0; i < 3; i++) {
        expr_clear(&k->grid[i]);
        expr_clear(&k->block[i]);
    }
    expr_clear(&k->shared);
    memset(k, 0, sizeof *k);
}

void space_user_free(space_user *u)
{
    if (!u)
        return;
    free(u->family);
    free(u->op);
    kernel_clear(&u->kernel);
    for (int i = 0; i < u->n_args; i++) {
        free(u->args[i].name);
        expr_clear(&u->args[i].count);
        expr_clear(&u->args[i].value);
        free(u->args[i].file);
        if (u->ref_files)
            free(u->ref_files[i]);
    }
    free(u->args);
    free(u->ref_files);
    expr_clear(&u->bytes);
    expr_clear(&u->elements);
    expr_clear(&u->flops);
    free(u->ref_choice);
    kernel_clear(&u->ref_kernel);
    free(u->peer);
    free(u->dir);
    free(u);
}

/* ---- paths and files ---- */

/* dir + "/" + rel (rel as it is when absolute or dir is empty); malloc'd. */
static char *path_join(const char *dir, const char *rel)
{
    size_t nd = strlen(dir), nr = strlen(rel);
    char *p = malloc(nd + nr + 2);
    if (!p)
        return NULL;
    if (rel[0] == '/' || nd == 0)
        memcpy(p, rel, nr + 1);
    else
        snprintf(p, nd + nr + 2, "%s%s%s", dir, dir[nd - 1] == '/' ? "" : "/", rel);
    return p;
}

/* The folder of path ("" when it has none); malloc'd. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup("");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

enum { SU_MAX_SOURCE = 16 << 20, SU_MAX_FILES = 1000 };

/* Reads a whole file (at most SU_MAX_SOURCE bytes); malloc'd and NUL-terminated, *n its size. */
static char *read_text(const char *path, size_t *n, char *why, size_t len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, len, "%s", strerror(errno));
        return NULL;
    }
    char *buf = malloc(SU_MAX_SOURCE + 1);
    size_t got = buf ? fread(buf, 1, SU_MAX_SOURCE + 1, f) : 0;
    int bad = !buf || ferror(f);
    fclose(f);
    if (bad) {
        snprintf(why, len, "%s", buf ? "read error" : "out of memory");
        free(buf);
        return NULL;
    }
    if (got > SU_MAX_SOURCE) {
        snprintf(why, len, "larger than %d MiB", SU_MAX_SOURCE >> 20);
        free(buf);
        return NULL;
    }
    buf[got] = 0;
    if (n)
        *n = got;
    return buf;
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Finds name (from an #include) relative to the including file's folder, then the kernel's
 * source folder and include directories; malloc'd path or NULL (a system header). */
static char *find_include(const su_kernel *k, const char *from_dir, const char *name)
{
    char *p = path_join(from_dir, name);
    if (p && is_file(p))
        return p;
    free(p);
    for (int i = -1; i < k->n_include_dirs; i++) {
        p = path_join(i < 0 ? k->source_dir : k->include_dirs[i], name);
        if (p && is_file(p))
            return p;
        free(p);
    }
    return NULL;
}

int su_kernel_files(const su_kernel *k, char ***paths, char *err, size_t len)
{
    char **list = calloc(SU_MAX_FILES, sizeof *list);
    int n = 0;
    *paths = NULL;
    if (!list || !(list[n++] = strdup(k->source))) {
        snprintf(err, len, "out of memory");
        free(list);
        return 0;
    }
    for (int at = 0; at < n; at++) {
        char why[256];
        char *text = read_text(list[at], NULL, why, sizeof why);
        if (!text) {
            snprintf(err, len, "%s: cannot read: %s", list[at], why);
            goto fail;
        }
        char *from = dir_of(list[at]);
        for (char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
            const char *p = line;
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p++ != '#')
                continue;
            while (*p == ' ' || *p == '\t')
                p++;
            if (strncmp(p, "include", 7) != 0)
                continue;
            p += 7;
            while (*p == ' ' || *p == '\t')
                p++;
            char close = *p == '"' ? '"' : *p == '<' ? '>' : 0;
            if (!close)
                continue;
            const char *end = strchr(p + 1, close), *nl = strchr(p + 1, '\n');
            if (!end || (nl && end > nl) || end - p - 1 >= 1024)
                continue;
            char name[1024];
            memcpy(name, p + 1, (size_t)(end - p - 1));
            name[end - p - 1] = 0;
            char *found = from ? find_include(k, from, name) : NULL;
            if (!found)
                continue;
            int seen = 0;
            for (int j = 0; j < n && !seen; j++)
                seen = strcmp(list[j], found) == 0;
            if (seen || n == SU_MAX_FILES) {
                free(found);
                continue;
            }
            list[n++] = found;
        }
        free(from);
        free(text);
    }
    *paths = list;
    return n;
fail:
    for (int j = 0; j < n; j++)
        free(list[j]);
    free(list);
    return 0;
}

/* ---- reading the mapping ---- */

typedef struct su_ctx {
    loader *L;
    space_user *u;
    int allow_params;        /* 0: expressions may not read parameters */
    const char *where;       /* for binding errors */
} su_ctx;

typedef struct bind_ctx {
    const space *sp;
    int allow_params;
    const char *refused;     /* the parameter a scope-less expression named */
} bind_ctx;

static int resolve_name(void *ctx, const char *name, int *mask)
{
    bind_ctx *b = ctx;
    int is_device;
    int slot = space_resolve_slot(b->sp, name, mask, &is_device);
    if (slot >= 0 && slot < b->sp->n_params && !b->allow_params) {
        b->refused = b->sp->params[slot].name;
        return -1;
    }
    return slot;
}

/* Reads the scalar n as an expression bound to the space's slots. A quoted scalar with literal
 * set is literal text (a string value), not an expression. */
static int read_expr(su_ctx *c, const ynode *n, const char *where, int literal, su_expr *x)
{
    char buf[128];
    if (n->kind != YNODE_SCALAR || (n->len == 0 && !n->quoted))
        return sl_fail_at(c->L, n, "%s: expected an expression, found %s", where,
                          sl_node_desc(n, buf, sizeof buf));
    x->line = n->line;
    x->col = n->col + (n->quoted == 1 ? 1 : 0);
    if (literal && n->quoted) {
        /* a string literal of the expression language: quote it */
        size_t len = strlen(n->text);
        if (strchr(n->text, '\'') && strchr(n->text, '"'))
            return sl_fail_at(c->L, n, "%s: a literal may not hold both kinds of quote", where);
        x->text = malloc(len + 3);
        if (!x->text)
            return sl_fail_at(c->L, n, "out of memory");
        char q = strchr(n->text, '\'') ? '"' : '\'';
        snprintf(x->text, len + 3, "%c%s%c", q, n->text, q);
        x->col--;
    } else {
        x->text = strdup(n->text);
        if (!x->text)
            return sl_fail_at(c->L, n, "out of memory");
    }
    expr_error e;
    x->e = expr_parse(x->text, &e);
    bind_ctx b = {c->L->sp, c->allow_params, NULL};
    if (x->e && expr_bind(x->e, resolve_name, &b, &e) == 0)
        return 0;
    if (b.refused)
        return sl_fail_at(c->L, n, "%s: parameter '%s' is not in scope here (%s)", where,
                          b.refused, c->where ? c->where : "no parameters");
    int depth = 0;
    for (const char *t = x->text; *t; t++)
        depth += *t == '(' ? 1 : *t == ')' ? -1 : 0;
    space_errorf(c->L->err, c->L->len, c->L->path, x->line, x->col + e.offset, "%s: %s%s", where,
                 e.message, depth != 0 ? " (in a [ ] list a comma ends the item: quote an "
                                         "expression that holds one)" : "");
    return -1;
}

/* A list of 1..3 expressions, or one expression. */
static int read_dims(su_ctx *c, const ynode *n, const char *where, su_expr *dims, int *count)
{
    if (n->kind == YNODE_SCALAR) {
        *count = 1;
        return read_expr(c, n, where, 0, &dims[0]);
    }
    if (sl_expect_kind(c->L, n, YNODE_SEQ, where) != 0)
        return -1;
    if (n->n < 1 || n->n > 3)
        return sl_fail_at(c->L, n, "%s: expected 1 to 3 expressions (x, y, z), found %d", where,
                          n->n);
    *count = n->n;
    for (int i = 0; i < n->n; i++)
        if (read_expr(c, n->items[i], where, 0, &dims[i]) != 0)
            return -1;
    return 0;
}

static int read_string_list(su_ctx *c, const ynode *n, const char *where, char ***out, int *count)
{
    if (sl_expect_kind(c->L, n, YNODE_SEQ, where) != 0)
        return -1;
    *out = calloc((size_t)n->n + 1, sizeof **out);
    if (!*out)
        return sl_fail_at(c->L, n, "out of memory");
    for (int i = 0; i < n->n; i++) {
        const char *s;
        if (sl_get_string(c->L, n->items[i], where, &s) != 0)
            return -1;
        if (!((*out)[i] = strdup(s)))
            return sl_fail_at(c->L, n, "out of memory");
        *count = i + 1;
    }
    return 0;
}

/* 1 when word occurs in text as a whole identifier. */
static int has_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
        int before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
        int after = isalnum((unsigned char)p[n]) || p[n] == '_';
        if (!before && !after)
            return 1;
    }
    return 0;
}

/* The function name without scope or template arguments ("ns::f<T>" -> "f"). */
static char *base_name(const char *function)
{
    const char *lt = strchr(function, '<');
    size_t n = lt ? (size_t)(lt - function) : strlen(function);
    char *s = strndup(function, n);
    if (!s)
        return NULL;
    char *colon = strrchr(s, ':');
    if (colon)
        memmove(s, colon + 1, strlen(colon + 1) + 1);
    return s;
}

/* Reads the keys a kernel shares with a reference kernel. */
static int read_kernel(su_ctx *c, const ynode *map, su_kernel *k, const char *where)
{
    loader *L = c->L;
    const ynode *v;
    char w[160];
    k->line = map->line;
    k->col = map->col;
    if (!(v = ynode_get(map, "source")))
        return sl_fail_at(L, map, "%s: missing required key 'source'", where);
    const char *src;
    snprintf(w, sizeof w, "%s.source", where);
    if (sl_get_string(L, v, w, &src) != 0)
        return -1;
    if (!(k->source = path_join(c->u->dir, src)) || !(k->source_dir = dir_of(k->source)))
        return sl_fail_at(L, v, "out of memory");
    char why[256];
    char *text = read_text(k->source, NULL, why, sizeof why);
    if (!text)
        return sl_fail_at(L, v, "%s: cannot read %s: %s", w, k->source, why);
    if ((v = ynode_get(map, "include_dirs"))) {
        snprintf(w, sizeof w, "%s.include_dirs", where);
        char **dirs = NULL;
        int n = 0;
        if (read_string_list(c, v, w, &dirs, &n) != 0) {
            for (int i = 0; dirs && i < n; i++)
                free(dirs[i]);
            free(dirs);
            free(text);
            return -1;
        }
        k->include_dirs = dirs;
        k->n_include_dirs = n;
        for (int i = 0; i < n; i++) {
            char *p = path_join(c->u->dir, dirs[i]);
            if (!p || !is_dir(p)) {
                free(p);
                free(text);
                return sl_fail_at(L, v->items[i], "%s: %s is not a directory", w, dirs[i]);
            }
            free(dirs[i]);
            dirs[i] = p;
        }
    }
    if (!(v = ynode_get(map, "function"))) {
        free(text);
        return sl_fail_at(L, map, "%s: missing required key 'function'", where);
    }
    const char *fn;
    snprintf(w, sizeof w, "%s.function", where);
    if (sl_get_string(L, v, w, &fn) != 0) {
        free(text);
        return -1;
    }
    char *base = base_name(fn);
    if (!base || !su_is_identifier(base)) {
        free(base);
        free(text);
        return sl_fail_at(L, v, "%s: '%.60s' is not a function name", w, fn);
    }
    /* The name must appear in the source or a file it includes. */
    int found = has_word(text, base);
    free(text);
    if (!found) {
        char **files = NULL;
        char err2[512];
        int nf = su_kernel_files(k, &files, err2, sizeof err2);
        for (int i = 1; i < nf && !found; i++) {
            char *t = read_text(files[i], NULL, why, sizeof why);
            found = t && has_word(t, base);
            free(t);
        }
        for (int i = 0; i < nf; i++)
            free(files[i]);
        free(files);
    }
    if (!found) {
        sl_fail_at(L, v, "%s: no function '%s' in %s", w, base, k->source);
        free(base);
        return -1;
    }
    free(base);
    if (!(k->function = strdup(fn)))
        return sl_fail_at(L, v, "out of memory");
    if ((v = ynode_get(map, "template"))) {
        snprintf(w, sizeof w, "%s.template", where);
        if (sl_expect_kind(L, v, YNODE_SEQ, w) != 0)
            return -1;
        if (strchr(fn, '<'))
            return sl_fail_at(L, v, "%s: the function already names template arguments", w);
        k->templ = calloc((size_t)v->n + 1, sizeof *k->templ);
        if (!k->templ)
            return sl_fail_at(L, v, "out of memory");
        for (int i = 0; i < v->n; i++) {
            k->n_template = i + 1;
            if (read_expr(c, v->items[i], w, 1, &k->templ[i]) != 0)
                return -1;
        }
    }
    if ((v = ynode_get(map, "defines"))) {
        snprintf(w, sizeof w, "%s.defines", where);
        int n = v->kind == YNODE_MAP || v->kind == YNODE_SEQ ? v->n : 0;
        if (v->kind != YNODE_MAP && v->kind != YNODE_SEQ)
            return sl_expect_kind(L, v, YNODE_MAP, w);
        k->define_names = calloc((size_t)n + 1, sizeof *k->define_names);
        k->define_values = calloc((size_t)n + 1, sizeof *k->define_values);
        if (!k->define_names || !k->define_values)
            return sl_fail_at(L, v, "out of memory");
        for (int i = 0; i < n; i++) {
            const ynode *key = v->kind == YNODE_MAP ? v->items[2 * i] : v->items[i];
            const char *name;
            if (sl_get_string(L, key, w, &name) != 0)
                return -1;
            if (!su_is_identifier(name))
                return sl_fail_at(L, key, "%s: '%.60s' is not a macro name", w, name);
            for (int j = 0; j < i; j++)
                if (strcmp(k->define_names[j], name) == 0)
                    return sl_fail_at(L, key, "%s: %s is defined twice", w, name);
            if (!(k->define_names[i] = strdup(name)))
                return sl_fail_at(L, key, "out of memory");
            k->n_defines = i + 1;
            if (v->kind == YNODE_MAP) {
                if (read_expr(c, v->items[2 * i + 1], w, 1, &k->define_values[i]) != 0)
                    return -1;
            } else if (read_expr(c, key, w, 0, &k->define_values[i]) != 0) {
                return -1;   /* a listed name is a parameter's own */
            }
        }
    }
    if ((v = ynode_get(map, "options"))) {
        snprintf(w, sizeof w, "%s.options", where);
        if (read_string_list(c, v, w, &k->options, &k->n_options) != 0)
            return -1;
        for (int i = 0; i < k->n_options; i++) {
            const char *o = k->options[i];
            if (o[0] != '-')
                return sl_fail_at(L, v->items[i], "%s: '%.60s' is not an option (it must start "
                                                  "with -)", w, o);
            if (strncmp(o, "-arch", 5) == 0 || strncmp(o, "--gpu-architecture", 18) == 0 ||
                strncmp(o, "-gencode", 8) == 0)
                return sl_fail_at(L, v->items[i], "%s: '%.60s': the tuner compiles for the GPU "
                                                  "it measures; leave the architecture out", w, o);
        }
    }
    if (!(v = ynode_get(map, "grid")))
        return sl_fail_at(L, map, "%s: missing required key 'grid'", where);
    snprintf(w, sizeof w, "%s.grid", where);
    if (read_dims(c, v, w, k->grid, &k->grid_dims) != 0)
        return -1;
    if (!(v = ynode_get(map, "block")))
        return sl_fail_at(L, map, "%s: missing required key 'block'", where);
    snprintf(w, sizeof w, "%s.block", where);
    if (read_dims(c, v, w, k->block, &k->block_dims) != 0)
        return -1;
    if ((v = ynode_get(map, "shared_bytes"))) {
        snprintf(w, sizeof w, "%s.shared_bytes", where);
        if (read_expr(c, v, w, 0, &k->shared) != 0)
            return -1;
        k->has_shared = 1;
    }
    return 0;
}

/* init: zeros | { random: [lo, hi] } | { constant: v } | { arange: [start, step] } | { file: p } */
static int read_init(su_ctx *c, const ynode *n, su_arg *a, const char *where)
{
    loader *L = c->L;
    char buf[128];
    if (n->kind == YNODE_SCALAR && !n->quoted && strcmp(n->text, "zeros") == 0) {
        a->init = SU_INIT_ZEROS;
        return 0;
    }
    static const char *const kinds[] = {"random", "constant", "arange", "file"};
    if (n->kind != YNODE_MAP || n->n != 1)
        return sl_fail_at(L, n, "%s: expected zeros, or a mapping with one of random, constant, "
                                "arange or file, found %s", where, sl_node_desc(n, buf, sizeof buf));
    if (sl_check_keys(L, n, where, kinds, 4) != 0)
        return -1;
    const char *kind = n->items[0]->text;
    const ynode *v = n->items[1];
    char w[160];
    snprintf(w, sizeof w, "%s.%s", where, kind);
    if (strcmp(kind, "constant") == 0) {
        a->init = SU_INIT_CONSTANT;
        return sl_get_float(L, v, w, &a->a);
    }
    if (strcmp(kind, "file") == 0) {
        const char *f;
        a->init = SU_INIT_FILE;
        if (sl_get_string(L, v, w, &f) != 0)
            return -1;
        return (a->file = path_join(c->u->dir, f)) ? 0 : sl_fail_at(L, v, "out of memory");
    }
    if (sl_expect_kind(L, v, YNODE_SEQ, w) != 0)
        return -1;
    if (v->n != 2)
        return sl_fail_at(L, v, "%s: expected [%s], found %d values", w,
                          strcmp(kind, "random") == 0 ? "lo, hi" : "start, step", v->n);
    if (sl_get_float(L, v->items[0], w, &a->a) != 0 || sl_get_float(L, v->items[1], w, &a->b))
        return -1;
    if (strcmp(kind, "random") == 0) {
        a->init = SU_INIT_RANDOM;
        if (!(a->a <= a->b))
            return sl_fail_at(L, v, "%s: lo (%g) is greater than hi (%g)", w, a->a, a->b);
        if (!su_type_is_float(a->type) && a->type != SU_DTYPE &&
            (a->a != floor(a->a) || a->b != floor(a->b)))
            return sl_fail_at(L, v, "%s: an integer buffer needs integer bounds", w);
    } else {
        a->init = SU_INIT_ARANGE;
    }
    return 0;
}

/* { abs: a, rel: r } into *atol, *rtol (each optional). */
static int read_tolerance(loader *L, const ynode *v, const char *w, double *atol, double *rtol)
{
    static const char *const tol_keys[] = {"abs", "rel"};
    if (sl_expect_kind(L, v, YNODE_MAP, w) != 0 || sl_check_keys(L, v, w, tol_keys, 2) != 0)
        return -1;
    const ynode *t;
    if ((t = ynode_get(v, "abs")) && sl_get_float(L, t, w, atol) != 0)
        return -1;
    if ((t = ynode_get(v, "rel")) && sl_get_float(L, t, w, rtol) != 0)
        return -1;
    if (*atol < 0 || *rtol < 0)
        return sl_fail_at(L, v, "%s: must not be negative", w);
    return 0;
}

static int read_arg(su_ctx *c, const ynode *n, su_arg *a, int index)
{
    static const char *const buffer_keys[] = {"name", "buffer", "count", "init", "output",
                                              "tolerance"};
    static const char *const scalar_keys[] = {"name", "scalar", "value"};
    loader *L = c->L;
    char where[160];
    snprintf(where, sizeof where, "kernel.args[%d]", index);
    if (sl_expect_kind(L, n, YNODE_MAP, where) != 0)
        return -1;
    a->line = n->line;
    a->col = n->col;
    const ynode *v = ynode_get(n, "name");
    const char *name;
    if (!v)
        return sl_fail_at(L, n, "%s: missing required key 'name'", where);
    if (sl_get_string(L, v, where, &name) != 0)
        return -1;
    if (!su_is_identifier(name))
        return sl_fail_at(L, v, "%s: '%.60s' is not a name", where, name);
    for (int j = 0; j < index; j++)
        if (strcmp(c->u->args[j].name, name) == 0)
            return sl_fail_at(L, v, "%s: '%s' is listed twice", where, name);
    if (!(a->name = strdup(name)))
        return sl_fail_at(L, v, "out of memory");
    snprintf(where, sizeof where, "kernel.args %s", name);
    const ynode *buf = ynode_get(n, "buffer"), *sc = ynode_get(n, "scalar");
    if (!!buf == !!sc)
        return sl_fail_at(L, n, "%s: give exactly one of buffer: TYPE or scalar: TYPE", where);
    const char *type;
    if (sc) {
        a->is_buffer = 0;
        if (sl_check_keys(L, n, where, scalar_keys, 3) != 0 ||
            sl_get_string(L, sc, where, &type) != 0)
            return -1;
        a->type = su_type_parse(type);
        if (a->type != SU_I32 && a->type != SU_I64 && a->type != SU_U32 && a->type != SU_U64 &&
            a->type != SU_F32 && a->type != SU_F64)
            return sl_fail_at(L, sc, "%s: scalar type '%.60s' (expected i32, i64, u32, u64, "
                                     "f32 or f64)", where, type);
        if (!(v = ynode_get(n, "value")))
            return sl_fail_at(L, n, "%s: missing required key 'value'", where);
        char w[200];
        snprintf(w, sizeof w, "%s.value", where);
        return read_expr(c, v, w, 0, &a->value);
    }
    a->is_buffer = 1;
    if (sl_check_keys(L, n, where, buffer_keys, 6) != 0 || sl_get_string(L, buf, where, &type))
        return -1;
    if (strcmp(type, "dtype") == 0) {
        a->type = SU_DTYPE;
    } else if ((a->type = su_type_parse(type)) < 0) {
        char names[256] = "";
        for (int t = 0; t < SU_TYPE_COUNT; t++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s, ", su_type_name(t));
        return sl_fail_at(L, buf, "%s: unknown type '%.60s' (expected %sor dtype)", where, type,
                          names);
    }
    if (!(v = ynode_get(n, "count")))
        return sl_fail_at(L, n, "%s: missing required key 'count'", where);
    char w[200];
    snprintf(w, sizeof w, "%s.count", where);
    if (read_expr(c, v, w, 0, &a->count) != 0)
        return -1;
    if ((v = ynode_get(n, "output")) && sl_get_bool(L, v, where, &a->output) != 0)
        return -1;
    a->init = a->output ? SU_INIT_NONE : SU_INIT_ZEROS;
    snprintf(w, sizeof w, "%s.init", where);
    if ((v = ynode_get(n, "init")) && read_init(c, v, a, w) != 0)
        return -1;
    default_tolerance(a->type == SU_DTYPE ? SU_F32 : a->type, &a->atol, &a->rtol);
    if ((v = ynode_get(n, "tolerance"))) {
        snprintf(w, sizeof w, "%s.tolerance", where);
        if (!a->output)
            return sl_fail_at(L, v, "%s: only outputs have a tolerance", w);
        if (sl_expect_kind(L, v, YNODE_MAP, w) != 0)
            return -1;
        /* { abs, rel } for every dtype, or { f32: { abs, rel }, f16: ... } per dtype */
        int per_dtype = v->n > 0 && su_type_parse(v->items[0]->text) >= 0;
        for (int k = 0; k < (per_dtype ? v->n : 1); k++) {
            const ynode *tv = per_dtype ? v->items[2 * k + 1] : v;
            double atol = a->atol, rtol = a->rtol;
            char tw[240];
            int t = -1;
            if (per_dtype) {
                t = su_type_parse(v->items[2 * k]->text);
                if (t < 0)
                    return sl_fail_at(L, v->items[2 * k], "%s: '%.60s' is not a dtype", w,
                                      v->items[2 * k]->text);
                snprintf(tw, sizeof tw, "%s.%s", w, su_type_name(t));
                default_tolerance(t, &atol, &rtol);
            } else {
                snprintf(tw, sizeof tw, "%s", w);
            }
            if (read_tolerance(L, tv, tw, &atol, &rtol) != 0)
                return -1;
            if (per_dtype) {
                a->tol_by[t][0] = atol;
                a->tol_by[t][1] = rtol;
                a->has_tol_by[t] = 1;
            } else {
                a->atol = atol;
                a->rtol = rtol;
                a->has_tol = 1;
            }
        }
    }
    return 0;
}

/* The tolerance of a buffer declared with `buffer: dtype`, for the dtype of a binding. */
void space_user_tolerance(const su_arg *a, const char *dtype, double *atol, double *rtol)
{
    int t = su_type_parse(dtype);
    if (t >= 0 && a->has_tol_by[t]) {
        *atol = a->tol_by[t][0];
        *rtol = a->tol_by[t][1];
        return;
    }
    if (a->has_tol || a->type != SU_DTYPE) {
        *atol = a->atol;
        *rtol = a->rtol;
        return;
    }
    default_tolerance(su_type_parse(dtype), atol, rtol);
}

/* ---- loading: the parts that come before problems and params ---- */

int su_load_head(loader *L, const ynode *kernel, const ynode *dtypes)
{
    static const char *const keys[] = {"source", "function", "template", "defines", "options",
                                       "include_dirs", "family", "args", "grid", "block",
                                       "shared_bytes", "bytes", "elements", "flops", "peer"};
    space *sp = L->sp;
    space_user *u = calloc(1, sizeof *u);
    if (!u)
        return sl_fail_at(L, kernel, "out of memory");
    sp->user = u;
    if (sl_check_keys(L, kernel, "kernel", keys, 15) != 0)
        return -1;
    if (!(u->dir = dir_of(sp->path)))
        return sl_fail_at(L, kernel, "out of memory");
    const ynode *v = ynode_get(kernel, "function");
    const char *fn;
    if (!v)
        return sl_fail_at(L, kernel, "kernel: missing required key 'function'");
    if (sl_get_string(L, v, "kernel.function", &fn) != 0)
        return -1;
    if (!(u->op = base_name(fn)))
        return sl_fail_at(L, v, "out of memory");
    if ((v = ynode_get(kernel, "family"))) {
        const char *name;
        if (sl_get_string(L, v, "kernel.family", &name) != 0)
            return -1;
        if (!su_is_identifier(name))
            return sl_fail_at(L, v, "kernel.family: '%.60s' is not a name", name);
        if (!(u->family = strdup(name)))
            return sl_fail_at(L, v, "out of memory");
    } else {
        /* the space file's folder, as a name */
        char *dir = dir_of(sp->path);
        const char *base = dir && strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
        if (!base || !*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
            base = "user";
        u->family = strdup(base);
        free(dir);
        if (!u->family)
            return sl_fail_at(L, kernel, "out of memory");
        for (char *p = u->family; *p; p++)
            if (!isalnum((unsigned char)*p) && *p != '_')
                *p = '_';
        if (isdigit((unsigned char)u->family[0]))
            u->family[0] = '_';
        v = kernel;
    }
    if (op_family_find(u->family))
        return sl_fail_at(L, v, "kernel.family: '%s' is a built-in family; give this kernel a "
                                "family of its own (kernel.family)", u->family);
    if (!(sp->kernel = strdup(u->family)) || !(sp->ops = calloc(1, sizeof *sp->ops)) ||
        !(sp->ops[0] = strdup(u->op)))
        return sl_fail_at(L, kernel, "out of memory");
    sp->n_ops = 1;
    /* dtypes: as given, else the first output buffer's type */
    if (dtypes) {
        if (sl_expect_kind(L, dtypes, YNODE_SEQ, "dtypes") != 0)
            return -1;
        if (dtypes->n == 0)
            return sl_fail_at(L, dtypes, "dtypes: the list is empty");
        if (!(sp->dtypes = calloc((size_t)dtypes->n, sizeof *sp->dtypes)))
            return sl_fail_at(L, dtypes, "out of memory");
        for (int i = 0; i < dtypes->n; i++) {
            const char *name;
            if (sl_get_string(L, dtypes->items[i], "dtypes", &name) != 0)
                return -1;
            if (su_type_parse(name) < 0)
                return sl_fail_at(L, dtypes->items[i], "dtypes: unknown type '%.60s'", name);
            for (int j = 0; j < i; j++)
                if (strcmp(sp->dtypes[j], name) == 0)
                    return sl_fail_at(L, dtypes->items[i], "dtypes: '%s' is listed twice", name);
            if (!(sp->dtypes[i] = strdup(name)))
                return sl_fail_at(L, dtypes, "out of memory");
            sp->n_dtypes = i + 1;
        }
        return 0;
    }
    const ynode *args = ynode_get(kernel, "args");
    const char *type = NULL;
    for (int i = 0; args && args->kind == YNODE_SEQ && i < args->n && !type; i++) {
        const ynode *a = args->items[i], *b, *o;
        int out = 0;
        if (a->kind == YNODE_MAP && (b = ynode_get(a, "buffer")) && b->kind == YNODE_SCALAR &&
            (o = ynode_get(a, "output")) && o->kind == YNODE_SCALAR &&
            strcmp(o->text, "true") == 0)
            out = 1;
        if (out) {
            type = b->text;
            if (strcmp(type, "dtype") == 0)
                return sl_fail_at(L, b, "kernel.args: 'buffer: dtype' needs a dtypes: list");
        }
    }
    if (!type)
        type = "f32";   /* read_args reports the missing output */
    if (!(sp->dtypes = calloc(1, sizeof *sp->dtypes)) || !(sp->dtypes[0] = strdup(type)))
        return sl_fail_at(L, kernel, "out of memory");
    sp->n_dtypes = 1;
    return 0;
}

/* A user kernel's problem fields: the keys of its first problem, every one an integer that
 * every problem gives. */
int su_load_fields(loader *L, const ynode *problems)
{
    space *sp = L->sp;
    if (sl_expect_kind(L, problems, YNODE_SEQ, "problems") != 0)
        return -1;
    if (problems->n == 0)
        return sl_fail_at(L, problems, "problems: the list is empty");
    const ynode *first = problems->items[0];
    if (sl_expect_kind(L, first, YNODE_MAP, "problems") != 0)
        return -1;
    if (first->n == 0)
        return sl_fail_at(L, first, "problems: a problem needs at least one field");
    if (first->n > 64)
        return sl_fail_at(L, first, "problems: more than 64 fields");
    problem_field *f = calloc((size_t)first->n, sizeof *f);
    if (!f)
        return sl_fail_at(L, first, "out of memory");
    sp->fields = f;
    for (int k = 0; k < first->n; k++) {
        const ynode *key = first->items[2 * k];
        if (!su_is_identifier(key->text))
            return sl_fail_at(L, key, "problems: '%.60s' is not a name expressions can read",
                              key->text);
        if (space_is_given_name(key->text))
            return sl_fail_at(L, key, "problems: '%s' is a name the tuner gives (dtype, "
                                      "dtype_size, ctype, op or a device attribute)", key->text);
        if (!(f[k].name = strdup(key->text)))
            return sl_fail_at(L, key, "out of memory");
        f[k].required = 1;
        f[k].min = INT64_MIN;
        f[k].max = INT64_MAX;
        sp->n_fields = k + 1;
    }
    return 0;
}

/* ---- loading: the parts bound to parameters ---- */

/* The canonical description hashed into the kernel's identity. */
typedef struct text_buf {
    char *s;
    size_t n, cap;
    int failed;
} text_buf;

static void tb_add(text_buf *t, const char *s)
{
    size_t n = strlen(s) + 1;   /* with the NUL as a separator */
    if (t->failed)
        return;
    if (t->n + n > t->cap) {
        size_t cap = (t->n + n) * 2 + 256;
        char *p = realloc(t->s, cap);
        if (!p) {
            t->failed = 1;
            return;
        }
        t->s = p;
        t->cap = cap;
    }
    memcpy(t->s + t->n, s, n);
    t->n += n;
}

static void tb_kernel(text_buf *t, const su_kernel *k)
{
    tb_add(t, k->function);
    for (int i = 0; i < k->n_template; i++)
        tb_add(t, k->templ[i].text);
    tb_add(t, "|defines");
    for (int i = 0; i < k->n_defines; i++) {
        tb_add(t, k->define_names[i]);
        tb_add(t, k->define_values[i].text);
    }
    tb_add(t, "|options");
    for (int i = 0; i < k->n_options; i++)
        tb_add(t, k->options[i]);
    tb_add(t, "|geometry");
    for (int i = 0; i < k->grid_dims; i++)
        tb_add(t, k->grid[i].text);
    tb_add(t, "|");
    for (int i = 0; i < k->block_dims; i++)
        tb_add(t, k->block[i].text);
    tb_add(t, k->has_shared ? k->shared.text : "0");
}

static int compute_hash(loader *L, space_user *u)
{
    char err[512];
    char **files = NULL;
    int n = su_kernel_files(&u->kernel, &files, err, sizeof err);
    if (n == 0)
        return sl_fail_at(L, NULL, "%s", err);
    text_buf t = {0};
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        size_t size;
        char why[256];
        char *text = read_text(files[i], &size, why, sizeof why);
        if (!text) {
            rc = sl_fail_at(L, NULL, "%s: cannot read: %s", files[i], why);
            break;
        }
        char hex[65];
        sha256_hex(text, size, hex);
        tb_add(&t, hex);
        free(text);
    }
    for (int i = 0; i < n; i++)
        free(files[i]);
    free(files);
    if (rc)
        return rc;
    tb_kernel(&t, &u->kernel);
    tb_add(&t, "|args");
    for (int i = 0; i < u->n_args; i++) {
        const su_arg *a = &u->args[i];
        char line[256];
        snprintf(line, sizeof line, "%s %d %d %d %d %.17g %.17g", a->name, a->is_buffer,
                 a->type, a->output, (int)a->init, a->a, a->b);
        tb_add(&t, line);
        tb_add(&t, a->is_buffer ? a->count.text : a->value.text);
    }
    if (t.failed) {
        free(t.s);
        return sl_fail_at(L, NULL, "out of memory");
    }
    char hex[65];
    sha256_hex(t.s, t.n, hex);
    free(t.s);
    memcpy(u->hash, hex, 16);
    u->hash[16] = 0;
    return 0;
}

const char *space_user_hash(const space_user *u)
{
    return u->hash;
}

static int read_reference(su_ctx *c, const ynode *ref)
{
    static const char *const keys[] = {"config", "kernel", "file"};
    static const char *const kernel_keys[] = {"source", "function", "template", "defines",
                                              "options", "include_dirs", "grid", "block",
                                              "shared_bytes"};
    loader *L = c->L;
    space *sp = L->sp;
    space_user *u = c->u;
    u->ref_line = ref->line;
    u->ref_col = ref->col;
    if (sl_expect_kind(L, ref, YNODE_MAP, "reference") != 0 ||
        sl_check_keys(L, ref, "reference", keys, 3) != 0)
        return -1;
    if (ref->n != 1)
        return sl_fail_at(L, ref, "reference: give one of config, kernel or file");
    const char *kind = ref->items[0]->text;
    const ynode *v = ref->items[1];
    if (strcmp(kind, "config") == 0) {
        u->ref = SU_REF_CONFIG;
        if (sl_expect_kind(L, v, YNODE_MAP, "reference.config") != 0)
            return -1;
        if (!(u->ref_choice = calloc((size_t)sp->n_params + 1, sizeof *u->ref_choice)))
            return sl_fail_at(L, v, "out of memory");
        for (int p = 0; p < sp->n_params; p++) {
            const ynode *x = ynode_get(v, sp->params[p].name);
            if (!x)
                return sl_fail_at(L, v, "reference.config: missing parameter '%s'",
                                  sp->params[p].name);
            int64_t i;
            value want = sl_is_int_scalar(x, &i) ? value_int(i) : value_string(x->text);
            int found = -1;
            for (int k = 0; k < sp->params[p].n_values && found < 0; k++)
                if (value_equal(sp->params[p].values[k], want))
                    found = k;
            if (found < 0)
                return sl_fail_at(L, x, "reference.config: %s = %.60s is not one of the "
                                        "parameter's values", sp->params[p].name, x->text);
            u->ref_choice[p] = found;
        }
        for (int k = 0; k < v->n; k++) {
            const ynode *key = v->items[2 * k];
            int known = 0;
            for (int p = 0; p < sp->n_params && !known; p++)
                known = strcmp(sp->params[p].name, key->text) == 0;
            if (!known)
                return sl_fail_at(L, key, "reference.config: unknown parameter '%.60s'",
                                  key->text);
        }
        return 0;
    }
    if (strcmp(kind, "kernel") == 0) {
        u->ref = SU_REF_KERNEL;
        if (sl_expect_kind(L, v, YNODE_MAP, "reference.kernel") != 0 ||
            sl_check_keys(L, v, "reference.kernel", kernel_keys, 9) != 0)
            return -1;
        su_ctx rc = *c;
        rc.allow_params = 0;
        rc.where = "a reference kernel's expressions see the problem, dtype and device only";
        return read_kernel(&rc, v, &u->ref_kernel, "reference.kernel");
    }
    u->ref = SU_REF_FILE;
    if (sl_expect_kind(L, v, YNODE_MAP, "reference.file") != 0)
        return -1;
    if (!(u->ref_files = calloc((size_t)u->n_args + 1, sizeof *u->ref_files)))
        return sl_fail_at(L, v, "out of memory");
    for (int k = 0; k < v->n; k++) {
        const ynode *key = v->items[2 * k];
        int i;
        for (i = 0; i < u->n_args; i++)
            if (strcmp(u->args[i].name, key->text) == 0)
                break;
        if (i == u->n_args || !u->args[i].output)
            return sl_fail_at(L, key, "reference.file: '%.60s' is not an output buffer",
                              key->text);
        const char *f;
        if (sl_get_string(L, v->items[2 * k + 1], "reference.file", &f) != 0)
            return -1;
        if (!(u->ref_files[i] = path_join(u->dir, f)))
            return sl_fail_at(L, key, "out of memory");
    }
    for (int i = 0; i < u->n_args; i++)
        if (u->args[i].output && !u->ref_files[i])
            return sl_fail_at(L, v, "reference.file: no file for output '%s'", u->args[i].name);
    return 0;
}

int su_load_body(loader *L, const ynode *kernel, const ynode *reference)
{
    space *sp = L->sp;
    space_user *u = sp->user;
    su_ctx c = {L, u, 1, NULL};
    if (read_kernel(&c, kernel, &u->kernel, "kernel") != 0)
        return -1;
    su_kernel *k = &u->kernel;
    if (k->n_defines == 0 && k->n_template == 0 && sp->n_params > 0) {
        /* every parameter as -D name=value */
        k->define_names = calloc((size_t)sp->n_params, sizeof *k->define_names);
        k->define_values = calloc((size_t)sp->n_params, sizeof *k->define_values);
        if (!k->define_names || !k->define_values)
            return sl_fail_at(L, kernel, "out of memory");
        for (int p = 0; p < sp->n_params; p++) {
            k->n_defines = p + 1;
            if (!(k->define_names[p] = strdup(sp->params[p].name)) ||
                !(k->define_values[p].text = strdup(sp->params[p].name)))
                return sl_fail_at(L, kernel, "out of memory");
            expr_error e;
            bind_ctx b = {sp, 1, NULL};
            k->define_values[p].line = sp->params[p].line;
            k->define_values[p].col = sp->params[p].col;
            if (!(k->define_values[p].e = expr_parse(sp->params[p].name, &e)) ||
                expr_bind(k->define_values[p].e, resolve_name, &b, &e) != 0)
                return sl_fail_at(L, kernel, "parameter %s: %s", sp->params[p].name, e.message);
        }
    }
    const ynode *args = ynode_get(kernel, "args");
    if (!args)
        return sl_fail_at(L, kernel, "kernel: missing required key 'args'");
    if (sl_expect_kind(L, args, YNODE_SEQ, "kernel.args") != 0)
        return -1;
    if (args->n == 0)
        return sl_fail_at(L, args, "kernel.args: the list is empty");
    if (!(u->args = calloc((size_t)args->n, sizeof *u->args)))
        return sl_fail_at(L, args, "out of memory");
    int outputs = 0;
    for (int i = 0; i < args->n; i++) {
        u->n_args = i + 1;
        if (read_arg(&c, args->items[i], &u->args[i], i) != 0)
            return -1;
        outputs += u->args[i].is_buffer && u->args[i].output;
    }
    if (outputs == 0)
        return sl_fail_at(L, args, "kernel.args: no buffer is an output (output: true)");
    const ynode *v;
    c.allow_params = 0;
    c.where = "bytes, elements and flops are per problem";
    if ((v = ynode_get(kernel, "bytes"))) {
        if (read_expr(&c, v, "kernel.bytes", 0, &u->bytes) != 0)
            return -1;
        u->has_bytes = 1;
    }
    if ((v = ynode_get(kernel, "elements"))) {
        if (read_expr(&c, v, "kernel.elements", 0, &u->elements) != 0)
            return -1;
        u->has_elements = 1;
    }
    if ((v = ynode_get(kernel, "flops"))) {
        if (read_expr(&c, v, "kernel.flops", 0, &u->flops) != 0)
            return -1;
        u->has_flops = 1;
    }
    if ((v = ynode_get(kernel, "peer"))) {
        const char *p;
        if (sl_get_string(L, v, "kernel.peer", &p) != 0)
            return -1;
        if (!(u->peer = path_join(u->dir, p)))
            return sl_fail_at(L, v, "out of memory");
        if (!is_file(u->peer))
            return sl_fail_at(L, v, "kernel.peer: no file %s", u->peer);
    }
    if (reference) {
        c.allow_params = 1;
        c.where = NULL;
        if (read_reference(&c, reference) != 0)
            return -1;
        if (u->ref == SU_REF_KERNEL)
            for (int i = 0; i < u->n_args; i++) {
                /* the reference launch shares the buffers: their sizes may not hang on a
                 * parameter the reference does not have */
                const su_expr *x = u->args[i].is_buffer ? &u->args[i].count : &u->args[i].value;
                bind_ctx b = {sp, 0, NULL};
                expr_error e;
                expr *copy = expr_parse(x->text, &e);
                int bad = !copy || expr_bind(copy, resolve_name, &b, &e) != 0;
                expr_free(copy);
                if (bad && b.refused) {
                    space_errorf(L->err, L->len, L->path, x->line, x->col,
                                 "kernel.args %s: reads parameter '%s', but the reference kernel "
                                 "has no parameters (use reference: config: instead)",
                                 u->args[i].name, b.refused);
                    return -1;
                }
            }
    }
    return compute_hash(L, u);
}

/* ---- evaluation ---- */

int space_user_eval(const space *sp, const space_binding *b, const int *choice, const su_expr *x,
                    value *out, char *err, size_t len)
{
    value local[64];
    int n = space_slot_count(sp);
    value *slots = n <= 64 ? local : malloc((size_t)n * sizeof *slots);
    if (!slots) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    for (int p = 0; p < sp->n_params; p++)
        slots[p] = sp->params[p].values[choice ? choice[p] : 0];
    space_fill_fixed_slots(sp, b, slots);
    expr_error e;
    int rc = expr_eval(x->e, slots, out, &e);
    if (rc != 0)
        space_errorf(err, len, sp->path, x->line, x->col + e.offset, "%s", e.message);
    if (slots != local)
        free(slots);
    return rc;
}

int space_user_eval_int(const space *sp, const space_binding *b, const int *choice,
                        const su_expr *x, int64_t lo, int64_t hi, const char *what, int64_t *out,
                        char *err, size_t len)
{
    value v;
    if (space_user_eval(sp, b, choice, x, &v, err, len) != 0)
        return -1;
    if (v.kind != VALUE_INT) {
        space_errorf(err, len, sp->path, x->line, x->col, "%s: '%s' gives %s, not an integer",
                     what, x->text, v.kind == VALUE_FLOAT ? "a float" : "a string");
        return -1;
    }
    if (v.i < lo || v.i > hi) {
        char where[512] = "", cfg[400] = "";
        if (choice)
            space_config_text(sp, choice, cfg, sizeof cfg);
        if (b->problem)
            snprintf(where, sizeof where, " (%s %s%s%s)", b->dtype ? b->dtype : "",
                     b->problem->text, choice ? ", config " : "", cfg);
        space_errorf(err, len, sp->path, x->line, x->col,
                     "%s: '%s' is %" PRId64 ", %s %" PRId64 "%s", what, x->text, v.i,
                     v.i < lo ? "below the least allowed," : "above the most allowed,",
                     v.i < lo ? lo : hi, where);
        return -1;
    }
    *out = v.i;
    return 0;
}

int space_user_launch(const space *sp, const space_binding *b, const int *choice,
                      const su_kernel *k, su_launch *out, char *err, size_t len)
{
    static const char *const axis[] = {"x", "y", "z"};
    static const int64_t grid_max[] = {2147483647, 65535, 65535};
    static const int64_t block_max[] = {1024, 1024, 64};
    char what[64];
    for (int i = 0; i < 3; i++) {
        out->grid[i] = out->block[i] = 1;
        if (i < k->grid_dims) {
            snprintf(what, sizeof what, "grid.%s", axis[i]);
            if (space_user_eval_int(sp, b, choice, &k->grid[i], 1, grid_max[i], what,
                                    &out->grid[i], err, len) != 0)
                return -1;
        }
        if (i < k->block_dims) {
            snprintf(what, sizeof what, "block.%s", axis[i]);
            if (space_user_eval_int(sp, b, choice, &k->block[i], 1, block_max[i], what,
                                    &out->block[i], err, len) != 0)
                return -1;
        }
    }
    int64_t threads = out->block[0] * out->block[1] * out->block[2];
    if (b->device && threads > b->device->max_threads_per_block) {
        char cfg[400] = "";
        if (choice)
            space_config_text(sp, choice, cfg, sizeof cfg);
        space_errorf(err, len, sp->path, k->block[0].line, k->block[0].col,
                     "block: %" PRId64 " threads per block, the device allows %d (%s %s%s%s)",
                     threads, b->device->max_threads_per_block, b->dtype ? b->dtype : "",
                     b->problem ? b->problem->text : "", choice ? ", config " : "", cfg);
        return -1;
    }
    out->shared = 0;
    int64_t smem_max = b->device ? device_smem_per_block(b->device->cc_major, b->device->cc_minor)
                                 : INT64_MAX;
    if (k->has_shared &&
        space_user_eval_int(sp, b, choice, &k->shared, 0, smem_max, "shared_bytes", &out->shared,
                            err, len) != 0)
        return -1;
    return 0;
}

void su_compile_clear(su_compile *c)
{
    for (int i = 0; i < c->n_options; i++)
        free(c->options[i]);
    free(c->options);
    free(c->name_expr);
    memset(c, 0, sizeof *c);
}

/* Appends a malloc'd string to the option list. */
static int add_option(su_compile *c, char *s)
{
    if (!s)
        return -1;
    char **p = realloc(c->options, (size_t)(c->n_options + 1) * sizeof *p);
    if (!p) {
        free(s);
        return -1;
    }
    c->options = p;
    c->options[c->n_options++] = s;
    return 0;
}

static char *printf_dup(const char *fmt, const char *a, const char *b)
{
    size_t n = strlen(fmt) + strlen(a) + (b ? strlen(b) : 0) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, fmt, a, b ? b : "");
    return s;
}

int space_user_compile(const space *sp, const space_binding *b, const int *choice,
                       const su_kernel *k, su_compile *out, char *err, size_t len)
{
    memset(out, 0, sizeof *out);
    int has_std = 0;
    for (int i = 0; i < k->n_options; i++)
        has_std |= strncmp(k->options[i], "-std=", 5) == 0 || strncmp(k->options[i], "--std", 5) == 0;
    if ((!has_std && add_option(out, strdup("-std=c++17")) != 0) ||
        add_option(out, printf_dup("-I%s%s", *k->source_dir ? k->source_dir : ".", NULL)) != 0)
        goto oom;
    for (int i = 0; i < k->n_include_dirs; i++)
        if (add_option(out, printf_dup("-I%s%s", k->include_dirs[i], NULL)) != 0)
            goto oom;
    for (int i = 0; i < k->n_defines; i++) {
        value v;
        char text[512];
        if (space_user_eval(sp, b, choice, &k->define_values[i], &v, err, len) != 0)
            goto fail;
        value_format(v, text, sizeof text);
        if (add_option(out, printf_dup("-D%s=%s", k->define_names[i], text)) != 0)
            goto oom;
    }
    for (int i = 0; i < k->n_options; i++)
        if (add_option(out, strdup(k->options[i])) != 0)
            goto oom;
    size_t cap = strlen(k->function) + 3, n = 0;
    char *name = malloc(cap);
    if (!name)
        goto oom;
    n = (size_t)snprintf(name, cap, "%s", k->function);
    for (int i = 0; i < k->n_template; i++) {
        value v;
        char text[512];
        if (space_user_eval(sp, b, choice, &k->templ[i], &v, err, len) != 0) {
            free(name);
            goto fail;
        }
        value_format(v, text, sizeof text);
        size_t need = n + strlen(text) + 4;
        if (need > cap) {
            char *p = realloc(name, need * 2);
            if (!p) {
                free(name);
                goto oom;
            }
            name = p;
            cap = need * 2;
        }
        n += (size_t)snprintf(name + n, cap - n, "%s%s", i == 0 ? "<" : ", ", text);
    }
    if (k->n_template)
        snprintf(name + n, cap - n, ">");
    out->name_expr = name;
    return 0;
oom:
    snprintf(err, len, "out of memory");
fail:
    su_compile_clear(out);
    return -1;
}

/* ---- sizes ---- */

/* The type of a buffer or scalar for a binding's dtype. */
static int arg_type(const su_arg *a, const space_binding *b)
{
    return a->type == SU_DTYPE ? su_type_parse(b->dtype) : a->type;
}

int space_user_buffer_bytes(const space *sp, const space_binding *b, const int *choice, int arg,
                            int64_t *count, int64_t *bytes, char *err, size_t len)
{
    const su_arg *a = &sp->user->args[arg];
    char what[160];
    snprintf(what, sizeof what, "kernel.args %s.count", a->name);
    int64_t size = (int64_t)su_type_size(arg_type(a, b));
    if (space_user_eval_int(sp, b, choice, &a->count, 1, INT64_MAX / (size ? size : 1), what,
                            count, err, len) != 0)
        return -1;
    *bytes = *count * size;
    return 0;
}

int64_t space_user_bytes(const space *sp, const space_binding *b, const int *choice, char *err,
                         size_t len)
{
    const space_user *u = sp->user;
    if (u->has_bytes) {
        int64_t v;
        return space_user_eval_int(sp, b, choice, &u->bytes, 0, INT64_MAX, "kernel.bytes", &v,
                                   err, len) == 0 ? v : -1;
    }
    int64_t total = 0;
    for (int i = 0; i < u->n_args; i++) {
        const su_arg *a = &u->args[i];
        int64_t count, bytes;
        if (!a->is_buffer)
            continue;
        if (space_user_buffer_bytes(sp, b, choice, i, &count, &bytes, err, len) != 0)
            return -1;
        int times = a->output && a->init != SU_INIT_NONE ? 2 : 1;
        if (__builtin_mul_overflow(bytes, times, &bytes) ||
            __builtin_add_overflow(total, bytes, &total)) {
            space_errorf(err, len, sp->path, a->count.line, a->count.col,
                         "kernel.args %s.count: the buffers' bytes overflow", a->name);
            return -1;
        }
    }
    return total;
}

int64_t space_user_elements(const space *sp, const space_binding *b, const int *choice, char *err,
                            size_t len)
{
    const space_user *u = sp->user;
    int64_t v;
    if (u->has_elements)
        return space_user_eval_int(sp, b, choice, &u->elements, 0, INT64_MAX, "kernel.elements",
                                   &v, err, len) == 0 ? v : -1;
    for (int i = 0; i < u->n_args; i++)
        if (u->args[i].is_buffer && u->args[i].output) {
            int64_t bytes;
            return space_user_buffer_bytes(sp, b, choice, i, &v, &bytes, err, len) == 0 ? v : -1;
        }
    return 0;
}

int64_t space_user_flops(const space *sp, const space_binding *b, char *err, size_t len)
{
    const space_user *u = sp->user;
    int64_t v;
    if (!u->has_flops)
        return 0;
    return space_user_eval_int(sp, b, NULL, &u->flops, 0, INT64_MAX, "kernel.flops", &v, err,
                               len) == 0 ? v : -1;
}

/* Checks a scalar's value fits its type. */
static int check_scalar(const space *sp, const space_binding *b, const int *choice,
                        const su_arg *a, char *err, size_t len)
{
    value v;
    if (space_user_eval(sp, b, choice, &a->value, &v, err, len) != 0)
        return -1;
    const su_expr *x = &a->value;
    if (v.kind == VALUE_STRING) {
        space_errorf(err, len, sp->path, x->line, x->col, "kernel.args %s.value: '%s' gives a "
                     "string, not a number", a->name, x->text);
        return -1;
    }
    if (su_type_is_float(a->type)) {
        double d = v.kind == VALUE_INT ? (double)v.i : v.f;
        if (!isfinite(d) || (a->type == SU_F32 && fabs(d) > 3.4028234663852886e38)) {
            space_errorf(err, len, sp->path, x->line, x->col, "kernel.args %s.value: %g does not "
                         "fit in %s", a->name, d, su_type_name(a->type));
            return -1;
        }
        return 0;
    }
    if (v.kind != VALUE_INT) {
        space_errorf(err, len, sp->path, x->line, x->col, "kernel.args %s.value: '%s' gives a "
                     "float; %s needs an integer", a->name, x->text, su_type_name(a->type));
        return -1;
    }
    int64_t lo = a->type == SU_I32 ? INT32_MIN : a->type == SU_I64 ? INT64_MIN : 0;
    int64_t hi = a->type == SU_I32 ? INT32_MAX : a->type == SU_U32 ? (int64_t)UINT32_MAX : INT64_MAX;
    if (v.i < lo || v.i > hi) {
        space_errorf(err, len, sp->path, x->line, x->col, "kernel.args %s.value: %" PRId64
                     " does not fit in %s", a->name, v.i, su_type_name(a->type));
        return -1;
    }
    return 0;
}

/* Everything about one (binding, config): sizes against memory, scalars, geometry. */
static int check_variant(const space *sp, const space_binding *b, const int *choice, char *err,
                         size_t len)
{
    const space_user *u = sp->user;
    int64_t total = 0, largest = -1;
    int largest_arg = -1;
    for (int i = 0; i < u->n_args; i++) {
        const su_arg *a = &u->args[i];
        if (!a->is_buffer) {
            if (check_scalar(sp, b, choice, a, err, len) != 0)
                return -1;
            continue;
        }
        int64_t count, bytes;
        if (space_user_buffer_bytes(sp, b, choice, i, &count, &bytes, err, len) != 0)
            return -1;
        /* an output also needs the reference's copy (and an initialised one its pristine copy) */
        int copies = a->output ? (a->init != SU_INIT_NONE ? 3 : 2) : 1;
        if (bytes > INT64_MAX / 4 || total > INT64_MAX - 4 * bytes) {
            total = INT64_MAX;
        } else {
            total += bytes * copies;
        }
        if (bytes > largest) {
            largest = bytes;
            largest_arg = i;
        }
    }
    if (b->device && b->device->mem_bytes > 0 && total > b->device->mem_bytes) {
        const su_arg *a = &u->args[largest_arg];
        char cfg[400] = "";
        if (choice)
            space_config_text(sp, choice, cfg, sizeof cfg);
        space_errorf(err, len, sp->path, a->count.line, a->count.col,
                     "kernel.args: the buffers need %.2f GB (with the reference's copies of the "
                     "outputs; the largest, %s, %.2f GB), the GPU has %.2f GB (%s %s%s%s)",
                     (double)total / 1e9, a->name, (double)largest / 1e9,
                     (double)b->device->mem_bytes / 1e9, b->dtype, b->problem->text,
                     choice ? ", config " : "", cfg);
        return -1;
    }
    su_launch l;
    return space_user_launch(sp, b, choice, &u->kernel, &l, err, len);
}

int space_user_check(const space *sp, const device_info *dev, char *err, size_t len)
{
    const space_user *u = sp->user;
    int *choice = calloc((size_t)sp->n_params + 1, sizeof *choice);
    if (!choice) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    int rc = 0;
    for (int d = 0; d < sp->n_dtypes && rc == 0; d++)
        for (int p = 0; p < sp->n_problems && rc == 0; p++) {
            space_binding b = {sp->ops[0], sp->dtypes[d], &sp->problems[p], dev};
            if (u->ref == SU_REF_KERNEL) {
                su_launch l;
                if (space_user_launch(sp, &b, NULL, &u->ref_kernel, &l, err, len) != 0) {
                    rc = -1;
                    break;
                }
            }
            if (u->ref == SU_REF_CONFIG && check_variant(sp, &b, u->ref_choice, err, len) != 0) {
                rc = -1;
                break;
            }
            space_iter it;
            space_iter_init(&it, sp, &b);
            int r;
            while ((r = space_iter_next(&it, choice)) == 1)
                if (check_variant(sp, &b, choice, err, len) != 0) {
                    rc = -1;
                    break;
                }
            if (r < 0 && rc == 0) {
                if (it.err_constraint >= 0)
                    space_constraint_error(sp, it.err_constraint, &it.err, err, len);
                else
                    snprintf(err, len, "%s", it.err.message);
                rc = -1;
            }
            space_iter_free(&it);
        }
    free(choice);
    return rc;
}
