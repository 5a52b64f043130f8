/* scripts/plots.sh (lnbench report --figure-data, then gnuplot) and the report on the hand-made
 * results in tests/fixtures/: every figure the data supports is drawn as a real PNG and SVG,
 * figures without data are skipped, no panel holds more than 8 series, a kernel with non-finite
 * outputs or a degenerate input is never drawn as a finite error, the script removes only files
 * it wrote, and report.html inlines every figure. Skipped when gnuplot is not installed. Run
 * from the repository root (make test). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sh.h"
#include "tmpdir.h"

/* What the fixtures support: f32 (five kernels of four algorithms, so an overview and an
 * every-kernel figure) and bf16 (one kernel) in both regimes, an offset sweep for f32 only
 * (bf16 has a single offset) and an eps sweep for both. */
static const char *const expected[] = {
    "throughput-cache-f32",
    "throughput-all-cache-f32",
    "throughput-memory-f32",
    "throughput-all-memory-f32",
    "accuracy-f32",
    "conditioning-f32",
    "eps-f32",
    "pareto-f32",
    "throughput-cache-bf16",
    "throughput-memory-bf16",
    "accuracy-bf16",
    "eps-bf16",
    "pareto-bf16",
};
#define NEXPECTED (sizeof expected / sizeof expected[0])

static const char *dir; /* the results folder under test (test_dir), NULL = skip */
static const char *lnbench;

static int setup(void **state)
{
    lnbench = getenv("LNBENCH");
    if (!lnbench) lnbench = "build/lnbench";
    if (sh("command -v gnuplot >/dev/null 2>&1") != 0) return 0;
    if (test_dir_create(state) != 0) return -1;
    dir = test_dir;
    if (sh("cp tests/fixtures/*.csv tests/fixtures/*.meta.json %s/", dir) != 0) return -1;
    if (sh("LNBENCH='%s' scripts/plots.sh %s >%s/plots.log 2>&1", lnbench, dir, dir) != 0)
        return sh("cat %s/plots.log", dir), -1;
    if (sh("'%s' report %s >%s/report.log 2>&1", lnbench, dir, dir) != 0) return sh("cat %s/report.log", dir), -1;
    return 0;
}

static int teardown(void **state) { return dir ? test_dir_remove(state) : 0; }

#define NEED_GNUPLOT()    \
    do {                  \
        if (!dir) skip(); \
    } while (0)

static void test_every_figure_is_a_png_and_an_svg(void **state)
{
    (void)state;
    NEED_GNUPLOT();
    static const unsigned char png_magic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    for (size_t i = 0; i < NEXPECTED; i++) {
        char name[128];
        size_t len;
        snprintf(name, sizeof name, "plots/%s.png", expected[i]);
        char *png = slurp_file(test_path(name), &len);
        assert_non_null(png);
        assert_true(len > 5000); /* a drawn figure, not an empty canvas */
        assert_memory_equal(png, png_magic, sizeof png_magic);
        free(png);
        snprintf(name, sizeof name, "plots/%s.svg", expected[i]);
        char *svg = slurp_file(test_path(name), &len);
        assert_non_null(svg);
        assert_non_null(strstr(svg, "<svg"));
        assert_non_null(strstr(svg, "</svg>"));
        free(svg);
    }
    /* nothing more: the figure list is what the data supports */
    assert_int_equal(sh("test $(wc -l <%s/plots/data/figures.txt) -eq %zu", dir, NEXPECTED), 0);
}

