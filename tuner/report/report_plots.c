/* report_plots.c: the report's figures (see report_plots.h). Layout constants are in pixels of
 * the SVG's own coordinate system; the HTML scales figures down to the page width. */
#include "report_plots.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"

#define C_TUNED "#1f77b4"
#define C_DEFAULT "#ff7f0e"
#define C_PEER "#2ca02c"
#define C_CEIL "#d62728"
#define C_MARK "#e0112b"

static const svg_style st_tuned = {C_TUNED, NULL, 2, NULL, 0};
static const svg_style st_default = {C_DEFAULT, NULL, 1.6, "6 3", 0};
static const svg_style st_peer = {C_PEER, NULL, 1.6, "2 3", 0};
static const svg_style st_ceil = {C_CEIL, NULL, 1.2, "8 4", 0};
static const svg_font f_title = {13, SVG_START, 1, 0, "#222"};
static const svg_font f_panel = {11, SVG_START, 1, 0, "#222"};
static const svg_font f_small = {10, SVG_START, 0, 0, "#444"};

static int finish(svg *s, char **out, size_t *len)
{
    if (!s) return -1;
    return svg_finish(s, out, len);
}

/* The problem's throughput at us (report_data.h) when it is of the kind the figure plots (flops:
 * TFLOP/s, else GB/s); NAN when it is not, or us is not known. */
static double rate_of(const rp_device *dev, const rp_problem *p, double us, int flops)
{
    throughput t = rp_throughput(dev, p, us);
    return us > 0 && t.flops == flops ? t.rate : NAN;
}

static void size_tick(double v, char *buf, size_t len) { rp_size_label((int64_t)llround(v), buf, len); }

static void ratio_tick(double v, char *buf, size_t len)
{
    char n[32];
    svg_num(v, 2, n, sizeof n);
    snprintf(buf, len, "%s\xc3\x97", n);   /* U+00D7 multiplication sign */
}

static void percent_tick(double v, char *buf, size_t len)
{
    char n[32];
    svg_num(v * 100, v * 100 < 1 ? 1 : 0, n, sizeof n);
    snprintf(buf, len, "%s%%", n);
}

void rp_peer_name(const rp_device *dev, char *buf, size_t len)
{
    if (dev->n_peer_libraries == 0) { snprintf(buf, len, "reference library"); return; }
    const char *lib = dev->peer_libraries[0], *colon = strchr(lib, ':');
    snprintf(buf, len, "%.*s", colon ? (int)(colon - lib) : (int)strlen(lib), lib);
}

/* ---- bandwidth ---- */
enum { BW_W = 300, BW_H = 200, BW_L = 62, BW_R = 16, BW_T = 40, BW_B = 50, BW_HEAD = 46,
       SU_H = 100, SU_B = 48 };

/* The problem's time for series which: 0 tuned, 1 default, 2 peer (0: none). */
static double series_us(const rp_problem *p, int which)
{
    if (which == 0) return rp_win_variant(p) ? rp_win_variant(p)->us : 0;
    return which == 1 ? p->cmp.default_us : p->cmp.peer_us;
}

/* One series of a panel: y is the throughput (speedup 0: GB/s, or TFLOP/s when flops) or the
 * tuned config's speed-up over the series (speedup 1). Sweep problems (size_key >= 0) are joined
 * by a line; others are hollow markers. Problems of the other kind are left out. */
static void bandwidth_series(const svg_plot *pl, const rp_device *dev, const rp_group *g,
                             int which, int speedup, int flops, const svg_style *st, double *xs,
                             double *ys)
{
    static const char *const what[] = {"tuned", "default", "peer"};
    int n = 0;
    for (int i = g->first; i < g->first + g->count; i++) {
        const rp_problem *p = &dev->problems[i];
        double us = series_us(p, which), tu = series_us(p, 0);
        if (p->size_key < 0 || !(us > 0) || !(tu > 0) || isnan(rate_of(dev, p, us, flops)))
            continue;
        xs[n] = (double)p->elements;
        ys[n] = speedup ? us / tu : rate_of(dev, p, us, flops);
        n++;
    }
    svg_plot_line(pl, xs, ys, n, st);
    svg_style dot = {st->stroke, st->stroke, 1, NULL, 0};
    svg_style hollow = {st->stroke, "#fff", 1.4, NULL, 0};
    for (int i = g->first; i < g->first + g->count; i++) {
        const rp_problem *p = &dev->problems[i];
        double us = series_us(p, which), tu = series_us(p, 0);
        if (!(us > 0) || !(tu > 0) || isnan(rate_of(dev, p, us, flops))) continue;
        double x = (double)p->elements, y = speedup ? us / tu : rate_of(dev, p, us, flops);
        throughput tp = rp_throughput(dev, p, us);
        char title[700], gb[32], t[32], r[32];
        svg_num(us, 2, t, sizeof t);
        svg_num(tp.rate, tp.digits, gb, sizeof gb);
        svg_num(us / tu, 3, r, sizeof r);
        if (speedup)
            snprintf(title, sizeof title, "%s %s %s: %s %s us, tuned is %sx faster%s%s%s", p->op,
                     p->dtype, p->shape, what[which], t, r, which == 2 ? " (" : "",
                     which == 2 ? p->cmp.peer : "", which == 2 ? ")" : "");
        else
            snprintf(title, sizeof title, "%s %s %s: %s %s us, %s %s%s%s%s", p->op, p->dtype,
                     p->shape, what[which], t, gb, tp.unit, which == 2 ? " (" : "",
                     which == 2 ? p->cmp.peer : "", which == 2 ? ")" : "");
        const char *tip[1] = {title};
        svg_plot_points(pl, &x, &y, 1, p->size_key < 0 ? 3.5 : 2.6,
                        p->size_key < 0 ? &hollow : &dot, tip);
    }
}

