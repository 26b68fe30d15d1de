/* test_svg.c: unit tests of the SVG plot writer (tuner/report/svg.c): deterministic number text,
 * axis mapping on linear and log scales, tick choice, the colour map, XML escaping, NaN
 * handling in lines and heatmaps, the document frame, the compact form (one CSS class per
 * distinct style, each defined once and every one used defined; coordinates to one decimal;
 * solid lines of one style merged into one path; the colour bar as a gradient), and that the
 * same calls give the same bytes. Well-formedness of whole documents is checked with a real XML parser by
 * tests/cli/report.sh. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "report/svg.h"

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

/* The number of elements that use the class whose CSS declaration is exactly decl (0 when no
 * class has it). */
static int uses(const char *doc, const char *decl)
{
    char want[256];
    snprintf(want, sizeof want, "{%s}", decl);
    const char *hit = strstr(doc, want), *end = strstr(doc, "</style>");
    if (!hit || !end || hit > end) return 0;
    const char *dot = hit;
    while (dot > doc && *dot != '.') dot--;
    char use[64];
    snprintf(use, sizeof use, " class=\"%.*s\"", (int)(hit - dot - 1), dot + 1);
    return count(end, use);
}

/* Every class attribute names a class the style block defines, and no declaration is defined
 * twice. */
static int classes_consistent(const char *doc)
{
    const char *style = strstr(doc, "<style>"), *end = strstr(doc, "</style>");
    if (!style || !end) return strstr(doc, " class=\"") == NULL;
    for (const char *p = strstr(end, " class=\""); p; p = strstr(p + 1, " class=\"")) {
        const char *name = p + 8, *q = strchr(name, '"');
        char def[64];
        snprintf(def, sizeof def, ".%.*s{", (int)(q - name), name);
        const char *d = strstr(style, def);
        if (!d || d > end) return 0;
    }
    for (const char *a = strchr(style, '{'); a && a < end; a = strchr(a + 1, '{')) {
        const char *b = strchr(a, '}');
        for (const char *c = strchr(b, '{'); c && c < end; c = strchr(c + 1, '{'))
            if (strncmp(a, c, (size_t)(b - a + 1)) == 0) return 0;
    }
    return 1;
}

/* No number in the body (after the head) has more than one decimal. */
static int one_decimal(const char *doc)
{
    const char *body = strstr(doc, "<rect");
    for (const char *p = body; p && *p; p++)
        if (*p == '.' && p[-1] >= '0' && p[-1] <= '9' && p[1] >= '0' && p[1] <= '9' && p[2] >= '0' &&
            p[2] <= '9') {
            /* text content (">1.00%<") may hold more decimals: only markup counts */
            const char *lt = p, *gt = p;
            while (lt > body && *lt != '<' && *lt != '>') lt--;
            while (*gt && *gt != '<' && *gt != '>') gt++;
            if (*lt == '<' && *gt == '>') return 0;
        }
    return 1;
}

static void test_num(void)
{
    char b[64];
    svg_num(1.5, 2, b, sizeof b);        CHECK_STR(b, "1.5");
    svg_num(2.0, 2, b, sizeof b);        CHECK_STR(b, "2");
    svg_num(0.125, 2, b, sizeof b);      CHECK_STR(b, "0.12");   /* round half to even: exact .125 */
    svg_num(-0.001, 2, b, sizeof b);     CHECK_STR(b, "0");      /* never "-0" */
    svg_num(-0.0, 0, b, sizeof b);       CHECK_STR(b, "0");
    svg_num(-3.25, 1, b, sizeof b);      CHECK_STR(b, "-3.2");
    svg_num(1234567.891, 2, b, sizeof b); CHECK_STR(b, "1234567.89");
    svg_num(NAN, 2, b, sizeof b);        CHECK_STR(b, "0");
    svg_num(INFINITY, 2, b, sizeof b);   CHECK_STR(b, "0");
    svg_num(100, 0, b, sizeof b);        CHECK_STR(b, "100");    /* zeros before the point stay */
    svg_num(0.5, 0, b, sizeof b);        CHECK_STR(b, "0");
    svg_num(10.10, 3, b, sizeof b);      CHECK_STR(b, "10.1");
}

