/* svg_plot.c: the SVG writer's plots (see svg.h): axes and their ticks on linear or log scales,
 * lines, points and reference lines in a plot's frame, the legend, the colour map and its colour
 * bar, and the heatmap (cells of one colour share a <path>, a row's values one <text>). */
#include "svg_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    char label[64];
    if (!xfmt) xfmt = svg_tick_default;
    if (!yfmt) yfmt = svg_tick_default;
    /* the grid, then the ticks, then their labels: each set of lines is then one path */
    double xt[32], yt[32];
    int nx = svg_axis_ticks(&p->xa, xt, 10), ny = svg_axis_ticks(&p->ya, yt, 6);
    for (int i = 0; i < nx; i++) {
        double px = svg_axis_px(&p->xa, xt[i]);
        svg_line(p->doc, px, p->y, px, p->y + p->h, &grid);
    }
    for (int i = 0; i < ny; i++) {
        double py = svg_axis_px(&p->ya, yt[i]);
        svg_line(p->doc, p->x, py, p->x + p->w, py, &grid);
    }
    for (int i = 0; i < nx; i++) {
        double px = svg_axis_px(&p->xa, xt[i]);
        svg_line(p->doc, px, p->y + p->h, px, p->y + p->h + 4, &tick);
    }
    for (int i = 0; i < ny; i++) {
        double py = svg_axis_px(&p->ya, yt[i]);
        svg_line(p->doc, p->x - 4, py, p->x, py, &tick);
    }
    for (int i = 0; i < nx; i++) {
        xfmt(xt[i], label, sizeof label);
        svg_text(p->doc, svg_axis_px(&p->xa, xt[i]), p->y + p->h + 15, &small, label);
    }
    small.anchor = SVG_END;
    for (int i = 0; i < ny; i++) {
        yfmt(yt[i], label, sizeof label);
        svg_text(p->doc, p->x - 6, svg_axis_px(&p->ya, yt[i]) + 3.5, &small, label);
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

/* A box from (x0, y0) to (x1, y1) as a closed subpath of a path's d. */
static void put_box(svg *s, double x0, double y0, double x1, double y1)
{
    char a[64], b[64], c[64], d[64];
    svg_num(x0, 1, a, sizeof a);
    svg_num(y0, 1, b, sizeof b);
    svg_num(x1, 1, c, sizeof c);
    svg_num(y1, 1, d, sizeof d);
    sv_putf(s, "M%s %sH%sV%sH%sz", a, b, c, d, a);
}

/* Heatmap cells are paths with their own fill (a colour is shared by few cells, so a class
 * would not pay), their corners rounded like every coordinate so that neighbours share their
 * edges exactly. */
static void put_cell(svg *s, double x0, double y0, double x1, double y1, const char *fill,
                     const char *title)
{
    sv_puts(s, "<path fill=\"");
    sv_put_escaped(s, fill);
    sv_puts(s, "\" d=\"");
    put_box(s, x0, y0, x1, y1);
    sv_puts(s, "\"");
    sv_close_with_title(s, "path", title);
}

/* Labels (n, may be NULL or hold NULLs) in one <text> of font f, label i a <tspan> at
 * (x + i dx, y + i dy): an absolute position starts a new chunk, anchored like a <text> of its
 * own. */
static void label_chunks(svg *s, const svg_font *f, const char *const *labels, int n, double x,
                         double y, double dx, double dy)
{
    int any = 0;
    for (int i = 0; labels && i < n; i++) any |= labels[i] != NULL;
    if (!any) return;
    char decl[256];
    sv_font_decl(f, decl, sizeof decl);
    sv_puts(s, "<text");
    sv_put_class(s, decl);
    sv_puts(s, ">");
    for (int i = 0; i < n; i++) {
        if (!labels[i]) continue;
        sv_puts(s, "<tspan x=\"");
        sv_put_num(s, x + i * dx);
        sv_puts(s, "\" y=\"");
        sv_put_num(s, y + i * dy);
        sv_puts(s, "\">");
        sv_put_escaped(s, labels[i]);
        sv_puts(s, "</tspan>");
    }
    sv_puts(s, "</text>\n");
}

void svg_draw_heatmap(svg *s, double x, double y, double w, double h, const svg_heatmap *hm)
{
    if (hm->rows < 1 || hm->cols < 1) return;
    int n = hm->rows * hm->cols;
    double cw = w / hm->cols, ch = h / hm->rows;
    double text_size = ch * 0.62 < 10 ? ch * 0.62 : 10;
    svg_font label = {10, SVG_END, 0, 0, "#222"};
    static const svg_style empty = {"#ddd", "#f6f6f6", 0.5, NULL, 0};
    char (*col)[8] = malloc((size_t)n * sizeof *col);
    char *done = calloc((size_t)n, 1);
    if (!col || !done) { s->oom = 1; free(col); free(done); return; }
    for (int i = 0; i < n; i++)
        svg_colormap(color_pos(hm->v[i], hm->lo, hm->hi, hm->log), col[i]);
    /* the row labels: one <text>, a <tspan> (its own chunk) per row */
    label_chunks(s, &label, hm->row_labels, hm->rows, x - 4, y + ch / 2 + 3.5, 0, ch);
    /* the cells: those with a tooltip or no data one by one, the others one path per colour
     * (cells do not overlap, so the order they are filled in does not show) */
    for (int i = 0; i < n; i++) {
        if (done[i]) continue;
        int r = i / hm->cols, c = i % hm->cols;
        const char *title = hm->titles ? hm->titles[i] : NULL;
        double cx = x + cw * c, cy = y + ch * r;
        if (!isfinite(hm->v[i])) {
            svg_rect(s, cx, cy, cw, ch, &empty, title);
            continue;
        }
        if (title) {
            put_cell(s, cx, cy, cx + cw, cy + ch, col[i], title);
            continue;
        }
        sv_puts(s, "<path fill=\"");
        sv_put_escaped(s, col[i]);
        sv_puts(s, "\" d=\"");
        for (int j = i; j < n; j++) {
            if (done[j] || !isfinite(hm->v[j]) || (hm->titles && hm->titles[j]) ||
                strcmp(col[j], col[i]) != 0)
                continue;
            done[j] = 1;
            double jx = x + cw * (j % hm->cols), jy = y + ch * (j / hm->cols);
            put_box(s, jx, jy, jx + cw, jy + ch);
        }
        sv_puts(s, "\"/>\n");
    }
    /* the values: one <text> per row, a <tspan> per cell (each starts its own centred chunk),
     * in the ink of most of the row's cells; the others name their own */
    if (hm->digits >= 0) {
        svg_font f = {text_size, SVG_MIDDLE, 0, 0, NULL};
        char dark[256], light[256];
        f.fill = svg_colormap_ink(1);
        sv_font_decl(&f, dark, sizeof dark);
        f.fill = svg_colormap_ink(0);
        sv_font_decl(&f, light, sizeof light);
        for (int r = 0; r < hm->rows; r++) {
            int n_dark = 0, n_light = 0;
            for (int c = 0; c < hm->cols; c++) {
                double v = hm->v[r * hm->cols + c];
                if (!isfinite(v)) continue;
                if (strcmp(svg_colormap_ink(color_pos(v, hm->lo, hm->hi, hm->log)), f.fill) == 0) n_light++;
                else n_dark++;
            }
            if (n_dark + n_light == 0) continue;
            const char *row_ink = n_dark >= n_light ? svg_colormap_ink(1) : svg_colormap_ink(0);
            sv_puts(s, "<text y=\"");
            sv_put_num(s, y + ch * r + ch / 2 + text_size * 0.35);
            sv_puts(s, "\"");
            sv_put_class(s, n_dark >= n_light ? dark : light);
            sv_puts(s, ">");
            for (int c = 0; c < hm->cols; c++) {
                double v = hm->v[r * hm->cols + c];
                if (!isfinite(v)) continue;
                char num[64];
                double shown = v * (hm->scale_text > 0 ? hm->scale_text : 1);
                snprintf(num, sizeof num, "%.*f", hm->digits > 12 ? 12 : hm->digits, shown);
                if (strspn(num, "-0.") == strlen(num)) snprintf(num, sizeof num, "%.*f", hm->digits > 12 ? 12 : hm->digits, 0.0);
                const char *ink = svg_colormap_ink(color_pos(v, hm->lo, hm->hi, hm->log));
                sv_puts(s, "<tspan x=\"");
                sv_put_num(s, x + cw * c + cw / 2);
                sv_puts(s, "\"");
                if (strcmp(ink, row_ink) != 0)
                    sv_put_class(s, strcmp(ink, svg_colormap_ink(0)) == 0 ? light : dark);
                sv_puts(s, ">");
                sv_put_escaped(s, num);
                if (hm->suffix) sv_put_escaped(s, hm->suffix);
                sv_puts(s, "</tspan>");
            }
            sv_puts(s, "</text>\n");
        }
    }
    free(col);
    free(done);
    label.anchor = SVG_MIDDLE;
    label_chunks(s, &label, hm->col_labels, hm->cols, x + cw / 2, y - 4, cw, 0);
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
    /* the colour map itself: its control points as a gradient, interpolated in RGB like
     * svg_colormap */
    s->gradient = 1;
    sv_put_rect_open(s, x, y, w, h);
    sv_puts(s, "\" fill=\"url(#" GRADIENT_ID ")\"/>\n");
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
    }
    for (int i = 0; i < n; i++) {
        fmt(t[i], label, sizeof label);
        svg_text(s, svg_axis_px(&a, t[i]), y + h + 12, &f, label);
    }
    if (title) {
        svg_font tf = {10, SVG_END, 0, 0, "#222"};
        svg_text(s, x - 6, y + h - 1, &tf, title);
    }
}
