/* header_desc.c: the descriptor a user kernel's header holds for libtunekit's run-time API
 * (kernels/tunekit_runtime.h, docs/runtime.md): the source and the local files it includes, as
 * text; the include directories as absolute paths (so that the library's compile has the
 * tuner's cache key); the defines, template arguments, geometry and buffer counts as the space's
 * expressions; the arguments, dtypes, parameters and fields; the default config; and the table's
 * winners. Written inside `#ifdef TUNEKIT_RUNTIME_H`, so the header stays self-contained for a
 * program that does not use the library. */
#include "header.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/files.h"
#include "space/space.h"
#include "space/space_user.h"
#include "tunekit_runtime.h"

/* s as a C string literal, cut into pieces of at most 120 bytes (adjacent literals concatenate;
 * compilers limit one literal's length). */
static void put_text(FILE *f, const char *s, size_t n)
{
    size_t col = 0;
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (col >= 120) {
            fputs("\"\n        \"", f);
            col = 0;
        }
        if (c == '"' || c == '\\') {
            fputc('\\', f);
            fputc(c, f);
            col += 2;
        } else if (c == '\n') {
            fputs("\\n", f);
            col += 2;
            if (i + 1 < n) {
                fputs("\"\n        \"", f);
                col = 0;
            }
        } else if (c < 32 || c >= 127) {
            fprintf(f, "\\%03o", c);
            col += 4;
        } else {
            fputc(c, f);
            col++;
        }
    }
    fputc('"', f);
}

static void put_opt_string(FILE *f, const char *s)
{
    if (s)
        header_put_string(f, s);
    else
        fputs("NULL", f);
}

