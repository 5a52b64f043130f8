/* lnbench summary: one line per kernel from a results folder's bench.csv and accuracy.csv (and
 * the op runs' files in its ops/), one block per operator: GB/s in cache and in memory, the fraction of the copy probe, and the
 * errors on the kernel's hardest distribution; then, when bench.csv has several thread counts,
 * how each kernel's GB/s scales with them. Columns are found by name (harness/base/table.c),
 * so either file may gain columns; rows of different ops or thread counts are never mixed. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kernel.h"
#include "merge.h"
#include "plugin.h"
#include "results.h"
#include "rows.h"
#include "table.h"
#include "verbs.h"
#include "views.h"

static const char summary_help[] =
    "usage: lnbench summary [DIR | --bench PATH --accuracy PATH]\n"
    "One block per operator (the op column; layernorm first), one line per kernel: median GB/s\n"
    "over D in the cache and memory regimes at the smallest thread count, 'of limit' (its memory\n"
    "GB/s over the op's limit there: the faster of probe-copy and probe-stream, or of their 16-bit\n"
    "twins for f16 and bf16, timed in the op's own run at the same size and thread count, named\n"
    "at the top of the block; results/README.md; '*' marks one above the probes), and mean / max\n"
    "ulp on the kernel's hardest distribution (the one with the largest max_norm over the cases\n"
    "whose input stayed ok, worst over D; inf when some output is non-finite where the reference\n"
    "is not), for the backward ops dgamma's and dbeta's max_norm there too, and the count of\n"
    "fail verdicts. When bench.csv has several thread counts (lnbench bench --threads 1,2), a\n"
    "scaling block: per kernel and regime the median GB/s at each count, its speedup over one\n"
    "thread and its fraction of the best probe at the same count.\n"
    "The probe block first: probe-copy, probe-stream and, when the run has 16-bit kernels,\n"
    "probe-copy-16, probe-stream-16 (their bw mem: bw_fraction, over probe-copy or probe-copy-16).\n"
    "  DIR               a results folder (default results): bench.csv and accuracy.csv with\n"
    "                    the op runs of make bench-ops beside them, ops/bench-OP.csv and\n"
    "                    ops/accuracy-OP.csv\n"
    "  --bench PATH      that file alone instead (the other one: results/bench.csv)\n"
    "  --accuracy PATH   that file alone instead (the other one: results/accuracy.csv)\n"
    "A missing file leaves its columns as '-'.\n";

static void print_number(double v, int width, int prec)
{
    if (isnan(v)) printf(" %*s", width, "-");
    else printf(" %*.*f", width, prec, v);
}

/* Fractions of the limit printed with a '*' above 1 (the limit is the faster streaming probe of
 * the run, not a ceiling), counted for the legend under the tables. */
static int above_probes;

static void print_of_limit(double f)
{
    if (f > 1) printf(" %7.2f*", f), above_probes++;
    else print_number(f, 8, 2);
}

static void print_ulp(double v)
{
    if (isnan(v)) printf(" %10s", "nan");
    else if (v >= 1e5 || (v > 0 && v < 0.01)) printf(" %10.3g", v);
    else printf(" %10.2f", v);
}

/* The streaming probes, fp32 and (beside 16-bit kernels) fp16: the rates the limits are. */
static void probe_lines(const ln_table *bench, int threads)
{
    printf("%-32s %10s %10s %7s\n", threads > 1 ? "probe (smallest thread count)" : "probe", "GB/s cache", "GB/s mem",
           "bw mem");
    const char *probes[] = {"probe-copy", "probe-stream", "probe-copy-16", "probe-stream-16"};
    for (int i = 0; i < 4; i++) {
        double cache = ln_median_where(bench, probes[i], "cache", threads, LNC_BENCH_gbps);
        double mem = ln_median_where(bench, probes[i], "memory", threads, LNC_BENCH_gbps);
        if (isnan(cache) && isnan(mem)) continue;
        printf("%-32s", probes[i]);
        print_number(cache, 10, 2);
        print_number(mem, 10, 2);
        print_number(ln_median_where(bench, probes[i], "memory", threads, LNC_BENCH_bw_fraction), 7, 2);
        putchar('\n');
    }
}

