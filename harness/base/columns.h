/* The result CSVs' schemas as tables (columns.def): the writers build each row by column
 * identifier and emit it in the table's order, the readers find columns by the same identifiers,
 * so a column's name is written in one place only. */
#ifndef LN_COLUMNS_H
#define LN_COLUMNS_H

#include <stddef.h>
#include <stdio.h>

typedef enum {
#define LN_SCHEMA(id, file, what) LN_SCHEMA_##id,
#include "columns.def"
    LN_SCHEMAS
} ln_schema;

/* LNC_<schema>_<name>: every column of every schema, schema by schema in file order. */
typedef enum {
#define LN_COLUMN(schema, name, kind, unit, values, description) LNC_##schema##_##name,
#include "columns.def"
    LN_COLUMNS
} ln_column;

/* A column's C type and printed form. TEXT: a string, quoted by CSV rules only when it holds a
 * comma, a quote or a line break (kernel names of plugins may); QUOTED: a string always quoted
 * (commands); UINT: an unsigned integer, %llu; G17: a double, %.17g (reads back exactly); G6,
 * G, F3: a double, %.6g (timings), %g, %.3f (seconds). An empty cell is any kind's "undefined"
 * (a probe's dist and eps). */
typedef enum { LN_COL_TEXT, LN_COL_QUOTED, LN_COL_UINT, LN_COL_G17, LN_COL_G6, LN_COL_G, LN_COL_F3 } ln_col_kind;

typedef struct {
    ln_schema schema;
    const char *name;
    ln_col_kind kind;
    const char *unit;   /* "" when dimensionless or text */
    const char *values; /* what a cell may hold beyond its kind (columns.def), "" for the kind's all */
    const char *description;
} ln_column_info;

typedef struct {
    const char *file; /* "accuracy", "bench", ...: the name `lnbench list --columns` takes */
    const char *what;
} ln_schema_info;

extern const ln_column_info ln_columns[LN_COLUMNS];
extern const ln_schema_info ln_schemas[LN_SCHEMAS];

/* The schema whose file is name ("accuracy", "bench", "hunt", "compare", with or without
 * ".csv"), or -1. */
int ln_schema_find(const char *name);
/* A schema's first column and how many it has (its columns are contiguous in the table). */
ln_column ln_schema_first(ln_schema s);
size_t ln_schema_count(ln_schema s);
const char *ln_col_kind_name(ln_col_kind k);
/* Why cell s may not stand in column c (its kind and values in columns.def): "is not a number",
 * "is empty", "is not one of pass|fail|outside|none", ...; NULL when it may. */
const char *ln_column_refusal(ln_column c, const char *s);

/* The most columns a schema may have (ln_row_start exits beyond it). */
#define LN_ROW_MAX 64

/* One row being built: every column must be given a value (or ln_row_empty) before
 * ln_row_write, which exits naming the column otherwise, so a column added to the table cannot
 * be left out of a file. */
typedef struct {
    ln_schema schema;
    unsigned char set[LN_ROW_MAX];
    union {
        const char *s;
        double d;
        unsigned long long u;
    } v[LN_ROW_MAX];
} ln_csv_row;

void ln_row_start(ln_csv_row *r, ln_schema s);
/* Setters, by the column's kind: text (TEXT, QUOTED), number (G17, G6, G, F3), count (UINT).
 * A column of another schema or kind is a programming error: they exit naming it. */
void ln_row_text(ln_csv_row *r, ln_column c, const char *s);
void ln_row_num(ln_csv_row *r, ln_column c, double v);
void ln_row_count(ln_csv_row *r, ln_column c, unsigned long long v);
void ln_row_empty(ln_csv_row *r, ln_column c);
void ln_row_write(FILE *f, const ln_csv_row *r);
/* The header line: the schema's names, comma-separated, newline-terminated. */
void ln_schema_write_header(FILE *f, ln_schema s);

#endif
