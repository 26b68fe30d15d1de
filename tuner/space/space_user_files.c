/* space_user_files.c: the element types of user kernels' buffers and scalars, the files a kernel
 * is made of (its source and every local file it includes, followed through #include lines),
 * freeing what the loader built, and the kernel's identity: a hash of its files and of every
 * part of the space that changes what runs (space_user.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "core/sha256.h"
#include "measure/device_settings.h"
#include "space_user_internal.h"

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

int su_type_read(const char *name, int with_bool, int *is_bool, char *names, size_t len)
{
    if (is_bool)
        *is_bool = 0;
    if (strcmp(name, "dtype") == 0)
        return SU_DTYPE;
    if (with_bool && strcmp(name, "bool") == 0) {
        *is_bool = 1;
        return SU_U8;
    }
    int t = su_type_parse(name);
    if (t < 0 && names && len) {
        names[0] = '\0';
        for (int i = 0; i < SU_TYPE_COUNT; i++)
            snprintf(names + strlen(names), len - strlen(names), "%s, ", su_type_name(i));
    }
    return t;
}

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

void su_default_tolerance(int t, double *atol, double *rtol)
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

void su_expr_clear(su_expr *x)
{
    free(x->text);
    expr_free(x->e);
    memset(x, 0, sizeof *x);
}

static void launch_clear(su_launch_spec *l)
{
    free(l->function);
    for (int i = 0; i < l->n_template; i++)
        su_expr_clear(&l->templ[i]);
    free(l->templ);
    for (int i = 0; i < 3; i++) {
        su_expr_clear(&l->grid[i]);
        su_expr_clear(&l->block[i]);
    }
    su_expr_clear(&l->shared);
    for (int i = 0; i < 3; i++)
        su_expr_clear(&l->cluster[i]);
    free(l->args);
    memset(l, 0, sizeof *l);
}

void su_kernel_clear(su_kernel *k)
{
    free(k->source);
    free(k->source_dir);
    for (int i = 0; i < k->n_defines; i++) {
        free(k->define_names[i]);
        su_expr_clear(&k->define_values[i]);
        if (k->define_conds)
            su_expr_clear(&k->define_conds[i]);
    }
    free(k->define_names);
    free(k->define_values);
    free(k->define_conds);
    for (int i = 0; i < k->n_options; i++)
        free(k->options[i]);
    free(k->options);
    for (int i = 0; i < k->n_include_dirs; i++)
        free(k->include_dirs[i]);
    free(k->include_dirs);
    for (int i = 0; i < k->n_launches; i++)
        launch_clear(&k->launches[i]);
    free(k->launches);
    memset(k, 0, sizeof *k);
}

void su_field_clear(su_field *f)
{
    if (!f)
        return;
    free(f->name);
    free(f->target);
    for (int i = 0; f->kind == SU_FIELD_VALUE && f->values && i < f->n; i++)
        su_expr_clear(&f->values[i]);
    free(f->values);
    for (int i = 0; f->kind == SU_FIELD_STRUCT && f->members && i < f->n; i++)
        su_field_clear(&f->members[i]);
    free(f->members);
    memset(f, 0, sizeof *f);
}

void su_arg_clear(su_arg *a)
{
    free(a->name);
    su_expr_clear(&a->count);
    su_expr_clear(&a->value);
    su_expr_clear(&a->init_x[0]);
    su_expr_clear(&a->init_x[1]);
    su_expr_clear(&a->cmp_count);
    free(a->file);
    free(a->symbol);
    su_field_clear(a->record);
    free(a->record);
    if (a->texture) {
        free(a->texture->target);
        for (int i = 0; i < 3; i++)
            su_expr_clear(&a->texture->dims[i]);
        free(a->texture);
    }
    if (a->tensor_map) {
        free(a->tensor_map->target);
        for (int i = 0; i < 5; i++) {
            su_expr_clear(&a->tensor_map->dims[i]);
            su_expr_clear(&a->tensor_map->box[i]);
        }
        for (int i = 0; i < 4; i++)
            su_expr_clear(&a->tensor_map->strides[i]);
        free(a->tensor_map);
    }
    if (a->check) {
        su_kernel_clear(&a->check->kernel);
        for (int i = 0; i < a->check->n_scalars; i++)
            su_arg_clear(&a->check->scalars[i]);
        free(a->check->scalars);
        su_arg_clear(&a->check->result);
        free(a->check);
    }
    memset(a, 0, sizeof *a);
}

void space_user_free(space_user *u)
{
    if (!u)
        return;
    free(u->family);
    free(u->op);
    free(u->compiler);
    su_kernel_clear(&u->kernel);
    for (int i = 0; i < u->n_args; i++) {
        su_arg_clear(&u->args[i]);
        if (u->ref_files)
            free(u->ref_files[i]);
    }
    free(u->args);
    free(u->ref_files);
    su_expr_clear(&u->bytes);
    su_expr_clear(&u->elements);
    su_expr_clear(&u->flops);
    free(u->ref_choice);
    su_kernel_clear(&u->ref_kernel);
    free(u->peer);
    free(u->dir);
    free(u->base);
    free(u);
}

/* ---- paths and files ---- */