int rp_plot_bandwidth(const rp_device *dev, const char *op, char **out, size_t *len)
{
    const rp_group *gs[64];
    int ng = 0;
    /* an op whose problems have flops is plotted in TFLOP/s against the GPU's peak (each
     * panel's: FP64 for f64), any other in GB/s against the copy ceiling */
    const int flops = rp_op_has_flops(dev, op);
    double xmin = 0, xmax = 0, ymax = 0, ceiling = 0, rlo = 0.95, rhi = 1.05;
    double panel_ceiling[64] = {0};
    const char *panel_name[64] = {NULL};   /* "FP32 peak", ... */
    for (int i = 0; i < dev->n_groups && ng < 64; i++)
        if (strcmp(dev->groups[i].op, op) == 0) gs[ng++] = &dev->groups[i];
    for (int k = 0; k < ng; k++)
        for (int i = gs[k]->first; i < gs[k]->first + gs[k]->count; i++) {
            const rp_problem *p = &dev->problems[i];
            double e = (double)p->elements, tu = series_us(p, 0);
            if (xmin == 0 || e < xmin) xmin = e;
            if (e > xmax) xmax = e;
            for (int j = 0; j < 3; j++) {
                double us = series_us(p, j);
                if (!(us > 0)) continue;
                if (rate_of(dev, p, us, flops) > ymax) ymax = rate_of(dev, p, us, flops);
                if (tu > 0 && us / tu < rlo) rlo = us / tu;
                if (tu > 0 && us / tu > rhi) rhi = us / tu;
            }
            throughput tp = rp_throughput(dev, p, tu);
            if (tp.flops == flops && tp.ceiling_rate > panel_ceiling[k]) {
                panel_ceiling[k] = tp.ceiling_rate;
                panel_name[k] = tp.ceiling;
            }
            if (panel_ceiling[k] > ceiling) ceiling = panel_ceiling[k];
        }
    if (xmin <= 0) xmin = 1;
    if (xmax <= xmin) xmax = xmin * 2;
    if (ceiling > ymax) ymax = ceiling;
    if (ymax <= 0) ymax = 1;
    int cols = ng < 3 ? (ng ? ng : 1) : 3, rows = (ng + cols - 1) / cols;
    if (rows < 1) rows = 1;
    double pw = BW_L + BW_W + BW_R, ph = BW_T + BW_H + BW_B + SU_H + SU_B;
    char title[512], peer[256], cl[96], num[32];
    snprintf(title, sizeof title, "%s against problem size: %s on %s",
             flops ? "Arithmetic throughput" : "Bandwidth", op, dev->name);
    svg *s = svg_new(cols * pw + 10, BW_HEAD + rows * ph, title);
    if (!s) return -1;
    svg_text(s, 12, 20, &f_title, title);
    rp_peer_name(dev, peer, sizeof peer);
    const char *labels[4] = {"tuned (fastest config)", "classic default", peer,
                             flops ? "GPU peak" : "copy ceiling"};
    svg_style styles[4] = {st_tuned, st_default, st_peer, st_ceil};
    for (int i = 0; i < 4; i++) svg_legend(s, 14 + 180.0 * i, 36, 1, &labels[i], &styles[i]);
    int n_max = 0;
    for (int k = 0; k < ng; k++) n_max = gs[k]->count > n_max ? gs[k]->count : n_max;
    double *xs = malloc((size_t)(n_max + 1) * sizeof *xs), *ys = malloc((size_t)(n_max + 1) * sizeof *ys);
    if (!xs || !ys) { free(xs); free(ys); svg_free(s); return -1; }
    static const svg_style one = {"#888", NULL, 1, NULL, 0};
    for (int k = 0; k < ng; k++) {
        double ox = (k % cols) * pw, oy = BW_HEAD + (k / cols) * ph;
        svg_plot pl;
        svg_plot_init(&pl, s, ox + BW_L, oy + BW_T, BW_W, BW_H, SVG_LOG2, xmin / 1.6, xmax * 1.6,
                      SVG_LINEAR, 0, ymax * 1.12);
        snprintf(title, sizeof title, "%s %s", op, gs[k]->dtype);
        svg_text(s, ox + BW_L, oy + BW_T - 8, &f_panel, title);
        svg_plot_axes(&pl, "elements", flops ? "TFLOP/s" : "GB/s (read + written)", size_tick,
                      NULL);
        /* GB/s: one copy ceiling over the op's panels, as measured in its runs; TFLOP/s: the
         * panel's own peak */
        double line = flops ? panel_ceiling[k] : ceiling;
        if (line > 0) {
            svg_num(line, flops ? 1 : 0, num, sizeof num);
            if (flops)
                snprintf(cl, sizeof cl, "%s %s TFLOP/s", panel_name[k], num);
            else
                snprintf(cl, sizeof cl, "copy %s GB/s", num);
            svg_plot_hline(&pl, line, &st_ceil, cl);
        }
        bandwidth_series(&pl, dev, gs[k], 1, 0, flops, &st_default, xs, ys);
        bandwidth_series(&pl, dev, gs[k], 2, 0, flops, &st_peer, xs, ys);
        bandwidth_series(&pl, dev, gs[k], 0, 0, flops, &st_tuned, xs, ys);
        /* below: the tuned config's speed-up over the default and the peer */
        svg_plot su;
        svg_plot_init(&su, s, ox + BW_L, oy + BW_T + BW_H + BW_B, BW_W, SU_H, SVG_LOG2, xmin / 1.6,
                      xmax * 1.6, SVG_LINEAR, rlo - (rhi - rlo) * 0.06, rhi + (rhi - rlo) * 0.06);
        svg_plot_axes(&su, "elements", "tuned speed-up", size_tick, ratio_tick);
        svg_plot_hline(&su, 1, &one, NULL);
        bandwidth_series(&su, dev, gs[k], 1, 1, flops, &st_default, xs, ys);
        bandwidth_series(&su, dev, gs[k], 2, 1, flops, &st_peer, xs, ys);
    }
    free(xs);
    free(ys);
    return finish(s, out, len);
}

