/* space_user_kernel.c: reading the kernels of a user kernel's space: what one compilation
 * shares (source, include directories, defines, options), the function, template arguments and
 * geometry of each launch (one, or a pipeline's `launches:` with the arguments each takes), for
 * the tuned kernel, a reference kernel (space_user_read.c calls it) or a check kernel
 * (space_user_args.c). Expressions, dimensions and lists are read by space_user_nodes.c. Also
 * the architecture the kernel compiles for on a GPU (kernel.arch_suffix: sm_90 or sm_90a). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "build/nvrtc_options.h"
#include "space_user_internal.h"

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

/* 1 when base (a function's base name) appears in the kernel's source or a file it includes. */
static int kernel_mentions(const su_kernel *k, const char *base)
{
    char why[256];
    char **files = NULL;
    char err[512];
    int nf = su_kernel_files(k, &files, err, sizeof err), found = 0;
    for (int i = 0; i < nf && !found; i++) {
        char *t = su_read_text(files[i], NULL, why, sizeof why);
        found = t && has_word(t, base);
        free(t);
    }
    for (int i = 0; i < nf; i++)
        free(files[i]);
    free(files);
    return found;
}

/* The function of a launch: a name that appears in the kernel's files. */
static int read_function(su_ctx *c, const su_kernel *k, const ynode *v, const char *w,
                         su_launch_spec *l)
{
    const char *fn;
    if (sl_get_string(c->L, v, w, &fn) != 0)
        return -1;
    char *base = su_base_name(fn);
    if (!base || !su_is_identifier(base)) {
        free(base);
        return sl_fail_at(c->L, v, "%s: '%.60s' is not a function name", w, fn);
    }
    int found = kernel_mentions(k, base);
    free(base);
    if (!found)
        return sl_fail_at(c->L, v, "%s: no function '%.60s' in %s", w, fn, k->source);
    if (!(l->function = strdup(fn)))
        return sl_fail_at(c->L, v, "out of memory");
    l->line = v->line;
    l->col = v->col;
    return 0;
}

/* function, template, grid, block, shared_bytes of one launch, from map. params_in_templ: the
 * template's expressions may read parameters (not for a reference or check kernel, which is
 * compiled once per problem). */
int su_read_launch(su_ctx *c, const su_kernel *k, const ynode *map, const char *where,
                       int params_in_templ, su_launch_spec *l)
{
    loader *L = c->L;
    const ynode *v;
    char w[200];
    if (!(v = ynode_get(map, "function")))
        return sl_fail_at(L, map, "%s: missing required key 'function'", where);
    snprintf(w, sizeof w, "%s.function", where);
    if (read_function(c, k, v, w, l) != 0)
        return -1;
    if ((v = ynode_get(map, "template"))) {
        snprintf(w, sizeof w, "%s.template", where);
        if (sl_expect_kind(L, v, YNODE_SEQ, w) != 0)
            return -1;
        if (strchr(l->function, '<'))
            return sl_fail_at(L, v, "%s: the function already names template arguments", w);
        if (!(l->templ = calloc((size_t)v->n + 1, sizeof *l->templ)))
            return sl_fail_at(L, v, "out of memory");
        su_ctx tc = *c;
        if (!params_in_templ) {
            tc.allow_params = 0;
            tc.where = "this kernel is compiled once per problem: its template arguments see "
                       "the problem, dtype and device only";
        }
        for (int i = 0; i < v->n; i++) {
            l->n_template = i + 1;
            if (su_read_expr(&tc, v->items[i], w, 1, &l->templ[i]) != 0)
                return -1;
        }
    }
    if (!(v = ynode_get(map, "grid")))
        return sl_fail_at(L, map, "%s: missing required key 'grid'", where);
    snprintf(w, sizeof w, "%s.grid", where);
    if (su_read_dims(c, v, w, l->grid, &l->grid_dims) != 0)
        return -1;
    if (!(v = ynode_get(map, "block")))
        return sl_fail_at(L, map, "%s: missing required key 'block'", where);
    snprintf(w, sizeof w, "%s.block", where);
    if (su_read_dims(c, v, w, l->block, &l->block_dims) != 0)
        return -1;
    if ((v = ynode_get(map, "shared_bytes"))) {
        snprintf(w, sizeof w, "%s.shared_bytes", where);
        if (su_read_expr(c, v, w, 0, &l->shared) != 0)
            return -1;
        l->has_shared = 1;
    }
    if ((v = ynode_get(map, "cluster"))) {
        snprintf(w, sizeof w, "%s.cluster", where);
        if (su_read_dims(c, v, w, l->cluster, &l->cluster_dims) != 0)
            return -1;
    }
    if ((v = ynode_get(map, "cooperative"))) {
        snprintf(w, sizeof w, "%s.cooperative", where);
        if (sl_get_bool(L, v, w, &l->cooperative) != 0)
            return -1;
    }
    return 0;
}

