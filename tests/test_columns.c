/* The result schemas of harness/base/columns.def: results/README.md documents exactly the
 * table's columns (a column added to one and not the other fails here); each schema's columns are
 * contiguous and uniquely named; a row written by the table reads back through ln_table_column,
 * every kind in its printed form; rows missing a column or setting one of the wrong kind are
 * refused. Run from the repository root (make test). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "columns.h"
#include "table.h"
#include "sh.h"

/* The column names of the first "| column | meaning |" table after the heading that names
 * FILE.csv in results/README.md; a row may list several, comma-separated, in backquotes or not. */
static size_t readme_columns(const char *readme, const char *file, char names[][64], size_t max)
{
    char want[64];
    snprintf(want, sizeof want, "%s.csv", file);
    const char *h = readme;
    for (;;) { /* the section whose heading names the file */
        h = strstr(h, "\n## ");
        assert_non_null(h);
        const char *eol = strchr(h + 1, '\n'), *hit = strstr(h, want);
        if (hit && hit < eol) break;
        h = eol;
    }
    const char *next = strstr(h + 1, "\n## ");
    const char *t = strstr(h, "\n| column | meaning |\n");
    assert_non_null(t);
    assert_true(!next || t < next); /* the table is in that section */
    t = strchr(t + 1, '\n') + 1;    /* the header */
    t = strchr(t, '\n') + 1;        /* the |---| line */
    size_t n = 0;
    while (*t == '|') {
        const char *end = strstr(t + 1, " |");
        assert_non_null(end);
        const char *p = t + 1;
        while (p < end) {
            while (p < end && (*p == ' ' || *p == ',' || *p == '`')) p++;
            const char *q = p;
            while (q < end && *q != ',' && *q != '`' && *q != ' ') q++;
            if (q > p) {
                assert_true(n < max);
                snprintf(names[n++], 64, "%.*s", (int)(q - p), p);
            }
            p = q;
        }
        t = strchr(t, '\n') + 1;
    }
    return n;
}

static void test_readme_documents_every_column(void **state)
{
    (void)state;
    char *readme = slurp_file("results/README.md", NULL);
    assert_non_null(readme);
    for (int s = 0; s < LN_SCHEMAS; s++) {
        char names[LN_ROW_MAX * 2][64];
        size_t n = readme_columns(readme, ln_schemas[s].file, names, LN_ROW_MAX * 2);
        ln_column first = ln_schema_first((ln_schema)s);
        size_t count = ln_schema_count((ln_schema)s);
        for (size_t i = 0; i < n; i++) { /* documented: in the table, once */
            size_t c = 0;
            while (c < count && strcmp(ln_columns[first + c].name, names[i])) c++;
            if (c == count)
                fail_msg("results/README.md documents %s.csv column %s, not in columns.def", ln_schemas[s].file,
                         names[i]);
            for (size_t j = 0; j < i; j++)
                if (!strcmp(names[j], names[i]))
                    fail_msg("%s.csv: column %s documented twice", ln_schemas[s].file, names[i]);
        }
        for (size_t c = 0; c < count; c++) { /* in the table: documented */
            size_t i = 0;
            while (i < n && strcmp(ln_columns[first + c].name, names[i])) i++;
            if (i == n)
                fail_msg("columns.def's %s.csv column %s is not in results/README.md", ln_schemas[s].file,
                         ln_columns[first + c].name);
        }
    }
    free(readme);
}

/* Each schema's columns contiguous (rows index them from the first), names unique within a
 * schema, and kernel and op in every schema: the readers that take any result file find those
 * two by one identifier. */
static void test_table_shape(void **state)
{
    (void)state;
    size_t total = 0;
    for (int s = 0; s < LN_SCHEMAS; s++) {
        ln_column first = ln_schema_first((ln_schema)s);
        size_t count = ln_schema_count((ln_schema)s);
        assert_true(count > 0 && count <= LN_ROW_MAX);
        int kernel = 0, op = 0;
        for (size_t c = 0; c < count; c++) {
            assert_int_equal(ln_columns[first + c].schema, s);
            assert_non_null(ln_columns[first + c].description);
            assert_true(*ln_columns[first + c].description);
            for (size_t d = 0; d < c; d++)
                assert_string_not_equal(ln_columns[first + c].name, ln_columns[first + d].name);
            kernel |= !strcmp(ln_columns[first + c].name, "kernel");
            op |= !strcmp(ln_columns[first + c].name, "op");
        }
        assert_true(kernel && op);
        assert_int_equal(ln_schema_find(ln_schemas[s].file), s);
        total += count;
    }
    assert_int_equal(total, LN_COLUMNS);
    assert_int_equal(ln_schema_find("bench.csv"), LN_SCHEMA_BENCH);
    assert_int_equal(ln_schema_find("no-such-file"), -1);
}

