/* The report and compare verbs on the hand-made results in tests/fixtures/: the Mann-Whitney
 * p-values against exact enumeration, the report opening with the verdicts, never blaming or
 * crowning a kernel on a degenerate input, never showing a finite error for a kernel with
 * non-finite outputs, degrading without verdict columns; compare's exit status on identical
 * runs, a 20% slowdown (of a LayerNorm kernel, or of an op run's kernel in results/ops/) and runs
 * from another CPU. Run from the repository root (make test). */
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

#include "rows.h"
#include "stats.h"
#include "table.h"
#include "views.h"
#include "sh.h"
#include "tmpdir.h"

static const char *lnbench;

static char *slurp(const char *path) { return slurp_file(path, NULL); }

/* The p-values of scipy.stats.mannwhitneyu(method="exact"), checked by enumerating every
 * split of the pooled sample; with ties, the normal approximation with tie and continuity
 * corrections. */
static void test_mann_whitney(void **state)
{
    (void)state;
    const double a[] = {1, 2, 3, 4, 5}, b[] = {6, 7, 8, 9, 10};
    assert_float_equal(ln_mann_whitney_p(a, 5, b, 5), 2.0 / 252, 1e-12);
    assert_float_equal(ln_mann_whitney_p(b, 5, a, 5), 2.0 / 252, 1e-12);
    const double c[] = {1, 2, 3, 4, 5, 11};
    assert_float_equal(ln_mann_whitney_p(c, 6, b, 5), 0.08225108225108226, 1e-12);
    const double d[] = {1.0, 2.5, 3.1}, e[] = {1.5, 2.0, 4.0, 5.0};
    assert_float_equal(ln_mann_whitney_p(d, 3, e, 4), 0.6285714285714286, 1e-12);
    const double t1[] = {1, 2, 2, 3, 4}, t2[] = {3, 5, 6, 6, 7};
    assert_float_equal(ln_mann_whitney_p(t1, 5, t2, 5), 0.026856695507524425, 1e-9);
    assert_float_equal(ln_mann_whitney_p(a, 5, a, 5), 1.0, 1e-12);
    double m[] = {3, 1, 2, 4};
    assert_float_equal(ln_median(m, 4), 2.5, 0);
}

static void test_table_reader(void **state)
{
    (void)state;
    ln_table t;
    assert_int_equal(ln_table_read("tests/fixtures/accuracy.csv", &t), 1);
    int ck = ln_table_col(&t, "kernel"), cv = ln_table_col(&t, "verdict");
    assert_true(ck >= 0 && cv >= 0);
    assert_int_equal(ln_table_col(&t, "no-such-column"), -1);
    assert_string_equal(ln_table_cell(&t, 0, ck), "f32-naive-scalar");
    assert_string_equal(ln_table_cell(&t, 0, -1), "");
    assert_true(isnan(ln_table_num(&t, 0, -1)));
    assert_true(t.rows > 100);
    ln_table_free(&t);
    assert_int_equal(ln_table_read("tests/fixtures/no-such-file.csv", &t), 0);
    char buf[128];
    assert_string_equal(ln_meta_value("tests/fixtures/bench.csv.meta.json", "git_commit", buf, sizeof buf), "3312996");
    assert_string_equal(ln_meta_value("tests/fixtures/bench.csv.meta.json", "cores", buf, sizeof buf), "2");
}

static char *report_of(const char *dir)
{
    if (sh("'%s' report %s >%s/out 2>&1", lnbench, dir, dir) != 0) return sh("cat %s/out", dir), NULL;
    char p[512];
    snprintf(p, sizeof p, "%s/REPORT.md", dir);
    return slurp(p);
}

/* The report of a results folder made in test_dir/sub by the shell command prepare, in which
 * every %1$s is test_dir/sub. */
static char *report_of_prepared(const char *sub, const char *prepare)
{
    char d[256], cmd[1024];
    snprintf(d, sizeof d, "%s/%s", test_dir, sub);
    snprintf(cmd, sizeof cmd, prepare, d);
    if (sh("mkdir -p %s && %s", d, cmd) != 0) return NULL;
    return report_of(d);
}

