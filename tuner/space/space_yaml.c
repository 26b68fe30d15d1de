/* space_yaml.c: reads a space file into a small YAML tree (space_internal.h) with libyaml's event
 * API, refusing everything a space file has no use for and that could make reading it costly or
 * ambiguous: files over 1 MiB, aliases and anchors (no billion laughs), tags, several documents,
 * non-scalar or duplicate mapping keys, nesting deeper than 16 levels. Also the shared error
 * formatter of the space modules. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include "core/sha256.h"
#include "space_internal.h"

void space_errorf(char *err, size_t len, const char *path, int line, int col, const char *fmt,
                  ...)
{
    if (!err || len == 0)
        return;
    int w = line > 0 ? snprintf(err, len, "%s:%d:%d: error: ", path, line, col)
                     : snprintf(err, len, "%s: error: ", path);
    if (w < 0 || (size_t)w >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + w, len - (size_t)w, fmt, ap);
    va_end(ap);
    /* One line, always: a message quoting file text must not break it. */
    for (char *c = err; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
}

void ynode_free(ynode *n)
{
    if (!n)
        return;
    int count = n->kind == YNODE_MAP ? 2 * n->n + n->pending : n->n;
    for (int k = 0; k < count; k++)
        ynode_free(n->items[k]);
    free(n->items);
    free(n->text);
    free(n);
}

const ynode *ynode_get(const ynode *map, const char *key)
{
    if (!map || map->kind != YNODE_MAP)
        return NULL;
    for (int k = 0; k < map->n; k++)
        if (strcmp(map->items[2 * k]->text, key) == 0)
            return map->items[2 * k + 1];
    return NULL;
}

/* Adds child to a container: a list item, or a mapping's key (pending until its value comes)
 * or value. Returns 0 or -1 (out of memory; child not attached). */
static int ynode_add(ynode *parent, ynode *child)
{
    int used = parent->kind == YNODE_MAP ? 2 * parent->n + parent->pending : parent->n;
    if (used == parent->cap) {
        int cap = parent->cap ? parent->cap * 2 : 8;
        ynode **items = realloc(parent->items, (size_t)cap * sizeof *items);
        if (!items)
            return -1;
        parent->items = items;
        parent->cap = cap;
    }
    parent->items[used] = child;
    if (parent->kind == YNODE_SEQ) {
        parent->n++;
    } else if (parent->pending) {
        parent->pending = 0;
        parent->n++;
    } else {
        parent->pending = 1;
    }
    return 0;
}

/* Reads the whole file (at most the limit). Returns the bytes (caller frees) or NULL + err. */
static char *read_file(const char *path, size_t *size, char *err, size_t len)
{
    char *buf = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        space_errorf(err, len, path, 0, 0, "cannot open: %s", strerror(errno));
        return NULL;
    }
    buf = malloc(SPACE_MAX_FILE_BYTES + 1);
    if (!buf) {
        space_errorf(err, len, path, 0, 0, "out of memory");
        goto fail;
    }
    size_t n = fread(buf, 1, SPACE_MAX_FILE_BYTES + 1, f);
    if (ferror(f)) {
        space_errorf(err, len, path, 0, 0, "cannot read: %s", strerror(errno));
        goto fail;
    }
    if (n > SPACE_MAX_FILE_BYTES) {
        space_errorf(err, len, path, 0, 0, "file is larger than 1 MiB (%d bytes)",
                     SPACE_MAX_FILE_BYTES);
        goto fail;
    }
    fclose(f);
    *size = n;
    return buf;
fail:
    free(buf);
    fclose(f);
    return NULL;
}

/* 1-based line and column (in characters) of byte offset in buf. */
static void offset_position(const char *buf, size_t size, size_t offset, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t k = 0; k < offset && k < size; k++) {
        unsigned char c = (unsigned char)buf[k];
        if (c == '\n') {
            (*line)++;
            *col = 1;
        } else if ((c & 0xc0) != 0x80) {
            (*col)++;
        }
    }
}

static void parser_error(const yaml_parser_t *p, const char *path, const char *buf, size_t size,
                         char *err, size_t len)
{
    const char *problem = p->problem ? p->problem : "unknown error";
    if (p->error == YAML_READER_ERROR) {
        int line, col;
        offset_position(buf, size, p->problem_offset, &line, &col);
        if (strstr(problem, "UTF-8") || strstr(problem, "Unicode"))
            space_errorf(err, len, path, line, col, "not valid UTF-8 (%s)", problem);
        else
            space_errorf(err, len, path, line, col, "invalid text (%s)", problem);
        return;
    }
    if (p->error == YAML_MEMORY_ERROR) {
        space_errorf(err, len, path, 0, 0, "out of memory reading YAML");
        return;
    }
    int line = (int)p->problem_mark.line + 1, col = (int)p->problem_mark.column + 1;
    if (p->context)
        space_errorf(err, len, path, line, col, "YAML syntax error: %s (%s)", problem, p->context);
    else
        space_errorf(err, len, path, line, col, "YAML syntax error: %s", problem);
}