/* source (default: dflt), include_dirs, defines, options: what one compilation shares. */
int su_read_compile_keys(su_ctx *c, const ynode *map, su_kernel *k, const char *where,
                             const su_kernel *dflt, int params_in_defines)
{
    loader *L = c->L;
    const ynode *v;
    char w[200];
    k->line = map->line;
    k->col = map->col;
    const char *src = NULL;
    if ((v = ynode_get(map, "source"))) {
        snprintf(w, sizeof w, "%s.source", where);
        if (sl_get_string(L, v, w, &src) != 0)
            return -1;
        if (!(k->source = su_path_join(c->u->dir, src)))
            return sl_fail_at(L, v, "out of memory");
    } else if (dflt) {
        if (!(k->source = strdup(dflt->source)))
            return sl_fail_at(L, map, "out of memory");
        v = map;
    } else {
        return sl_fail_at(L, map, "%s: missing required key 'source'", where);
    }
    if (!(k->source_dir = su_dir_of(k->source)))
        return sl_fail_at(L, v, "out of memory");
    char why[256];
    char *text = su_read_text(k->source, NULL, why, sizeof why);
    if (!text)
        return sl_fail_at(L, v, "%s.source: cannot read %s: %s", where, k->source, why);
    free(text);
    if ((v = ynode_get(map, "include_dirs"))) {
        snprintf(w, sizeof w, "%s.include_dirs", where);
        char **dirs = NULL;
        int n = 0;
        int bad = su_read_string_list(c, v, w, &dirs, &n);
        k->include_dirs = dirs;
        k->n_include_dirs = n;
        if (bad)
            return -1;
        for (int i = 0; i < n; i++) {
            char *p = su_path_join(c->u->dir, dirs[i]);
            if (!p || !su_is_dir(p)) {
                free(p);
                return sl_fail_at(L, v->items[i], "%s: %s is not a directory", w, dirs[i]);
            }
            free(dirs[i]);
            dirs[i] = p;
        }
    } else if (dflt && !ynode_get(map, "source")) {
        /* a check kernel in the tuned kernel's source finds what it finds */
        if (dflt->n_include_dirs &&
            !(k->include_dirs = calloc((size_t)dflt->n_include_dirs, sizeof *k->include_dirs)))
            return sl_fail_at(L, map, "out of memory");
        for (int i = 0; i < dflt->n_include_dirs; i++) {
            if (!(k->include_dirs[i] = strdup(dflt->include_dirs[i])))
                return sl_fail_at(L, map, "out of memory");
            k->n_include_dirs = i + 1;
        }
    }
    if ((v = ynode_get(map, "defines"))) {
        k->defines_given = 1;
        snprintf(w, sizeof w, "%s.defines", where);
        int n = v->kind == YNODE_MAP || v->kind == YNODE_SEQ ? v->n : 0;
        if (v->kind != YNODE_MAP && v->kind != YNODE_SEQ)
            return sl_expect_kind(L, v, YNODE_MAP, w);
        k->define_names = calloc((size_t)n + 1, sizeof *k->define_names);
        k->define_values = calloc((size_t)n + 1, sizeof *k->define_values);
        k->define_conds = calloc((size_t)n + 1, sizeof *k->define_conds);
        if (!k->define_names || !k->define_values || !k->define_conds)
            return sl_fail_at(L, v, "out of memory");
        su_ctx dc = *c;
        if (!params_in_defines) {
            dc.allow_params = 0;
            dc.where = "this kernel is compiled once per problem: its defines see the problem, "
                       "dtype and device only";
        }
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
            const ynode *dv = v->kind == YNODE_MAP ? v->items[2 * i + 1] : NULL;
            if (dv && dv->kind == YNODE_MAP) {
                /* { if: COND } -D NAME when COND holds, { if: COND, value: X } -D NAME=X */
                static const char *const keys[] = {"if", "value"};
                const ynode *cond = ynode_get(dv, "if"), *val = ynode_get(dv, "value");
                char dw[260];
                snprintf(dw, sizeof dw, "%s.%s", w, name);
                if (sl_check_keys(L, dv, dw, keys, 2) != 0)
                    return -1;
                if (!cond)
                    return sl_fail_at(L, dv, "%s: expected { if: CONDITION } or { if: CONDITION, "
                                             "value: EXPRESSION }", dw);
                if (su_read_expr(&dc, cond, dw, 0, &k->define_conds[i]) != 0 ||
                    (val && su_read_expr(&dc, val, dw, 1, &k->define_values[i]) != 0))
                    return -1;
            } else if (dv) {
                if (su_read_expr(&dc, dv, w, 1, &k->define_values[i]) != 0)
                    return -1;
            } else if (su_read_expr(&dc, key, w, 0, &k->define_values[i]) != 0) {
                return -1;   /* a listed name is a parameter's own */
            }
        }
    }
    if ((v = ynode_get(map, "options"))) {
        snprintf(w, sizeof w, "%s.options", where);
        if (su_read_string_list(c, v, w, &k->options, &k->n_options) != 0)
            return -1;
        int value = 0;   /* the next word is the value of a two-word option (-Xptxas -v) */
        for (int i = 0; i < k->n_options; i++) {
            const char *o = k->options[i];
            int is_value = value;
            value = !is_value && nvrtc_option_takes_value(o);
            if (is_value && strncmp(o, "-arch", 5) != 0 &&
                strncmp(o, "--gpu-architecture", 18) != 0)
                continue;
            if (value && i + 1 == k->n_options)
                return sl_fail_at(L, v->items[i], "%s: '%.60s' takes a value, and nothing "
                                                  "follows it", w, o);
            if (o[0] != '-')
                return sl_fail_at(L, v->items[i], "%s: '%.60s' is not an option (it must start "
                                                  "with -)", w, o);
            if (strncmp(o, "-arch", 5) == 0 || strncmp(o, "--gpu-architecture", 18) == 0 ||
                strncmp(o, "-gencode", 8) == 0 || strncmp(o, "--generate-code", 15) == 0) {
                /* sm_90a, compute_100f: the features of the architecture or family */
                size_t n = strcspn(o, ",\"");
                char last = n > 1 && o[n - 1] >= 'a' && o[n - 1] <= 'z' && o[n - 2] >= '0' &&
                                    o[n - 2] <= '9' ? o[n - 1] : 0;
                if (last == 'a' || last == 'f')
                    return sl_fail_at(L, v->items[i], "%s: '%.60s': the tuner compiles for the "
                                      "GPU it measures; leave the architecture out and write "
                                      "kernel.arch_suffix: %c for its %s features", w, o, last,
                                      last == 'a' ? "architecture-specific" : "family-specific");
                return sl_fail_at(L, v->items[i], "%s: '%.60s': the tuner compiles for the GPU "
                                                  "it measures; leave the architecture out", w, o);
            }
        }
    }
    return 0;
}