/* The same for a copy of tests/fixtures' results changed by the shell command then. */
static char *report_of_changed_fixtures(const char *sub, const char *then)
{
    char prepare[1024];
    snprintf(prepare, sizeof prepare, "cp tests/fixtures/*.csv tests/fixtures/*.meta.json %%1$s/ && %s", then);
    return report_of_prepared(sub, prepare);
}

/* A results file timed under an emulator: the report says so at the top (REPORT.md and
 * report.html, before the first answer) and the summary on its first line; a native run does
 * not. */
static void test_emulated_run_is_said_first(void **state)
{
    (void)state;
    char *md = report_of_changed_fixtures(
        "emu", "sed -i 's/\"isa_cap\": \"native\",/\"isa_cap\": \"native\", \"emulator\": \"qemu-user\",/' "
               "%1$s/bench.csv.meta.json");
    assert_non_null(md);
    const char *warn = strstr(md, "Timed under an emulator (qemu-user): bench.csv."), *answer = strstr(md, "\n## ");
    if (!warn || !answer || warn > answer) fail_msg("no emulator warning before the first section:\n%.1500s", md);
    assert_non_null(strstr(warn, "mean nothing"));
    assert_non_null(strstr(warn, "the accuracy results stand"));
    char p[512];
    snprintf(p, sizeof p, "%s/emu/report.html", test_dir);
    char *html = slurp(p);
    assert_non_null(html);
    const char *hw = strstr(html, "Timed under an emulator (qemu-user)"), *h2 = strstr(html, "<h2");
    if (!hw || !h2 || hw > h2) fail_msg("report.html: no emulator warning before the first section");
    free(html);
    assert_int_equal(sh("'%s' summary %s/emu | head -1 | grep -q 'timed under an emulator (qemu-user): bench.csv'",
                        lnbench, test_dir),
                     0);
    free(md);
    md = report_of_changed_fixtures("native", "sed -i 's/\"isa_cap\": \"native\",/\"isa_cap\": \"native\", "
                                              "\"emulator\": \"none\",/' %1$s/bench.csv.meta.json");
    assert_non_null(md);
    assert_null(strstr(md, "emulator"));
    assert_int_equal(sh("'%s' summary %s/native | grep -q emulator", lnbench, test_dir), 1);
    free(md);
}

static void test_report_opens_with_verdicts(void **state)
{
    (void)state;
    assert_int_equal(sh("cp tests/fixtures/*.csv tests/fixtures/*.meta.json %s/", test_dir), 0);
    char *md = report_of(test_dir);
    assert_non_null(md);
    /* first screen: title, machine, which kernel at what cost, verdicts, then the op's section */
    assert_true(strstr(md, "# lnbench report\n\nContents: [Which kernel, here, and at what cost]") == md);
    assert_non_null(strstr(md, ")\n\nMachine: Intel(R) Xeon(R) Platinum 8481C"));
    char *glance = strstr(md, "## Which kernel, here, and at what cost"), *verdicts = strstr(md, "## Verdicts"),
         *section = strstr(md, "## LayerNorm (layernorm)");
    assert_true(glance && verdicts && section && glance < verdicts && verdicts < section);
    /* the ratio names its base, the error its verdict, the most accurate kernel its failures */
    assert_non_null(strstr(md, "| layernorm | f32 | cache | f32-twopass-avx512 | 34.4 | 72% | f32-twopass-avx512 "
                               "(5.9e+03 ulp, 2.66 u) | 34.4 (1.00x the fastest) | outlier:1000: 2.66 u, pass |"));
    assert_non_null(strstr(
        md, "## Verdicts\n\n3 fail, 138 pass, 15 outside the conditions of the kernel's bound, 42 without a bound; "
            "2 kernel-cases on inputs that degenerated"));
    assert_non_null(strstr(md, "| f32-welford-avx512 | 24 | 3 | 3 | 0 | 0 |"));
    assert_non_null(strstr(
        md, "- f32-welford-avx512 on normal, D = 4096, eps = 1e-05 (accuracy.csv): max_norm 2.62 u > bound 2.5 u"));
    /* the bf16 kernel's errors on rows that underflowed in bf16 are an input finding, not a failure */
    assert_null(strstr(md, "bf16-f32acc-twopass-scalar on tiny"));
    assert_non_null(strstr(md, "- bf16 tiny: input underflow (D 768, 4096; eps 1e-05; accuracy.csv; 1 kernel)"));
    assert_non_null(strstr(md, "| bf16-f32acc-twopass-scalar | 29 | 0 | 3 | 0 | 2 |"));
    /* ... nor do they decide how accurate it is (5000 u there, 2.37 u elsewhere) */
    assert_non_null(strstr(md, "| bf16 | bf16-f32acc-twopass-scalar | 6.48e+03 | 2.37 |"));
    /* a kernel with non-finite outputs shows no finite maximum where they occurred */
    assert_non_null(strstr(md, "| f32-naive-scalar | huge | 768 | 1e-05 | non-finite (12) | non-finite (12) | 12 |"));
    assert_null(strstr(md, "| f32-naive-scalar | huge | 768 | 1e-05 | 5.2"));
    /* the summary names the fastest kernel per regime, its fraction of the limit and the peer */
    assert_non_null(strstr(md, "| f32 | cache | f32-twopass-avx512 | 34.4 | 72% | 1.16x ext-onednn-f32 |"));
    assert_non_null(
        strstr(md, "- limit, layernorm, memory, 1 thread: 19.5 GB/s (probe-stream at 256M, layernorm's own run)"));
    free(md);
    assert_no_temp_files();
    char *html = slurp(test_path("report.html"));
    assert_non_null(html);
    assert_true(strstr(html, "<!DOCTYPE html>") == html);
    assert_non_null(strstr(html, "<td>f32-welford-avx512</td>"));
    assert_non_null(strstr(html, "</body></html>"));
    free(html);
}

