#include "doc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void md_text(FILE *f, const char *s, int in_cell)
{
    for (; *s; s++) {
        if (in_cell && *s == '|') fputc('\\', f);
        fputc(*s, f);
    }
}

static void html_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '<') fputs("&lt;", f);
        else if (*s == '>') fputs("&gt;", f);
        else if (*s == '&') fputs("&amp;", f);
        else fputc(*s, f);
    }
}

static void close_list(ln_doc *d)
{
    if (!d->in_list) return;
    if (d->md) fputc('\n', d->md);
    if (d->html) fputs("</ul>\n", d->html);
    d->in_list = 0;
}

static const char css[] =
    "body{font-family:'DejaVu Sans',Arial,sans-serif;max-width:1180px;margin:1.2em auto;padding:0 1em;"
    "color:#222;line-height:1.4;font-size:15px}\n"
    "h1{font-size:1.5em;margin:.2em 0 .4em}h2{font-size:1.25em;border-bottom:1px solid #ccc;margin-top:1.6em}"
    "h3{font-size:1.05em;margin:1.2em 0 .3em}\n"
    "table{border-collapse:collapse;margin:.4em 0 1em;font-size:13px}"
    "td,th{border:1px solid #d4d4d4;padding:2px 7px}th{background:#f1f1f1}td.r{text-align:right}\n"
    "tr:nth-child(even) td{background:#fafafa}ul{margin:.3em 0 .8em;padding-left:1.4em}\n"
    "figure{margin:1em 0;page-break-inside:avoid}figure svg{max-width:100%;height:auto}"
    "figcaption{font-size:13px;color:#444}\n"
    ".warn{color:#a00;font-weight:bold}nav.toc{font-size:13px;border:1px solid #ddd;padding:.3em .8em;"
    "background:#fafafa}nav.toc ul{margin:.1em 0;padding-left:1.2em}nav.toc details{margin:.1em 0}"
    "details{margin:.4em 0 1em}summary{cursor:pointer;color:#225}.answer{font-size:1.05em}"
    ".figs{display:flex;flex-wrap:wrap;gap:8px}.figs figure{flex:1 1 45%;margin:.2em 0;min-width:420px}@media "
    "print{body{max-width:none}h2{page-break-after:avoid}}\n";

void ln_doc_begin(ln_doc *d, FILE *md, FILE *html, const char *title)
{
    memset(d, 0, sizeof *d);
    d->md_out = md, d->html_out = html;
    if (md) {
        fprintf(md, "# %s\n\n", title);
        d->md = open_memstream(&d->md_buf, &d->md_len);
    }
    if (html) {
        fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>", html);
        html_text(html, title);
        fprintf(html, "</title>\n<style>\n%s</style></head><body>\n<h1 id=\"top\">", css);
        html_text(html, title);
        fputs("</h1>\n", html);
        d->html = open_memstream(&d->html_buf, &d->html_len);
    }
    if ((md && !d->md) || (html && !d->html)) abort();
}

/* The contents, then the body held in memory. */
void ln_doc_end(ln_doc *d)
{
    close_list(d);
    if (d->md) {
        fclose(d->md);
        fputs("Contents:", d->md_out);
        for (size_t i = 0, n = 0; i < d->nids; i++)
            if (d->levels[i] == 2) fprintf(d->md_out, "%s [%s](#%s)", n++ ? " ·" : "", d->titles[i], d->ids[i]);
        fputs("\n\n", d->md_out);
        fwrite(d->md_buf, 1, d->md_len, d->md_out);
        free(d->md_buf);
    }
    if (d->html) {
        fclose(d->html);
        /* one line of the sections; their subsections folded under it */
        fputs("<nav class=\"toc\"><b>Contents:</b> ", d->html_out);
        for (size_t i = 0, n = 0; i < d->nids; i++) {
            if (d->levels[i] != 2) continue;
            fprintf(d->html_out, "%s<a href=\"#%s\">", n++ ? " · " : "", d->ids[i]);
            html_text(d->html_out, d->titles[i]);
            fputs("</a>", d->html_out);
        }
        fputs("<details><summary>every subsection</summary><ul>", d->html_out);
        int open = 0;
        for (size_t i = 0; i < d->nids; i++) {
            if (d->levels[i] > 3) continue;
            if (d->levels[i] == 2) {
                if (open) fputs("</li>", d->html_out);
                open = 1;
                fputs("<li>", d->html_out);
            } else fputs(" · ", d->html_out);
            fprintf(d->html_out, "<a href=\"#%s\">", d->ids[i]);
            html_text(d->html_out, d->titles[i]);
            fputs("</a>", d->html_out);
        }
        fputs(open ? "</li></ul></details></nav>\n" : "</ul></details></nav>\n", d->html_out);
        fwrite(d->html_buf, 1, d->html_len, d->html_out);
        fputs("</body></html>\n", d->html_out);
        free(d->html_buf);
    }
    free(d->ids), free(d->titles), free(d->levels);
}