static void test_axes(void)
{
    svg_axis lin = {SVG_LINEAR, 0, 100, 50, 250};
    CHECK(fabs(svg_axis_px(&lin, 0) - 50) < 1e-9);
    CHECK(fabs(svg_axis_px(&lin, 50) - 150) < 1e-9);
    CHECK(fabs(svg_axis_px(&lin, 100) - 250) < 1e-9);
    svg_axis up = {SVG_LINEAR, 0, 10, 300, 100};            /* y axes run upwards */
    CHECK(fabs(svg_axis_px(&up, 10) - 100) < 1e-9);
    svg_axis l2 = {SVG_LOG2, 1024, 1048576, 0, 100};
    CHECK(fabs(svg_axis_px(&l2, 32768) - 50) < 1e-9);       /* 2^15 is half way from 2^10 to 2^20 */
    CHECK(fabs(svg_axis_px(&l2, 0) - 0) < 1e-9);            /* log of 0: the low end */
    svg_axis l10 = {SVG_LOG10, 1, 1000, 0, 300};
    CHECK(fabs(svg_axis_px(&l10, 10) - 100) < 1e-9);
    svg_axis flat = {SVG_LINEAR, 5, 5, 0, 100};
    CHECK(fabs(svg_axis_px(&flat, 5) - 50) < 1e-9);

    double t[32];
    int n = svg_axis_ticks(&lin, t, 6);
    CHECK(n == 6 && t[0] == 0 && t[1] == 20 && t[5] == 100);
    svg_axis odd = {SVG_LINEAR, 0, 3550, 0, 1};
    n = svg_axis_ticks(&odd, t, 6);
    CHECK(n >= 3 && n <= 6 && t[0] == 0 && t[1] == 1000);
    for (int i = 0; i < n; i++) CHECK(t[i] >= 0 && t[i] <= 3550);
    svg_axis small = {SVG_LINEAR, 0.981, 1.062, 0, 1};
    n = svg_axis_ticks(&small, t, 6);
    CHECK(n >= 2 && n <= 6);
    for (int i = 0; i < n; i++) CHECK(t[i] >= 0.981 && t[i] <= 1.062);
    n = svg_axis_ticks(&l10, t, 10);
    CHECK(n == 4 && t[0] == 1 && t[3] == 1000);
    svg_axis wide = {SVG_LOG2, 40000, 430000000, 0, 1};     /* 2^16 .. 2^28: 13 powers */
    n = svg_axis_ticks(&wide, t, 10);
    CHECK(n >= 5 && n <= 10 && t[0] == 65536);
    for (int i = 1; i < n; i++) CHECK(t[i] / t[i - 1] == 4);
    svg_axis ratio = {SVG_LOG10, 0.985, 4.4, 0, 1};         /* short log range: 1-2-5 steps */
    n = svg_axis_ticks(&ratio, t, 10);
    CHECK(n >= 3);
    CHECK(t[0] == 1);
    for (int i = 0; i < n; i++) CHECK(t[i] >= 0.985 && t[i] <= 4.4);
    svg_axis rev = {SVG_LOG10, 4, 1, 0, 1};                 /* reversed: same ticks */
    n = svg_axis_ticks(&rev, t, 10);
    CHECK(n >= 3 && t[0] >= 1 && t[n - 1] <= 4);
}

static void test_colormap(void)
{
    char c[8];
    svg_colormap(0, c);    CHECK_STR(c, "#440154");
    svg_colormap(1, c);    CHECK_STR(c, "#fde725");
    svg_colormap(-5, c);   CHECK_STR(c, "#440154");
    svg_colormap(7, c);    CHECK_STR(c, "#fde725");
    svg_colormap(NAN, c);  CHECK_STR(c, "#440154");
    svg_colormap(0.5, c);  CHECK_STR(c, "#26828e");
    CHECK_STR(svg_colormap_ink(0), "#fff");
    CHECK_STR(svg_colormap_ink(1), "#222");
}

static char *render(void)
{
    svg *s = svg_new(200, 100, "a <title> & \"more\"");
    if (!s) return NULL;
    svg_text(s, 10, 20, NULL, "x < y & z > 'w'");
    svg_style st = {"#123456", NULL, 2, "4 2", 0};
    double xs[5] = {1, 2, NAN, 4, 5}, ys[5] = {1, 2, 3, 4, 5};
    svg_plot p;
    svg_plot_init(&p, s, 20, 10, 160, 80, SVG_LINEAR, 0, 6, SVG_LOG10, 1, 10);
    svg_plot_axes(&p, "x title", "y title", NULL, NULL);
    svg_plot_line(&p, xs, ys, 5, &st);
    const char *tips[5] = {"one", NULL, "three", "four", "five"};
    svg_plot_points(&p, xs, ys, 5, 2, &st, tips);
    double v[6] = {1, 2, NAN, 4, 5, 6};
    const char *rows[2] = {"r0", "r1"}, *cols[3] = {"c0", "c1", "c2"};
    svg_heatmap hm = {2, 3, v, 1, 6, 0, rows, cols, NULL, 1, 2, 1, "%", 100};
    svg_draw_heatmap(s, 20, 20, 90, 40, &hm);
    char *text;
    size_t len;
    if (svg_finish(s, &text, &len) != 0) return NULL;
    CHECK(strlen(text) == len);
    return text;
}

