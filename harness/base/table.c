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

/* What a column of lnbench's own files may hold (results/README.md): an integer at least min, a
 * finite number at least min, or any number C prints (nan and inf included); empty only where
 * lnbench writes nothing (a probe's eps). Columns not listed are text. */
typedef enum { C_INT, C_FINITE, C_ANY } cell_kind;
typedef struct {
    const char *name;
    cell_kind kind;
    double min;
    int may_be_empty;
} column_rule;

static const column_rule rules[] = {
    {"D", C_INT, 1, 0},
    {"rows", C_INT, 1, 0},
    {"seed", C_INT, 0, 0},
    {"eps", C_FINITE, 0, 1},
    {"nonfinite", C_INT, 0, 0},
    {"worst_row", C_INT, 0, 0},
    {"worst_col", C_INT, 0, 0},
    {"rows_judged", C_INT, 0, 0},
    {"rows_set_aside", C_INT, 0, 0},
    {"bytes", C_INT, 0, 0},
    {"threads", C_INT, 1, 0},
    {"repetitions", C_INT, 0, 0},
    {"affine_bytes", C_INT, 0, 0},
    {"evaluations", C_INT, 0, 0},
    {"max_ulp", C_ANY, 0, 0},
    {"mean_ulp", C_ANY, 0, 0},
    {"cr_frac", C_ANY, 0, 0},
    {"max_norm", C_ANY, 0, 0},
    {"worst_x", C_ANY, 0, 0},
    {"worst_y", C_ANY, 0, 0},
    {"worst_y_exact", C_ANY, 0, 0},
    {"mean_relerr", C_ANY, 0, 0},
    {"rstd_relerr", C_ANY, 0, 0},
    {"kappa_max", C_ANY, 0, 0},
    {"bound", C_ANY, 0, 0},
    {"dgamma_max_ulp", C_ANY, 0, 0},
    {"dgamma_max_norm", C_ANY, 0, 0},
    {"dbeta_max_ulp", C_ANY, 0, 0},
    {"dbeta_max_norm", C_ANY, 0, 0},
    {"dgamma_kappa", C_ANY, 0, 0},
    {"dbeta_kappa", C_ANY, 0, 0},
    {"dx_saved_max_ulp", C_ANY, 0, 0},
    {"dx_saved_max_norm", C_ANY, 0, 0},
    {"ref_seconds", C_ANY, 0, 0},
    {"ns_per_row", C_ANY, 0, 0},
    {"gbps", C_ANY, 0, 0},
    {"gbps_min", C_ANY, 0, 0},
    {"gbps_max", C_ANY, 0, 0},
    {"cv", C_ANY, 0, 0},
    {"bw_fraction", C_ANY, 0, 0},
    {"gbps_cpu", C_ANY, 0, 0},
    {"kappa", C_ANY, 0, 0},
    {"ratio", C_ANY, 0, 0},
    {"builtin_ratio", C_ANY, 0, 0},
    {"gain", C_ANY, 0, 0},
    {"builtin_max_ulp", C_ANY, 0, 0},
    {"seconds", C_ANY, 0, 0},
    {"ratio_found_s", C_ANY, 0, 0},
    {"ulp_found_s", C_ANY, 0, 0},
};

/* s as a number the way lnbench writes them: decimal (no hex, no "infinity", no spaces), or
 * nan, -nan, inf, -inf as printf prints them; *v gets it. Returns 1, or 0 when s is none of
 * these, or -1 for a decimal beyond double's range (1e999: lnbench never writes one). */
static int parse_number(const char *s, double *v)
{
    static const char *const words[] = {"nan", "-nan", "inf", "-inf"};
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, words[i])) return *v = i < 2 ? NAN : i == 2 ? INFINITY : -INFINITY, 1;
    if (!*s || strspn(s, "0123456789+-.eE") != strlen(s)) return 0;
    char *end;
    *v = strtod(s, &end);
    if (*end) return 0;
    return isfinite(*v) ? 1 : -1;
}

static void check_cells(const ln_table *t, const char *what)
{
    if (t->rows == 0) return;
    for (size_t r = 1; r <= t->rows; r++) { /* a header again: two files joined by hand */
        size_t same = 0;
        while (same < t->cols && !strcmp(t->cell[r * t->cols + same], t->cell[same])) same++;
        if (same == t->cols) ln_die_usage("%s: line %zu repeats the header line", what, r + 1);
    }
    for (size_t c = 0; c < t->cols; c++) {
        const column_rule *rule = NULL;
        for (size_t k = 0; k < sizeof rules / sizeof rules[0]; k++)
            if (!strcmp(t->cell[c], rules[k].name)) rule = &rules[k];
        if (!rule) continue;
        for (size_t r = 1; r <= t->rows; r++) {
            const char *s = t->cell[r * t->cols + c];
            double v;
            if (!*s && rule->may_be_empty) continue;
            const char *bad = NULL;
            int parsed = parse_number(s, &v);
            if (parsed < 0) bad = "is out of range";
            else if (!parsed) bad = !*s ? "is empty" : "is not a number";
            else if (rule->kind != C_ANY && !isfinite(v)) bad = "is not finite";
            else if (rule->kind == C_INT && v != floor(v)) bad = "is not an integer";
            else if (rule->kind != C_ANY && v < rule->min) bad = rule->min > 0 ? "is below 1" : "is negative";
            if (bad) ln_die_usage("%s: line %zu, column %zu (%s): '%s' %s", what, r + 1, c + 1, rule->name, s, bad);
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