/* One block: the kernels of op in registry order, then those the files name that this build lacks. */
/* The dtype column of a kernel's first row, "f32" when it has none. */
static const char *dtype_of(const ln_table *bench, const char *kernel)
{
    int ck = ln_table_column(bench, LNC_BENCH_kernel), cd = ln_table_column(bench, LNC_BENCH_dtype);
    for (size_t r = 0; r < bench->rows; r++)
        if (!strcmp(ln_table_cell(bench, r, ck), kernel) && *ln_table_cell(bench, r, cd))
            return ln_table_cell(bench, r, cd);
    return "f32";
}

static void op_block(const char *dir, const ln_table *bench, const ln_table *acc, const char *op, int threads)
{
    int backward = ln_backward_op(op);
    char counted[256], uncounted[256];
    ln_op_bytes_text(op, ln_untimed_given(bench, op), counted, uncounted, sizeof counted);
    printf("\n%s (%s)%s\nbytes: %s; not counted: %s\n", ln_op_title(op), op,
           backward ? ": ulp and nonfinite of dx" : "", counted, uncounted);
    for (int w = 0; w < 2; w++) {
        const char *probe = NULL;
        double bytes = NAN, limit = ln_run_limit(dir, bench, op, "memory", threads, w ? "f16" : "f32", &probe, &bytes);
        char size[32];
        if (!isnan(limit) && (!w || (probe && strstr(probe, "-16"))))
            printf("limit, memory, %s storage, %d thread%s: %.3g GB/s (%s at %s, %s's own run)\n",
                   w ? "16-bit" : "32-bit", threads, threads == 1 ? "" : "s", limit, probe,
                   ln_size_label(bytes, size, sizeof size), op);
    }
    printf("%-32s %10s %10s %8s  %-16s %10s %10s", "kernel", "GB/s cache", "GB/s mem", "of limit", "hardest dist",
           "mean ulp", "max ulp");
    if (backward) printf(" %10s %10s", "dgamma", "dbeta");
    printf(" %9s %5s\n", "nonfinite", "fails");
    const char *names[512];
    size_t n = 0;
    for (size_t i = 0; i < ln_kernel_count(); i++)
        if (!strcmp(ln_op_name(ln_kernel_at(i)->op), op)) ln_add_unique(names, &n, 512, ln_kernel_at(i)->name);
    const ln_table *files[2] = {bench, acc};
    for (int f = 0; f < 2; f++) {
        int ck = ln_table_column(files[f], LNC_ACC_kernel); /* bench.csv's has the same name */
        for (size_t r = 0; r < files[f]->rows; r++)
            if (!strcmp(ln_row_op(files[f], r), op)) ln_add_unique(names, &n, 512, ln_table_cell(files[f], r, ck));
    }
    for (size_t i = 0; i < n; i++) {
        double cache = ln_median_where(bench, names[i], "cache", threads, LNC_BENCH_gbps);
        double mem = ln_median_where(bench, names[i], "memory", threads, LNC_BENCH_gbps);
        ln_hardest h;
        int have_errors = ln_hardest_dist(acc, names[i], LNC_ACC_max_norm, &h); /* the report's rule too */
        if (isnan(cache) && isnan(mem) && !have_errors) continue;
        printf("%-32s", names[i]);
        print_number(cache, 10, 2);
        print_number(mem, 10, 2);
        print_of_limit(mem / ln_run_limit(dir, bench, op, "memory", threads, dtype_of(bench, names[i]), NULL, NULL));
        if (!have_errors) {
            printf("  %-16s %10s %10s%s %9s %5s\n", "-", "-", "-", backward ? "          -          -" : "", "-", "-");
            continue;
        }
        printf("  %-16s", h.dist);
        print_ulp(h.mean_ulp);
        print_ulp(h.max_ulp);
        if (backward) print_ulp(h.dgamma_norm), print_ulp(h.dbeta_norm);
        printf(" %9.0f", h.nonfinite);
        if (isnan(h.fails)) printf(" %5s\n", "-");
        else printf(" %5.0f\n", h.fails);
    }
}

static void scaling_block(const ln_table *bench)
{
    ln_scaling s[256];
    size_t n = ln_scaling_rows(bench, s, 256);
    if (!n) return;
    printf("\nScaling with threads: median GB/s over D, x = speedup over 1 thread, of probe = fraction of\n"
           "the best probe at the same thread count and regime\n");
    printf("%-32s %-7s %7s %9s %6s %8s\n", "kernel", "regime", "threads", "GB/s", "x", "of probe");
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < s[i].n; j++) {
            printf("%-32s %-7s %7d", j ? "" : s[i].kernel, j ? "" : s[i].regime, s[i].threads[j]);
            print_number(s[i].gbps[j], 9, 2);
            print_number(s[i].speedup[j], 6, 2);
            print_of_limit(s[i].of_limit[j]);
            putchar('\n');
        }
}