/* Kernels with the same verdict counts share a row: a copy of f32-twopass-avx512's rows under
 * another name joins its row. */
static void test_same_counts_share_a_row(void **state)
{
    (void)state;
    char *md = report_of_changed_fixtures("twin", "grep '^f32-twopass-avx512,' tests/fixtures/accuracy.csv | sed "
                                                  "'s/^f32-twopass-avx512,/f32-twopass-avx2,/' >>%1$s/accuracy.csv");
    assert_non_null(md);
    assert_non_null(strstr(md, "| f32-twopass-avx512, f32-twopass-avx2 | 22 | 0 | 0 | 0 | 0 |"));
    free(md);
}

/* The first screen never shows an error above the kernel's bound without saying so: with the
 * timings of f32-twopass-avx512 and f32-welford-avx512 swapped, the fastest is the one that
 * fails (2.62 u > 2.5 u on normal, D 4096; 3 fails over the accuracy files); an error outside
 * the bound's domain says why. */
static void test_first_screen_names_verdicts(void **state)
{
    (void)state;
    char *md = report_of_changed_fixtures("swapped", "sed -i 's/^f32-twopass-avx512,/S,/; "
                                                     "s/^f32-welford-avx512,/f32-twopass-avx512,/; "
                                                     "s/^S,/f32-welford-avx512,/' %1$s/bench.csv");
    assert_non_null(md);
    char *end = strstr(md, "## Verdicts");
    assert_non_null(end);
    *end = 0;
    assert_non_null(strstr(md, "| layernorm | f32 | cache | f32-welford-avx512 | 34.4 | 72% | f32-twopass-avx512 "
                               "(5.9e+03 ulp, 2.66 u) | 18.3 (0.53x the fastest) | normal: 2.62 u, FAIL (bound 2.5 u); "
                               "3 FAIL in all |"));
    free(md);
    /* its hardest case (outlier:1000, D 4096) judged outside the bound's domain instead */
    md = report_of_changed_fixtures("outside", "sed -i '/^f32-twopass-avx512,f32,outlier:1000,4096,/s/,16,pass,ok,ok$/"
                                               ",nan,outside,kappa-beyond-bound,ok/' %1$s/accuracy.csv");
    assert_non_null(md);
    assert_non_null(strstr(md, "| layernorm | f32 | cache | f32-twopass-avx512 | 34.4 | 72% | f32-twopass-avx512 "
                               "(5.9e+03 ulp, 2.66 u) | 34.4 (1.00x the fastest) | outlier:1000: 2.66 u, outside "
                               "(kappa-beyond-bound) |"));
    free(md);
}