/* ---- importance ---- */
enum { IM_LABEL = 190, IM_CW = 84, IM_CH = 18, IM_TOP = 64, IM_NOISE = 96 };

/* The problem's row label: dtype and shape. */
static void row_label(const rp_problem *p, char *buf, size_t len)
{
    snprintf(buf, len, "%s %s", p->dtype, p->shape);
}

/* A tooltip: every value's best time relative to the fastest value. */
static void value_title(const rp_problem *p, int k, char *buf, size_t len)
{
    double lo = NAN;
    for (int j = 0; j < p->params[k].n_values; j++)
        if (!isnan(p->best_by_value[k][j]) && (isnan(lo) || p->best_by_value[k][j] < lo))
            lo = p->best_by_value[k][j];
    size_t n = (size_t)snprintf(buf, len, "%s at %s %s %s, best time per value:", p->params[k].name,
                                p->op, p->dtype, p->shape);
    for (int j = 0; j < p->params[k].n_values && n < len; j++) {
        double b = p->best_by_value[k][j];
        char v[32];
        if (isnan(b)) snprintf(v, sizeof v, "none ok");
        else if (b == lo) snprintf(v, sizeof v, "fastest");
        else {
            char num[32];
            svg_num((b / lo - 1) * 100, 1, num, sizeof num);
            snprintf(v, sizeof v, "+%s%%", num);
        }
        n += (size_t)snprintf(buf + n, len - n, "%s %s=%s %s", j ? "," : "", p->params[k].name,
                              p->params[k].values[j], v);
    }
}

int rp_plot_importance(const rp_device *dev, const char *op, char **out, size_t *len)
{
    const char *names[64];
    int nn = 0, nrows = 0, rc = -1;
    double hi = 0.01;
    for (int i = 0; i < dev->n_problems; i++) {
        const rp_problem *p = &dev->problems[i];
        if (strcmp(p->op, op) != 0) continue;
        nrows++;
        for (int k = 0; k < p->n_params; k++) {
            int known = 0;
            for (int j = 0; j < nn && !known; j++) known = strcmp(names[j], p->params[k].name) == 0;
            if (!known && nn < 64) names[nn++] = p->params[k].name;
            if (!isnan(p->spread[k]) && p->spread[k] > hi) hi = p->spread[k];
        }
    }
    for (int i = 1; i < nn; i++)          /* sort names */
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            const char *t = names[j]; names[j] = names[j - 1]; names[j - 1] = t;
        }
    int cols = nn ? nn : 1;
    double *v = malloc((size_t)(nrows ? nrows : 1) * cols * sizeof *v);
    char **labels = calloc((size_t)(nrows ? nrows : 1), sizeof *labels);
    char **titles = calloc((size_t)(nrows ? nrows : 1) * cols, sizeof *titles);
    int *mark = malloc((size_t)(nrows ? nrows : 1) * sizeof *mark);
    char title[512];
    snprintf(title, sizeof title, "Parameter importance: %s on %s", op, dev->name);
    double w = IM_LABEL + cols * IM_CW + IM_NOISE, h = IM_TOP + nrows * IM_CH + 64;
    svg *s = svg_new(w, h, title);
    if (!v || !labels || !titles || !mark || !s) goto done;
    int r = 0;
    for (int i = 0; i < dev->n_problems; i++) {
        const rp_problem *p = &dev->problems[i];
        if (strcmp(p->op, op) != 0) continue;
        char buf[2048];
        row_label(p, buf, sizeof buf);
        if (!(labels[r] = strdup(buf))) goto done;
        int m = rp_most_important(p);
        mark[r] = -1;
        for (int c = 0; c < cols; c++) {
            int k = c < nn ? rp_param_index(p, names[c]) : -1;
            v[r * cols + c] = k >= 0 ? p->spread[k] : NAN;
            if (k >= 0 && k == m) mark[r] = c;
            if (k >= 0) {
                value_title(p, k, buf, sizeof buf);
                if (!(titles[r * cols + c] = strdup(buf))) goto done;
            }
        }
        r++;
    }
    svg_text(s, 12, 20, &f_title, title);
    svg_text(s, 12, 36, &f_small,
             "Cell: how much slower the best config gets when this parameter is held at its worst "
             "value (everything else tuned). Outlined: the row's largest.");
    svg_heatmap hm = {nrows, cols, v, 0.002, hi, 1, (const char *const *)labels, names,
                      (const char *const *)titles, -1, -1, 1, "%", 100};
    svg_draw_heatmap(s, IM_LABEL, IM_TOP, cols * IM_CW, nrows * IM_CH, &hm);
    static const svg_style outline = {C_MARK, NULL, 2, NULL, 0};
    svg_font nf = {10, SVG_START, 0, 0, "#444"};
    svg_text(s, IM_LABEL + cols * IM_CW + 8, IM_TOP - 4, &nf, "winner \xc2\xb1 CI");
    r = 0;
    for (int i = 0; i < dev->n_problems; i++) {
        const rp_problem *p = &dev->problems[i];
        if (strcmp(p->op, op) != 0) continue;
        if (mark[r] >= 0)
            svg_rect(s, IM_LABEL + mark[r] * IM_CW + 1, IM_TOP + r * IM_CH + 1, IM_CW - 2,
                     IM_CH - 2, &outline, NULL);
        if (rp_win_variant(p) && rp_win_variant(p)->us > 0 && p->win_ci_hi > p->win_ci_lo) {
            char num[32], txt[48];
            svg_num((p->win_ci_hi - p->win_ci_lo) / 2 / p->variants[p->win].us * 100, 2, num, sizeof num);
            snprintf(txt, sizeof txt, "\xc2\xb1%s%%", num);
            svg_text(s, IM_LABEL + cols * IM_CW + 8, IM_TOP + r * IM_CH + IM_CH / 2 + 3.5, &nf, txt);
        }
        r++;
    }
    svg_colorbar(s, IM_LABEL + 40, IM_TOP + nrows * IM_CH + 22, 260, 10, 0.002, hi, 1,
                 percent_tick, "spread");
    rc = 0;