/* The arguments a launch takes, by name, into l->args (indices into u->args). */
static int read_launch_args(su_ctx *c, const ynode *v, const char *w, su_launch_spec *l)
{
    loader *L = c->L;
    space_user *u = c->u;
    if (sl_expect_kind(L, v, YNODE_SEQ, w) != 0)
        return -1;
    if (!(l->args = calloc((size_t)v->n + 1, sizeof *l->args)))
        return sl_fail_at(L, v, "out of memory");
    for (int i = 0; i < v->n; i++) {
        const char *name;
        if (sl_get_string(L, v->items[i], w, &name) != 0)
            return -1;
        int a = -1;
        for (int j = 0; j < u->n_args && a < 0; j++)
            if (strcmp(u->args[j].name, name) == 0)
                a = j;
        if (a < 0)
            return sl_fail_at(L, v->items[i], "%s: '%.60s' is not one of kernel.args", w, name);
        if (u->args[a].symbol)
            return sl_fail_at(L, v->items[i], "%s: '%s' fills the variable %s, which is not a "
                                              "parameter", w, name, u->args[a].symbol);
        for (int j = 0; j < i; j++)
            if (l->args[j] == a)
                return sl_fail_at(L, v->items[i], "%s: '%s' is listed twice", w, name);
        l->args[i] = a;
        l->n_args = i + 1;
    }
    return 0;
}

/* Every parameter argument in order: what a single kernel (or a reference kernel) takes. The
 * buffers that fill a variable, and those a struct argument points to or a texture reads, are
 * not parameters. */