static void test_report_without_verdict_columns(void **state)
{
    (void)state;
    /* the accuracy files as they were before the verdict columns: the last four cut off */
    char *md = report_of_prepared("old", "for f in accuracy conditioning eps; do cut -d, -f1-21 tests/fixtures/$f.csv "
                                         ">%1$s/$f.csv; done && cp tests/fixtures/bench.csv* %1$s/");
    assert_non_null(md);
    assert_non_null(strstr(md, "no verdict columns"));
    assert_non_null(strstr(md, "## LayerNorm (layernorm)"));
    free(md);
    assert_int_equal(sh("'%s' report %s/empty-folder 2>/dev/null", lnbench, test_dir), 2);
}

static int compare(const char *base, const char *new_, const char *flags)
{
    return sh("'%s' compare %s --out %s/compare.csv tests/fixtures/compare/%s tests/fixtures/compare/%s >%s/cmp 2>&1",
              lnbench, flags, test_dir, base, new_, test_dir);
}

/* Each string (up to NULL) is in the file of the test folder. */
static void expect_in(const char *file, ...)
{
    char *text = slurp(test_path(file));
    assert_non_null(text);
    va_list ap;
    va_start(ap, file);
    for (const char *want; (want = va_arg(ap, const char *));)
        if (!strstr(text, want)) fail_msg("%s has no '%s'", file, want);
    va_end(ap);
    free(text);
}

static void test_compare_exit_status(void **state)
{
    (void)state;
    assert_int_equal(compare("base", "base", ""), 0);
    assert_int_equal(compare("base", "same", ""), 0);
    /* every f32-twopass-avx512 repetition 20% slower */
    assert_int_equal(compare("base", "slow", ""), 1);
    expect_in("compare.csv", "f32-twopass-avx512,f32-twopass-avx512/D:768/rows:341,cache,6,6,",
              ",slower,GB/s,layernorm\n", NULL);
    char *csv = slurp(test_path("compare.csv"));
    assert_null(strstr(csv, "ext-onednn-f32/D:768/rows:341,cache,6,6,24.9704,25.2099,1.00959,0.393939,slower"));
    free(csv);
    expect_in("cmp", "4 slower, 0 faster, 0 inconclusive, 2 same", NULL);
    char *out = slurp(test_path("cmp"));
    assert_null(strchr(out, '\033')); /* not a terminal: no colour codes */
    free(out);
    /* a 20% slowdown is within a 25% threshold */
    assert_int_equal(compare("base", "slow", "--threshold 25"), 0);
    /* another CPU: refused, unless comparing fractions of each machine's limit */
    assert_int_equal(compare("base", "other-cpu", ""), 2);
    assert_int_equal(compare("base", "other-cpu", "--cross-machine"), 0);
    assert_int_equal(compare("base", "no-such-run", ""), 2);
}

/* tests/fixtures/compare/ops-*: results folders as make bench writes them, the LayerNorm run's
 * bench.json (base's and same's) and an RMSNorm run in ops/bench-rmsnorm.json with its own
 * probes (40 and 25 GB/s at 1M, against the LayerNorm run's 48 and 30) and two kernels; in
 * ops-slow f32-rmsnorm-accurate-scalar is 20% slower, nothing else changed. */
static void test_compare_op_runs(void **state)
{
    (void)state;
    assert_int_equal(compare("ops-base", "ops-base", ""), 0);
    /* the op run's kernel is gated, named with its op */
    assert_int_equal(compare("ops-base", "ops-slow", ""), 1);
    expect_in("cmp", "RMSNorm (rmsnorm):", "slower: rmsnorm f32-rmsnorm-accurate-scalar/D:768/rows:341",
              "rmsnorm: geomean ratio over 2 kernel benchmarks", "1 slower, 0 faster, 0 inconclusive, 7 same", NULL);
    /* each run's probes stay with their op: 6 repetitions a side, not the two runs' 12 pooled */
    expect_in("compare.csv", "f32-rmsnorm-accurate-scalar,f32-rmsnorm-accurate-scalar/D:768/rows:341,cache,6,6,",
              ",slower,GB/s,rmsnorm\n", "probe-copy,probe-copy/bytes:1M,cache,6,6,47.7",
              "probe-copy,probe-copy/bytes:1M,cache,6,6,39.8", NULL);
    /* the op run's bench-rmsnorm.json given alone is that run, its op told by its name */
    assert_int_equal(compare("ops-base/ops/bench-rmsnorm.json", "ops-slow/ops/bench-rmsnorm.json", ""), 1);
    expect_in("cmp", "slower: rmsnorm f32-rmsnorm-accurate-scalar", NULL);
}

