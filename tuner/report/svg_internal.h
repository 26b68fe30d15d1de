/* svg_internal.h: what the SVG writer's two files (svg.c: the document and its primitives;
 * svg_plot.c: axes, plots, legend, colour map, heatmap) share and nothing else includes: the
 * document and the body's writers. */
#pragma once
#include <stddef.h>
#include "svg.h"

/* The id of the colour map's gradient, defined in the head once a colour bar used it. */
#define GRADIENT_ID "tunekit-colormap"

struct svg {
    char *buf;               /* the body (svg_finish: the whole document) */
    size_t len, cap;
    int oom;
    double width, height;
    char *title;             /* NULL: none */
    char **classes;          /* CSS declarations; class i is named by class_name(i) */
    int n_classes, cap_classes;
    int gradient;            /* a colour bar used the colour map's gradient */
    size_t path_end;         /* the body's length just after the last line path ... */
    int path_class;          /* ... and its class (-1: none yet) */
};

/* The body's text (sv_puts), formatted (sv_putf), XML-escaped, a coordinate. */
void sv_puts(svg *s, const char *text);
void sv_putf(svg *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* XML text or attribute content. */
void sv_put_escaped(svg *s, const char *text);
/* A coordinate: one decimal, a tenth of a pixel. */
void sv_put_num(svg *s, double v);
/* ` class="x"` for decl; returns the class (-1: out of memory, nothing written). */
int sv_put_class(svg *s, const char *decl);
/* "<rect x=.. y=.. width=.. height=..", negative sizes as 0, the tag left open */
void sv_put_rect_open(svg *s, double x, double y, double w, double h);
/* Closes an element opened with tag: "/>", or a <title> child and "</tag>" when title is given. */
void sv_close_with_title(svg *s, const char *tag, const char *title);
/* The CSS declaration of a font (11 px and start-anchored are the document's defaults). */
void sv_font_decl(const svg_font *f, char *decl, size_t n);
