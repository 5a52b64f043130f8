#include "table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static char *read_whole(const char *path, size_t *len_out)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    size_t cap = 1 << 16, len = 0, n;
    char *text = malloc(cap);
    while (text && (n = fread(text + len, 1, cap - len - 1, f)) > 0)
        if ((len += n) + 1 == cap) {
            char *bigger = realloc(text, cap *= 2);
            if (!bigger) free(text);
            text = bigger;
        }
    fclose(f);
    if (!text) ln_die("out of memory");
    text[len] = 0;
    if (len_out) *len_out = len;
    return text;
}

int ln_table_read(const char *path, ln_table *t)
{
    char *text = read_whole(path, NULL);
    if (!text) return memset(t, 0, sizeof *t), 0;
    ln_table_parse(text, path, t);
    return 1;
}

/* The schema a header belongs to: the one with the most of its column names (the first of
 * equals), so that a name two schemas share (verdict) is checked by the file's own. */
static int schema_of(const ln_table *t)
{
    int best = -1;
    size_t best_n = 0;
    for (int sc = 0; sc < LN_SCHEMAS; sc++) {
        size_t n = 0;
        for (size_t c = 0; c < t->cols; c++)
            for (size_t k = 0; k < LN_COLUMNS; k++)
                if ((int)ln_columns[k].schema == sc && !strcmp(ln_columns[k].name, t->cell[c])) n++;
        if (n > best_n) best = sc, best_n = n;
    }
    return best;
}

/* Column name of schema sc in columns.def, else of any schema; -1 for a name lnbench never writes. */
static int column_named(const char *name, int sc)
{
    int any = -1;
    for (size_t k = 0; k < LN_COLUMNS; k++)
        if (!strcmp(ln_columns[k].name, name)) {
            if ((int)ln_columns[k].schema == sc) return (int)k;
            if (any < 0) any = (int)k;
        }
    return any;
}

static void check_cells(const ln_table *t, const char *what)
{
    if (t->rows == 0) return;
    for (size_t r = 1; r <= t->rows; r++) { /* a header again: two files joined by hand */
        size_t same = 0;
        while (same < t->cols && !strcmp(t->cell[r * t->cols + same], t->cell[same])) same++;
        if (same == t->cols) ln_die_usage("%s: line %zu repeats the header line", what, r + 1);
    }
    int sc = schema_of(t);
    for (size_t c = 0; c < t->cols; c++) {
        int col = column_named(t->cell[c], sc);
        if (col < 0) continue;
        for (size_t r = 1; r <= t->rows; r++) {
            const char *s = t->cell[r * t->cols + c], *bad = ln_column_refusal((ln_column)col, s);
            if (bad) ln_die_usage("%s: line %zu, column %zu (%s): '%s' %s", what, r + 1, c + 1, t->cell[c], s, bad);
        }
    }
}

void ln_table_parse(char *text, const char *what, ln_table *t)
{
    memset(t, 0, sizeof *t);
    t->text = text;
    size_t ncell = 0, cellcap = 1024, fields_in_row = 0, lines = 0;
    t->cell = malloc(cellcap * sizeof *t->cell);
    for (char *p = t->text, *w = p; *p;) {
        char *start = w;
        if (*p == '"') {
            for (p++; *p && !(*p == '"' && p[1] != '"'); p++) *w++ = *p == '"' ? *++p : *p;
            if (*p) p++;
        }
        while (*p && *p != ',' && *p != '\n' && *p != '\r') *w++ = *p++;
        char end = *p;
        if (ncell == cellcap) {
            char **bigger = realloc(t->cell, (cellcap *= 2) * sizeof *t->cell);
            if (!bigger) free(t->cell);
            t->cell = bigger;
        }
        if (!t->cell) ln_die("out of memory");
        t->cell[ncell++] = start;
        fields_in_row++;
        if (*p == '\r') p++;
        if (*p) p++;
        *w = 0;
        w = p;
        if (end != ',') {
            if (lines == 0) t->cols = fields_in_row;
            if (fields_in_row != t->cols)
                ln_die_usage("%s: line %zu has %zu fields, the header %zu", what, lines + 1, fields_in_row, t->cols);
            lines++;
            fields_in_row = 0;
        }
    }
    t->rows = lines ? lines - 1 : 0;
    check_cells(t, what);
}

void ln_table_free(ln_table *t)
{
    free(t->text);
    free(t->cell);
    memset(t, 0, sizeof *t);
}

int ln_table_col(const ln_table *t, const char *name)
{
    for (size_t c = 0; c < t->cols; c++)
        if (!strcmp(t->cell[c], name)) return (int)c;
    return -1;
}

int ln_table_column(const ln_table *t, ln_column c) { return ln_table_col(t, ln_columns[c].name); }

const char *ln_table_cell(const ln_table *t, size_t r, int c)
{
    if (c < 0 || r >= t->rows) return "";
    return t->cell[(r + 1) * t->cols + (size_t)c];
}

double ln_table_num(const ln_table *t, size_t r, int c)
{
    const char *s = ln_table_cell(t, r, c);
    char *end;
    double v = strtod(s, &end);
    return end == s ? NAN : v;
}

const char *ln_meta_value(const char *path, const char *key, char *buf, size_t n)
{
    buf[0] = 0;
    char *text = read_whole(path, NULL);
    if (!text) return buf;
    char pattern[128];
    snprintf(pattern, sizeof pattern, "\"%s\"", key);
    char *p = strstr(text, pattern);
    if (p) {
        p += strlen(pattern);
        while (*p == ' ' || *p == ':') p++;
        size_t k = 0;
        if (*p == '"') {
            for (p++; *p && *p != '"' && k + 1 < n; p++) buf[k++] = (*p == '\\' && p[1]) ? *++p : *p;
        } else {
            while (*p && *p != ',' && *p != '\n' && *p != '}' && k + 1 < n) buf[k++] = *p++;
        }
        buf[k] = 0;
    }
    free(text);
    return buf;
}