/* tests/fixtures/ops: bench.csv with LayerNorm, RMSNorm and LayerNorm backward kernels, the first
 * two timed at 1 and 2 threads (probes at both), numbers chosen so that any mixing shows: e.g.
 * f32-twopass-avx512 in cache has 20, 24 GB/s at 1 thread (median 22) and 36, 44 at 2 (median
 * 40); the probes' best in cache is 40 at 1 thread, 80 at 2. accuracy.csv: real rows of those
 * kernels with the op and dgamma/dbeta columns. */
static void test_ops_and_threads_kept_apart(void **state)
{
    (void)state;
    char *md = report_of_prepared("ops", "cp tests/fixtures/ops/* %1$s/");
    assert_non_null(md);
    /* one thread, one op per row: 22 (not 30, the median over both counts), 22 / 40 of the
     * 1-thread limit; RMSNorm's kernel (32 GB/s) is not LayerNorm's fastest */
    assert_non_null(strstr(md, "| layernorm | f32 | cache | f32-twopass-avx512 | 22 | 55% |"));
    assert_non_null(strstr(md, "| layernorm | f32 | memory | f32-twopass-avx512 | 9 | 56% |"));
    assert_non_null(strstr(md, "| rmsnorm | f32 | cache | f32-rmsnorm-vector-avx512 | 32 | 80% |"));
    assert_non_null(strstr(md, "| layernorm-bwd | f32 | cache | f32-lnbwd-vector-avx512 | 11 | 28% |"));
    assert_non_null(strstr(md, "- limit, layernorm, cache, 1 thread: 40 GB/s (probe-copy at 1M, layernorm's own run)"));
    /* a section per op, in that order; the backward op judged per output tensor */
    char *ln = strstr(md, "## LayerNorm (layernorm)"), *rms = strstr(md, "## RMSNorm (rmsnorm)"),
         *bwd = strstr(md, "## LayerNorm backward (layernorm-bwd)"), *scaling = strstr(md, "## Scaling with threads");
    assert_true(ln && rms && bwd && scaling && ln < rms && rms < bwd && bwd < scaling);
    assert_non_null(strstr(bwd, "| kernel | dtype | hardest dist | dx max_norm (u) | dx max_ulp | dgamma max_norm (u) "
                                "| dbeta max_norm (u) | nonfinite | fails |"));
    assert_non_null(strstr(bwd, "| f32-lnbwd-vector-avx512 | f32 | offset:1e4 | 473 | 4.77e+06 | 4.18e+03 | 1.57 |"));
    assert_true(strstr(ln, "f32-rmsnorm-vector-avx512") > rms); /* not in LayerNorm's section */
    /* scaling: 40 / 22 at 2 threads, 40 / 80 of the 2-thread limit */
    assert_non_null(strstr(scaling, "| f32-twopass-avx512 | layernorm | cache | 2 | 40 | 1.82x | 50% |"));
    assert_non_null(strstr(scaling, "| f32-twopass-avx512 | layernorm | memory | 2 | 15 | 1.67x | 60% |"));
    char *after_scaling = strstr(scaling, "\n## ");
    assert_true(after_scaling && strstr(scaling, "f32-twopass-scalar") > after_scaling); /* one count only */
    free(md);
    /* figures per op, titles naming it, each op's kernels in its own figures only */
    char d[256];
    snprintf(d, sizeof d, "%s/ops", test_dir);
    assert_int_equal(sh("'%s' report --figure-data %s >/dev/null", lnbench, d), 0);
    assert_int_equal(
        sh("grep -qx 'throughput-rmsnorm-cache-f32 throughput' %s/plots/data/figures.txt && "
           "grep -qx 'throughput-layernorm-bwd-memory-f32 throughput' %s/plots/data/figures.txt && "
           "grep -q '^title = \"RMSNorm, f32, cache-resident' %s/plots/data/throughput-rmsnorm-cache-f32.gp",
           d, d, d),
        0);
    assert_int_equal(sh("grep -q '^title = \"LayerNorm, f32, cache' %s/plots/data/throughput-cache-f32.gp && "
                        "! grep -v '^allk = ' %s/plots/data/throughput-cache-f32.gp | grep -q rmsnorm",
                        d, d),
                     0);

    /* lnbench summary: the same medians, a block per op, the scaling block */
    assert_int_equal(sh("'%s' summary --bench tests/fixtures/ops/bench.csv --accuracy tests/fixtures/ops/accuracy.csv "
                        ">%s/summary.txt",
                        lnbench, test_dir),
                     0);
    char *out = slurp(test_path("summary.txt"));
    assert_non_null(out);
    char *b1 = strstr(out, "\nLayerNorm (layernorm)\n"), *b2 = strstr(out, "\nRMSNorm (rmsnorm)\n"),
         *b3 = strstr(out, "\nLayerNorm backward (layernorm-bwd)");
    assert_true(b1 && b2 && b3 && b1 < b2 && b2 < b3);
    assert_non_null(strstr(b1, "f32-twopass-avx512                    22.00       9.00"));
    assert_non_null(strstr(b2, "f32-rmsnorm-vector-avx512             32.00      12.00"));
    assert_true(strstr(b1, "f32-rmsnorm-vector-avx512") > b2); /* only in its own block */
    assert_non_null(strstr(out, "                                               2     40.00   1.82     0.50\n"));
    free(out);
}