char *su_path_join(const char *dir, const char *rel)
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

char *su_dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup("");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

char *su_read_text(const char *path, size_t *n, char *why, size_t len)
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

int su_is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int su_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Finds name (from an #include) relative to the including file's folder, then the kernel's
 * source folder, its include directories and the -I directories of its options (-Idir, -I dir,
 * --include-path[=]dir; as the compiler gets them, relative to where the tuner runs); malloc'd
 * path or NULL (a system header). */
static char *find_include(const su_kernel *k, const char *from_dir, const char *name)
{
    char *p = su_path_join(from_dir, name);
    if (p && su_is_file(p))
        return p;
    free(p);
    for (int i = -1; i < k->n_include_dirs; i++) {
        p = su_path_join(i < 0 ? k->source_dir : k->include_dirs[i], name);
        if (p && su_is_file(p))
            return p;
        free(p);
    }
    for (int i = 0; i < k->n_options; i++) {
        const char *o = k->options[i], *dir = NULL;
        if (strncmp(o, "-I", 2) == 0)
            dir = o[2] ? o + 2 : i + 1 < k->n_options ? k->options[i + 1] : NULL;
        else if (strncmp(o, "--include-path", 14) == 0)
            dir = o[14] == '=' ? o + 15 : !o[14] && i + 1 < k->n_options ? k->options[i + 1] : NULL;
        if (!dir || !*dir)
            continue;
        p = su_path_join(dir, name);
        if (p && su_is_file(p))
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
        char *text = su_read_text(list[at], NULL, why, sizeof why);
        if (!text) {
            snprintf(err, len, "%s: cannot read: %s", list[at], why);
            goto fail;
        }
        char *from = su_dir_of(list[at]);
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

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Blanks a C/C++ text's comments and string and character literals (their newlines kept), so
 * that a word in "// Modified by ..." or in printf("width %d") names nothing. */
static void blank_non_code(char *t)
{
    for (char *p = t; *p;) {
        if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n')
                *p++ = ' ';
        } else if (p[0] == '/' && p[1] == '*') {
            *p++ = ' ', *p++ = ' ';
            while (*p && !(p[0] == '*' && p[1] == '/')) {
                if (*p != '\n')
                    *p = ' ';
                p++;
            }
            if (*p)
                *p++ = ' ', *p++ = ' ';
        } else if (*p == '"' || *p == '\'') {
            const char q = *p;
            *p++ = ' ';
            while (*p && *p != q && *p != '\n') {
                if (*p == '\\' && p[1] && p[1] != '\n')
                    *p++ = ' ';
                *p++ = ' ';
            }
            if (*p == q)
                *p++ = ' ';
        } else {
            p++;
        }
    }
}

int su_kernel_names(const su_kernel *k, const char *const *names, int n, int *named, char *err,
                    size_t len)
{
    char **files = NULL;
    int nf = su_kernel_files(k, &files, err, len);
    if (nf == 0)
        return -1;
    int rc = 0;
    for (int i = 0; i < n; i++)
        named[i] = 0;
    for (int f = 0; f < nf && rc == 0; f++) {
        char why[256];
        char *text = su_read_text(files[f], NULL, why, sizeof why);
        if (!text) {
            snprintf(err, len, "%s: cannot read: %s", files[f], why);
            rc = -1;
            break;
        }
        blank_non_code(text);
        for (int i = 0; i < n; i++) {
            size_t nl = strlen(names[i]);
            for (const char *p = text; !named[i] && (p = strstr(p, names[i])); p += nl)
                named[i] = (p == text || !ident_char(p[-1])) && !ident_char(p[nl]);
        }
        free(text);
    }
    for (int f = 0; f < nf; f++)
        free(files[f]);
    free(files);
    return rc;
}

/* ---- the kernel's identity ---- */

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

static void tb_int(text_buf *t, int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)v);
    tb_add(t, buf);
}