/* A value per column, by kind, that tells the columns apart: text "t<i>" (with a comma and a
 * quote in column 0, which must come back unquoted), count 1000 + i, number i + 1/3 (in %.17g,
 * exact; in the other forms, to their precision). */
static void fill(ln_csv_row *r, ln_schema s, char text[][32])
{
    ln_column first = ln_schema_first(s);
    ln_row_start(r, s);
    for (size_t i = 0; i < ln_schema_count(s); i++) {
        ln_column c = (ln_column)(first + i);
        switch (ln_columns[c].kind) {
        case LN_COL_TEXT:
        case LN_COL_QUOTED: /* one of the column's words, where columns.def lists them */
            if (*ln_columns[c].values)
                snprintf(text[i], 32, "%.*s", (int)strcspn(ln_columns[c].values, "|"), ln_columns[c].values);
            else snprintf(text[i], 32, i == 0 ? "t%zu,\"x\"" : "t%zu", i);
            ln_row_text(r, c, text[i]);
            break;
        case LN_COL_UINT: ln_row_count(r, c, 1000 + i); break;
        default: ln_row_num(r, c, (double)i + 1.0 / 3); break;
        }
    }
}

static void test_rows_read_back(void **state)
{
    (void)state;
    for (int s = 0; s < LN_SCHEMAS; s++) {
        char *buf = NULL, text[LN_ROW_MAX][32];
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        assert_non_null(f);
        ln_csv_row r;
        ln_schema_write_header(f, (ln_schema)s);
        fill(&r, (ln_schema)s, text);
        ln_row_write(f, &r);
        fclose(f);
        ln_table t;
        ln_table_parse(buf, "test", &t); /* the table owns buf now */
        assert_int_equal(t.rows, 1);
        ln_column first = ln_schema_first((ln_schema)s);
        size_t count = ln_schema_count((ln_schema)s);
        assert_int_equal(t.cols, count);
        for (size_t i = 0; i < count; i++) {
            ln_column c = (ln_column)(first + i);
            int col = ln_table_column(&t, c);
            assert_int_equal(col, (int)i);
            double want = (double)i + 1.0 / 3;
            switch (ln_columns[c].kind) {
            case LN_COL_TEXT:
            case LN_COL_QUOTED: assert_string_equal(ln_table_cell(&t, 0, col), text[i]); break;
            case LN_COL_UINT: assert_float_equal(ln_table_num(&t, 0, col), 1000 + i, 0); break;
            case LN_COL_G17: assert_true(ln_table_num(&t, 0, col) == want); break;
            case LN_COL_G6:
            case LN_COL_G: assert_float_equal(ln_table_num(&t, 0, col), want, 1e-5 * want); break;
            case LN_COL_F3: assert_float_equal(ln_table_num(&t, 0, col), want, 0.0005); break;
            }
        }
        ln_table_free(&t);
    }
}

/* Quoting and the empty cell, byte for byte: a QUOTED column always in quotes, a TEXT one only
 * when it must be, an empty cell nothing between its commas. */
static void test_printed_forms(void **state)
{
    (void)state;
    char *buf = NULL, text[LN_ROW_MAX][32];
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ln_csv_row r;
    fill(&r, LN_SCHEMA_HUNT, text);
    ln_row_text(&r, LNC_HUNT_kernel, "plain");
    ln_row_text(&r, LNC_HUNT_repro, "lnbench accuracy --kernels \"k\"");
    ln_row_write(f, &r);
    fill(&r, LN_SCHEMA_BENCH, text);
    ln_row_empty(&r, LNC_BENCH_eps);
    ln_row_num(&r, LNC_BENCH_gbps, 12.3456789);
    ln_row_write(f, &r);
    fclose(f);
    assert_true(!strncmp(buf, "plain,", 6));
    assert_non_null(strstr(buf, ",\"lnbench accuracy --kernels \"\"k\"\"\","));
    char *bench = strchr(buf, '\n') + 1;
    assert_non_null(strstr(bench, ",t6,,1008,"));          /* dist, eps empty, threads */
    assert_non_null(strstr(bench, ",12.3457,"));           /* gbps in %.6g */
    assert_true(!strncmp(bench, "\"t0,\"\"x\"\"\",", 11)); /* a kernel name with a comma and a quote */
    free(buf);
}

