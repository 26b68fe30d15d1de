/* compile_form.c: one rule for a user kernel config's compiler options and kernel name
 * expressions, shared by the tuner and libtunekit's run-time API (compile_form.h says the rule).
 * The strings are malloc'd; any failure clears what was formed. */
#include "build/compile_form.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int push(char ***list, int *n, char *s)
{
    if (!s)
        return -1;
    char **p = realloc(*list, sizeof **list * (size_t)(*n + 1));
    if (!p) {
        free(s);
        return -1;
    }
    *list = p;
    (*list)[(*n)++] = s;
    return 0;
}

static char *fmt_dup(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *fmt_dup(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

char *compile_form_name(const cf_source *src, int step, char *err, size_t len)
{
    const char *fn = src->step_function(src->ctx, step);
    int nt = src->step_n_template ? src->step_n_template(src->ctx, step) : 0;
    size_t cap = strlen(fn) + 3, n;
    char *name = malloc(cap);
    if (!name)
        goto oom;
    n = (size_t)snprintf(name, cap, "%s", fn);
    for (int j = 0; j < nt; j++) {
        char text[512];
        if (src->template_arg(src->ctx, step, j, text, sizeof text, err, len) != 0) {
            free(name);
            return NULL;
        }
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
        n += (size_t)snprintf(name + n, cap - n, "%s%s", j == 0 ? "<" : ", ", text);
    }
    if (nt)
        snprintf(name + n, cap - n, ">");
    return name;
oom:
    snprintf(err, len, "out of memory");
    return NULL;
}

int compile_form(const cf_source *src, cf_lists *out, char *err, size_t len)
{
    memset(out, 0, sizeof *out);
    int has_std = 0;
    for (int i = 0; i < src->n_options; i++)
        has_std |= strncmp(src->options[i], "-std=", 5) == 0 ||
                   strncmp(src->options[i], "--std", 5) == 0;
    if ((!has_std && push(&out->options, &out->n_options, strdup("-std=c++17"))) ||
        push(&out->options, &out->n_options,
             fmt_dup("-I%s", src->source_dir && *src->source_dir ? src->source_dir : ".")))
        goto oom;
    for (int i = 0; i < src->n_include_dirs; i++)
        if (push(&out->options, &out->n_options, fmt_dup("-I%s", src->include_dirs[i])))
            goto oom;
    for (int i = 0; i < src->n_defines; i++) {
        int holds = 1, has = 0;
        char text[512];
        if (src->define_holds && src->define_holds(src->ctx, i, &holds, err, len) != 0)
            goto fail;
        if (!holds)
            continue;
        if (src->define_value(src->ctx, i, &has, text, sizeof text, err, len) != 0)
            goto fail;
        if (push(&out->options, &out->n_options,
                 has ? fmt_dup("-D%s=%s", src->define_names[i], text)
                     : fmt_dup("-D%s", src->define_names[i])))
            goto oom;
    }
    for (int i = 0; i < src->n_options; i++)
        if (push(&out->options, &out->n_options, strdup(src->options[i])))
            goto oom;
    if (src->n_steps > 0 && !(out->step_kernel = calloc((size_t)src->n_steps, sizeof(int))))
        goto oom;
    for (int s = 0; s < src->n_steps; s++) {
        char *name = compile_form_name(src, s, err, len);
        if (!name)
            goto fail;
        int at = -1;
        for (int j = 0; j < out->n_kernels && at < 0; j++)
            if (strcmp(out->kernels[j], name) == 0)
                at = j;
        if (at >= 0)
            free(name);
        else if (push(&out->kernels, &out->n_kernels, name))
            goto oom;
        out->step_kernel[s] = at >= 0 ? at : out->n_kernels - 1;
    }
    return 0;
oom:
    snprintf(err, len, "out of memory");
fail:
    cf_lists_clear(out);
    return -1;
}

void cf_lists_clear(cf_lists *c)
{
    for (int i = 0; i < c->n_options; i++)
        free(c->options[i]);
    for (int i = 0; i < c->n_kernels; i++)
        free(c->kernels[i]);
    free(c->options);
    free(c->kernels);
    free(c->step_kernel);
    memset(c, 0, sizeof *c);
}