/* The files' contents (their hashes), so that an edit anywhere in them is a new kernel. */
static int tb_files(text_buf *t, loader *L, const su_kernel *k)
{
    char err[512];
    char **files = NULL;
    int n = su_kernel_files(k, &files, err, sizeof err);
    if (n == 0)
        return sl_fail_at(L, NULL, "%s", err);
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        size_t size;
        char why[256];
        char *text = su_read_text(files[i], &size, why, sizeof why);
        if (!text) {
            rc = sl_fail_at(L, NULL, "%s: cannot read: %s", files[i], why);
            break;
        }
        char hex[65];
        sha256_hex(text, size, hex);
        tb_add(t, hex);
        free(text);
    }
    for (int i = 0; i < n; i++)
        free(files[i]);
    free(files);
    return rc;
}

/* A kernel as written. A single kernel adds exactly what it added before pipelines existed
 * (function, template, defines, options, geometry), so the hashes of existing spaces, and the
 * results stored under them, stay what they were. */
static void tb_kernel(text_buf *t, const su_kernel *k, const space *sp)
{
    const su_launch_spec *l0 = &k->launches[0];
    tb_add(t, l0->function);
    for (int i = 0; i < l0->n_template; i++)
        tb_add(t, l0->templ[i].text);
    tb_add(t, "|defines");
    /* the default defines as they were when every parameter was one: a parameter the files
     * do not name changes nothing in the kernel, so leaving it out keeps its identity */
    for (int p = 0; k->defines_default && sp && p < sp->n_params; p++)
        if (devset_param_index(sp->params[p].name) < 0) {
            tb_add(t, sp->params[p].name);
            tb_add(t, sp->params[p].name);
        }
    for (int i = 0; i < k->n_defines && !(k->defines_default && sp); i++) {
        tb_add(t, k->define_names[i]);
        tb_add(t, k->define_values[i].text ? k->define_values[i].text : "|no value");
        if (k->define_conds && k->define_conds[i].text) {
            tb_add(t, "|if");
            tb_add(t, k->define_conds[i].text);
        }
    }
    tb_add(t, "|options");
    for (int i = 0; i < k->n_options; i++)
        tb_add(t, k->options[i]);
    for (int li = 0; li < k->n_launches; li++) {
        const su_launch_spec *l = &k->launches[li];
        if (li > 0) {
            tb_add(t, "|launch");
            tb_add(t, l->function);
            for (int i = 0; i < l->n_template; i++)
                tb_add(t, l->templ[i].text);
        }
        tb_add(t, "|geometry");
        for (int i = 0; i < l->grid_dims; i++)
            tb_add(t, l->grid[i].text);
        tb_add(t, "|");
        for (int i = 0; i < l->block_dims; i++)
            tb_add(t, l->block[i].text);
        tb_add(t, l->has_shared ? l->shared.text : "0");
        if (l->cluster_dims) {
            tb_add(t, "|cluster");
            for (int i = 0; i < l->cluster_dims; i++)
                tb_add(t, l->cluster[i].text);
        }
        if (l->cooperative)
            tb_add(t, "|cooperative");
        if (k->n_launches > 1) {
            tb_add(t, "|takes");
            for (int i = 0; i < l->n_args; i++)
                tb_int(t, l->args[i]);
        }
    }
}

