/* One document written twice at once: as Markdown (REPORT.md) and as one self-contained HTML
 * page (report.html, figures inlined as SVG). Text given to these functions is plain; each
 * writer escapes it for its format. */
#ifndef LN_DOC_H
#define LN_DOC_H

#include <stdio.h>

typedef struct {
    FILE *md, *html; /* where the sections are written: memory, until ln_doc_end */
    FILE *md_out, *html_out;
    char *md_buf, *html_buf;
    size_t md_len, html_len;
    int in_list;
    int table_cols;
    char align[64];
    int figures;     /* inlined so far: each SVG's ids get the figure's number */
    char (*ids)[96]; /* the headings' ids, unique ("which-kernel", "f32-2"), for the contents */
    char (*titles)[160];
    int *levels;
    size_t nids, cap;
} ln_doc;

/* Opens the two files (either path may be NULL: that format is not written). The contents (a
 * linked line of the level-2 headings after the title; in HTML their level-3 headings too) are
 * written at ln_doc_end, before the body, so the sections are held in memory until then. */
void ln_doc_begin(ln_doc *d, FILE *md, FILE *html, const char *title);
void ln_doc_end(ln_doc *d);
/* A heading with an id unique in the document (GitHub's anchor for it in Markdown). */
void ln_doc_heading(ln_doc *d, int level, const char *text);
/* A folded block in HTML (<details>, closed), whose summary line is shown; Markdown shows all. */
void ln_doc_fold(ln_doc *d, const char *summary);
void ln_doc_fold_end(ln_doc *d);
/* Figures side by side in HTML (two a row where the page is wide enough); Markdown as is. */
void ln_doc_figs_begin(ln_doc *d);
void ln_doc_figs_end(ln_doc *d);
/* A paragraph; printf-style. */
void ln_doc_para(ln_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A paragraph that must not be missed (a caution); printf-style. */
void ln_doc_warn(ln_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A bulleted item (consecutive items form one list); printf-style. */
void ln_doc_item(ln_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A table: the header row (n cells), then rows of n cells; align has a letter per column,
 * 'l' or 'r' (columns past its end are right-aligned). */
void ln_doc_table(ln_doc *d, int n, const char *align, const char *const *header);
void ln_doc_row(ln_doc *d, const char *const *cells);
void ln_doc_table_end(ln_doc *d);
/* A figure: plots/NAME.png linked in Markdown, plots/NAME.svg inlined in HTML (read from
 * svg_path; its ids, gnuplot's "gnuplot_canvas" among them, prefixed with the figure's number so
 * that they stay unique in the page), with a caption. */
void ln_doc_figure(ln_doc *d, const char *name, const char *svg_path, const char *caption);

#endif