static int all_parameter_args(su_ctx *c, const ynode *at, su_launch_spec *l)
{
    space_user *u = c->u;
    if (!(l->args = calloc((size_t)u->n_args + 1, sizeof *l->args)))
        return sl_fail_at(c->L, at, "out of memory");
    for (int i = 0; i < u->n_args; i++)
        if (!u->args[i].symbol && !su_arg_pointed_to(u, i))
            l->args[l->n_args++] = i;
    return 0;
}

/* The tuned kernel (kind KK_TUNED: a single launch or `launches:`) or a reference kernel. */
int su_read_kernel(su_ctx *c, const ynode *map, su_kernel *k, const char *where,
                       kernel_kind kind)
{
    loader *L = c->L;
    if (su_read_compile_keys(c, map, k, where, NULL, kind == KK_TUNED) != 0)
        return -1;
    const ynode *launches = kind == KK_TUNED ? ynode_get(map, "launches") : NULL;
    if (!launches) {
        if (!(k->launches = calloc(1, sizeof *k->launches)))
            return sl_fail_at(L, map, "out of memory");
        k->n_launches = 1;
        if (su_read_launch(c, k, map, where, kind == KK_TUNED, &k->launches[0]) != 0)
            return -1;
        return all_parameter_args(c, map, &k->launches[0]);
    }
    static const char *const single[] = {"function", "template", "grid", "block", "shared_bytes",
                                         "cluster", "cooperative"};
    for (int i = 0; i < 7; i++)
        if (ynode_get(map, single[i]))
            return sl_fail_at(L, ynode_get(map, single[i]), "%s.%s: give it in each of "
                              "launches, not beside them", where, single[i]);
    char w[200];
    snprintf(w, sizeof w, "%s.launches", where);
    if (sl_expect_kind(L, launches, YNODE_SEQ, w) != 0)
        return -1;
    if (launches->n == 0)
        return sl_fail_at(L, launches, "%s: the list is empty", w);
    if (launches->n > 16)
        return sl_fail_at(L, launches, "%s: at most 16 launches", w);
    if (!(k->launches = calloc((size_t)launches->n, sizeof *k->launches)))
        return sl_fail_at(L, launches, "out of memory");
    static const char *const keys[] = {"function", "template", "grid", "block", "shared_bytes",
                                       "args", "cluster", "cooperative"};
    for (int i = 0; i < launches->n; i++) {
        const ynode *lm = launches->items[i];
        char lw[200];
        snprintf(lw, sizeof lw, "%s[%d]", w, i);
        k->n_launches = i + 1;
        if (sl_expect_kind(L, lm, YNODE_MAP, lw) != 0 || sl_check_keys(L, lm, lw, keys, 8) != 0 ||
            su_read_launch(c, k, lm, lw, 1, &k->launches[i]) != 0)
            return -1;
        const ynode *v = ynode_get(lm, "args");
        if (!v)
            return sl_fail_at(L, lm, "%s: missing required key 'args' (the arguments this "
                                     "launch takes, by name, in order)", lw);
        char aw[220];
        snprintf(aw, sizeof aw, "%s.args", lw);
        if (read_launch_args(c, v, aw, &k->launches[i]) != 0)
            return -1;
    }
    /* an argument no launch takes is a slip (a typo, a leftover) */
    for (int a = 0; a < c->u->n_args; a++) {
        int taken = c->u->args[a].symbol != NULL || su_arg_pointed_to(c->u, a);
        for (int i = 0; i < k->n_launches && !taken; i++)
            for (int j = 0; j < k->launches[i].n_args && !taken; j++)
                taken = k->launches[i].args[j] == a;
        if (!taken)
            return sl_fail_at(L, launches, "%s: no launch takes kernel.args %s", w,
                              c->u->args[a].name);
    }
    return 0;
}

/* ---- the architecture a kernel compiles for ---- */

int space_user_arch(const space_user *u, const char *path, int cc, char *arch, size_t arch_len,
                    char *err, size_t len)
{
    const char *s = u->arch_suffix;
    int from = s[0] == 'a' ? 90 : s[0] == 'f' ? 100 : 0;
    if (cc < from) {
        space_errorf(err, len, path, u->arch_suffix_line, u->arch_suffix_col,
                     "kernel.arch_suffix: %s: sm_%d%s does not exist (%s features start at "
                     "compute capability %d.%d; this GPU is %d.%d)", s, cc, s,
                     s[0] == 'a' ? "architecture-specific" : "family-specific", from / 10,
                     from % 10, cc / 10, cc % 10);
        return -1;
    }
    snprintf(arch, arch_len, "sm_%d%s", cc, s);
    return 0;
}