/* A struct argument's fields as written. */
static void tb_record(text_buf *t, const su_field *f)
{
    char line[96];
    snprintf(line, sizeof line, "{%d %d %d %d %d", (int)f->kind, f->type, f->n, f->is_array,
             f->align);
    tb_add(t, line);
    if (f->kind == SU_FIELD_POINTER)
        tb_add(t, f->target ? f->target : "null");
    for (int i = 0; i < f->n; i++) {
        if (f->kind == SU_FIELD_VALUE)
            tb_add(t, f->values[i].text);
        else if (f->kind == SU_FIELD_STRUCT)
            tb_record(t, &f->members[i]);
    }
    tb_add(t, "}");
}

/* An argument as written (with what it adds beyond the first version's fields only when
 * given, for the same reason as tb_kernel). */
static void tb_arg(text_buf *t, loader *L, const su_arg *a, int *rc)
{
    char line[256];
    snprintf(line, sizeof line, "%s %d %d %d %d %.17g %.17g", a->name, a->is_buffer, a->type,
             a->output, (int)a->init, a->a, a->b);
    tb_add(t, line);
    tb_add(t, a->is_buffer ? a->count.text : a->is_pointer ? "|pointer" : a->record ? "|struct"
              : a->texture ? "|texture" : a->tensor_map ? "|tensor_map" : a->value.text);
    for (int k = 0; k < 2; k++)
        if (a->init_x[k].text) {
            tb_add(t, k ? "|init hi" : "|init lo");
            tb_add(t, a->init_x[k].text);
        }
    if (a->record)
        tb_record(t, a->record);
    if (a->texture) {
        const su_texture *x = a->texture;
        snprintf(line, sizeof line, "%s %d %d %d %d %d %d", x->target, x->n_dims, x->channels,
                 x->linear_filter, x->address, x->normalized_coords, x->read_normalized);
        tb_add(t, line);
        for (int i = 0; i < x->n_dims; i++)
            tb_add(t, x->dims[i].text);
    }
    if (a->tensor_map) {
        const su_tensor_map *x = a->tensor_map;
        snprintf(line, sizeof line, "%s %d %d %d %d", x->target, x->rank, x->n_strides,
                 x->swizzle, x->oob_nan);
        tb_add(t, line);
        for (int i = 0; i < x->rank; i++) {
            tb_add(t, x->dims[i].text);
            tb_add(t, x->box[i].text);
        }
        for (int i = 0; i < x->n_strides; i++)
            tb_add(t, x->strides[i].text);
    }
    if (a->symbol) {
        tb_add(t, "|symbol");
        tb_add(t, a->symbol);
    }
    if (a->compare == SU_CMP_REDUCE) {
        tb_add(t, "|reduce");
        tb_int(t, a->reduce);
        tb_add(t, a->has_cmp_count ? a->cmp_count.text : "");
    } else if (a->compare == SU_CMP_CHECK) {
        tb_add(t, "|check");
        if (*rc == 0)
            *rc = tb_files(t, L, &a->check->kernel);
        tb_kernel(t, &a->check->kernel, NULL);
        for (int i = 0; i < a->check->kernel.launches[0].n_args; i++)
            tb_int(t, a->check->kernel.launches[0].args[i]);
        for (int i = 0; i < a->check->n_scalars; i++)
            tb_arg(t, L, &a->check->scalars[i], rc);
        tb_arg(t, L, &a->check->result, rc);
    }
}

int su_compute_hash(loader *L, space_user *u)
{
    text_buf t = {0};
    int rc = tb_files(&t, L, &u->kernel);
    if (rc) {
        free(t.s);
        return rc;
    }
    tb_kernel(&t, &u->kernel, L->sp);
    tb_add(&t, "|args");
    for (int i = 0; i < u->n_args; i++)
        tb_arg(&t, L, &u->args[i], &rc);
    /* nvrtc, the default, adds nothing: a space written before the choice existed keeps its
     * hash */
    if (strcmp(u->compiler, "nvrtc") != 0) {
        tb_add(&t, "|compiler");
        tb_add(&t, u->compiler);
    }
    if (u->arch_suffix[0]) {   /* likewise: only a space that asks for it */
        tb_add(&t, "|arch_suffix");
        tb_add(&t, u->arch_suffix);
    }
    if (rc == 0 && t.failed)
        rc = sl_fail_at(L, NULL, "out of memory");
    if (rc) {
        free(t.s);
        return rc;
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