/* make bench-ops run twice (scripts/bench-ops.sh, tiny runs of one kernel per op; rmsnorm
 * both times, layernorm-bwd the first): each op run replaces its own files, so the report,
 * summary and merge of the folder hold every row once; the cases the op runs skipped
 * (--max-call-seconds: the 16 MiB case, judged from the 1 KiB one) are listed per op and said
 * on the first screen. */
static void test_op_runs_rerun(void **state)
{
    (void)state;
    const char *d = test_path("rerun");
    assert_int_equal(
        sh("mkdir -p %s && '%s' accuracy --quiet --kernels f32-twopass-scalar --dist normal --D 64 --rows 2 "
           "--out %s/accuracy.csv >/dev/null && '%s' bench --quiet --kernels f32-twopass-scalar --D 64 "
           "--bytes 1K --benchmark_repetitions=1 --benchmark_min_time=0.001 --out %s/bench.csv "
           ">/dev/null 2>&1",
           d, lnbench, d, lnbench, d),
        0);
    for (int run = 0; run < 2; run++)
        assert_int_equal(
            sh("LNBENCH='%s' BENCH_OPS='rmsnorm%s' BENCH_THREADS=1 ACCURACY_FLAGS='--kernels "
               "f32-*-naive-scalar --dist normal --D 64 --rows 2' TIMING_FLAGS='--kernels "
               "f32-*-naive-scalar --D 64 --bytes 1K,16M --max-call-seconds 1e-9 "
               "--benchmark_repetitions=1 --benchmark_min_time=0.001' scripts/bench-ops.sh %s >/dev/null 2>&1",
               lnbench, run ? "" : " layernorm-bwd", d),
            0);
    char *md = report_of(d);
    assert_non_null(md);
    /* one timing row per kernel, op and size in the full table; one pass per accuracy case */
    const char *rows[] = {"| f32-rmsnorm-naive-scalar | rmsnorm | f32 | cache | 64 |",
                          "| f32-lnbwd-naive-scalar | layernorm-bwd | f32 | cache | 64 |",
                          "| f32-twopass-scalar | layernorm | f32 | cache | 64 |"};
    for (int i = 0; i < 3; i++) {
        char *first = strstr(md, rows[i]);
        if (!first || strstr(first + 1, rows[i])) fail_msg("%s: %s", rows[i], first ? "twice" : "absent");
    }
    assert_non_null(
        strstr(md, "| f32-twopass-scalar, f32-lnbwd-naive-scalar, f32-rmsnorm-naive-scalar | 1 | 0 | 0 | 0 | 0 |"));
    /* the op runs' skipped cases, per op, and the regime they left untimed */
    assert_non_null(strstr(md, "- Skipped cases, rmsnorm (1, no timing: one call would exceed --max-call-seconds; "
                               "the message is in ops/bench-rmsnorm.json): f32-rmsnorm-naive-scalar/D:64/rows:"));
    assert_non_null(strstr(md, "- Skipped cases, layernorm-bwd (1, "));
    assert_non_null(strstr(md, "| rmsnorm | f32 | mixed | none timed (1 case skipped, see Warnings) | - | - |"));
    free(md);
    /* summary: one line per kernel, from the folder */
    assert_int_equal(sh("'%s' summary %s >%s/summary.txt", lnbench, d, d), 0);
    char p[512];
    snprintf(p, sizeof p, "%s/summary.txt", d);
    char *out = slurp(p);
    assert_non_null(out);
    char *line = strstr(out, "\nf32-rmsnorm-naive-scalar ");
    assert_true(line && !strstr(line + 1, "\nf32-rmsnorm-naive-scalar "));
    assert_non_null(strstr(out, "files: "));
    assert_non_null(strstr(out, "/ops/bench-rmsnorm.csv"));
    free(out);
    /* merge: the folder as one, each case once; the op runs' skipped entries in its bench.json */
    assert_int_equal(sh("'%s' merge --out %s/merged %s 2>/dev/null && test $(grep -c '^f32-rmsnorm-naive-scalar,' "
                        "%s/merged/accuracy.csv) = 1 && test $(grep -c '^f32-rmsnorm-naive-scalar,' "
                        "%s/merged/bench.csv) = 1 && test $(grep -c '^f32-twopass-scalar,' %s/merged/bench.csv) = 1 && "
                        "grep -q 'f32-lnbwd-naive-scalar/D:64/rows:65536/' %s/merged/bench.json",
                        lnbench, d, d, d, d, d, d),
                     0);
}