/* A node of the event's kind at its start mark, or NULL (out of memory). */
static ynode *ynode_new(ynode_kind kind, const yaml_event_t *ev)
{
    ynode *n = calloc(1, sizeof *n);
    if (!n)
        return NULL;
    n->kind = kind;
    n->line = (int)ev->start_mark.line + 1;
    n->col = (int)ev->start_mark.column + 1;
    n->end_line = (int)ev->end_mark.line + 1;
    if (kind == YNODE_SCALAR) {
        n->len = ev->data.scalar.length;
        n->text = malloc(n->len + 1);
        if (!n->text) {
            free(n);
            return NULL;
        }
        memcpy(n->text, ev->data.scalar.value, n->len);
        n->text[n->len] = '\0';
        yaml_scalar_style_t st = ev->data.scalar.style;
        n->quoted = st == YAML_SINGLE_QUOTED_SCALAR_STYLE || st == YAML_DOUBLE_QUOTED_SCALAR_STYLE
                        ? 1
                    : st == YAML_LITERAL_SCALAR_STYLE || st == YAML_FOLDED_SCALAR_STYLE ? 2
                                                                                         : 0;
    }
    return n;
}

int space_yaml_read(const char *path, ynode **root, char sha256[65], char *err, size_t len)
{
    int rc = -1;
    size_t size = 0;
    char *buf = NULL;
    yaml_parser_t parser;
    int parser_ready = 0;
    yaml_event_t ev;
    int have_event = 0;
    ynode *stack[SPACE_MAX_DEPTH + 1];
    int depth = 0, documents = 0;
    *root = NULL;

    buf = read_file(path, &size, err, len);
    if (!buf)
        goto cleanup;
    sha256_hex(buf, size, sha256);
    if (!yaml_parser_initialize(&parser)) {
        space_errorf(err, len, path, 0, 0, "out of memory");
        goto cleanup;
    }
    parser_ready = 1;
    yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
    yaml_parser_set_input_string(&parser, (const unsigned char *)buf, size);

    for (;;) {
        if (!yaml_parser_parse(&parser, &ev)) {
            parser_error(&parser, path, buf, size, err, len);
            goto cleanup;
        }
        have_event = 1;
        int line = (int)ev.start_mark.line + 1, col = (int)ev.start_mark.column + 1;
        ynode *node = NULL;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            rc = 0;
            goto cleanup;
        case YAML_DOCUMENT_START_EVENT:
            if (documents++ > 0) {
                space_errorf(err, len, path, line, col, "only one YAML document is allowed");
                goto cleanup;
            }
            break;
        case YAML_ALIAS_EVENT:
            space_errorf(err, len, path, line, col, "aliases are not allowed");
            goto cleanup;
        case YAML_SCALAR_EVENT:
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT: {
            const yaml_char_t *anchor = ev.type == YAML_SCALAR_EVENT ? ev.data.scalar.anchor
                                        : ev.type == YAML_SEQUENCE_START_EVENT
                                            ? ev.data.sequence_start.anchor
                                            : ev.data.mapping_start.anchor;
            const yaml_char_t *tag = ev.type == YAML_SCALAR_EVENT ? ev.data.scalar.tag
                                     : ev.type == YAML_SEQUENCE_START_EVENT
                                         ? ev.data.sequence_start.tag
                                         : ev.data.mapping_start.tag;
            if (anchor) {
                space_errorf(err, len, path, line, col,
                             "anchors are not allowed (aliases are not allowed)");
                goto cleanup;
            }
            if (tag) {
                space_errorf(err, len, path, line, col, "tags are not allowed ('%s')",
                             (const char *)tag);
                goto cleanup;
            }
            int container = ev.type != YAML_SCALAR_EVENT;
            if (container && depth >= SPACE_MAX_DEPTH) {
                space_errorf(err, len, path, line, col,
                             "nesting deeper than %d levels", SPACE_MAX_DEPTH);
                goto cleanup;
            }
            node = ynode_new(ev.type == YAML_SCALAR_EVENT ? YNODE_SCALAR
                             : ev.type == YAML_SEQUENCE_START_EVENT ? YNODE_SEQ
                                                                    : YNODE_MAP,
                             &ev);
            if (!node) {
                space_errorf(err, len, path, line, col, "out of memory");
                goto cleanup;
            }
            if (depth == 0) {
                *root = node;
            } else {
                ynode *parent = stack[depth - 1];
                if (parent->kind == YNODE_MAP && !parent->pending) {
                    const char *problem = NULL;
                    if (node->kind != YNODE_SCALAR)
                        problem = node->kind == YNODE_MAP ? "a mapping" : "a list";
                    if (problem || ynode_get(parent, node->text)) {
                        if (problem)
                            space_errorf(err, len, path, line, col,
                                         "a mapping key must be a name, not %s", problem);
                        else
                            space_errorf(err, len, path, line, col, "duplicate key '%s'",
                                         node->text);
                        ynode_free(node);
                        goto cleanup;
                    }
                }
                if (ynode_add(parent, node) != 0) {
                    space_errorf(err, len, path, line, col, "out of memory");
                    ynode_free(node);
                    goto cleanup;
                }
            }
            if (container) {
                stack[depth++] = node;
            }
            break;
        }
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            if (depth > 0) {
                stack[depth - 1]->end_line = (int)ev.end_mark.line + 1;
                depth--;
            }
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
        have_event = 0;
    }

cleanup:
    if (have_event)
        yaml_event_delete(&ev);
    if (parser_ready)
        yaml_parser_delete(&parser);
    free(buf);
    if (rc != 0) {
        ynode_free(*root);
        *root = NULL;
    }
    return rc;
}
