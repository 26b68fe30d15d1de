/* svg.c: the tiny SVG plot writer (see svg.h). The document is one growing text buffer; every
 * coordinate is printed through svg_num with two decimals, so output depends only on the calls. */
#include "svg.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct svg {
    char *buf;
    size_t len, cap;
    int oom;
};

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

static void puts_(svg *s, const char *text) { put(s, text, strlen(text)); }

static void putf(svg *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(svg *s, const char *fmt, ...)
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
static void put_escaped(svg *s, const char *text)
{
    for (const char *p = text; *p; p++) {
        switch (*p) {
        case '&': puts_(s, "&amp;"); break;
        case '<': puts_(s, "&lt;"); break;
        case '>': puts_(s, "&gt;"); break;
        case '"': puts_(s, "&quot;"); break;
        case '\'': puts_(s, "&#39;"); break;
        default:
            if ((unsigned char)*p < 0x20 && *p != '\n' && *p != '\t') puts_(s, " ");
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

/* A coordinate: two decimals. */
static void put_num(svg *s, double v)
{
    char b[64];
    svg_num(v, 2, b, sizeof b);
    puts_(s, b);
}

svg *svg_new(double width, double height, const char *title)
{
    svg *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    puts_(s, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"");
    put_num(s, width);
    puts_(s, "\" height=\"");
    put_num(s, height);
    puts_(s, "\" viewBox=\"0 0 ");
    put_num(s, width);
    puts_(s, " ");
    put_num(s, height);
    puts_(s, "\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"11\">\n");
    if (title) {
        puts_(s, "<title>");
        put_escaped(s, title);
        puts_(s, "</title>\n");
    }
    puts_(s, "<rect x=\"0\" y=\"0\" width=\"");
    put_num(s, width);
    puts_(s, "\" height=\"");
    put_num(s, height);
    puts_(s, "\" fill=\"#fff\"/>\n");
    if (s->oom) { svg_free(s); return NULL; }
    return s;
}

int svg_finish(svg *s, char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    puts_(s, "</svg>\n");
    if (s->oom) { svg_free(s); return -1; }
    *text = s->buf;
    *len = s->len;
    free(s);
    return 0;
}

void svg_free(svg *s)
{
    if (!s) return;
    free(s->buf);
    free(s);
}

/* ---- primitives ---- */
static void put_style(svg *s, const svg_style *st)
{
    const char *stroke = st ? st->stroke : "#222";
    const char *fill = st ? st->fill : NULL;
    puts_(s, " fill=\"");
    puts_(s, fill ? fill : "none");
    puts_(s, "\"");
    if (stroke) {
        puts_(s, " stroke=\"");
        put_escaped(s, stroke);
        puts_(s, "\" stroke-width=\"");
        put_num(s, st && st->width > 0 ? st->width : 1);
        puts_(s, "\"");
        if (st && st->dash) {
            puts_(s, " stroke-dasharray=\"");
            put_escaped(s, st->dash);
            puts_(s, "\"");
        }
    }
    if (st && st->opacity > 0 && st->opacity < 1) {
        puts_(s, " opacity=\"");
        put_num(s, st->opacity);
        puts_(s, "\"");
    }
}

static void close_with_title(svg *s, const char *tag, const char *title)
{
    if (!title) { puts_(s, "/>\n"); return; }
    puts_(s, "><title>");
    put_escaped(s, title);
    putf(s, "</title></%s>\n", tag);
}

void svg_line(svg *s, double x1, double y1, double x2, double y2, const svg_style *st)
{
    puts_(s, "<line x1=\"");
    put_num(s, x1);
    puts_(s, "\" y1=\"");
    put_num(s, y1);
    puts_(s, "\" x2=\"");
    put_num(s, x2);
    puts_(s, "\" y2=\"");
    put_num(s, y2);
    puts_(s, "\"");
    put_style(s, st);
    puts_(s, "/>\n");
}

void svg_polyline(svg *s, const double *x, const double *y, int n, const svg_style *st)
{
    if (n < 2) return;
    puts_(s, "<polyline points=\"");
    for (int i = 0; i < n; i++) {
        if (i) puts_(s, " ");
        put_num(s, x[i]);
        puts_(s, ",");
        put_num(s, y[i]);
    }
    puts_(s, "\"");
    put_style(s, st);
    puts_(s, " stroke-linejoin=\"round\"/>\n");
}

void svg_rect(svg *s, double x, double y, double w, double h, const svg_style *st,
              const char *title)
{
    puts_(s, "<rect x=\"");
    put_num(s, x);
    puts_(s, "\" y=\"");
    put_num(s, y);
    puts_(s, "\" width=\"");
    put_num(s, w < 0 ? 0 : w);
    puts_(s, "\" height=\"");
    put_num(s, h < 0 ? 0 : h);
    puts_(s, "\"");
    put_style(s, st);
    close_with_title(s, "rect", title);
}

void svg_circle(svg *s, double cx, double cy, double r, const svg_style *st, const char *title)
{
    puts_(s, "<circle cx=\"");
    put_num(s, cx);
    puts_(s, "\" cy=\"");
    put_num(s, cy);
    puts_(s, "\" r=\"");
    put_num(s, r);
    puts_(s, "\"");
    put_style(s, st);
    close_with_title(s, "circle", title);
}

void svg_text(svg *s, double x, double y, const svg_font *f, const char *text)
{
    static const char *const anchors[] = {"start", "middle", "end"};
    svg_font d = {0, SVG_START, 0, 0, NULL};
    if (!f) f = &d;
    puts_(s, "<text x=\"");
    put_num(s, x);
    puts_(s, "\" y=\"");
    put_num(s, y);
    puts_(s, "\"");
    if (f->size > 0 && f->size != 11) {
        puts_(s, " font-size=\"");
        put_num(s, f->size);
        puts_(s, "\"");
    }
    if (f->anchor != SVG_START) putf(s, " text-anchor=\"%s\"", anchors[f->anchor]);
    if (f->bold) puts_(s, " font-weight=\"bold\"");
    puts_(s, " fill=\"");
    put_escaped(s, f->fill ? f->fill : "#222");
    puts_(s, "\"");
    if (f->vertical) {
        puts_(s, " transform=\"rotate(-90 ");
        put_num(s, x);
        puts_(s, " ");
        put_num(s, y);
        puts_(s, ")\"");
    }
    puts_(s, ">");
    put_escaped(s, text);
    puts_(s, "</text>\n");
}

/* ---- axes ---- */
static double scale_of(svg_scale sc, double v)
{
    if (sc == SVG_LINEAR) return v;
    if (v <= 0) return -INFINITY;
    return sc == SVG_LOG2 ? log2(v) : log10(v);
}

double svg_axis_px(const svg_axis *a, double v)
{
    double lo = scale_of(a->scale, a->lo), hi = scale_of(a->scale, a->hi), t = scale_of(a->scale, v);
    if (!isfinite(t) || !isfinite(lo) || !isfinite(hi)) return a->px_lo;
    if (hi == lo) return (a->px_lo + a->px_hi) / 2;
    return a->px_lo + (t - lo) / (hi - lo) * (a->px_hi - a->px_lo);
}

static int linear_ticks(double lo, double hi, double *ticks, int max)
{
    if (max < 1 || !(hi > lo)) {
        if (max >= 1 && isfinite(lo)) { ticks[0] = lo; return 1; }
        return 0;
    }
    static const double mult[] = {1, 2, 5};
    double mag = pow(10, floor(log10((hi - lo) / max)) - 1);
    for (int k = 0; k < 40; k++) {
        double step = mult[k % 3] * mag * pow(10, k / 3);
        double a = ceil(lo / step - 1e-9), b = floor(hi / step + 1e-9);
        if (b - a + 1 <= max) {
            int n = 0;
            for (double i = a; i <= b && n < max; i++) {
                double t = i * step;
                ticks[n++] = fabs(t) < step * 1e-9 ? 0 : t;
            }
            return n;
        }
    }
    ticks[0] = lo;
    return 1;
}

int svg_axis_ticks(const svg_axis *a, double *ticks, int max)
{
    double lo = a->lo < a->hi ? a->lo : a->hi, hi = a->lo < a->hi ? a->hi : a->lo;
    if (a->scale == SVG_LINEAR || lo <= 0) return linear_ticks(lo, hi, ticks, max);
    double base = a->scale == SVG_LOG2 ? 2 : 10;
    int e0 = (int)ceil(scale_of(a->scale, lo) - 1e-9);
    int e1 = (int)floor(scale_of(a->scale, hi) + 1e-9);
    int n = 0;
    if (e1 - e0 + 1 >= 3) {
        int count = e1 - e0 + 1, step = 1;
        while ((count + step - 1) / step > max && step < 64) step++;
        for (int e = e0; e <= e1 && n < max; e++) {
            if (((e % step) + step) % step) continue;
            ticks[n++] = base == 2 ? ldexp(1, e) : pow(10, e);
        }
        return n;
    }
    /* a short log range: 1-2-5 multiples of the powers of ten in it, else linear steps */
    static const double mult[] = {1, 2, 5};
    int d0 = (int)floor(log10(lo)), d1 = (int)ceil(log10(hi));
    for (int d = d0; d <= d1 && n < max; d++)
        for (int m = 0; m < 3 && n < max; m++) {
            double t = mult[m] * pow(10, d);
            if (t >= lo * (1 - 1e-9) && t <= hi * (1 + 1e-9)) ticks[n++] = t;
        }
    if (n >= 3) return n;
    return linear_ticks(lo, hi, ticks, max);
}

void svg_tick_default(double v, char *buf, size_t len) { svg_num(v, 3, buf, len); }

void svg_plot_init(svg_plot *p, svg *doc, double x, double y, double w, double h, svg_scale xs,
                   double xlo, double xhi, svg_scale ys, double ylo, double yhi)
{
    p->doc = doc;
    p->x = x; p->y = y; p->w = w; p->h = h;
    p->xa = (svg_axis){xs, xlo, xhi, x, x + w};
    p->ya = (svg_axis){ys, ylo, yhi, y + h, y};
}

void svg_plot_axes(const svg_plot *p, const char *xtitle, const char *ytitle,
                   svg_tick_format xfmt, svg_tick_format yfmt)
{
    static const svg_style grid = {"#e3e3e3", NULL, 1, NULL, 0};
    static const svg_style frame = {"#888", NULL, 1, NULL, 0};
    static const svg_style tick = {"#888", NULL, 1, NULL, 0};
    svg_font small = {10, SVG_MIDDLE, 0, 0, "#444"};
    double t[32];
    char label[64];
    if (!xfmt) xfmt = svg_tick_default;
    if (!yfmt) yfmt = svg_tick_default;
    int n = svg_axis_ticks(&p->xa, t, 10);
    for (int i = 0; i < n; i++) {
        double px = svg_axis_px(&p->xa, t[i]);
        svg_line(p->doc, px, p->y, px, p->y + p->h, &grid);
        svg_line(p->doc, px, p->y + p->h, px, p->y + p->h + 4, &tick);
        xfmt(t[i], label, sizeof label);
        svg_text(p->doc, px, p->y + p->h + 15, &small, label);
    }
    n = svg_axis_ticks(&p->ya, t, 6);
    small.anchor = SVG_END;
    for (int i = 0; i < n; i++) {
        double py = svg_axis_px(&p->ya, t[i]);
        svg_line(p->doc, p->x, py, p->x + p->w, py, &grid);
        svg_line(p->doc, p->x - 4, py, p->x, py, &tick);
        yfmt(t[i], label, sizeof label);
        svg_text(p->doc, p->x - 6, py + 3.5, &small, label);
    }
    svg_rect(p->doc, p->x, p->y, p->w, p->h, &frame, NULL);
    svg_font title = {11, SVG_MIDDLE, 0, 0, "#222"};
    if (xtitle) svg_text(p->doc, p->x + p->w / 2, p->y + p->h + 31, &title, xtitle);
    if (ytitle) {
        title.vertical = 1;
        svg_text(p->doc, p->x - 44, p->y + p->h / 2, &title, ytitle);
    }
}

void svg_plot_line(const svg_plot *p, const double *x, const double *y, int n,
                   const svg_style *st)
{
    double *px = malloc((size_t)(n > 0 ? n : 1) * sizeof *px);
    double *py = malloc((size_t)(n > 0 ? n : 1) * sizeof *py);
    if (!px || !py) {
        p->doc->oom = 1;
        free(px);
        free(py);
        return;
    }
    int m = 0;
    for (int i = 0; i <= n; i++) {
        if (i < n && isfinite(x[i]) && isfinite(y[i])) {
            px[m] = svg_axis_px(&p->xa, x[i]);
            py[m] = svg_axis_px(&p->ya, y[i]);
            m++;
            continue;
        }
        if (m >= 2) svg_polyline(p->doc, px, py, m, st);
        m = 0;
    }
    free(px);
    free(py);
}

void svg_plot_points(const svg_plot *p, const double *x, const double *y, int n, double r,
                     const svg_style *st, const char *const *titles)
{
    for (int i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i])) continue;
        svg_circle(p->doc, svg_axis_px(&p->xa, x[i]), svg_axis_px(&p->ya, y[i]), r, st,
                   titles ? titles[i] : NULL);
    }
}

void svg_plot_hline(const svg_plot *p, double y, const svg_style *st, const char *label)
{
    double py = svg_axis_px(&p->ya, y);
    svg_line(p->doc, p->x, py, p->x + p->w, py, st);
    if (label) {
        svg_font f = {10, SVG_START, 0, 0, st && st->stroke ? st->stroke : "#222"};
        svg_text(p->doc, p->x + 4, py - 4, &f, label);
    }
}

void svg_plot_vline(const svg_plot *p, double x, const svg_style *st, const char *label)
{
    double px = svg_axis_px(&p->xa, x);
    svg_line(p->doc, px, p->y, px, p->y + p->h, st);
    if (label) {
        svg_font f = {10, SVG_MIDDLE, 0, 0, st && st->stroke ? st->stroke : "#222"};
        svg_text(p->doc, px, p->y - 3, &f, label);
    }
}

void svg_legend(svg *s, double x, double y, int n, const char *const *labels,
                const svg_style *styles)
{
    svg_font f = {10, SVG_START, 0, 0, "#222"};
    for (int i = 0; i < n; i++) {
        double yy = y + 14 * i;
        svg_line(s, x, yy, x + 22, yy, &styles[i]);
        if (styles[i].fill) {
            svg_style dot = {styles[i].stroke, styles[i].fill, 1, NULL, 0};
            svg_circle(s, x + 11, yy, 2.5, &dot, NULL);
        }
        svg_text(s, x + 28, yy + 3.5, &f, labels[i]);
    }
}

/* ---- colour ---- */
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

/* t in [0, 1] for v in [lo, hi] (lo > hi: a reversed scale), clamped by svg_colormap. */
static double color_pos(double v, double lo, double hi, int log_scale)
{
    if (lo == hi) return 0;
    if (log_scale) {
        if (!(lo > 0) || !(hi > 0)) return 0;
        if (!(v > 0)) return lo < hi ? 0 : 1;
        return (log(v) - log(lo)) / (log(hi) - log(lo));
    }
    return (v - lo) / (hi - lo);
}

void svg_draw_heatmap(svg *s, double x, double y, double w, double h, const svg_heatmap *hm)
{
    if (hm->rows < 1 || hm->cols < 1) return;
    double cw = w / hm->cols, ch = h / hm->rows;
    double text_size = ch * 0.62 < 10 ? ch * 0.62 : 10;
    svg_font label = {10, SVG_END, 0, 0, "#222"};
    static const svg_style empty = {"#ddd", "#f6f6f6", 0.5, NULL, 0};
    for (int r = 0; r < hm->rows; r++) {
        if (hm->row_labels && hm->row_labels[r])
            svg_text(s, x - 4, y + ch * r + ch / 2 + 3.5, &label, hm->row_labels[r]);
        for (int c = 0; c < hm->cols; c++) {
            double v = hm->v[r * hm->cols + c];
            const char *title = hm->titles ? hm->titles[r * hm->cols + c] : NULL;
            double cx = x + cw * c, cy = y + ch * r;
            if (!isfinite(v)) {
                svg_rect(s, cx, cy, cw, ch, &empty, title);
                continue;
            }
            double t = color_pos(v, hm->lo, hm->hi, hm->log);
            char col[8];
            svg_colormap(t, col);
            svg_style cell = {NULL, col, 0, NULL, 0};
            svg_rect(s, cx, cy, cw, ch, &cell, title);
            if (hm->digits >= 0) {
                char num[64], txt[80];
                double shown = v * (hm->scale_text > 0 ? hm->scale_text : 1);
                snprintf(num, sizeof num, "%.*f", hm->digits > 12 ? 12 : hm->digits, shown);
                if (strspn(num, "-0.") == strlen(num)) snprintf(num, sizeof num, "%.*f", hm->digits > 12 ? 12 : hm->digits, 0.0);
                snprintf(txt, sizeof txt, "%s%s", num, hm->suffix ? hm->suffix : "");
                svg_font f = {text_size, SVG_MIDDLE, 0, 0, svg_colormap_ink(t)};
                svg_text(s, cx + cw / 2, cy + ch / 2 + text_size * 0.35, &f, txt);
            }
        }
    }
    label.anchor = SVG_MIDDLE;
    if (hm->col_labels)
        for (int c = 0; c < hm->cols; c++)
            if (hm->col_labels[c])
                svg_text(s, x + cw * c + cw / 2, y - 4, &label, hm->col_labels[c]);
    if (hm->mark_row >= 0 && hm->mark_row < hm->rows && hm->mark_col >= 0 &&
        hm->mark_col < hm->cols) {
        static const svg_style mark = {"#e0112b", NULL, 2, NULL, 0};
        svg_rect(s, x + cw * hm->mark_col + 1, y + ch * hm->mark_row + 1, cw - 2, ch - 2, &mark,
                 NULL);
    }
}

void svg_colorbar(svg *s, double x, double y, double w, double h, double lo, double hi, int log_scale,
                  svg_tick_format fmt, const char *title)
{
    enum { STEPS = 32 };
    for (int i = 0; i < STEPS; i++) {
        char col[8];
        svg_colormap((i + 0.5) / STEPS, col);
        svg_style st = {NULL, col, 0, NULL, 0};
        svg_rect(s, x + w * i / STEPS, y, w / STEPS + 0.01, h, &st, NULL);
    }
    static const svg_style frame = {"#888", NULL, 0.5, NULL, 0};
    svg_rect(s, x, y, w, h, &frame, NULL);
    svg_axis a = {log_scale ? SVG_LOG10 : SVG_LINEAR, lo, hi, x, x + w};
    double t[16];
    int n = svg_axis_ticks(&a, t, 6);
    svg_font f = {9, SVG_MIDDLE, 0, 0, "#444"};
    char label[64];
    if (!fmt) fmt = svg_tick_default;
    for (int i = 0; i < n; i++) {
        double px = svg_axis_px(&a, t[i]);
        svg_line(s, px, y + h, px, y + h + 3, &frame);
        fmt(t[i], label, sizeof label);
        svg_text(s, px, y + h + 12, &f, label);
    }
    if (title) {
        svg_font tf = {10, SVG_END, 0, 0, "#222"};
        svg_text(s, x - 6, y + h - 1, &tf, title);
    }
}
