/* The report and compare verbs on the hand-made results in tests/fixtures/: the Mann-Whitney
 * p-values against exact enumeration, the report opening with the verdicts, never blaming or
 * crowning a kernel on a degenerate input, never showing a finite error for a kernel with
 * non-finite outputs, degrading without verdict columns; compare's exit status on identical
 * runs, a 20% slowdown and runs from another CPU. Run from the repository root (make test). */
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

#include "stats.h"
#include "table.h"
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

static void test_report_opens_with_verdicts(void **state)
{
    (void)state;
    assert_int_equal(sh("cp tests/fixtures/*.csv tests/fixtures/*.meta.json %s/", test_dir), 0);
    char *md = report_of(test_dir);
    assert_non_null(md);
    /* first screen: title, machine, verdicts, then the summary */
    assert_true(strstr(md, "# lnbench report\n\nMachine: Intel(R) Xeon(R) Platinum 8481C") == md);
    char *verdicts = strstr(md, "## Verdicts"), *summary = strstr(md, "## Summary");
    assert_true(verdicts && summary && verdicts < summary);
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
    assert_non_null(strstr(md, "| bf16 | bf16-f32acc-twopass-scalar | 2.37 |"));
    /* a kernel with non-finite outputs shows no finite maximum where they occurred */
    assert_non_null(strstr(md, "| f32-naive-scalar | huge | 768 | 1e-05 | non-finite (12) | non-finite (12) | 12 |"));
    assert_null(strstr(md, "| f32-naive-scalar | huge | 768 | 1e-05 | 5.2"));
    /* the summary names the fastest kernel per regime, its fraction of the limit and the peer */
    assert_non_null(strstr(md, "| f32 | cache | f32-twopass-avx512 | 34.4 | 72% | 1.16x ext-onednn-f32 |"));
    assert_non_null(strstr(md, "- limit, memory: 19.5 GB/s (probe-stream)"));
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
    assert_int_equal(
        sh("mkdir -p %s/twin && cp tests/fixtures/*.csv tests/fixtures/*.meta.json %s/twin/ && "
           "grep '^f32-twopass-avx512,' tests/fixtures/accuracy.csv | sed 's/^f32-twopass-avx512,/f32-twopass-avx2,/' "
           ">>%s/twin/accuracy.csv",
           test_dir, test_dir, test_dir),
        0);
    char d[256];
    snprintf(d, sizeof d, "%s/twin", test_dir);
    char *md = report_of(d);
    assert_non_null(md);
    assert_non_null(strstr(md, "| f32-twopass-avx512, f32-twopass-avx2 | 22 | 0 | 0 | 0 | 0 |"));
    free(md);
}

static void test_report_without_verdict_columns(void **state)
{
    (void)state;
    /* the accuracy files as they were before the verdict columns: the last four cut off */
    assert_int_equal(
        sh("mkdir -p %s/old && for f in accuracy conditioning eps; do cut -d, -f1-21 tests/fixtures/$f.csv "
           ">%s/old/$f.csv; done && cp tests/fixtures/bench.csv* %s/old/",
           test_dir, test_dir, test_dir),
        0);
    char d[256];
    snprintf(d, sizeof d, "%s/old", test_dir);
    char *md = report_of(d);
    assert_non_null(md);
    assert_non_null(strstr(md, "no verdict columns"));
    assert_non_null(strstr(md, "## Summary"));
    free(md);
    assert_int_equal(sh("'%s' report %s/empty-folder 2>/dev/null", lnbench, test_dir), 2);
}

static int compare(const char *base, const char *new_, const char *flags)
{
    return sh("'%s' compare %s --out %s/compare.csv tests/fixtures/compare/%s tests/fixtures/compare/%s >%s/cmp 2>&1",
              lnbench, flags, test_dir, base, new_, test_dir);
}

static void test_compare_exit_status(void **state)
{
    (void)state;
    assert_int_equal(compare("base", "base", ""), 0);
    assert_int_equal(compare("base", "same", ""), 0);
    /* every f32-twopass-avx512 repetition 20% slower */
    assert_int_equal(compare("base", "slow", ""), 1);
    char *csv = slurp(test_path("compare.csv"));
    assert_non_null(csv);
    assert_non_null(strstr(csv, "f32-twopass-avx512,f32-twopass-avx512/D:768/rows:341,cache,6,6,"));
    assert_non_null(strstr(csv, ",slower,GB/s\n"));
    assert_null(strstr(csv, "ext-onednn-f32/D:768/rows:341,cache,6,6,24.9704,25.2099,1.00959,0.393939,slower"));
    free(csv);
    char *out = slurp(test_path("cmp"));
    assert_null(strchr(out, '\033')); /* not a terminal: no colour codes */
    assert_non_null(strstr(out, "4 slower, 0 faster, 2 same"));
    free(out);
    /* a 20% slowdown is within a 25% threshold */
    assert_int_equal(compare("base", "slow", "--threshold 25"), 0);
    /* another CPU: refused, unless comparing fractions of each machine's limit */
    assert_int_equal(compare("base", "other-cpu", ""), 2);
    assert_int_equal(compare("base", "other-cpu", "--cross-machine"), 0);
    assert_int_equal(compare("base", "no-such-run", ""), 2);
}

int main(void)
{
    lnbench = getenv("LNBENCH");
    if (!lnbench) lnbench = "build/lnbench";
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mann_whitney),
        cmocka_unit_test(test_table_reader),
        cmocka_unit_test(test_report_opens_with_verdicts),
        cmocka_unit_test(test_same_counts_share_a_row),
        cmocka_unit_test(test_report_without_verdict_columns),
        cmocka_unit_test(test_compare_exit_status),
    };
    return cmocka_run_group_tests(tests, test_dir_create, test_dir_remove);
}
