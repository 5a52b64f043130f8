/* lnbench summary: one line per kernel from results/bench.csv and results/accuracy.csv:
 * GB/s in cache and in memory, the fraction of the copy probe, and the errors on the kernel's
 * hardest distribution. Columns are found by name, so either file may gain columns. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kernel.h"
#include "plugin.h"
#include "verbs.h"

static const char summary_help[] =
    "usage: lnbench summary [--bench PATH] [--accuracy PATH]\n"
    "One line per kernel: median GB/s over D in the cache and memory regimes, bw_fraction\n"
    "(its GB/s over the probe-copy GB/s at the same size, memory regime), and mean / max ulp\n"
    "on the kernel's hardest distribution (the one with the largest max_ulp, worst over D; inf\n"
    "when some output is non-finite where the reference is not), and the count of fail verdicts.\n"
    "  --bench PATH      default results/bench.csv\n"
    "  --accuracy PATH   default results/accuracy.csv\n"
    "A missing file leaves its columns as '-'.\n";

typedef struct {
    char *text;  /* the file, fields NUL-terminated in place */
    char **cell; /* rows x cols, row 0 the header */
    size_t rows, cols;
} table;

/* Reads a CSV with a header; quoted fields (with "" for a quote) are unquoted. Returns 0 if
 * the file cannot be opened. */
static int read_csv(const char *path, table *t)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t cap = 1 << 16, len = 0, n;
    t->text = malloc(cap);
    while (t->text && (n = fread(t->text + len, 1, cap - len - 1, f)) > 0)
        if ((len += n) + 1 == cap) t->text = realloc(t->text, cap *= 2);
    fclose(f);
    if (!t->text) ln_die("out of memory");
    t->text[len] = 0;
    size_t ncell = 0, cellcap = 1024;
    t->cell = malloc(cellcap * sizeof *t->cell);
    size_t fields_in_row = 0;
    for (char *p = t->text, *w = p; *p;) {
        char *start = w;
        if (*p == '"') {
            for (p++; *p && !(*p == '"' && p[1] != '"'); p++) *w++ = *p == '"' ? *++p : *p;
            if (*p) p++;
        }
        while (*p && *p != ',' && *p != '\n' && *p != '\r') *w++ = *p++;
        char end = *p;
        if (ncell == cellcap) t->cell = realloc(t->cell, (cellcap *= 2) * sizeof *t->cell);
        if (!t->cell) ln_die("out of memory");
        t->cell[ncell++] = start;
        fields_in_row++;
        if (*p == '\r') p++;
        if (*p) p++;
        *w = 0;
        w = p;
        if (end != ',') {
            if (t->rows == 0) t->cols = fields_in_row;
            if (fields_in_row != t->cols)
                ln_die("%s: row %zu has %zu fields, the header %zu", path, t->rows, fields_in_row, t->cols);
            t->rows++;
            fields_in_row = 0;
        }
    }
    return 1;
}

/* The index of column `name`, or -1. */
static int column_or_none(const table *t, const char *name)
{
    for (size_t c = 0; c < t->cols; c++)
        if (!strcmp(t->cell[c], name)) return (int)c;
    return -1;
}

static int column(const table *t, const char *name, const char *path)
{
    int c = column_or_none(t, name);
    if (c < 0) ln_die("%s has no column '%s'", path, name);
    return c;
}

static const char *cell(const table *t, size_t r, int c) { return t->cell[r * t->cols + (size_t)c]; }

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of column `value` over the rows of kernel `name` in regime `regime`; NaN if none. */
static double median_of(const table *t, const char *path, const char *name, const char *regime, const char *value)
{
    if (!t->rows) return NAN;
    int ck = column(t, "kernel", path), cr = column(t, "regime", path), cv = column(t, value, path);
    double *v = malloc(t->rows * sizeof *v);
    if (!v) ln_die("out of memory");
    size_t n = 0;
    for (size_t r = 1; r < t->rows; r++)
        if (!strcmp(cell(t, r, ck), name) && !strcmp(cell(t, r, cr), regime)) {
            double x = strtod(cell(t, r, cv), NULL);
            if (!isnan(x)) v[n++] = x;
        }
    qsort(v, n, sizeof *v, cmp_double);
    double m = n == 0 ? NAN : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    free(v);
    return m;
}

typedef struct {
    const char *dist;
    double max_ulp, mean_ulp;
    double nonfinite; /* over every distribution */
    double fails;     /* cases whose verdict is fail; NaN when the file has no verdict column */
} hardest;

/* The kernel's hardest distribution: the largest max_ulp over its rows (NaN, which means no
 * finite output to measure, is passed over unless nothing else is there; a row with non-finite
 * outputs counts as Inf, also in files written before max_ulp said so itself); on it, the
 * worst mean_ulp over D and eps. Non-finite outputs and fail verdicts are counted over every
 * row of the kernel. */