static void test_figures_without_data_are_skipped(void **state)
{
    (void)state;
    NEED_GNUPLOT();
    struct stat st;
    assert_int_not_equal(stat(test_path("plots/conditioning-bf16.png"), &st), 0);
    /* bench.csv alone: throughput drawn, no accuracy figure, and the report says so */
    char only[96];
    snprintf(only, sizeof only, "%s/bench-only", dir);
    assert_int_equal(sh("mkdir -p %s && cp tests/fixtures/bench.csv* %s/", only, only), 0);
    assert_int_equal(sh("LNBENCH='%s' scripts/plots.sh %s >%s/log 2>&1", lnbench, only, only), 0);
    assert_int_equal(sh("test -s %s/plots/throughput-memory-f32.png", only), 0);
    assert_int_not_equal(sh("ls %s/plots/accuracy-* >/dev/null 2>&1", only), 0);
    assert_int_equal(sh("'%s' report %s >/dev/null && ! grep -q '## Verdicts' %s/REPORT.md && grep -q '## Which "
                        "kernel, here' %s/REPORT.md",
                        lnbench, only, only, only),
                     0);
    /* no results at all: a message and a failure, no figures */
    snprintf(only, sizeof only, "%s/empty", dir);
    assert_int_equal(sh("mkdir -p %s", only), 0);
    assert_int_not_equal(sh("LNBENCH='%s' scripts/plots.sh %s >%s.log 2>&1", lnbench, only, only), 0);
    assert_int_equal(sh("grep -q 'no results' %s.log", only), 0);
}

/* Every figure's settings name its series: at most 8 a panel (throughput-all-* splits into
 * panels of `panel` series). */
static void test_at_most_eight_series_a_panel(void **state)
{
    (void)state;
    NEED_GNUPLOT();
    assert_int_equal(sh("cd %s/plots/data && for f in *.gp; do "
                        "  n=$(sed -n 's/^names = \"\\(.*\\)\"/\\1/p' $f | wc -w); "
                        "  p=$(sed -n 's/^panel = //p' $f); "
                        "  [ -n \"$p\" ] && [ \"$p\" -le 8 ] && continue; "
                        "  [ \"$n\" -le 8 ] || { echo \"$f: $n series\"; exit 1; }; "
                        "done",
                        dir),
                     0);
    /* the overview keeps the fastest kernel of each algorithm: one two-pass kernel of two */
    assert_int_equal(sh("grep -v '^allk = ' %s/plots/data/throughput-cache-f32.gp | grep -c twopass | grep -qx 1", dir),
                     0);
    assert_int_equal(sh("grep -q 'f32-twopass-scalar' %s/plots/data/throughput-all-cache-f32.gp", dir), 0);
}

/* A kernel with non-finite outputs is listed, not drawn as a finite point; the bf16 kernel's
 * errors on rows that underflowed in bf16 (5000 u in the fixture) are drawn nowhere. */
/* One colour and point type per kernel in every figure: from its place among the folder's
 * kernels (allk, the same line in every figure's settings), not from its place in the figure. */
static void test_one_style_per_kernel(void **state)
{
    (void)state;
    NEED_GNUPLOT();
    assert_int_equal(sh("cd %s/plots/data && [ $(grep -h '^allk = ' *.gp | sort -u | wc -l) = 1 ]", dir), 0);
    assert_int_equal(
        sh("gnuplot -e \"term='png'; out='%s/kc'; W=10; H=10; allk='a b c'; load 'scripts/common.gp'; "
           "print kc('b', 0).' '.kc('b', 7).' '.kc('c', 0).' '.kp('b', 0).' '.kp('b', 5)\" >%s/kc.txt 2>&1 "
           "&& grep -qx '#D55E00 #D55E00 #009E73 5 5' %s/kc.txt",
           dir, dir, dir),
        0);
}

static void test_nonfinite_and_degenerate_cases(void **state)
{
    (void)state;
    NEED_GNUPLOT();
    assert_int_equal(
        sh("grep -q 'broken = \"non-finite outputs, not drawn: f32-naive-scalar\"' %s/plots/data/pareto-f32.gp", dir),
        0);
    assert_int_not_equal(sh("grep -q f32-naive-scalar %s/plots/data/pareto-f32.dat", dir), 0);
    assert_int_not_equal(sh("grep -q 5000 %s/plots/data/accuracy-bf16.dat", dir), 0);
    assert_int_not_equal(sh("grep -q 5000 %s/plots/data/pareto-bf16.dat", dir), 0);
}