done:
    if (rc == 0) rc = finish(s, out, len);
    else svg_free(s);
    for (int i = 0; i < nrows && labels; i++) free(labels[i]);
    for (int i = 0; titles && i < nrows * cols; i++) free(titles[i]);
    free(labels);
    free(titles);
    free(v);
    free(mark);
    return rc;
}

/* ---- slices ---- */
enum { SL_CW = 26, SL_CH = 15, SL_PER_LINE = 3, SL_GAP = 28 };

typedef struct pair { const char *row, *col; int nr, nc; double label_w, w; } pair;

/* Largest value count and label width of parameter name over the group's problems. */
static void param_extent(const rp_device *dev, const rp_group *g, const char *name, int *n, double *label_w)
{
    *n = 0;
    *label_w = 0;
    for (int i = g->first; i < g->first + g->count; i++) {
        const rp_problem *p = &dev->problems[i];
        int k = rp_param_index(p, name);
        if (k < 0) continue;
        if (p->params[k].n_values > *n) *n = p->params[k].n_values;
        for (int j = 0; j < p->params[k].n_values; j++) {
            double w = 6.0 * (double)strlen(p->params[k].values[j]) + 8;
            if (w > *label_w) *label_w = w;
        }
    }
}

int rp_plot_slices(const rp_device *dev, const rp_group *g, int largest_only, char **out,
                   size_t *len)
{
    /* the panels drawn: the group's last problem (problems are in size order) or all of them;
     * the parameters ranked over the whole group either way */
    const int from = largest_only ? g->first + g->count - 1 : g->first;
    const int count = largest_only ? 1 : g->count;
    const char *top[4];
    int nt = rp_group_ranking(dev, g, top, 4), np = 0, rc = -1;
    pair pairs[6];
    for (int b = 1; b < nt; b++)
        for (int a = 0; a < b; a++) {
            pair *q = &pairs[np++];
            int na, nb;
            double la, lb;
            param_extent(dev, g, top[a], &na, &la);
            param_extent(dev, g, top[b], &nb, &lb);
            /* the parameter with fewer values runs down the rows */
            int swap = nb < na;
            q->row = swap ? top[b] : top[a];
            q->col = swap ? top[a] : top[b];
            q->nr = swap ? nb : na;
            q->nc = swap ? na : nb;
            q->label_w = swap ? lb : la;
            double cells = q->label_w + q->nc * SL_CW;
            double title_w = 6.2 * (double)(strlen(q->row) + strlen(q->col) + 18);
            q->w = (cells > title_w ? cells : title_w) + SL_GAP;
        }
    /* column widths and line heights of the panel grid */
    double colw[SL_PER_LINE] = {0, 0, 0}, lineh[2] = {0, 0};
    for (int i = 0; i < np; i++) {
        int c = i % SL_PER_LINE, l = i / SL_PER_LINE;
        if (pairs[i].w > colw[c]) colw[c] = pairs[i].w;
        double hgt = 30 + pairs[i].nr * SL_CH + 14;
        if (hgt > lineh[l]) lineh[l] = hgt;
    }
    double block_h = 22 + lineh[0] + lineh[1], width = 24;
    for (int c = 0; c < SL_PER_LINE; c++) width += colw[c];
    if (width < 560) width = 560;
    /* the colour range: the slowest cell of the figure, within [1.05, 4] */
    double worst = 1.05;
    int max_cells = 1;
    for (int i = 0; i < np; i++) max_cells = pairs[i].nr * pairs[i].nc > max_cells ? pairs[i].nr * pairs[i].nc : max_cells;
    double *cells = malloc((size_t)max_cells * sizeof *cells);
    char title[512];
    snprintf(title, sizeof title, "Two-parameter slices: %s %s on %s", g->op, g->dtype, dev->name);
    svg *s = svg_new(width, 78 + count * block_h, title);
    if (!cells || !s) goto done;
    for (int i = from; i < from + count; i++)
        for (int q = 0; q < np; q++) {
            const rp_problem *p = &dev->problems[i];
            int a = rp_param_index(p, pairs[q].row), b = rp_param_index(p, pairs[q].col);
            if (a < 0 || b < 0 || !p->n_variants) continue;
            rp_slice(p, a, b, cells);
            for (int c = 0; c < p->params[a].n_values * p->params[b].n_values; c++)
                if (isfinite(cells[c]) && cells[c] > worst) worst = cells[c];
        }
    if (worst > 4) worst = 4;
    svg_text(s, 12, 20, &f_title, title);
    svg_text(s, 12, 36, &f_small,
             "Cell: the best time with both parameters fixed (everything else tuned), over the "
             "fastest measured. Outlined: the winner. Blank: nothing ran ok there.");
    svg_colorbar(s, width - 300, 46, 260, 10, worst, 1, 1, ratio_tick, "time / best");
    for (int bi = 0; bi < count; bi++) {
        const rp_problem *p = &dev->problems[from + bi];
        double y0 = 78 + bi * block_h;
        char sz[64], head[512], num[32];
        rp_size_label(p->elements, sz, sizeof sz);
        svg_num(p->n_variants ? p->variants[0].us : 0, 2, num, sizeof num);
        snprintf(head, sizeof head, "%s %s %s (%s elements): best %s us", p->op, p->dtype, p->shape, sz, num);
        svg_text(s, 12, y0 + 12, &f_panel, head);
        double x = 12;
        for (int q = 0; q < np; q++) {
            int c = q % SL_PER_LINE, l = q / SL_PER_LINE;
            if (c == 0) x = 12;
            double py = y0 + 22 + (l ? lineh[0] : 0);
            int a = rp_param_index(p, pairs[q].row), b = rp_param_index(p, pairs[q].col);
            char pt[256];
            snprintf(pt, sizeof pt, "%s (rows) \xc3\x97 %s (cols)", pairs[q].row, pairs[q].col);
            svg_text(s, x, py + 10, &f_small, pt);
            if (a >= 0 && b >= 0 && p->n_variants) {
                int na = p->params[a].n_values, nb = p->params[b].n_values;
                rp_slice(p, a, b, cells);
                int mr = rp_win_variant(p) ? rp_win_variant(p)->value[a] : -1;
                int mc = rp_win_variant(p) ? rp_win_variant(p)->value[b] : -1;
                svg_heatmap hm = {na, nb, cells, worst, 1, 1,
                                  (const char *const *)p->params[a].values,
                                  (const char *const *)p->params[b].values, NULL, mr, mc, 2, NULL, 1};
                svg_draw_heatmap(s, x + pairs[q].label_w, py + 30, nb * SL_CW, na * SL_CH, &hm);
            }
            x += colw[c];
        }
    }
    rc = 0;
done:
    free(cells);
    if (rc == 0) return finish(s, out, len);
    svg_free(s);
    return -1;
}