int cmd_summary(int argc, char **argv)
{
    static const struct option opts[] = {{"bench", required_argument, 0, 'b'},
                                         {"accuracy", required_argument, 0, 'a'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *bench_path = NULL, *acc_path = NULL, *dir = "results";
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 'b') bench_path = optarg;
        else if (c == 'a') acc_path = optarg;
        else if (c == 'h') return fputs(summary_help, stdout), 0;
        else ln_die_usage("summary: see 'lnbench summary --help'");
    }
    if (optind < argc) {
        if (bench_path || acc_path) ln_die_usage("summary: a results folder or --bench/--accuracy files, not both");
        dir = argv[optind++];
    }
    if (optind < argc) ln_die_usage("summary: unexpected argument '%s'", argv[optind]);
    ln_table bench, acc;
    int have_bench, have_acc;
    char files[4096] = "";
    if (bench_path || acc_path) {
        if (!bench_path) bench_path = "results/bench.csv";
        if (!acc_path) acc_path = "results/accuracy.csv";
        have_bench = ln_table_read(bench_path, &bench), have_acc = ln_table_read(acc_path, &acc);
        snprintf(files, sizeof files, "%s%s%s%s%s", have_bench ? bench_path : "",
                 have_bench ? " (+ .meta.json, JSON beside it)" : "", have_bench && have_acc ? ", " : "",
                 have_acc ? acc_path : "", have_acc ? " (+ .meta.json)" : "");
    } else {
        have_bench = ln_merge_folder(dir, "bench.csv", &bench), have_acc = ln_merge_folder(dir, "accuracy.csv", &acc);
        const char *names[2] = {"bench.csv", "accuracy.csv"};
        for (int k = 0; k < 2; k++) {
            char *paths[64];
            size_t n = ln_results_files(dir, names[k], paths, 64);
            for (size_t i = 0; i < n; i++) {
                size_t len = strlen(files);
                snprintf(files + len, sizeof files - len, "%s%s", len ? ", " : "", paths[i]);
                free(paths[i]);
            }
        }
    }
    if (!have_bench && !have_acc)
        ln_die("summary: no bench.csv nor accuracy.csv to read in %s; run lnbench bench / accuracy first",
               bench_path || acc_path ? "the files given" : dir);
    int threads[LN_MAX_THREAD_COUNTS] = {1};
    ln_table_threads(&bench, threads, LN_MAX_THREAD_COUNTS);
    const char *ops[LN_MAX_OPS];
    size_t nops = 0;
    ln_collect_ops(&bench, ops, &nops);
    ln_collect_ops(&acc, ops, &nops);

    char emulated[2048], emulator[64];
    if (!(bench_path || acc_path) && ln_run_emulated(dir, emulated, sizeof emulated, emulator, sizeof emulator))
        printf("warning: timed under an emulator (%s): %s; its timings mean nothing, the accuracy stands\n", emulator,
               emulated);
    if (have_bench) {
        probe_lines(&bench, threads[0]);
    }
    for (size_t i = 0; i < nops; i++) op_block(bench_path || acc_path ? NULL : dir, &bench, &acc, ops[i], threads[0]);
    scaling_block(&bench);
    printf("\nGB/s: 1e9 bytes/s of the bytes each op's block names, "
           "median over D and repetitions at %d thread%s; of limit: GB/s mem over the op's limit\n"
           "named above its block (one definition: results/README.md). ulp: on each\n"
           "kernel's hardest distribution (largest max_norm, input ok, as in the report), worst over D and eps; "
           "dgamma, dbeta:\n"
           "their max_norm (u) there; nonfinite: NaN/Inf outputs where the reference is finite (or the\n"
           "reverse), all cases; a case with any has max ulp inf. fails: cases whose verdict is fail\n"
           "(results/README.md).\n",
           threads[0], threads[0] == 1 ? "" : "s");
    if (above_probes)
        printf("*: above the probes. The limit is the faster of the two streaming probes of the same run, not a\n"
               "ceiling: a kernel that overlaps its reads and writes better than a plain copy beats it\n"
               "(results/README.md).\n");
    printf("files: %s\n", files);
    ln_table_free(&bench), ln_table_free(&acc);
    return 0;
}