static void test_plots_removes_only_its_own_files(void **state)
{
    (void)state;
    NEED_GNUPLOT();
    char d[96];
    snprintf(d, sizeof d, "%s/own", dir);
    assert_int_equal(
        sh("mkdir -p %s/plots && cp tests/fixtures/*.csv tests/fixtures/*.json %s/ && echo mine >%s/plots/mine.png", d,
           d, d),
        0);
    assert_int_equal(sh("LNBENCH='%s' scripts/plots.sh %s >/dev/null 2>&1", lnbench, d), 0);
    assert_int_equal(sh("test -s %s/plots/conditioning-f32.png", d), 0);
    /* without the offset sweep its figure goes, the user's file stays */
    assert_int_equal(sh("rm %s/conditioning.csv && LNBENCH='%s' scripts/plots.sh %s >/dev/null 2>&1", d, lnbench, d),
                     0);
    assert_int_not_equal(sh("test -e %s/plots/conditioning-f32.png", d), 0);
    assert_int_equal(sh("grep -qx mine %s/plots/mine.png", d), 0);
}

/* Two runs kept by scripts/history.sh (the second with another commit and date): the history
 * figure of the kernel asked for is drawn from both, oldest first. */
static void test_history_of_a_kernel(void **state)
{
    (void)state;
    NEED_GNUPLOT();
    char d[96];
    snprintf(d, sizeof d, "%s/hist", dir);
    assert_int_equal(sh("mkdir -p %s && cp tests/fixtures/*.csv tests/fixtures/*.json %s/ && LNBENCH='%s' "
                        "scripts/history.sh %s >/dev/null",
                        d, d, lnbench, d),
                     0);
    assert_int_equal(
        sh("sed -i 's/3312996/abcdef0/; s/2024-11-29T13:40:00Z/2024-12-01T09:00:00Z/' %s/bench.csv.meta.json && "
           "LNBENCH='%s' scripts/history.sh %s >/dev/null",
           d, lnbench, d),
        0);
    assert_int_equal(sh("test $(ls -d %s/history/*/* | wc -l) -eq 2", d), 0);
    assert_int_equal(sh("ls %s/history/*/ | head -n 1 | grep -q 3312996", d), 0); /* by date: the older first */
    assert_int_equal(
        sh("HISTORY_KERNEL=f32-twopass-avx512 LNBENCH='%s' scripts/plots.sh %s >/dev/null 2>&1", lnbench, d), 0);
    assert_int_equal(
        sh("test -s %s/plots/history-f32-twopass-avx512.png && test -s %s/plots/history-f32-twopass-avx512.svg", d, d),
        0);
    assert_int_equal(
        sh("grep -q 'labels = \"3312996 11-29|abcdef0 12-01\"' %s/plots/data/history-f32-twopass-avx512.gp", d), 0);
    /* one run is no history */
    assert_int_equal(
        sh("rm -rf %s/history/*/*abcdef0 && LNBENCH='%s' scripts/plots.sh %s >/dev/null 2>&1", d, lnbench, d), 0);
    assert_int_not_equal(sh("ls %s/plots/history-* >/dev/null 2>&1", d), 0);
}

static void test_report_inlines_every_figure(void **state)
{
    (void)state;
    NEED_GNUPLOT();
    char *md = slurp_file(test_path("REPORT.md"), NULL), *html = slurp_file(test_path("report.html"), NULL);
    assert_non_null(md);
    assert_non_null(html);
    assert_no_temp_files();
    for (size_t i = 0; i < NEXPECTED; i++) {
        char link[128];
        snprintf(link, sizeof link, "](plots/%s.png)", expected[i]);
        assert_non_null(strstr(md, link));
    }
    size_t svgs = 0;
    for (const char *p = html; (p = strstr(p, "<svg")); p++) svgs++;
    assert_int_equal(svgs, NEXPECTED);
    assert_null(strstr(html, "<?xml")); /* the SVG elements alone, no XML prolog inside HTML */
    free(md);
    free(html);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_figure_is_a_png_and_an_svg),
        cmocka_unit_test(test_figures_without_data_are_skipped),
        cmocka_unit_test(test_at_most_eight_series_a_panel),
        cmocka_unit_test(test_one_style_per_kernel),
        cmocka_unit_test(test_nonfinite_and_degenerate_cases),
        cmocka_unit_test(test_plots_removes_only_its_own_files),
        cmocka_unit_test(test_history_of_a_kernel),
        cmocka_unit_test(test_report_inlines_every_figure),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