/* GitHub's anchor of a heading: lower case, spaces to '-', other punctuation dropped; "-1",
 * "-2"... after a repeat. */
static void slug(ln_doc *d, const char *text, char *out, size_t n)
{
    size_t k = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p && k + 1 < n; p++) {
        if (*p >= 'A' && *p <= 'Z') out[k++] = (char)(*p - 'A' + 'a');
        else if ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '_') out[k++] = (char)*p;
        else if (*p == ' ') out[k++] = '-';
    }
    out[k] = 0;
    char base[96];
    snprintf(base, sizeof base, "%s", out);
    for (int rep = 1;; rep++) {
        size_t i = 0;
        while (i < d->nids && strcmp(d->ids[i], out)) i++;
        if (i == d->nids) return;
        snprintf(out, n, "%.80s-%d", base, rep);
    }
}

void ln_doc_heading(ln_doc *d, int level, const char *text)
{
    close_list(d);
    if (d->nids == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 64;
        d->ids = realloc(d->ids, d->cap * sizeof *d->ids);
        d->titles = realloc(d->titles, d->cap * sizeof *d->titles);
        d->levels = realloc(d->levels, d->cap * sizeof *d->levels);
        if (!d->ids || !d->titles || !d->levels) abort();
    }
    char *id = d->ids[d->nids];
    slug(d, text, id, sizeof d->ids[0]);
    snprintf(d->titles[d->nids], sizeof d->titles[0], "%s", text);
    d->levels[d->nids++] = level;
    if (d->md) {
        for (int i = 0; i < level; i++) fputc('#', d->md);
        fprintf(d->md, " %s\n\n", text);
    }
    if (d->html) {
        fprintf(d->html, "<h%d id=\"%s\">", level, id);
        html_text(d->html, text);
        fprintf(d->html, "</h%d>\n", level);
    }
}

void ln_doc_fold(ln_doc *d, const char *summary)
{
    close_list(d);
    if (!d->html) return;
    fputs("<details><summary>", d->html);
    html_text(d->html, summary);
    fputs("</summary>\n", d->html);
}

void ln_doc_fold_end(ln_doc *d)
{
    close_list(d);
    if (d->html) fputs("</details>\n", d->html);
}

void ln_doc_figs_begin(ln_doc *d)
{
    close_list(d);
    if (d->html) fputs("<div class=\"figs\">\n", d->html);
}

void ln_doc_figs_end(ln_doc *d)
{
    if (d->html) fputs("</div>\n", d->html);
}

/* One line of an SVG with every id and reference to one prefixed by "fN-". */
static void svg_line(FILE *f, const char *line, int fig)
{
    static const char *const keys[] = {"id=\"", "id='", "href=\"#", "href='#", "url(#"};
    while (*line) {
        size_t best = strlen(line), klen = 0;
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            const char *p = strstr(line, keys[k]);
            if (p && (size_t)(p - line) < best && (p == line || p[-1] == ' ' || p[-1] == ':' || keys[k][0] == 'u'))
                best = (size_t)(p - line), klen = strlen(keys[k]);
        }
        fwrite(line, 1, best + klen, f);
        if (!klen) return;
        fprintf(f, "f%d-", fig);
        line += best + klen;
    }
}

