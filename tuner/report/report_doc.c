/* report_doc.c: the Markdown + HTML twin writer (see report_doc.h). */
#include "report_doc.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const style_sheet =
    "body{font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;color:#1f2328;"
    "margin:0;background:#fff;line-height:1.45}\n"
    "main{max-width:1280px;margin:0 auto;padding:16px 28px 60px}\n"
    "h1{font-size:1.9em;border-bottom:1px solid #d8dee4;padding-bottom:.3em}\n"
    "h2{font-size:1.45em;border-bottom:1px solid #d8dee4;padding-bottom:.25em;margin-top:1.8em}\n"
    "h3{font-size:1.15em;margin-top:1.5em}\n"
    "code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.86em;"
    "background:#f0f2f4;padding:.1em .3em;border-radius:4px}\n"
    ".scroll{overflow-x:auto}\n"
    "table{border-collapse:collapse;font-size:.86em;margin:.6em 0}\n"
    "th,td{border:1px solid #d0d7de;padding:3px 7px;vertical-align:top}\n"
    "th{background:#f6f8fa}\n"
    "td.r,th.r{text-align:right;white-space:nowrap}\n"
    "tr:nth-child(even) td{background:#fafbfc}\n"
    "figure{margin:1em 0}\n"
    "figure img{max-width:100%;height:auto;border:1px solid #eaeef2}\n"
    "figcaption{font-size:.86em;color:#57606a;margin-top:.3em}\n";

void twin_anchor(const char *heading, char *buf, size_t len)
{
    size_t n = 0;
    if (len == 0) return;
    for (const char *p = heading; *p && n + 1 < len; p++) {
        unsigned char c = (unsigned char)*p;
        if (c < 128 && isalnum(c)) buf[n++] = (char)tolower(c);
        else if (c == ' ' || c == '-') buf[n++] = '-';
        else if (c == '_') buf[n++] = '_';
    }
    buf[n] = 0;
}

static void html_escape(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n && s[i]; i++) {
        switch (s[i]) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(s[i], f);
        }
    }
}

/* The inline markup as HTML. */
static void html_inline(FILE *f, const char *s)
{
    while (*s) {
        const char *end, *close;
        if (*s == '`' && (end = strchr(s + 1, '`'))) {
            fputs("<code>", f);
            html_escape(f, s + 1, (size_t)(end - s - 1));
            fputs("</code>", f);
            s = end + 1;
        } else if (s[0] == '*' && s[1] == '*' && (end = strstr(s + 2, "**"))) {
            fputs("<strong>", f);
            html_escape(f, s + 2, (size_t)(end - s - 2));
            fputs("</strong>", f);
            s = end + 2;
        } else if (*s == '[' && (end = strstr(s, "](")) && (close = strchr(end, ')'))) {
            fputs("<a href=\"", f);
            html_escape(f, end + 2, (size_t)(close - end - 2));
            fputs("\">", f);
            html_escape(f, s + 1, (size_t)(end - s - 1));
            fputs("</a>", f);
            s = close + 1;
        } else {
            html_escape(f, s, 1);
            s++;
        }
    }
}

/* Markdown table cell: the markup as is, '|' escaped, no line breaks. */
static void md_cell(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|') fputs("\\|", f);
        else if (*s == '\n') fputc(' ', f);
        else fputc(*s, f);
    }
}

/* Closes an open list before another block starts. */
static void end_blocks(twin *t)
{
    if (t->in_list) {
        fputs("</ul>\n", t->html);
        fputs("\n", t->md);
        t->in_list = 0;
    }
}

void twin_begin(twin *t, const char *title)
{
    t->in_list = t->in_table = 0;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n<title>",
          t->html);
    html_escape(t->html, title, strlen(title));
    fputs("</title>\n<style>\n", t->html);
    fputs(style_sheet, t->html);
    fputs("</style>\n</head>\n<body>\n<main>\n", t->html);
}

void twin_end(twin *t)
{
    end_blocks(t);
    fputs("</main>\n</body>\n</html>\n", t->html);
}

