/* The report's answers on tests/fixtures/rank/, numbers chosen so that the old rules would show:
 * - the limit of an op is its own run's probe at its own size: LayerNorm's memory limit is
 *   probe-stream at 256M of bench.csv (30 GB/s), not the 40 GB/s of the RMSNorm run's 64M
 *   probes in ops/ (the best over every run); bf16's is LayerNorm's probe-stream-16 (29), not
 *   the RMSNorm run's 45;
 * - "most accurate" is the smallest worst max_ulp, then max_norm, then cr_frac: f32-twopass-avx2
 *   has the smallest max_norm (0.4 u) but 3 ulp, so the 0.5-ulp f32-accurate-{scalar,avx2} win,
 *   stated as a tie; in bf16 both kernels have max_norm 2 u and the faster (mulbias, 72 ulp)
 *   would win a tie broken by speed: twopass (0.5 ulp, cr_frac 1) is named;
 * - the answer is a sentence with the relative error beside u (1.69e5 u of f32 = 0.01), and the
 *   winner per D where it changes (shifted at D 768, twopass at D 4096).
 * The summary uses the same limit and the same hardest-distribution rule. Run from the
 * repository root (make test). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sh.h"
#include "tmpdir.h"

static const char *lnbench;

static void expect(const char *text, const char *want)
{
    if (!strstr(text, want)) fail_msg("no '%s' in:\n%s", want, text);
}

static char *report_of_rank(void)
{
    assert_int_equal(sh("cp -r tests/fixtures/rank %s/ && '%s' report %s/rank >/dev/null", test_dir, lnbench, test_dir),
                     0);
    char *md = slurp_file(test_path("rank/REPORT.md"), NULL);
    assert_non_null(md);
    return md;
}

static void test_limit_is_the_ops_own_run(void **state)
{
    (void)state;
    char *md = report_of_rank();
    expect(md, "f32 from memory: use f32-shifted-avx2, 24.5 GB/s (82% of the limit 30 GB/s, probe-stream at 256M, "
               "layernorm's own run)");
    expect(md, "limit, rmsnorm, memory, 1 thread: 40 GB/s (probe-stream at 64M, rmsnorm's own run)");
    expect(md, "bf16 from memory: use bf16-f32acc-mulbias-avx2, 20 GB/s (69% of the limit 29 GB/s, probe-stream-16 at "
               "256M, layernorm's own run)");
    free(md);
    /* the summary: the same limit, named, and the fraction over it */
    assert_int_equal(sh("'%s' summary %s/rank >%s/summary 2>&1", lnbench, test_dir, test_dir), 0);
    char *sum = slurp_file(test_path("summary"), NULL);
    expect(sum, "limit, memory, 32-bit storage, 1 thread: 30 GB/s (probe-stream at 256M, layernorm's own run)");
    expect(sum, "limit, memory, 32-bit storage, 1 thread: 40 GB/s (probe-stream at 64M, rmsnorm's own run)");
    /* f32-shifted-avx2: 24.5 / 30 */
    char *line = strstr(sum, "f32-shifted-avx2");
    assert_non_null(line);
    assert_non_null(strstr(line, "0.82"));
    assert_true(strstr(line, "0.82") < strchr(line, '\n'));
    free(sum);
}

/* A kernel faster than its run's probes (f32-shifted-avx2 at 33 and 34 GB/s against probe-stream's
 * 30) is shown as a ratio marked above the probes, with the explanation, in the report and the
 * summary; the unchanged fixture has no such mark. */
static void test_above_the_probes_marked(void **state)
{
    (void)state;
    assert_int_equal(sh("'%s' summary %s/rank >%s/plain 2>&1", lnbench, test_dir, test_dir), 0);
    char *plain = slurp_file(test_path("plain"), NULL);
    assert_null(strstr(plain, "above the probes"));
    assert_null(strchr(plain, '*'));
    free(plain);
    assert_int_equal(
        sh("cp -r tests/fixtures/rank %s/above && sed -i "
           "'s/^f32-shifted-avx2,\\(.*\\),1,24,23,25,/f32-shifted-avx2,\\1,1,33,32,34,/; "
           "s/^f32-shifted-avx2,\\(.*\\),1,25,24,26,/f32-shifted-avx2,\\1,1,34,33,35,/' %s/above/bench.csv",
           test_dir, test_dir),
        0);
    assert_int_equal(sh("'%s' report %s/above >/dev/null && '%s' summary %s/above >%s/above.txt 2>&1", lnbench,
                        test_dir, lnbench, test_dir, test_dir),
                     0);
    char *md = slurp_file(test_path("above/REPORT.md"), NULL);
    expect(md, "f32 from memory: use f32-shifted-avx2, 33.5 GB/s (1.12x the limit 30 GB/s, above the probes; "
               "probe-stream at 256M, layernorm's own run)");
    assert_null(strstr(md, "112%"));
    expect(md, "Above the probes: the limit is the faster of the two streaming probes of the same run, not a ceiling");
    free(md);
    char *sum = slurp_file(test_path("above.txt"), NULL);
    char *line = strstr(sum, "f32-shifted-avx2");
    assert_non_null(line);
    assert_non_null(strstr(line, "1.12*"));
    assert_true(strstr(line, "1.12*") < strchr(line, '\n'));
    expect(sum, "*: above the probes. The limit is the faster of the two streaming probes of the same run");
    free(sum);
}

