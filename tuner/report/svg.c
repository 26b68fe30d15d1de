/* svg.c: the tiny SVG plot writer's document and primitives (see svg.h; the plots, axes, legend,
 * heatmap and colour bar are svg_plot.c's). The document's body is one growing text buffer;
 * svg_finish puts the head in front of it: the root element, the title, a <style> block with one
 * CSS class per distinct style or font the body used (classes are named in order of first use),
 * and the colour map's gradient when a colour bar used it. Every coordinate is printed through
 * svg_num with one decimal (a tenth of a pixel), so output depends only on the calls. Consecutive
 * solid lines of one style become one <path>; a heatmap's cells of one colour share a <path> and
 * a row's values one <text>. */
#include "svg_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ---- the text buffer ---- */
static void put(svg *s, const char *text, size_t n)
{
    if (s->oom) return;
    if (s->len + n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap < s->len + n + 1) cap *= 2;
        char *g = realloc(s->buf, cap);
        if (!g) { s->oom = 1; return; }
        s->buf = g;
        s->cap = cap;
    }
    memcpy(s->buf + s->len, text, n);
    s->len += n;
    s->buf[s->len] = 0;
}

void sv_puts(svg *s, const char *text) { put(s, text, strlen(text)); }

void sv_putf(svg *s, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) { s->oom = 1; return; }
    if ((size_t)n < sizeof small) { put(s, small, (size_t)n); return; }
    char *big = malloc((size_t)n + 1);
    if (!big) { s->oom = 1; return; }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    put(s, big, (size_t)n);
    free(big);
}

/* XML text or attribute content. */
void sv_put_escaped(svg *s, const char *text)
{
    for (const char *p = text; *p; p++) {
        switch (*p) {
        case '&': sv_puts(s, "&amp;"); break;
        case '<': sv_puts(s, "&lt;"); break;
        case '>': sv_puts(s, "&gt;"); break;
        case '"': sv_puts(s, "&quot;"); break;
        case '\'': sv_puts(s, "&#39;"); break;
        default:
            if ((unsigned char)*p < 0x20 && *p != '\n' && *p != '\t') sv_puts(s, " ");
            else put(s, p, 1);
        }
    }
}

void svg_num(double v, int digits, char *buf, size_t len)
{
    if (len == 0) return;
    if (!isfinite(v)) v = 0;
    if (digits < 0) digits = 0;
    if (digits > 12) digits = 12;
    snprintf(buf, len, "%.*f", digits, v);
    char *dot = strchr(buf, '.');
    if (dot) {
        char *end = buf + strlen(buf) - 1;
        while (end > dot && *end == '0') *end-- = 0;
        if (end == dot) *end = 0;
    }
    if (strcmp(buf, "-0") == 0) snprintf(buf, len, "0");
}

/* A coordinate: one decimal, a tenth of a pixel. */
void sv_put_num(svg *s, double v)
{
    char b[64];
    svg_num(v, 1, b, sizeof b);
    sv_puts(s, b);
}

svg *svg_new(double width, double height, const char *title)
{
    svg *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->width = width;
    s->height = height;
    s->path_class = -1;
    if (title && !(s->title = strdup(title))) { free(s); return NULL; }
    sv_puts(s, "<rect width=\"");
    sv_put_num(s, width);
    sv_puts(s, "\" height=\"");
    sv_put_num(s, height);
    sv_puts(s, "\" fill=\"#fff\"/>\n");
    if (s->oom) { svg_free(s); return NULL; }
    return s;
}

/* Class i's name: a..z, then aa, ab, ... (lower case only: class names stay case-proof). */
static void class_name(int i, char out[8])
{
    char rev[8];
    int n = 0;
    do { rev[n++] = (char)('a' + i % 26); i = i / 26 - 1; } while (i >= 0 && n < 7);
    for (int k = 0; k < n; k++) out[k] = rev[n - 1 - k];
    out[n] = 0;
}

/* The class of a CSS declaration, added on first use; -1 when out of memory. */
static int intern_class(svg *s, const char *decl)
{
    for (int i = 0; i < s->n_classes; i++)
        if (strcmp(s->classes[i], decl) == 0) return i;
    if (s->n_classes == s->cap_classes) {
        int cap = s->cap_classes ? 2 * s->cap_classes : 16;
        char **g = realloc(s->classes, (size_t)cap * sizeof *g);
        if (!g) { s->oom = 1; return -1; }
        s->classes = g;
        s->cap_classes = cap;
    }
    if (!(s->classes[s->n_classes] = strdup(decl))) { s->oom = 1; return -1; }
    return s->n_classes++;
}

/* ` class="x"` for decl; returns the class (-1: out of memory, nothing written). */
int sv_put_class(svg *s, const char *decl)
{
    int c = intern_class(s, decl);
    if (c < 0) return -1;
    char name[8];
    class_name(c, name);
    sv_putf(s, " class=\"%s\"", name);
    return c;
}

