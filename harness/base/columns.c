#include "columns.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "outfile.h"

const ln_column_info ln_columns[LN_COLUMNS] = {
#define LN_COLUMN(schema, name, kind, unit, values, description) \
    {LN_SCHEMA_##schema, #name, LN_COL_##kind, unit, values, description},
#include "columns.def"
};

const ln_schema_info ln_schemas[LN_SCHEMAS] = {
#define LN_SCHEMA(id, file, what) {file, what},
#include "columns.def"
};

int ln_schema_find(const char *name)
{
    size_t n = strlen(name);
    if (n > 4 && !strcmp(name + n - 4, ".csv")) n -= 4;
    for (int s = 0; s < LN_SCHEMAS; s++)
        if (strlen(ln_schemas[s].file) == n && !strncmp(ln_schemas[s].file, name, n)) return s;
    return -1;
}

ln_column ln_schema_first(ln_schema s)
{
    for (size_t c = 0; c < LN_COLUMNS; c++)
        if (ln_columns[c].schema == s) return (ln_column)c;
    return LN_COLUMNS;
}

size_t ln_schema_count(ln_schema s)
{
    size_t n = 0;
    for (size_t c = 0; c < LN_COLUMNS; c++) n += ln_columns[c].schema == s;
    return n;
}

const char *ln_col_kind_name(ln_col_kind k)
{
    static const char *const names[] = {"text",        "quoted text", "integer",    "number %.17g",
                                        "number %.6g", "number %g",   "number %.3f"};
    return names[k];
}

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

/* Whether word is one of the '|'-separated words of list. */
static int one_of(const char *word, const char *list)
{
    size_t n = strlen(word);
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, "|");
        if (len == n && !strncmp(p, word, n)) return 1;
        p += len + (p[len] == '|');
    }
    return 0;
}

const char *ln_column_refusal(ln_column c, const char *s)
{
    const ln_column_info *col = &ln_columns[c];
    const char *values = col->values;
    static char why[160]; /* the refusals that name a value of columns.def */
    if (col->kind == LN_COL_TEXT || col->kind == LN_COL_QUOTED) {
        if (!*values || one_of(s, values)) return NULL;
        snprintf(why, sizeof why, "is not one of %s", values);
        return why;
    }
    if (!*s && strstr(values, "or empty")) return NULL;
    const char *at_least = strstr(values, ">=");
    int integer = col->kind == LN_COL_UINT, finite = integer || strstr(values, "finite");
    double min = at_least ? atof(at_least + 2) : 0, v;
    int parsed = parse_number(s, &v);
    if (parsed < 0) return "is out of range";
    if (!parsed) return !*s ? "is empty" : "is not a number";
    if (finite && !isfinite(v)) return "is not finite";
    if (integer && v != floor(v)) return "is not an integer";
    if (v >= min || (!integer && !at_least)) return NULL;
    if (min == 0) return "is negative";
    snprintf(why, sizeof why, "is below %g", min);
    return why;
}

void ln_row_start(ln_csv_row *r, ln_schema s)
{
    if (ln_schema_count(s) > LN_ROW_MAX)
        ln_die("columns.def: %s has more than %d columns", ln_schemas[s].file, LN_ROW_MAX);
    memset(r, 0, sizeof *r);
    r->schema = s;
}

/* The cell of column c in r, after checking that c is r's schema's and of one of the kinds
 * [lo, hi]: a mismatch is a bug in a writer, caught on its first row. */
static size_t cell_of(ln_csv_row *r, ln_column c, ln_col_kind lo, ln_col_kind hi)
{
    const ln_column_info *col = &ln_columns[c];
    if (col->schema != r->schema || col->kind < lo || col->kind > hi)
        ln_die("%s.csv: column %s set as the wrong schema or kind", ln_schemas[r->schema].file, col->name);
    size_t i = c - ln_schema_first(r->schema);
    r->set[i] = 1;
    return i;
}

void ln_row_text(ln_csv_row *r, ln_column c, const char *s)
{
    r->v[cell_of(r, c, LN_COL_TEXT, LN_COL_QUOTED)].s = s ? s : "";
}

void ln_row_num(ln_csv_row *r, ln_column c, double v) { r->v[cell_of(r, c, LN_COL_G17, LN_COL_F3)].d = v; }

void ln_row_count(ln_csv_row *r, ln_column c, unsigned long long v)
{
    r->v[cell_of(r, c, LN_COL_UINT, LN_COL_UINT)].u = v;
}

void ln_row_empty(ln_csv_row *r, ln_column c)
{
    size_t i = cell_of(r, c, 0, LN_COL_F3);
    r->set[i] = 2;
}

static void quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void ln_row_write(FILE *f, const ln_csv_row *r)
{
    ln_column first = ln_schema_first(r->schema);
    size_t n = ln_schema_count(r->schema);
    for (size_t i = 0; i < n; i++) {
        const ln_column_info *col = &ln_columns[first + i];
        if (!r->set[i]) ln_die("%s.csv: a row left column %s unset", ln_schemas[r->schema].file, col->name);
        if (i) fputc(',', f);
        if (r->set[i] == 2) continue; /* empty */
        switch (col->kind) {
        case LN_COL_TEXT: ln_out_csv_field(f, r->v[i].s); break;
        case LN_COL_QUOTED: quoted(f, r->v[i].s); break;
        case LN_COL_UINT: fprintf(f, "%llu", r->v[i].u); break;
        case LN_COL_G17: fprintf(f, "%.17g", r->v[i].d); break;
        case LN_COL_G6: fprintf(f, "%.6g", r->v[i].d); break;
        case LN_COL_G: fprintf(f, "%g", r->v[i].d); break;
        case LN_COL_F3: fprintf(f, "%.3f", r->v[i].d); break;
        }
    }
    fputc('\n', f);
}

void ln_schema_write_header(FILE *f, ln_schema s)
{
    ln_column first = ln_schema_first(s);
    for (size_t i = 0; i < ln_schema_count(s); i++) fprintf(f, "%s%s", i ? "," : "", ln_columns[first + i].name);
    fputc('\n', f);
}
