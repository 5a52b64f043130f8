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