/* The scaling rows computed from the fixture, against the figures worked out by hand. */
static void test_scaling_figures(void **state)
{
    (void)state;
    ln_table t;
    assert_int_equal(ln_table_read("tests/fixtures/ops/bench.csv", &t), 1);
    int threads[4];
    assert_int_equal(ln_table_threads(&t, threads, 4), 2);
    assert_int_equal(threads[0], 1);
    assert_int_equal(threads[1], 2);
    ln_table_free(&t);
    /* the smallest count, whatever the order of the rows (here 2-thread rows first) */
    assert_int_equal(
        sh("{ head -n 1 tests/fixtures/ops/bench.csv; tail -n +2 tests/fixtures/ops/bench.csv | "
           "sort -t, -k9,9nr; } >%s/reversed.csv && sed -n 2p %s/reversed.csv | grep -q ',normal,1e-05,2,'",
           test_dir, test_dir),
        0);
    assert_int_equal(ln_table_read(test_path("reversed.csv"), &t), 1);
    assert_int_equal(ln_table_threads(&t, threads, 1), 1);
    assert_int_equal(threads[0], 1);
    ln_table_free(&t);
    assert_int_equal(ln_table_read("tests/fixtures/ops/bench.csv", &t), 1);
    assert_float_equal(ln_median_where(&t, "f32-twopass-avx512", "cache", 1, LNC_BENCH_gbps), 22, 0);
    assert_float_equal(ln_median_where(&t, "f32-twopass-avx512", "cache", 2, LNC_BENCH_gbps), 40, 0);
    assert_float_equal(ln_limit_at(&t, "memory", 2, NULL, NULL), 25, 0);
    /* no 16-bit probe in the file: a 16-bit kernel's limit is the fp32 probes' */
    assert_float_equal(ln_limit_at(&t, "memory", 2, "bf16", NULL), 25, 0);
    ln_table_free(&t);
    /* with 16-bit probes, f16/bf16 kernels are measured against them and the rest against the
     * fp32 ones, whichever is faster */
    assert_int_equal(sh("cp tests/fixtures/ops/bench.csv %s/probes16.csv && printf '%%s\\n' "
                        "probe-copy-16,f16,524288,1,1048576,cache,,,1,5,1,12,12,12,0.01,1,0,12, "
                        "probe-stream-16,f16,524288,1,1048576,cache,,,1,5,1,30,30,30,0.01,1,0,30, "
                        "probe-copy-16,f16,524288,1,1048576,cache,,,2,5,1,99,99,99,0.01,1,0,99, >>%s/probes16.csv",
                        test_dir, test_dir),
                     0);
    /* lnbench summary lists the 16-bit probes with the others: medians at 1 thread */
    assert_int_equal(sh("'%s' summary --bench %s --accuracy %s/none.csv >%s/probes16.txt", lnbench,
                        test_path("probes16.csv"), test_dir, test_dir),
                     0);
    char *out = slurp(test_path("probes16.txt"));
    assert_non_null(out);
    assert_non_null(strstr(out, "\nprobe-copy                            40.00      10.00"));
    assert_non_null(strstr(out, "\nprobe-copy-16                         12.00          -"));
    assert_non_null(strstr(out, "\nprobe-stream-16                       30.00          -"));
    free(out);
    assert_int_equal(ln_table_read(test_path("probes16.csv"), &t), 1);
    const char *probe = NULL;
    assert_float_equal(ln_limit_at(&t, "cache", 1, "bf16", &probe), 30, 0);
    assert_string_equal(probe, "probe-stream-16");
    assert_float_equal(ln_limit_at(&t, "cache", 1, "f16", NULL), 30, 0);
    assert_float_equal(ln_limit_at(&t, "cache", 1, "f32", &probe), 40, 0);
    assert_string_equal(probe, "probe-copy");
    assert_float_equal(ln_limit_at(&t, "cache", 1, "f64", NULL), 40, 0);
    assert_float_equal(ln_limit_at(&t, "cache", 2, "f16", NULL), 99, 0);
    assert_float_equal(ln_limit_at(&t, "memory", 1, "f16", NULL), 16, 0); /* none there: fp32's */
    ln_table_free(&t);
    assert_int_equal(ln_table_read("tests/fixtures/ops/bench.csv", &t), 1);
    ln_scaling s[8];
    size_t n = ln_scaling_rows(&t, s, 8);
    assert_int_equal(n, 4); /* two kernels in two regimes; the 1-thread-only ones left out */
    const struct {
        const char *kernel, *regime;
        double g1, g2, frac1, frac2;
    } want[4] = {
        {"f32-twopass-avx512", "cache", 22, 40, 22.0 / 40, 40.0 / 80},
        {"f32-twopass-avx512", "memory", 9, 15, 9.0 / 16, 15.0 / 25},
        {"f32-rmsnorm-vector-avx512", "cache", 32, 52, 32.0 / 40, 52.0 / 80},
        {"f32-rmsnorm-vector-avx512", "memory", 12, 20, 12.0 / 16, 20.0 / 25},
    };
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(s[i].kernel, want[i].kernel);
        assert_string_equal(s[i].regime, want[i].regime);
        assert_string_equal(s[i].op, strstr(want[i].kernel, "rmsnorm") ? "rmsnorm" : "layernorm");
        assert_int_equal(s[i].n, 2);
        assert_float_equal(s[i].gbps[0], want[i].g1, 1e-12);
        assert_float_equal(s[i].gbps[1], want[i].g2, 1e-12);
        assert_float_equal(s[i].speedup[0], 1, 1e-12);
        assert_float_equal(s[i].speedup[1], want[i].g2 / want[i].g1, 1e-12);
        assert_float_equal(s[i].of_limit[0], want[i].frac1, 1e-12);
        assert_float_equal(s[i].of_limit[1], want[i].frac2, 1e-12);
    }
    ln_table_free(&t);
}

int main(void)
{
    lnbench = getenv("LNBENCH");
    if (!lnbench) lnbench = "build/lnbench";
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mann_whitney),
        cmocka_unit_test(test_table_reader),
        cmocka_unit_test(test_report_opens_with_verdicts),
        cmocka_unit_test(test_emulated_run_is_said_first),
        cmocka_unit_test(test_same_counts_share_a_row),
        cmocka_unit_test(test_first_screen_names_verdicts),
        cmocka_unit_test(test_op_runs_rerun),
        cmocka_unit_test(test_report_without_verdict_columns),
        cmocka_unit_test(test_ops_and_threads_kept_apart),
        cmocka_unit_test(test_scaling_figures),
        cmocka_unit_test(test_compare_exit_status),
        cmocka_unit_test(test_compare_op_runs),
    };
    return cmocka_run_group_tests(tests, test_dir_create, test_dir_remove);
}
