/* variant.c: the variant builder's front (variant.h) and the builder of the built-in families,
 * whose every variant is ready at once (its code is compiled into the library). */
#include "variant.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- built-in families ---- */

static int builtin_begin(variant_builder *b, const space_binding *bind, int ahead, vb_task *task,
                         char *err, size_t len)
{
    (void)b, (void)bind, (void)ahead, (void)err, (void)len;
    memset(task, 0, sizeof *task);
    return 0;
}

static int builtin_variant(variant_builder *b, const space_binding *bind, const int *choice,
                           vb_variant *out, char *err, size_t len)
{
    (void)b, (void)bind, (void)choice, (void)err, (void)len;
    out->state = VB_READY;
    out->why[0] = 0;
    out->module = NULL;
    return 0;
}

static void builtin_stats(const variant_builder *b, vb_stats *out)
{
    (void)b;
    memset(out, 0, sizeof *out);
}

static void builtin_close(variant_builder *b)
{
    free(b);
}

static const vb_vtable builtin_vt = {builtin_begin, builtin_variant, builtin_stats,
                                     builtin_close};

/* ---- the front ---- */

int variant_builder_open(const space *sp, const device_info *dev, const vb_options *o,
                         variant_builder **out, char *err, size_t len)
{
    *out = NULL;
    if (sp->user)
        return variant_builder_open_user(sp, dev, o, out, err, len);
    variant_builder *b = calloc(1, sizeof *b);
    if (!b) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    b->vt = &builtin_vt;
    *out = b;
    return 0;
}

void variant_builder_close(variant_builder *b)
{
    if (b)
        b->vt->close(b);
}

int vb_begin_task(variant_builder *b, const space_binding *bind, int64_t ahead, vb_task *task,
                  char *err, size_t len)
{
    memset(task, 0, sizeof *task);
    int a = ahead < 0 ? -1 : ahead > 0x3fffffff ? 0x3fffffff : (int)ahead;
    return b->vt->begin_task(b, bind, a, task, err, len);
}

int vb_get_variant(variant_builder *b, const space_binding *bind, const int *choice, vb_variant *out,
               char *err, size_t len)
{
    return b->vt->variant(b, bind, choice, out, err, len);
}

void vb_get_stats(const variant_builder *b, vb_stats *out)
{
    b->vt->stats(b, out);
}

void vb_task_clear(vb_task *t)
{
    free(t->checks);
    memset(t, 0, sizeof *t);
}

void vb_request(const vb_task *t, const vb_variant *v, eval_request *req)
{
    req->space_path = t->space_path;
    req->ref_module = t->ref_module;
    req->checks = t->checks;
    req->module = v ? v->module : NULL;
}

void vb_first_error(const char *log, char *out, size_t len)
{
    const char *first = log, *pick = NULL;
    for (const char *line = log; line && *line && !pick;) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        for (size_t i = 0; i + 5 <= n && !pick; i++)
            if (strncasecmp(line + i, "error", 5) == 0)
                pick = line;
        if (!pick && n == 0 && first == line)
            first = nl ? nl + 1 : line + n;
        line = nl ? nl + 1 : NULL;
    }
    const char *s = pick ? pick : first;
    size_t n = strcspn(s, "\n");
    snprintf(out, len, "%.*s", (int)n, s);
}
