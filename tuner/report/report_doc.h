/* report_doc.h: the report's twin writer. One sequence of calls writes the same document twice,
 * as Markdown (README.md, read on a code host) and as HTML (index.html, opened in a browser;
 * well-formed XML, no script, one inline style sheet). Text takes a tiny inline markup that
 * both outputs understand: `code`, **bold** and [text](href); everything else is literal and
 * escaped for each output. Headings get ids as a code host derives them, so "[x](#id)" links
 * work in both. */
#pragma once
#include <stdio.h>

typedef struct twin {
    FILE *md, *html;         /* the caller's streams */
    int in_list, in_table, table_cols;
    const char *align;       /* per column 'l' or 'r' */
} twin;

/* The anchor a code host gives a heading: lower case, spaces to '-', other punctuation dropped. */
void twin_anchor(const char *heading, char *buf, size_t len);

/* <head> with title, then the page header. */
void twin_begin(twin *t, const char *title);
void twin_end(twin *t);
void twin_heading(twin *t, int level, const char *text);
void twin_para(twin *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One bullet; consecutive bullets form a list. */
void twin_item(twin *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A table of n columns; align holds one 'l' or 'r' per column (kept by pointer until
 * twin_table_end). Cells take the inline markup. */
void twin_table(twin *t, int n, const char *const *headers, const char *align);
void twin_row(twin *t, const char *const *cells);
void twin_table_end(twin *t);
/* An image (a file beside the document) with its alternative text and a caption (markup); in
 * HTML it links to the file, which opened on its own shows the figure's tooltips. */
void twin_image(twin *t, const char *file, const char *alt, const char *caption);