static void test_most_accurate_by_ulp_then_norm_then_cr(void **state)
{
    (void)state;
    char *md = report_of_rank();
    expect(md, "Most accurate: f32-accurate-{scalar,avx2}, a tie (0.5 ulp, 0.5 u = relative 3e-08), costs 16% "
               "(f32-accurate-avx2, 20.5 GB/s)");
    expect(md, "Most accurate: bf16-f32acc-twopass-avx2 (0.5 ulp, 2 u = relative 0.0078), costs 25%");
    assert_null(strstr(md, "Most accurate: bf16-f32acc-mulbias"));
    assert_null(strstr(md, "Most accurate: f32-twopass"));
    free(md);
}

static void test_answer_in_sentences(void **state)
{
    (void)state;
    char *md = report_of_rank();
    /* the first screen: title, contents, the heading, then the answers (no table before them) */
    char *answers = strstr(md, "## Which kernel, here, and at what cost\n\n- ");
    assert_non_null(answers);
    assert_null(memchr(md, '|', (size_t)(answers - md)));
    expect(md, "f32-shifted-avx2 errs by up to 1.69e+05 u = relative 0.01 (2e+05 ulp) on offset:1e6, outside its "
               "bound's conditions");
    expect(md, "The winner changes with D: D 768: f32-shifted-avx2 by 9% over f32-twopass-avx2; D 4096: "
               "f32-twopass-avx2 by 4% over f32-shifted-avx2");
    free(md);
    /* report.html: a table of contents linking to unique ids, the full tables folded */
    char *html = slurp_file(test_path("rank/report.html"), NULL);
    assert_non_null(html);
    expect(html, "<nav class=\"toc\"><b>Contents:</b> <a href=\"#which-kernel-here-and-at-what-cost\">");
    expect(html, "<h2 id=\"which-kernel-here-and-at-what-cost\">");
    expect(html, "<details><summary>");
    for (char *p = strstr(html, " id=\""); p; p = strstr(p + 1, " id=\"")) {
        char id[128];
        sscanf(p + 5, "%127[^\"]", id);
        char needle[160];
        snprintf(needle, sizeof needle, " id=\"%s\"", id);
        if (strstr(p + 1, needle)) fail_msg("id \"%s\" twice in report.html", id);
    }
    free(html);
}

/* The report says when its files come from different runs or a selection of kernels. */
static void test_report_names_mixed_runs(void **state)
{
    (void)state;
    char *md = report_of_rank();
    assert_null(strstr(md, "different runs"));
    free(md);
    FILE *f = fopen(test_path("rank/accuracy.csv.meta.json"), "w");
    assert_non_null(f);
    fputs("{\n  \"git_commit\": \"aaa1111\",\n  \"date\": \"2026-12-01T10:00:00Z\",\n  \"command\": \"lnbench accuracy "
          "--kernels f32-*\"\n}\n",
          f);
    fclose(f);
    f = fopen(test_path("rank/bench.csv.meta.json"), "w");
    assert_non_null(f);
    fputs("{\n  \"git_commit\": \"bbb2222\",\n  \"date\": \"2026-12-03T10:00:00Z\",\n  \"command\": \"lnbench "
          "bench\"\n}\n",
          f);
    fclose(f);
    assert_int_equal(sh("'%s' report %s/rank >/dev/null", lnbench, test_dir), 0);
    md = slurp_file(test_path("rank/REPORT.md"), NULL);
    expect(md, "These files come from different runs or selections");
    expect(md, "commit aaa1111 (from 2026-12-01T10:00:00Z): accuracy.csv (a --kernels selection)");
    expect(md, "commit bbb2222 (from 2026-12-03T10:00:00Z): bench.csv");
    free(md);
}

int main(void)
{
    lnbench = getenv("LNBENCH");
    if (!lnbench) lnbench = "build/lnbench";
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limit_is_the_ops_own_run),
        cmocka_unit_test(test_above_the_probes_marked),
        cmocka_unit_test(test_most_accurate_by_ulp_then_norm_then_cr),
        cmocka_unit_test(test_answer_in_sentences),
        cmocka_unit_test(test_report_names_mixed_runs),
    };
    return cmocka_run_group_tests(tests, test_dir_create, test_dir_remove);
}