/* ---- distribution ---- */
enum { DI_LABEL = 210, DI_W = 540, DI_ROW = 46, DI_STRIP = 34, DI_BINS = 96, DI_RIGHT = 200 };

static void status_text(const rp_problem *p, char *buf, size_t len)
{
    rp_status_counts(p, buf, len);
    if (!buf[0]) snprintf(buf, len, "nothing recorded");
}

int rp_plot_distribution(const rp_device *dev, const rp_group *g, char **out, size_t *len)
{
    double hi = 1.1;
    for (int i = g->first; i < g->first + g->count; i++) {
        const rp_problem *p = &dev->problems[i];
        if (p->n_variants && p->variants[p->n_variants - 1].us / p->variants[0].us > hi)
            hi = p->variants[p->n_variants - 1].us / p->variants[0].us;
    }
    hi *= 1.02;
    char title[512], peer[256];
    rp_peer_name(dev, peer, sizeof peer);
    snprintf(title, sizeof title, "Distribution of all variants' times: %s %s on %s", g->op, g->dtype, dev->name);
    svg *s = svg_new(DI_LABEL + DI_W + DI_RIGHT, 84 + g->count * DI_ROW + 40, title);
    if (!s) return -1;
    svg_text(s, 12, 20, &f_title, title);
    svg_text(s, 12, 36, &f_small,
             "Each strip: how many configs ran at each time over the fastest measured (log scale), "
             "bars scaled to the strip's tallest.");
    const char *labels[3] = {"winner", "classic default", peer};
    svg_style marks[3] = {{C_MARK, NULL, 2, NULL, 0}, {C_DEFAULT, NULL, 2, "4 2", 0}, {C_PEER, NULL, 2, "2 2", 0}};
    for (int i = 0; i < 3; i++) svg_legend(s, 14 + 170.0 * i, 56, 1, &labels[i], &marks[i]);
    svg_axis xa = {SVG_LOG10, 0.985, hi, DI_LABEL, DI_LABEL + DI_W};
    /* ticks dense near the winner, where most configs are, and at least 30 px apart */
    static const double steps[] = {1, 1.02, 1.05, 1.1, 1.2, 1.5, 2, 3, 5, 10, 20, 50, 100, 1000};
    double ticks[16];
    int nt = 0;
    for (int i = 0; i < (int)(sizeof steps / sizeof steps[0]) && steps[i] <= hi; i++)
        if (nt == 0 || svg_axis_px(&xa, steps[i]) - svg_axis_px(&xa, ticks[nt - 1]) >= 30)
            ticks[nt++] = steps[i];
    static const svg_style grid = {"#e3e3e3", NULL, 1, NULL, 0};
    static const svg_style frame = {"#bbb", NULL, 0.8, NULL, 0};
    svg_style bar = {NULL, C_TUNED, 0, NULL, 0};
    int bins[DI_BINS];
    for (int bi = 0; bi < g->count; bi++) {
        const rp_problem *p = &dev->problems[g->first + bi];
        double y0 = 84 + bi * DI_ROW, yb = y0 + DI_STRIP;
        char lab[512], sz[64];
        rp_size_label(p->elements, sz, sizeof sz);
        snprintf(lab, sizeof lab, "%s (%s)", p->shape, sz);
        svg_font lf = {10, SVG_END, 0, 0, "#222"};
        svg_text(s, DI_LABEL - 8, y0 + DI_STRIP / 2 + 4, &lf, lab);
        for (int t = 0; t < nt; t++) {
            double px = svg_axis_px(&xa, ticks[t]);
            svg_line(s, px, y0, px, yb, &grid);
        }
        svg_rect(s, DI_LABEL, y0, DI_W, DI_STRIP, &frame, NULL);
        status_text(p, lab, sizeof lab);
        svg_text(s, DI_LABEL + DI_W + 8, y0 + 13, &f_small, lab);
        if (!p->n_variants) continue;
        int rank = 0, near = 0;
        for (int v = 0; v < p->n_variants; v++) {
            rank += p->variants[v].us < p->cmp.default_us;
            near += p->variants[v].us <= p->variants[0].us * 1.02;
        }
        if (p->cmp.default_us > 0)
            snprintf(lab, sizeof lab, "default #%d of %d; %d within 2%%", rank + 1, p->n_variants, near);
        else
            snprintf(lab, sizeof lab, "%d within 2%% of the fastest", near);
        svg_text(s, DI_LABEL + DI_W + 8, y0 + 27, &f_small, lab);
        rp_histogram(p, hi, DI_BINS, bins);
        int top = 1;
        for (int b = 0; b < DI_BINS; b++) top = bins[b] > top ? bins[b] : top;
        for (int b = 0; b < DI_BINS; b++) {
            if (!bins[b]) continue;
            double r0 = exp(log(hi) * b / DI_BINS), r1 = exp(log(hi) * (b + 1) / DI_BINS);
            double x0 = svg_axis_px(&xa, r0), x1 = svg_axis_px(&xa, r1);
            double bh = (DI_STRIP - 3) * bins[b] / top;
            char tip[160], a[32], c[32];
            svg_num(r0, 3, a, sizeof a);
            svg_num(r1, 3, c, sizeof c);
            snprintf(tip, sizeof tip, "%d configs at %s to %s times the fastest", bins[b], a, c);
            svg_rect(s, x0 + 0.3, yb - bh, x1 - x0 - 0.6, bh, &bar, tip);
        }
        double best = p->variants[0].us;
        double at[3] = {rp_win_variant(p) ? rp_win_variant(p)->us / best : 0, p->cmp.default_us / best,
                        p->cmp.peer_us / best};
        for (int m = 0; m < 3; m++) {
            if (!(at[m] > 0)) continue;
            double px = svg_axis_px(&xa, at[m] < hi ? at[m] : hi);
            svg_line(s, px, y0 - 2, px, yb + 2, &marks[m]);
        }
    }
    svg_font tf = {10, SVG_MIDDLE, 0, 0, "#444"};
    double ya = 84 + g->count * DI_ROW;
    for (int t = 0; t < nt; t++) {
        char lab[32];
        ratio_tick(ticks[t], lab, sizeof lab);
        svg_text(s, svg_axis_px(&xa, ticks[t]), ya + 4, &tf, lab);
    }
    svg_text(s, DI_LABEL + DI_W / 2.0, ya + 22, &tf, "time over the fastest measured (log scale)");
    return finish(s, out, len);
}