/* The name a local file is included by: its path below the folder it was found in. */
static const char *include_name(const su_kernel *k, const char *path)
{
    size_t n = strlen(k->source_dir);
    if (n && strncmp(path, k->source_dir, n) == 0 && path[n] == '/')
        return path + n + 1;
    for (int i = 0; i < k->n_include_dirs; i++) {
        n = strlen(k->include_dirs[i]);
        if (strncmp(path, k->include_dirs[i], n) == 0 && path[n] == '/')
            return path + n + 1;
    }
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* A path made absolute (as the cache key makes it); the path itself when it does not resolve. */
static void absolute(const char *path, char *out, size_t len)
{
    char real[PATH_MAX];
    snprintf(out, len, "%s", realpath(*path ? path : ".", real) ? real : path);
}

int header_put_descriptor(FILE *f, const struct space *sp, const char *lower, int n_winners,
                          const header_winner *w, char *err, size_t len)
{
    const space_user *u = sp->user;
    const su_kernel *k = &u->kernel;
    char **files = NULL;
    int n_files = su_kernel_files(k, &files, err, len);
    if (n_files == 0)
        return -1;
    int rc = -1;
    fprintf(f, "\n/* The descriptor of libtunekit's run-time API (tunekit_runtime.h, "
               "docs/runtime.md):\n * include tunekit_runtime.h before this header, then "
               "tk_kernel_open(&k, &%s_desc). */\n#ifdef TUNEKIT_RUNTIME_H\n", lower);
    /* the files */
    fprintf(f, "static const tk_kernel_file %s_desc_files[] = {\n", lower);
    for (int i = 0; i < n_files; i++) {
        size_t n;
        char *text = file_read(files[i], &n);
        if (!text) {
            snprintf(err, len, "%s: cannot read", files[i]);
            goto done;
        }
        fprintf(f, "    { ");
        header_put_string(f, i == 0 ? files[i] : include_name(k, files[i]));
        fprintf(f, ",\n        ");
        put_text(f, text, n);
        fprintf(f, ", %zuUL },\n", n);
        free(text);
    }
    fprintf(f, "};\n");
    /* include directories, options, defines */
    char path[PATH_MAX];
    fprintf(f, "static const char *const %s_desc_include_dirs[] = {", lower);
    for (int i = 0; i < k->n_include_dirs; i++) {
        absolute(k->include_dirs[i], path, sizeof path);
        fputc(' ', f);
        header_put_string(f, path);
        fputc(',', f);
    }
    fprintf(f, " NULL };\nstatic const char *const %s_desc_options[] = {", lower);
    for (int i = 0; i < k->n_options; i++) {
        fputc(' ', f);
        header_put_string(f, k->options[i]);
        fputc(',', f);
    }
    fprintf(f, " NULL };\nstatic const char *const %s_desc_define_names[] = {", lower);
    for (int i = 0; i < k->n_defines; i++) {
        fputc(' ', f);
        header_put_string(f, k->define_names[i]);
        fputc(',', f);
    }
    /* NULL: a macro without a value (-D NAME); a condition NULL: always */
    fprintf(f, " NULL };\nstatic const char *const %s_desc_define_values[] = {", lower);
    for (int i = 0; i < k->n_defines; i++) {
        fputc(' ', f);
        if (k->define_values[i].text)
            header_put_string(f, k->define_values[i].text);
        else
            fputs("NULL", f);
        fputc(',', f);
    }
    fprintf(f, " NULL };\nstatic const char *const %s_desc_define_conds[] = {", lower);
    for (int i = 0; i < k->n_defines; i++) {
        fputc(' ', f);
        if (k->define_conds && k->define_conds[i].text)
            header_put_string(f, k->define_conds[i].text);
        else
            fputs("NULL", f);
        fputc(',', f);
    }
    fprintf(f, " NULL };\n");
    /* fields, parameters, dtypes */
    fprintf(f, "static const char *const %s_desc_fields[] = {", lower);
    for (int i = 0; i < sp->n_fields; i++) {
        fputc(' ', f);
        header_put_string(f, sp->fields[i].name);
        fputc(',', f);
    }
    fprintf(f, " NULL };\nstatic const tk_kernel_param %s_desc_params[] = {", lower);
    for (int i = 0; i < sp->n_params; i++) {
        fprintf(f, " { ");
        header_put_string(f, sp->params[i].name);
        fprintf(f, ", %d },", sp->params[i].values[0].kind == VALUE_STRING);
    }
    fprintf(f, " { NULL, 0 } };\nstatic const tk_kernel_dtype %s_desc_dtypes[] = {", lower);
    for (int i = 0; i < sp->n_dtypes; i++) {
        int t = su_type_parse(sp->dtypes[i]);
        fprintf(f, " { \"%s\", \"%s\", %zu },", sp->dtypes[i], su_type_ctype(t), su_type_size(t));
    }
    fprintf(f, " };\n");
    /* arguments */
    fprintf(f, "static const tk_kernel_arg %s_desc_args[] = {\n", lower);
    for (int i = 0; i < u->n_args; i++) {
        const su_arg *a = &u->args[i];
        fprintf(f, "    { \"%s\", %d, \"%s\", ", a->name, a->is_buffer,
                a->is_pointer ? "pointer" : a->record ? "struct" : a->texture ? "texture"
                : a->tensor_map ? "tensor_map"
                : a->type == SU_DTYPE ? "dtype" : su_type_name(a->type));
        put_opt_string(f, a->is_buffer ? a->count.text : NULL);
        fprintf(f, ", ");
        put_opt_string(f, a->symbol);
        fprintf(f, ", %d, %d },\n", a->is_buffer && a->output,
                su_arg_reads(a));
    }
    fprintf(f, "};\n");
    /* steps */
    for (int s = 0; s < k->n_launches; s++) {
        const su_launch_spec *l = &k->launches[s];
        fprintf(f, "static const char *const %s_desc_templ%d[] = {", lower, s);
        for (int i = 0; i < l->n_template; i++) {
            fputc(' ', f);
            header_put_string(f, l->templ[i].text);
            fputc(',', f);
        }
        fprintf(f, " NULL };\nstatic const int %s_desc_takes%d[] = {", lower, s);
        for (int i = 0; i < l->n_args; i++)
            fprintf(f, " %d,", l->args[i]);
        fprintf(f, " -1 };\n");
    }
    fprintf(f, "static const tk_kernel_step %s_desc_steps[] = {\n", lower);
    for (int s = 0; s < k->n_launches; s++) {
        const su_launch_spec *l = &k->launches[s];
        fprintf(f, "    { ");
        header_put_string(f, l->function);
        fprintf(f, ", %d, %s_desc_templ%d, %d, %d,\n      { ", l->n_template, lower, s,
                l->grid_dims, l->block_dims);
        for (int i = 0; i < 3; i++) {
            put_opt_string(f, i < l->grid_dims ? l->grid[i].text : NULL);
            fprintf(f, i < 2 ? ", " : " }, { ");
        }
        for (int i = 0; i < 3; i++) {
            put_opt_string(f, i < l->block_dims ? l->block[i].text : NULL);
            fprintf(f, i < 2 ? ", " : " },\n      ");
        }
        put_opt_string(f, l->has_shared ? l->shared.text : NULL);
        fprintf(f, ", %d, %s_desc_takes%d", l->n_args, lower, s);
        fprintf(f, ",\n      %d, { ", l->cluster_dims);
        for (int i = 0; i < 3; i++) {
            put_opt_string(f, i < l->cluster_dims ? l->cluster[i].text : NULL);
            fprintf(f, i < 2 ? ", " : " }, ");
        }
        fprintf(f, "%d },\n", l->cooperative);
    }
    fprintf(f, "};\n");
    /* the winners */
    fprintf(f, "static const tk_kernel_entry %s_desc_entries[] = {\n", lower);
    for (int i = 0; i < n_winners; i++) {
        fprintf(f, "    { ");
        header_put_string(f, w[i].device);
        fprintf(f, ", %d, %d, %d, \"%s\", %s_table[%d].problem, ", w[i].cc_major, w[i].cc_minor,
                w[i].sm_count, w[i].dtype, lower, i);
        header_put_string(f, w[i].config);
        fprintf(f, ", %.17g },\n", w[i].us);
    }
    fprintf(f, "};\n");
    /* the descriptor */
    char dflt[1024];
    int zeros[256] = {0};
    if (sp->n_params > 256) {
        snprintf(err, len, "more than 256 parameters");
        goto done;
    }
    space_config_text(sp, u->ref == SU_REF_CONFIG ? u->ref_choice : zeros, dflt, sizeof dflt);
    absolute(k->source_dir, path, sizeof path);
    char space_path[PATH_MAX];
    absolute(u->base ? u->base : sp->path, space_path, sizeof space_path);   /* the root */
    /* the ABI as a number: a header written by another tunekit says which layout it wrote */
    fprintf(f, "static const tk_kernel_desc %s_desc = {\n    %d, \"%s\", \"%s\", \"%s\", ",
            lower, TK_KERNEL_DESC_ABI, u->family, u->op, space_user_hash(u));
    header_put_string(f, space_path);
    fprintf(f, ", %d,\n    %d, %s_desc_files, ", u->ref == SU_REF_FILE, n_files, lower);
    header_put_string(f, path);
    fprintf(f, ",\n    %d, %s_desc_include_dirs, %d, %s_desc_options,\n"
               "    %d, %s_desc_define_names, %s_desc_define_values,\n"
               "    %d, %s_desc_fields, %d, %s_desc_params, %d, %s_desc_dtypes,\n"
               "    %d, %s_desc_args, %d, %s_desc_steps,\n    ",
            k->n_include_dirs, lower, k->n_options, lower, k->n_defines, lower, lower,
            sp->n_fields, lower, sp->n_params, lower, sp->n_dtypes, lower, u->n_args, lower,
            k->n_launches, lower);
    header_put_string(f, dflt);
    fprintf(f, ", %d, %s_desc_entries, \"%s\", %s_desc_define_conds,\n};\n"
               "#endif /* TUNEKIT_RUNTIME_H */\n", n_winners, lower, u->arch_suffix, lower);
    rc = 0;
done:
    for (int i = 0; i < n_files; i++)
        free(files[i]);
    free(files);
    return rc;
}
