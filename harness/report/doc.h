/* One document written twice at once: as Markdown (REPORT.md) and as one self-contained HTML
 * page (report.html, figures inlined as SVG). Text given to these functions is plain; each
 * writer escapes it for its format. */
#ifndef LN_DOC_H
#define LN_DOC_H

#include <stdio.h>

typedef struct {
    FILE *md, *html;
    int in_list;
    int table_cols;
    char align[64];
} ln_doc;

/* Opens the two files (either path may be NULL: that format is not written). */
void ln_doc_begin(ln_doc *d, FILE *md, FILE *html, const char *title);
void ln_doc_end(ln_doc *d);
void ln_doc_heading(ln_doc *d, int level, const char *text);
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
 * svg_path), with a caption. */
void ln_doc_figure(ln_doc *d, const char *name, const char *svg_path, const char *caption);

#endif