void twin_heading(twin *t, int level, const char *text)
{
    char id[256];
    end_blocks(t);
    if (level < 1) level = 1;
    if (level > 4) level = 4;
    twin_anchor(text, id, sizeof id);
    fprintf(t->md, "%.*s %s\n\n", level, "####", text);
    fprintf(t->html, "<h%d id=\"", level);
    html_escape(t->html, id, strlen(id));
    fputs("\">", t->html);
    html_inline(t->html, text);
    fprintf(t->html, "</h%d>\n", level);
}

static char *vformat(const char *fmt, va_list ap)
{
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) return NULL;
    return s;
}

void twin_para(twin *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = vformat(fmt, ap);
    va_end(ap);
    end_blocks(t);
    if (!s) return;
    fprintf(t->md, "%s\n\n", s);
    fputs("<p>", t->html);
    html_inline(t->html, s);
    fputs("</p>\n", t->html);
    free(s);
}

void twin_item(twin *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = vformat(fmt, ap);
    va_end(ap);
    if (!s) return;
    if (!t->in_list) {
        fputs("<ul>\n", t->html);
        t->in_list = 1;
    }
    fprintf(t->md, "- %s\n", s);
    fputs("<li>", t->html);
    html_inline(t->html, s);
    fputs("</li>\n", t->html);
    free(s);
}

static const char *cell_class(const twin *t, int i)
{
    return t->align && t->align[i] == 'r' ? " class=\"r\"" : "";
}

void twin_table(twin *t, int n, const char *const *headers, const char *align)
{
    end_blocks(t);
    t->in_table = 1;
    t->table_cols = n;
    t->align = align;
    fputs("|", t->md);
    for (int i = 0; i < n; i++) {
        fputc(' ', t->md);
        md_cell(t->md, headers[i]);
        fputs(" |", t->md);
    }
    fputs("\n|", t->md);
    for (int i = 0; i < n; i++) fputs(align && align[i] == 'r' ? "---:|" : "---|", t->md);
    fputs("\n", t->md);
    fputs("<div class=\"scroll\"><table>\n<thead><tr>", t->html);
    for (int i = 0; i < n; i++) {
        fprintf(t->html, "<th%s>", cell_class(t, i));
        html_inline(t->html, headers[i]);
        fputs("</th>", t->html);
    }
    fputs("</tr></thead>\n<tbody>\n", t->html);
}

void twin_row(twin *t, const char *const *cells)
{
    fputs("|", t->md);
    fputs("<tr>", t->html);
    for (int i = 0; i < t->table_cols; i++) {
        fputc(' ', t->md);
        md_cell(t->md, cells[i]);
        fputs(" |", t->md);
        fprintf(t->html, "<td%s>", cell_class(t, i));
        html_inline(t->html, cells[i]);
        fputs("</td>", t->html);
    }
    fputs("\n", t->md);
    fputs("</tr>\n", t->html);
}

void twin_table_end(twin *t)
{
    if (!t->in_table) return;
    fputs("\n", t->md);
    fputs("</tbody>\n</table></div>\n", t->html);
    t->in_table = 0;
    t->align = NULL;
}

void twin_image(twin *t, const char *file, const char *alt, const char *caption)
{
    end_blocks(t);
    fprintf(t->md, "![%s](%s)\n\n", alt, file);
    if (caption) fprintf(t->md, "*%s*\n\n", caption);
    fputs("<figure><a href=\"", t->html);
    html_escape(t->html, file, strlen(file));
    fputs("\"><img src=\"", t->html);
    html_escape(t->html, file, strlen(file));
    fputs("\" alt=\"", t->html);
    html_escape(t->html, alt, strlen(alt));
    fputs("\"/></a>", t->html);
    if (caption) {
        fputs("<figcaption>", t->html);
        html_inline(t->html, caption);
        fputs("</figcaption>", t->html);
    }
    fputs("</figure>\n", t->html);
}