static void vtext(ln_doc *d, const char *md_pre, const char *md_post, const char *h_pre, const char *h_post,
                  const char *fmt, va_list ap)
{
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) return;
    if (d->md) fprintf(d->md, "%s%s%s", md_pre, s, md_post);
    if (d->html) {
        fputs(h_pre, d->html);
        html_text(d->html, s);
        fputs(h_post, d->html);
    }
    free(s);
}

void ln_doc_para(ln_doc *d, const char *fmt, ...)
{
    close_list(d);
    va_list ap;
    va_start(ap, fmt);
    vtext(d, "", "\n\n", "<p>", "</p>\n", fmt, ap);
    va_end(ap);
}

void ln_doc_warn(ln_doc *d, const char *fmt, ...)
{
    close_list(d);
    va_list ap;
    va_start(ap, fmt);
    vtext(d, "> **", "**\n\n", "<p class=\"warn\">", "</p>\n", fmt, ap);
    va_end(ap);
}

void ln_doc_item(ln_doc *d, const char *fmt, ...)
{
    if (!d->in_list && d->html) fputs("<ul>\n", d->html);
    d->in_list = 1;
    va_list ap;
    va_start(ap, fmt);
    vtext(d, "- ", "\n", "<li>", "</li>\n", fmt, ap);
    va_end(ap);
}

/* One row in both formats: header cells as <th>, the others as <td> aligned by column. */
static void table_row(ln_doc *d, const char *const *cells, int header)
{
    if (d->md) {
        fputc('|', d->md);
        for (int i = 0; i < d->table_cols; i++) fputc(' ', d->md), md_text(d->md, cells[i], 1), fputs(" |", d->md);
        fputc('\n', d->md);
    }
    if (d->html) {
        fputs("<tr>", d->html);
        for (int i = 0; i < d->table_cols; i++) {
            const char *open = header ? "<th>" : d->align[i < 64 ? i : 63] == 'l' ? "<td>" : "<td class=\"r\">";
            fputs(open, d->html);
            html_text(d->html, cells[i]);
            fputs(header ? "</th>" : "</td>", d->html);
        }
        fputs("</tr>\n", d->html);
    }
}

void ln_doc_table(ln_doc *d, int n, const char *align, const char *const *header)
{
    close_list(d);
    d->table_cols = n;
    for (int i = 0; i < (int)sizeof d->align; i++) d->align[i] = i < (int)strlen(align) ? align[i] : 'r';
    if (d->html) fputs("<table>", d->html);
    table_row(d, header, 1);
    if (d->md) { /* the alignment line under the header */
        fputc('|', d->md);
        for (int i = 0; i < n; i++) fputs(d->align[i] == 'l' ? "---|" : "---:|", d->md);
        fputc('\n', d->md);
    }
}

void ln_doc_row(ln_doc *d, const char *const *cells) { table_row(d, cells, 0); }

void ln_doc_table_end(ln_doc *d)
{
    if (d->md) fputc('\n', d->md);
    if (d->html) fputs("</table>\n", d->html);
}

void ln_doc_figure(ln_doc *d, const char *name, const char *svg_path, const char *caption)
{
    close_list(d);
    if (d->md) fprintf(d->md, "![%s](plots/%s.png)\n\n*%s* ([SVG](plots/%s.svg))\n\n", name, name, caption, name);
    if (!d->html) return;
    FILE *f = fopen(svg_path, "r");
    if (!f) return;
    int fig = ++d->figures;
    fprintf(d->html, "<figure id=\"figure-%s\">\n", name);
    /* the SVG element only: the XML prolog and doctype may not stand inside HTML */
    char line[4096];
    int started = 0;
    while (fgets(line, sizeof line, f)) {
        if (!started && !strstr(line, "<svg")) continue;
        started = 1;
        svg_line(d->html, line, fig);
    }
    fclose(f);
    fputs("<figcaption>", d->html);
    html_text(d->html, caption);
    fputs("</figcaption></figure>\n", d->html);
}
