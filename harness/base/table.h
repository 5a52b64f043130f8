/* Result files as tables: a CSV with a header line, columns found by name (so a file may gain
 * columns without breaking its readers), and the flat JSON sidecars (FILE.meta.json). */
#ifndef LN_TABLE_H
#define LN_TABLE_H

#include <stddef.h>

#include "columns.h"

typedef struct {
    char *text;  /* the file, fields NUL-terminated in place */
    char **cell; /* (rows + 1) x cols, row 0 the header */
    size_t rows; /* data rows, header not counted */
    size_t cols;
} ln_table;

/* Reads path; quoted fields (with "" for a quote) are unquoted. Returns 0 (and an empty table)
 * if the file cannot be opened. Exits 2 naming the file, line and column on a row whose field
 * count differs from the header's, a repeated header line, or a column of columns.def holding a
 * value its kind and values there do not allow (the schema's whose names the header holds most):
 * not a number ("abc", "0x1p3", empty), a non-finite or overflowing value where it must be finite
 * ("1e999" as eps), one out of range (D = -768), or a word not among the column's (verdict
 * "maybe"). */
int ln_table_read(const char *path, ln_table *t);
/* The same from CSV text in memory (malloc'ed; the table owns it now); what names it in messages. */
void ln_table_parse(char *text, const char *what, ln_table *t);
void ln_table_free(ln_table *t);
/* Index of the column named name, -1 if the file has none. */
int ln_table_col(const ln_table *t, const char *name);
/* Index of column c (columns.def) in t, -1 if the file has none (one written before the column). */
int ln_table_column(const ln_table *t, ln_column c);
/* Data row r (0-based), column c; "" when c < 0 (an absent column). */
const char *ln_table_cell(const ln_table *t, size_t r, int c);
/* The cell as a number: NAN when empty, absent or not a number ("inf", "nan" as C prints them). */
double ln_table_num(const ln_table *t, size_t r, int c);

/* The string value of "key" in a flat JSON object file, one "key": value per line as lnbench
 * writes them (quotes and \" escapes removed); buf (of n bytes) is returned, "" if absent. */
const char *ln_meta_value(const char *path, const char *key, char *buf, size_t n);

#endif
