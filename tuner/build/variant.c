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

/* Whether the line at p (n bytes) holds `word`, in any case. */
static int line_has(const char *p, size_t n, const char *word)
{
    size_t w = strlen(word);
    for (size_t i = 0; i + w <= n; i++)
        if (strncasecmp(p + i, word, w) == 0)
            return 1;
    return 0;
}

/* A log's head on one line: its first error line and the two after it (the source line and
 * the caret), after the line tunekit put first when it did (a hint: no compiler message, neither
 * error nor warning); with no error line, the first three lines. A warning before the error
 * ("unrecognized #pragma") is not what stopped the compile. */
void vb_log_head(const char *log, char *out, size_t len)
{
    const char *start = log, *hint = NULL;
    size_t hint_n = 0;
    for (const char *p = log; *p;) {
        size_t n = strcspn(p, "\n");
        if (line_has(p, n, "error")) {
            start = p;
            break;
        }
        p += n + (p[n] == '\n');
    }
    if (start != log) {
        size_t n = strcspn(log, "\n");
        if (n && !line_has(log, n, "warning") && !line_has(log, n, "error"))
            hint = log, hint_n = n;
    }
    size_t o = 0;
    if (hint && len > 4)
        o = (size_t)snprintf(out, len, "%.*s | ", (int)(hint_n < len - 4 ? hint_n : len - 4),
                             hint);
    int lines = 0;
    for (const char *p = start; *p && o + 1 < len && lines < 3; p++) {
        if (*p == '\n') {
            lines++;
            if (p[1] && lines < 3 && o + 3 < len) {
                out[o++] = ' ';
                out[o++] = '|';
                out[o++] = ' ';
            }
            continue;
        }
        out[o++] = *p;
    }
    out[o < len ? o : len - 1] = 0;
}

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
        if (line_has(line, n, "error"))
            pick = line;
        if (!pick && n == 0 && first == line)
            first = nl ? nl + 1 : line + n;
        line = nl ? nl + 1 : NULL;
    }
    const char *s = pick ? pick : first;
    size_t n = strcspn(s, "\n");
    snprintf(out, len, "%.*s", (int)n, s);
}