/* A row that leaves a column out, or sets one of another schema or kind, ends the program
 * (status 2 or 1: a writer's bug must not write a file with a column shifted). */
static int exits_nonzero(void (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        freopen("/dev/null", "w", stderr);
        fn();
        _exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) != 0;
}

static void leave_one_out(void)
{
    char text[LN_ROW_MAX][32];
    ln_csv_row r;
    fill(&r, LN_SCHEMA_ACC, text);
    r.set[LNC_ACC_failed_on - ln_schema_first(LN_SCHEMA_ACC)] = 0;
    FILE *f = fopen("/dev/null", "w");
    ln_row_write(f, &r);
}

static void wrong_schema(void)
{
    ln_csv_row r;
    ln_row_start(&r, LN_SCHEMA_ACC);
    ln_row_text(&r, LNC_BENCH_kernel, "k");
}

static void wrong_kind(void)
{
    ln_csv_row r;
    ln_row_start(&r, LN_SCHEMA_ACC);
    ln_row_num(&r, LNC_ACC_D, 768);
}

static void test_incomplete_rows_refused(void **state)
{
    (void)state;
    assert_true(exits_nonzero(leave_one_out));
    assert_true(exits_nonzero(wrong_schema));
    assert_true(exits_nonzero(wrong_kind));
}

/* What ln_table_parse says of text on stderr, and whether it exited 2; "" when it accepted it. */
static int parse_refusal(const char *text, char *msg, size_t n)
{
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 2);
        ln_table t;
        ln_table_parse(strdup(text), "bad.csv", &t);
        _exit(0);
    }
    close(fd[1]);
    size_t len = 0;
    ssize_t got;
    while (len + 1 < n && (got = read(fd[0], msg + len, n - 1 - len)) > 0) len += (size_t)got; /* to EOF */
    msg[len] = 0;
    close(fd[0]);
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* A cell that columns.def's kind and values for its column refuse is refused naming the column,
 * by the values of the file's own schema: "same" is a compare.csv verdict, not an accuracy one. */
static void test_bad_values_refused_by_column(void **state)
{
    (void)state;
    char msg[512];
    static const struct {
        const char *csv, *says;
    } bad[] = {
        {"kernel,dtype,D,verdict,max_ulp\nk,f32,768,same,1.5\n", "line 2, column 4 (verdict): 'same' is not one of "
                                                                 "pass|fail|outside|none"},
        {"kernel,dtype,D,verdict,max_ulp\nk,f32,768,pass,1.5\nk,f32,0,pass,2\n",
         "line 3, column 3 (D): '0' is below 1"},
        {"kernel,regime,gbps,threads\nk,disk,3.5,1\n", "column 2 (regime): 'disk' is not one of cache|mixed|memory"},
        {"kernel,regime,gbps,threads\nk,cache,3.5,1.5\n", "column 4 (threads): '1.5' is not an integer"},
        {"kernel,benchmark,verdict,p_value\nk,k/D:768,pass,0.1\n", "column 3 (verdict): 'pass' is not one of slower|"},
        {"kernel,benchmark,verdict,p_value\nk,k/D:768,same,\n", "column 4 (p_value): '' is empty"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(parse_refusal(bad[i].csv, msg, sizeof msg), 2);
        if (!strstr(msg, bad[i].says)) fail_msg("%s: said '%s', not '%s'", bad[i].csv, msg, bad[i].says);
    }
    /* the same words where the schema allows them */
    assert_int_equal(parse_refusal("kernel,benchmark,verdict,p_value\nk,k/D:768,same,0.1\n", msg, sizeof msg), 0);
    assert_int_equal(parse_refusal("kernel,dtype,D,verdict,max_ulp\nk,f32,768,outside,nan\n", msg, sizeof msg), 0);
    assert_string_equal(msg, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_readme_documents_every_column),
        cmocka_unit_test(test_table_shape),
        cmocka_unit_test(test_rows_read_back),
        cmocka_unit_test(test_printed_forms),
        cmocka_unit_test(test_incomplete_rows_refused),
        cmocka_unit_test(test_bad_values_refused_by_column),
    };
    (void)sh; /* sh.h's, unused here */
    return cmocka_run_group_tests(tests, NULL, NULL);
}