static int hardest_dist(const table *t, const char *path, const char *name, hardest *h)
{
    if (!t->rows) return 0;
    int ck = column(t, "kernel", path), cd = column(t, "dist", path), cmax = column(t, "max_ulp", path),
        cmean = column(t, "mean_ulp", path), cnf = column(t, "nonfinite", path);
    int found = 0, cv = column_or_none(t, "verdict");
    *h = (hardest){.dist = "", .max_ulp = NAN, .mean_ulp = NAN, .fails = cv < 0 ? NAN : 0};
    for (size_t r = 1; r < t->rows; r++) {
        if (strcmp(cell(t, r, ck), name)) continue;
        double mx = strtod(cell(t, r, cmax), NULL), nf = strtod(cell(t, r, cnf), NULL);
        if (nf > 0) mx = INFINITY;
        h->nonfinite += nf;
        if (cv >= 0) h->fails += !strcmp(cell(t, r, cv), "fail");
        if (!found || (!isnan(mx) && !(mx <= h->max_ulp))) h->dist = cell(t, r, cd), h->max_ulp = mx;
        found = 1;
    }
    if (!found) return 0;
    for (size_t r = 1; r < t->rows; r++) {
        if (strcmp(cell(t, r, ck), name) || strcmp(cell(t, r, cd), h->dist)) continue;
        double m = strtod(cell(t, r, cmean), NULL);
        if (!isnan(m) && !(m <= h->mean_ulp)) h->mean_ulp = m;
    }
    return 1;
}

static void print_number(double v, int width, int prec)
{
    if (isnan(v)) printf(" %*s", width, "-");
    else printf(" %*.*f", width, prec, v);
}

static void print_ulp(double v)
{
    if (isnan(v)) printf(" %10s", "nan");
    else if (v >= 1e5 || (v > 0 && v < 0.01)) printf(" %10.3g", v);
    else printf(" %10.2f", v);
}

int cmd_summary(int argc, char **argv)
{
    static const struct option opts[] = {{"bench", required_argument, 0, 'b'},
                                         {"accuracy", required_argument, 0, 'a'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *bench_path = "results/bench.csv", *acc_path = "results/accuracy.csv";
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 'b') bench_path = optarg;
        else if (c == 'a') acc_path = optarg;
        else if (c == 'h') return fputs(summary_help, stdout), 0;
        else ln_die_usage("summary: see 'lnbench summary --help'");
    }
    if (optind < argc) ln_die_usage("summary: unexpected argument '%s'", argv[optind]);
    table bench, acc;
    int have_bench = read_csv(bench_path, &bench), have_acc = read_csv(acc_path, &acc);
    if (!have_bench && !have_acc)
        ln_die("summary: neither %s nor %s can be read; run lnbench bench / accuracy first", bench_path, acc_path);

    printf("%-32s %10s %10s %7s  %-16s %10s %10s %9s %5s\n", "kernel", "GB/s cache", "GB/s mem", "bw mem",
           "hardest dist", "mean ulp", "max ulp", "nonfinite", "fails");
    const char *probes[] = {"probe-copy", "probe-stream"};
    for (int i = 0; i < 2; i++) {
        double cache = median_of(&bench, bench_path, probes[i], "cache", "gbps");
        double mem = median_of(&bench, bench_path, probes[i], "memory", "gbps");
        if (isnan(cache) && isnan(mem)) continue;
        printf("%-32s", probes[i]);
        print_number(cache, 10, 2);
        print_number(mem, 10, 2);
        print_number(median_of(&bench, bench_path, probes[i], "memory", "bw_fraction"), 7, 2);
        putchar('\n');
    }
    for (size_t i = 0; i < ln_kernel_count(); i++) {
        const char *name = ln_kernel_at(i)->name;
        double cache = median_of(&bench, bench_path, name, "cache", "gbps");
        double mem = median_of(&bench, bench_path, name, "memory", "gbps");
        hardest h;
        int have_errors = hardest_dist(&acc, acc_path, name, &h);
        if (isnan(cache) && isnan(mem) && !have_errors) continue;
        printf("%-32s", name);
        print_number(cache, 10, 2);
        print_number(mem, 10, 2);
        print_number(median_of(&bench, bench_path, name, "memory", "bw_fraction"), 7, 2);
        if (have_errors) {
            printf("  %-16s", h.dist);
            print_ulp(h.mean_ulp);
            print_ulp(h.max_ulp);
            printf(" %9.0f", h.nonfinite);
            if (isnan(h.fails)) printf(" %5s\n", "-");
            else printf(" %5.0f\n", h.fails);
        } else {
            printf("  %-16s %10s %10s %9s %5s\n", "-", "-", "-", "-", "-");
        }
    }
    printf("\nGB/s: 1e9 bytes/s of x read + y written (gamma, beta not counted), median over D and\n"
           "repetitions; bw mem: fraction of the probe-copy rate at the same size (memory regime).\n"
           "ulp: on each kernel's hardest distribution (largest max_ulp), worst over D and eps;\n"
           "nonfinite: NaN/Inf outputs where the reference is finite (or the reverse), all cases;\n"
           "a case with any has max ulp inf. fails: cases whose verdict is fail (results/README.md).\n");
    printf("files: %s%s%s%s%s\n", have_bench ? bench_path : "", have_bench ? " (+ .meta.json, JSON beside it)" : "",
           have_bench && have_acc ? ", " : "", have_acc ? acc_path : "", have_acc ? " (+ .meta.json)" : "");
    free(bench.text), free(bench.cell), free(acc.text), free(acc.cell);
    return 0;
}