int svg_finish(svg *s, char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    svg *d = calloc(1, sizeof *d);
    if (!d) { svg_free(s); return -1; }
    sv_puts(d, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"");
    sv_put_num(d, s->width);
    sv_puts(d, "\" height=\"");
    sv_put_num(d, s->height);
    sv_puts(d, "\" viewBox=\"0 0 ");
    sv_put_num(d, s->width);
    sv_puts(d, " ");
    sv_put_num(d, s->height);
    sv_puts(d, "\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"11\">\n");
    if (s->title) {
        sv_puts(d, "<title>");
        sv_put_escaped(d, s->title);
        sv_puts(d, "</title>\n");
    }
    if (s->n_classes) {
        sv_puts(d, "<style>");
        for (int i = 0; i < s->n_classes; i++) {
            char name[8];
            class_name(i, name);
            sv_putf(d, "%s.%s{", i ? "\n" : "", name);
            sv_put_escaped(d, s->classes[i]);
            sv_puts(d, "}");
        }
        sv_puts(d, "</style>\n");
    }
    if (s->gradient) {
        sv_puts(d, "<defs><linearGradient id=\"" GRADIENT_ID "\">");
        for (int i = 0; i <= 8; i++) {
            char col[8], off[16];
            svg_colormap(i / 8.0, col);
            svg_num(i / 8.0, 3, off, sizeof off);
            sv_putf(d, "<stop offset=\"%s\" stop-color=\"%s\"/>", off, col);
        }
        sv_puts(d, "</linearGradient></defs>\n");
    }
    if (s->buf) put(d, s->buf, s->len);
    sv_puts(d, "</svg>\n");
    int oom = s->oom || d->oom;
    svg_free(s);
    if (oom) { svg_free(d); return -1; }
    *text = d->buf;
    *len = d->len;
    free(d);
    return 0;
}

void svg_free(svg *s)
{
    if (!s) return;
    for (int i = 0; i < s->n_classes; i++) free(s->classes[i]);
    free(s->classes);
    free(s->title);
    free(s->buf);
    free(s);
}

/* ---- the colour map (the document's gradient; heatmaps and colour bars, svg_plot.c) ---- */
/* Nine control points of viridis, interpolated linearly in RGB. */
static const unsigned char cmap[9][3] = {
    {68, 1, 84},    {72, 40, 120},  {62, 73, 137},  {49, 104, 142}, {38, 130, 142},
    {31, 158, 137}, {53, 183, 121}, {110, 206, 88}, {253, 231, 37},
};

void svg_colormap(double t, char out[8])
{
    if (!(t > 0)) t = 0;
    if (t > 1) t = 1;
    double f = t * 8;
    int i = (int)floor(f);
    if (i >= 8) i = 7;
    double u = f - i;
    int rgb[3];
    for (int c = 0; c < 3; c++)
        rgb[c] = (int)lround(cmap[i][c] + (cmap[i + 1][c] - cmap[i][c]) * u);
    snprintf(out, 8, "#%02x%02x%02x", rgb[0] & 255, rgb[1] & 255, rgb[2] & 255);
}

const char *svg_colormap_ink(double t) { return t > 0.55 ? "#222" : "#fff"; }

/* ---- primitives ---- */
/* The CSS declaration of a style (stroke width 1 and full opacity are CSS's defaults). */
static void style_decl(const svg_style *st, char *d, size_t n)
{
    const char *stroke = st ? st->stroke : "#222";
    const char *fill = st ? st->fill : NULL;
    size_t k = (size_t)snprintf(d, n, "fill:%s", fill ? fill : "none");
    char num[64];
    if (stroke && k < n) {
        k += (size_t)snprintf(d + k, n - k, ";stroke:%s", stroke);
        double w = st && st->width > 0 ? st->width : 1;
        svg_num(w, 2, num, sizeof num);
        if (strcmp(num, "1") != 0 && k < n) k += (size_t)snprintf(d + k, n - k, ";stroke-width:%s", num);
        if (st && st->dash && k < n) k += (size_t)snprintf(d + k, n - k, ";stroke-dasharray:%s", st->dash);
    }
    if (st && st->opacity > 0 && st->opacity < 1 && k < n) {
        svg_num(st->opacity, 2, num, sizeof num);
        snprintf(d + k, n - k, ";opacity:%s", num);
    }
}

static int put_style(svg *s, const svg_style *st)
{
    char decl[512];
    style_decl(st, decl, sizeof decl);
    return sv_put_class(s, decl);
}

void sv_close_with_title(svg *s, const char *tag, const char *title)
{
    if (!title) { sv_puts(s, "/>\n"); return; }
    sv_puts(s, "><title>");
    sv_put_escaped(s, title);
    sv_putf(s, "</title></%s>\n", tag);
}

/* " M x1 y1" then H, V or L to (x2, y2): one straight segment of a path's d. */
static void put_segment(svg *s, double x1, double y1, double x2, double y2)
{
    char a[64], b[64], c[64], e[64];
    svg_num(x1, 1, a, sizeof a);
    svg_num(y1, 1, b, sizeof b);
    svg_num(x2, 1, c, sizeof c);
    svg_num(y2, 1, e, sizeof e);
    sv_putf(s, "M%s %s", a, b);
    if (strcmp(b, e) == 0) sv_putf(s, "H%s", c);
    else if (strcmp(a, c) == 0) sv_putf(s, "V%s", e);
    else sv_putf(s, "L%s %s", c, e);
}