static void test_document(void)
{
    char *a = render(), *b = render();
    CHECK(a && b);
    if (!a || !b) { free(a); free(b); return; }
    CHECK_STR(a, b);                                          /* same calls, same bytes */
    CHECK(strncmp(a, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"200\" height=\"100\"", 62) == 0);
    CHECK(strstr(a, "</svg>\n") == a + strlen(a) - 7);
    CHECK(strstr(a, "<title>a &lt;title&gt; &amp; &quot;more&quot;</title>") != NULL);
    CHECK(strstr(a, ">x &lt; y &amp; z &gt; &#39;w&#39;</text>") != NULL);
    CHECK(strstr(a, "x title") && strstr(a, "y title"));
    CHECK(strstr(a, "rotate(-90") != NULL);                   /* the y title is vertical */
    /* the NaN splits the line into two polylines of two points each */
    CHECK(count(a, "<polyline") == 2);
    CHECK(uses(a, "fill:none;stroke:#123456;stroke-width:2;stroke-dasharray:4 2;"
                  "stroke-linejoin:round") == 2);
    CHECK(classes_consistent(a));
    CHECK(one_decimal(a));
    /* the axes: the grid is one path (grid lines are solid and share a style), so are the ticks */
    CHECK(uses(a, "fill:none;stroke:#e3e3e3") == 1);
    CHECK(count(a, "<line") == 0);
    /* four finite points get markers, three with tooltips */
    CHECK(count(a, "<circle") == 4);
    CHECK(strstr(a, "<title>one</title></circle>") && strstr(a, "<title>five</title></circle>"));
    /* heatmap: 5 coloured cells with text, 1 blank cell, the marked cell outlined */
    /* each row's values in one <text>, a <tspan> per cell */
    CHECK(count(a, "%</tspan>") == 5);
    CHECK(strstr(a, ">600.0%</tspan>") && strstr(a, ">100.0%</tspan>"));
    CHECK(count(a, "</tspan></text>") == 2 + 2);             /* value rows, row and column labels */
    CHECK(uses(a, "fill:#f6f6f6;stroke:#ddd;stroke-width:0.5") == 1);
    CHECK(uses(a, "fill:none;stroke:#e0112b;stroke-width:2") == 1);
    CHECK(count(a, "<path fill=\"#") == 5);
    CHECK(strstr(a, "fill=\"#440154\"") && strstr(a, "fill=\"#fde725\""));
    CHECK(strstr(a, ">r1</tspan>") && strstr(a, ">c2</tspan>"));
    CHECK(strstr(a, "nan") == NULL && strstr(a, "inf") == NULL);
    /* tags balance */
    CHECK(count(a, "<text") == count(a, "</text>"));
    CHECK(count(a, "<title>") == count(a, "</title>"));
    free(a);
    free(b);
}

static void test_reversed_heatmap(void)
{
    svg *s = svg_new(100, 100, NULL);
    CHECK(s != NULL);
    if (!s) return;
    double v[2] = {1, 4};
    svg_heatmap hm = {1, 2, v, 4, 1, 1, NULL, NULL, NULL, -1, -1, -1, NULL, 0};
    svg_draw_heatmap(s, 0, 0, 100, 10, &hm);
    svg_colorbar(s, 10, 50, 80, 10, 4, 1, 1, NULL, "t");
    char *text;
    size_t len;
    CHECK(svg_finish(s, &text, &len) == 0);
    /* lo > hi: the smallest value gets the bright end, the largest the dark end; no cell text */
    const char *bright = strstr(text, "fill=\"#fde725\""), *dark = strstr(text, "fill=\"#440154\"");
    CHECK(bright && dark && bright < dark);
    CHECK(strstr(text, "<title>") == NULL);
    CHECK(count(text, "<rect") == 1 + 1 + 1);                /* page, bar, bar frame */
    CHECK(count(text, "<path fill=\"#") == 2);               /* the cells */
    /* the bar is the colour map's control points as one gradient, defined once */
    CHECK(count(text, "fill=\"url(#tunekit-colormap)\"") == 1);
    CHECK(count(text, "<linearGradient id=\"tunekit-colormap\">") == 1);
    CHECK(count(text, "<stop ") == 9);
    CHECK(strstr(text, "<stop offset=\"0\" stop-color=\"#440154\"/>") &&
          strstr(text, "<stop offset=\"1\" stop-color=\"#fde725\"/>"));
    CHECK(classes_consistent(text));
    free(text);
}

int main(void)
{
    test_num();
    test_axes();
    test_colormap();
    test_document();
    test_reversed_heatmap();
    return CHECK_DONE();
}