/* ---- time against energy ---- */
enum { EN_W = 300, EN_H = 210, EN_L = 66, EN_R = 22, EN_T = 34, EN_B = 46, EN_HEAD = 62 };

/* The unit energies are drawn in: J, mJ or uJ by the largest, and its scale from joules. */
static double energy_unit(double most, const char **unit)
{
    if (most >= 1) { *unit = "J"; return 1; }
    if (most >= 1e-3) { *unit = "mJ"; return 1e3; }
    *unit = "\xc2\xb5J";
    return 1e6;
}

/* An axis over [lo, hi]: log10 when it spans a factor of ten or more, else linear, padded. */
static void energy_axis(double lo, double hi, svg_scale *scale, double *a, double *b)
{
    if (lo > 0 && hi / lo >= 10) {
        *scale = SVG_LOG10;
        *a = lo / 1.2;
        *b = hi * 1.2;
        return;
    }
    double pad = hi > lo ? (hi - lo) * 0.08 : (hi > 0 ? hi * 0.05 : 1);
    *scale = SVG_LINEAR;
    *a = lo - pad > 0 ? lo - pad : lo / 2;
    *b = hi + pad;
}

int rp_plot_energy(const rp_device *dev, const rp_group *g, char **out, size_t *len)
{
    int n_panels = 0, n_max = 1;
    for (int i = g->first; i < g->first + g->count; i++) {
        const rp_problem *p = &dev->problems[i];
        if (p->n_energy) n_panels++;
        if (p->n_variants > n_max) n_max = p->n_variants;
    }
    int cols = n_panels < 3 ? (n_panels ? n_panels : 1) : 3, rows = (n_panels + cols - 1) / cols;
    if (rows < 1) rows = 1;
    const double pw = EN_L + EN_W + EN_R, ph = EN_T + EN_H + EN_B;
    char title[512];
    snprintf(title, sizeof title, "Time against energy: %s %s on %s", g->op, g->dtype, dev->name);
    svg *s = svg_new(cols * pw + 10, EN_HEAD + rows * ph, title);
    double *xs = malloc((size_t)n_max * sizeof *xs), *ys = malloc((size_t)n_max * sizeof *ys);
    unsigned char *front = malloc((size_t)n_max);
    int rc = -1;
    if (!s || !xs || !ys || !front) goto done;
    svg_text(s, 12, 20, &f_title, title);
    svg_text(s, 12, 36, &f_small,
             "Each dot: a config measured with energy, its median time and energy per run. Blue: "
             "the Pareto front (nothing is both faster and more frugal); rings: the winners.");
    static const svg_style st_dot = {"#9a9a9a", "#9a9a9a", 1, NULL, 0};
    static const svg_style st_front = {C_TUNED, C_TUNED, 1.6, NULL, 0};
    static const svg_style st_time = {C_MARK, NULL, 2, NULL, 0};
    static const svg_style st_energy = {C_PEER, NULL, 2, NULL, 0};
    const char *labels[4] = {"config", "Pareto front", "time winner", "energy winner"};
    svg_style styles[4] = {st_dot, st_front, st_time, st_energy};
    for (int i = 0; i < 4; i++) svg_legend(s, 14 + 150.0 * i, 52, 1, &labels[i], &styles[i]);
    int k = 0;
    for (int i = g->first; i < g->first + g->count; i++) {
        const rp_problem *p = &dev->problems[i];
        if (!p->n_energy) continue;
        if (rp_pareto(p, front) < 0) goto done;
        double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0;
        for (int v = 0; v < p->n_variants; v++) {
            const rp_variant *x = &p->variants[v];
            if (!(x->joules > 0)) continue;
            xlo = fmin(xlo, x->us);
            xhi = fmax(xhi, x->us);
            ylo = fmin(ylo, x->joules);
            yhi = fmax(yhi, x->joules);
        }
        const char *unit;
        const double scale = energy_unit(yhi, &unit);
        svg_scale sx, sy;
        double ax, bx, ay, by;
        energy_axis(xlo, xhi, &sx, &ax, &bx);
        energy_axis(ylo * scale, yhi * scale, &sy, &ay, &by);
        double ox = (k % cols) * pw, oy = EN_HEAD + (k / cols) * ph;
        k++;
        svg_plot pl;
        svg_plot_init(&pl, s, ox + EN_L, oy + EN_T, EN_W, EN_H, sx, ax, bx, sy, ay, by);
        char head[600], sz[64], ytitle[64];
        rp_size_label(p->elements, sz, sizeof sz);
        snprintf(head, sizeof head, "%s (%s elements)", p->shape, sz);
        svg_text(s, ox + EN_L, oy + EN_T - 8, &f_panel, head);
        snprintf(ytitle, sizeof ytitle, "energy per run (%s)", unit);
        svg_plot_axes(&pl, "median time (\xc2\xb5s)", ytitle, NULL, NULL);
        /* every config, then the front over them (by time), then the winners' rings */
        int n = 0;
        for (int v = 0; v < p->n_variants; v++)
            if (p->variants[v].joules > 0 && !front[v]) {
                xs[n] = p->variants[v].us;
                ys[n] = p->variants[v].joules * scale;
                n++;
            }
        svg_plot_points(&pl, xs, ys, n, 2, &st_dot, NULL);
        n = 0;
        for (int v = 0; v < p->n_variants; v++)   /* variants are in time order */
            if (front[v]) {
                xs[n] = p->variants[v].us;
                ys[n] = p->variants[v].joules * scale;
                n++;
            }
        svg_plot_line(&pl, xs, ys, n, &st_front);
        for (int v = 0, j = 0; v < p->n_variants; v++) {
            if (!front[v]) continue;
            char tip[1200], t[32], e[32];
            svg_num(p->variants[v].us, 2, t, sizeof t);
            svg_num(p->variants[v].joules * scale, 4, e, sizeof e);
            snprintf(tip, sizeof tip, "%s: %s us, %s %s (Pareto front)", p->variants[v].config, t,
                     e, unit);
            const char *tips[1] = {tip};
            svg_plot_points(&pl, &xs[j], &ys[j], 1, 3, &st_front, tips);
            j++;
        }
        const int mark[2] = {p->win_time, p->win_energy};
        for (int m = 0; m < 2; m++) {
            int v = mark[m];
            if (v < 0 || !(p->variants[v].joules > 0)) continue;
            char tip[1200], t[32], e[32];
            double x = p->variants[v].us, y = p->variants[v].joules * scale;
            svg_num(x, 2, t, sizeof t);
            svg_num(y, 4, e, sizeof e);
            snprintf(tip, sizeof tip, "%s winner %s: %s us, %s %s", m ? "energy" : "time",
                     p->variants[v].config, t, e, unit);
            const char *tips[1] = {tip};
            svg_plot_points(&pl, &x, &y, 1, m ? 8 : 6, m ? &st_energy : &st_time, tips);
        }
    }
    rc = 0;
done:
    free(xs);
    free(ys);
    free(front);
    if (rc == 0) return finish(s, out, len);
    svg_free(s);
    return -1;
}

