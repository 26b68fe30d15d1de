/* svg.h: a tiny SVG plot writer for the report. A document (svg) collects primitives (lines,
 * polylines, rectangles, circles, text) in pixel coordinates; a plot (svg_plot) maps data to a
 * rectangle of the document through two axes, each linear or logarithmic, and draws its frame,
 * grid, ticks and titles; a heatmap draws a labelled grid of colour-coded cells. The output is
 * compact: each distinct style or font becomes one CSS class in a <style> block, coordinates keep
 * one decimal, runs of solid lines in one style share a <path>, a heatmap's cells of one colour
 * share a <path> and a row's values one <text>, and a colour bar is one gradient.
 * Every number in the output goes through svg_num, so the same calls give the same bytes on every
 * machine (no locale, no "-0", trailing zeros trimmed). Text is XML-escaped: the output is
 * well-formed XML.
 *
 * Memory: a document that runs out of memory remembers it and svg_finish reports it, so drawing
 * calls return nothing and callers check once. */
#pragma once
#include <stddef.h>

typedef struct svg svg;

/* A new document of width x height pixels; title becomes its <title> (may be NULL).
 * Returns NULL when out of memory. Freed by svg_finish or svg_free. */
svg *svg_new(double width, double height, const char *title);
/* Closes the document and hands its text to *text (malloc'd, NUL-terminated; caller frees),
 * length in *len. Frees s in every case. Returns 0, or -1 when out of memory (*text NULL). */
int svg_finish(svg *s, char **text, size_t *len);
void svg_free(svg *s);

/* Deterministic number text: v rounded to at most `digits` decimals, trailing zeros and a
 * trailing point trimmed, never "-0"; non-finite values give "0". */
void svg_num(double v, int digits, char *buf, size_t len);

/* ---- primitives (pixel coordinates, written to a tenth of a pixel; NULL colours mean
 * "none") ---- */
typedef struct svg_style {
    const char *stroke;      /* "#1f77b4", NULL: no stroke */
    const char *fill;        /* NULL: no fill */
    double width;            /* stroke width; 0: 1 */
    const char *dash;        /* "4 3", NULL: solid */
    double opacity;          /* 0: opaque */
} svg_style;

typedef enum svg_anchor { SVG_START = 0, SVG_MIDDLE, SVG_END } svg_anchor;

typedef struct svg_font {
    double size;             /* 0: 11 */
    svg_anchor anchor;
    int bold;
    int vertical;            /* rotated -90 degrees about (x, y) */
    const char *fill;        /* NULL: "#222" */
} svg_font;

void svg_line(svg *s, double x1, double y1, double x2, double y2, const svg_style *st);
/* A polyline through n points; n < 2 draws nothing. */
void svg_polyline(svg *s, const double *x, const double *y, int n, const svg_style *st);
/* title (may be NULL): a tooltip (<title> child). */
void svg_rect(svg *s, double x, double y, double w, double h, const svg_style *st,
              const char *title);
void svg_circle(svg *s, double cx, double cy, double r, const svg_style *st, const char *title);
void svg_text(svg *s, double x, double y, const svg_font *f, const char *text);

/* ---- axes and plots ---- */
typedef enum svg_scale { SVG_LINEAR = 0, SVG_LOG2, SVG_LOG10 } svg_scale;

typedef struct svg_axis {
    svg_scale scale;
    double lo, hi;           /* data range (log scales: > 0) */
    double px_lo, px_hi;     /* pixels lo and hi map to */
} svg_axis;

/* Pixel of v on the axis (log of a value <= 0 maps to px_lo). */
double svg_axis_px(const svg_axis *a, double v);
/* Up to max "nice" tick values within [lo, hi]: 1-2-5 steps on linear axes, powers of the base
 * on log axes (every k-th power when there are too many). Returns the count. */
int svg_axis_ticks(const svg_axis *a, double *ticks, int max);

/* Formats a tick value into buf. */
typedef void (*svg_tick_format)(double v, char *buf, size_t len);
/* The default tick text: svg_num with up to 3 decimals. */
void svg_tick_default(double v, char *buf, size_t len);

typedef struct svg_plot {
    svg *doc;
    double x, y, w, h;       /* the data rectangle in document pixels */
    svg_axis xa, ya;         /* ya.px_lo is the bottom edge */
} svg_plot;

void svg_plot_init(svg_plot *p, svg *doc, double x, double y, double w, double h, svg_scale xs,
                   double xlo, double xhi, svg_scale ys, double ylo, double yhi);
/* Frame, grid lines at the ticks, tick labels (formatters may be NULL) and axis titles
 * (may be NULL). */
void svg_plot_axes(const svg_plot *p, const char *xtitle, const char *ytitle,
                   svg_tick_format xfmt, svg_tick_format yfmt);
/* A line through the points in order; NaN values break it into segments. */
void svg_plot_line(const svg_plot *p, const double *x, const double *y, int n,
                   const svg_style *st);
/* A marker of radius r at each finite point; titles (may be NULL, or hold NULLs) give
 * tooltips. */
void svg_plot_points(const svg_plot *p, const double *x, const double *y, int n, double r,
                     const svg_style *st, const char *const *titles);
/* A horizontal line across the plot at data y, with a label above its left end (may be NULL). */
void svg_plot_hline(const svg_plot *p, double y, const svg_style *st, const char *label);
/* A vertical line at data x, with a label at its top (may be NULL). */
void svg_plot_vline(const svg_plot *p, double x, const svg_style *st, const char *label);

/* A legend: one row per entry (a short line in its style, then its label), from (x, y). */
void svg_legend(svg *s, double x, double y, int n, const char *const *labels,
                const svg_style *styles);

/* ---- colour ---- */
/* The colour for t in [0, 1] (clamped) on a perceptually ordered map from dark blue (0) over
 * green to yellow (1), as "#rrggbb" in out[8]. */
void svg_colormap(double t, char out[8]);
/* "#fff" or "#222": the text colour that reads on a cell of colour t. */
const char *svg_colormap_ink(double t);

/* ---- heatmaps ---- */
typedef struct svg_heatmap {
    int rows, cols;
    const double *v;                 /* rows * cols values, row-major; NaN: no data (blank) */
    double lo, hi;                   /* colour range: lo -> 0, hi -> 1 (clamped); lo > hi
                                        reverses the map */
    int log;                         /* colour by log(v) between log(lo) and log(hi) */
    const char *const *row_labels;   /* rows labels (may be NULL) */
    const char *const *col_labels;   /* cols labels (may be NULL) */
    const char *const *titles;       /* rows * cols tooltips (may be NULL, or hold NULLs) */
    int mark_row, mark_col;          /* the cell outlined in red, or -1 */
    int digits;                      /* >= 0: write the value into each cell with exactly this
                                        many decimals (never "-0"); < 0: no text */
    const char *suffix;              /* appended to the cell text ("%"), may be NULL */
    double scale_text;               /* cell text shows v * scale_text (0: 1) */
} svg_heatmap;

/* Draws the cells in the rectangle (x, y, w, h), row 0 at the top; row labels to the left of x,
 * column labels above y. */
void svg_draw_heatmap(svg *s, double x, double y, double w, double h, const svg_heatmap *hm);
/* A horizontal colour bar from lo (left, colour 0) to hi (right, colour 1; lo > hi allowed),
 * log when log, in (x, y, w, h), with tick labels under it and a title to its left. */
void svg_colorbar(svg *s, double x, double y, double w, double h, double lo, double hi, int log,
                  svg_tick_format fmt, const char *title);