void svg_line(svg *s, double x1, double y1, double x2, double y2, const svg_style *st)
{
    /* solid, opaque lines of one style drawn one after another share a path: same pixels, since
     * separate subpaths are stroked like separate lines (dashes and opacity would not be) */
    int merge = !(st && (st->dash || (st->opacity > 0 && st->opacity < 1)));
    char decl[512];
    style_decl(st, decl, sizeof decl);
    int c = intern_class(s, decl);
    if (c < 0) return;
    static const char tail[] = "\"/>\n";
    if (merge && s->path_class == c && s->len == s->path_end && s->len >= sizeof tail - 1) {
        s->len -= sizeof tail - 1;
        put_segment(s, x1, y1, x2, y2);
        sv_puts(s, tail);
        s->path_end = s->len;
        return;
    }
    char name[8];
    class_name(c, name);
    sv_putf(s, "<path class=\"%s\" d=\"", name);
    put_segment(s, x1, y1, x2, y2);
    sv_puts(s, tail);
    if (merge) {
        s->path_end = s->len;
        s->path_class = c;
    }
}

void svg_polyline(svg *s, const double *x, const double *y, int n, const svg_style *st)
{
    if (n < 2) return;
    sv_puts(s, "<polyline points=\"");
    for (int i = 0; i < n; i++) {
        if (i) sv_puts(s, " ");
        sv_put_num(s, x[i]);
        sv_puts(s, ",");
        sv_put_num(s, y[i]);
    }
    sv_puts(s, "\"");
    char decl[512];
    style_decl(st, decl, sizeof decl);
    strncat(decl, ";stroke-linejoin:round", sizeof decl - strlen(decl) - 1);
    sv_put_class(s, decl);
    sv_puts(s, "/>\n");
}

/* "<rect x=.. y=.. width=.. height=..", negative sizes as 0, the tag left open */
void sv_put_rect_open(svg *s, double x, double y, double w, double h)
{
    sv_puts(s, "<rect x=\"");
    sv_put_num(s, x);
    sv_puts(s, "\" y=\"");
    sv_put_num(s, y);
    sv_puts(s, "\" width=\"");
    sv_put_num(s, w < 0 ? 0 : w);
    sv_puts(s, "\" height=\"");
    sv_put_num(s, h < 0 ? 0 : h);
}

void svg_rect(svg *s, double x, double y, double w, double h, const svg_style *st,
              const char *title)
{
    sv_put_rect_open(s, x, y, w, h);
    sv_puts(s, "\"");
    put_style(s, st);
    sv_close_with_title(s, "rect", title);
}

void svg_circle(svg *s, double cx, double cy, double r, const svg_style *st, const char *title)
{
    sv_puts(s, "<circle cx=\"");
    sv_put_num(s, cx);
    sv_puts(s, "\" cy=\"");
    sv_put_num(s, cy);
    sv_puts(s, "\" r=\"");
    sv_put_num(s, r);
    sv_puts(s, "\"");
    put_style(s, st);
    sv_close_with_title(s, "circle", title);
}

/* The CSS declaration of a font (11 px and start-anchored are the document's defaults). */
void sv_font_decl(const svg_font *f, char *decl, size_t n)
{
    static const char *const anchors[] = {"start", "middle", "end"};
    char num[64];
    size_t k = (size_t)snprintf(decl, n, "fill:%s", f->fill ? f->fill : "#222");
    if (f->size > 0 && f->size != 11 && k < n) {
        svg_num(f->size, 2, num, sizeof num);
        k += (size_t)snprintf(decl + k, n - k, ";font-size:%spx", num);
    }
    if (f->anchor != SVG_START && k < n)
        k += (size_t)snprintf(decl + k, n - k, ";text-anchor:%s", anchors[f->anchor]);
    if (f->bold && k < n) snprintf(decl + k, n - k, ";font-weight:bold");
}

void svg_text(svg *s, double x, double y, const svg_font *f, const char *text)
{
    svg_font d = {0, SVG_START, 0, 0, NULL};
    if (!f) f = &d;
    char decl[256];
    sv_font_decl(f, decl, sizeof decl);
    sv_puts(s, "<text x=\"");
    sv_put_num(s, x);
    sv_puts(s, "\" y=\"");
    sv_put_num(s, y);
    sv_puts(s, "\"");
    sv_put_class(s, decl);
    if (f->vertical) {
        sv_puts(s, " transform=\"rotate(-90 ");
        sv_put_num(s, x);
        sv_puts(s, " ");
        sv_put_num(s, y);
        sv_puts(s, ")\"");
    }
    sv_puts(s, ">");
    sv_put_escaped(s, text);
    sv_puts(s, "</text>\n");
}