/* ---- convergence ---- */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int rp_plot_convergence(const rp_device *dev, const rp_run *run, char **out, size_t *len)
{
    int nmax = 1, rc = -1;
    double ymax = 1.1;
    for (int t = 0; t < run->n_traces; t++) {
        const rp_trace *tr = &run->traces[t];
        const rp_problem *p = &dev->problems[tr->problem];
        if (tr->n > nmax) nmax = tr->n;
        if (!p->n_variants) continue;
        for (int i = 0; i < tr->n; i++)
            if (isfinite(tr->best[i]) && tr->best[i] / p->variants[0].us > ymax)
                ymax = tr->best[i] / p->variants[0].us;
    }
    if (ymax > 10) ymax = 10;
    double *xs = malloc((size_t)nmax * sizeof *xs), *ys = malloc((size_t)nmax * sizeof *ys);
    double *col = malloc((size_t)(run->n_traces ? run->n_traces : 1) * sizeof *col);
    char title[512];
    snprintf(title, sizeof title, "Convergence: %s (seed %lld), %s on %s", run->strategy,
             (long long)run->seed, run->started_at, dev->name);
    svg *s = svg_new(760, 420, title);
    if (!xs || !ys || !col || !s) goto done;
    svg_text(s, 12, 20, &f_title, title);
    svg_text(s, 12, 36, &f_small,
             "Best time found so far over the best known for the problem, against evaluations "
             "counted by the budget. Grey: one problem each; blue: the median.");
    svg_plot pl;
    svg_plot_init(&pl, s, 70, 60, 660, 300, SVG_LINEAR, 1, nmax > 1 ? nmax : 2, SVG_LOG10, 1, ymax * 1.02);
    svg_plot_axes(&pl, "evaluations", "best so far / best known", NULL, ratio_tick);
    static const svg_style thin = {"#888", NULL, 0.8, NULL, 0.45};
    static const svg_style med = {C_TUNED, NULL, 2.4, NULL, 0};
    static const svg_style ref = {C_CEIL, NULL, 0.8, "4 3", 0};
    svg_plot_hline(&pl, 1.01, &ref, "1%");
    svg_plot_hline(&pl, 1.05, &ref, "5%");
    for (int t = 0; t < run->n_traces; t++) {
        const rp_trace *tr = &run->traces[t];
        const rp_problem *p = &dev->problems[tr->problem];
        if (!p->n_variants) continue;
        for (int i = 0; i < tr->n; i++) {
            xs[i] = i + 1;
            ys[i] = isfinite(tr->best[i]) ? fmin(tr->best[i] / p->variants[0].us, ymax) : NAN;
        }
        svg_plot_line(&pl, xs, ys, tr->n, &thin);
    }
    int m = 0;
    for (int i = 0; i < nmax; i++) {
        int k = 0;
        for (int t = 0; t < run->n_traces; t++) {
            const rp_trace *tr = &run->traces[t];
            const rp_problem *p = &dev->problems[tr->problem];
            if (p->n_variants && i < tr->n && isfinite(tr->best[i]))
                col[k++] = tr->best[i] / p->variants[0].us;
        }
        if (k == 0) continue;
        qsort(col, (size_t)k, sizeof *col, cmp_double);
        xs[m] = i + 1;
        ys[m] = fmin(k % 2 ? col[k / 2] : (col[k / 2 - 1] + col[k / 2]) / 2, ymax);
        m++;
    }
    svg_plot_line(&pl, xs, ys, m, &med);
    rc = 0;
done:
    free(xs);
    free(ys);
    free(col);
    if (rc == 0) return finish(s, out, len);
    svg_free(s);
    return -1;
}
