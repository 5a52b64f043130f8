/* The plot and report scripts on the hand-made results in tests/fixtures/: every figure the
 * data supports is drawn as a real PNG and SVG, figures without data are skipped, kernels keep
 * their colour across figures, and REPORT.md embeds every image with sentences computed from
 * the data. Skipped when gnuplot is not installed. Run from the repository root (make test). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tmpdir.h"

/* What the fixtures hold: f32 and bf16 kernels, both regimes, an offset sweep (f32 only: bf16
 * has a single offset) and an eps sweep for both dtypes. */
static const char *const expected[] = {
    "throughput-cache-f32", "throughput-memory-f32", "throughput-cache-bf16", "throughput-memory-bf16",
    "accuracy-f32",         "accuracy-bf16",         "conditioning-f32",      "eps-f32",
    "eps-bf16",             "pareto-f32",            "pareto-bf16",
};
#define NEXPECTED (sizeof expected / sizeof expected[0])

static const char *dir;   /* the results folder of the run under test (test_dir), NULL = skip */

static int sh(const char *fmt, ...)
{
    char cmd[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int status = system(cmd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    fclose(f);
    s[got] = 0;
    if (len) *len = got;
    return s;
}

static int setup(void **state)
{
    if (sh("command -v gnuplot >/dev/null 2>&1") != 0) return 0;
    if (test_dir_create(state) != 0) return -1;
    dir = test_dir;
    if (sh("cp tests/fixtures/*.csv tests/fixtures/*.meta.json %s/", dir) != 0) return -1;
    if (sh("scripts/plots.sh %s >%s/plots.log 2>&1", dir, dir) != 0) return sh("cat %s/plots.log", dir), -1;
    if (sh("scripts/report.sh %s >%s/report.log 2>&1", dir, dir) != 0) return sh("cat %s/report.log", dir), -1;
    return 0;
}

static int teardown(void **state) { return dir ? test_dir_remove(state) : 0; }

#define NEED_GNUPLOT() \
    do { if (!dir) skip(); } while (0)

static void test_every_figure_is_a_png_and_an_svg(void **state)
{
    (void)state;
    NEED_GNUPLOT();
    static const unsigned char png_magic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    for (size_t i = 0; i < NEXPECTED; i++) {
        char name[128];
        size_t len;
        snprintf(name, sizeof name, "plots/%s.png", expected[i]);
        char *png = slurp(test_path(name), &len);
        assert_non_null(png);
        assert_true(len > 5000);   /* a drawn figure, not an empty canvas */
        assert_memory_equal(png, png_magic, sizeof png_magic);
        free(png);
        snprintf(name, sizeof name, "plots/%s.svg", expected[i]);
        char *svg = slurp(test_path(name), &len);
        assert_non_null(svg);
        assert_non_null(strstr(svg, "<svg"));
        assert_non_null(strstr(svg, "</svg>"));
        free(svg);
    }
}

static void test_figures_without_data_are_skipped_with_a_message(void **state)
{
    (void)state;
    NEED_GNUPLOT();
    struct stat st;
    assert_int_not_equal(stat(test_path("plots/conditioning-bf16.png"), &st), 0);
    char *log = slurp(test_path("plots.log"), NULL);
    assert_non_null(log);
    assert_non_null(strstr(log, "conditioning, bf16"));
    free(log);

    /* bench.csv alone: throughput drawn, every accuracy figure skipped, and the report says so */
    char only[80];
    snprintf(only, sizeof only, "%s/bench-only", dir);
    assert_int_equal(sh("mkdir -p %s && cp tests/fixtures/bench.csv %s/", only, only), 0);
    assert_int_equal(sh("scripts/plots.sh %s >%s/log 2>&1", only, only), 0);
    assert_int_equal(sh("grep -q 'accuracy figure skipped' %s/log", only), 0);
    assert_int_equal(sh("grep -q 'conditioning figure skipped' %s/log", only), 0);
    assert_int_equal(sh("test -s %s/plots/throughput-memory-f32.png", only), 0);
    assert_int_not_equal(sh("ls %s/plots/accuracy-* >/dev/null 2>&1", only), 0);
    assert_int_equal(sh("scripts/report.sh %s >/dev/null && grep -q 'No accuracy.csv' %s/REPORT.md", only, only), 0);

    /* no results at all: a message and a failure, no figures */
    snprintf(only, sizeof only, "%s/empty", dir);
    assert_int_equal(sh("mkdir -p %s", only), 0);
    assert_int_not_equal(sh("scripts/plots.sh %s >%s.log 2>&1", only, only), 0);
    assert_int_equal(sh("grep -q 'no results' %s.log", only), 0);
}

/* Each figure's settings list its kernels (names) and their colour indices (idx); a kernel must
 * have the same index in every figure. */
static void test_a_kernel_has_one_colour_in_every_figure(void **state)
{
    (void)state;
    NEED_GNUPLOT();
    assert_int_equal(sh("cat %s/plots/data/series/*.gp | awk -F'\"' '"
                        "/^names = / { n = split($2, nm, \" \") } "
                        "/^idx = / { split($2, ix, \" \"); for (i = 1; i <= n; i++) { "
                        "  if ((nm[i] in c) && c[nm[i]] != ix[i]) bad = 1; c[nm[i]] = ix[i]; seen++ } } "
                        "END { exit bad || seen < 20 }'",
                        dir),
                     0);
    /* and kernels of one dtype get distinct colours */
    assert_int_equal(sh("awk -F'\"' '/^idx = / { n = split($2, ix, \" \"); split(\"\", u); "
                        "for (i = 1; i <= n; i++) { if (ix[i] in u) bad = 1; u[ix[i]] = 1 } } END { exit bad }' "
                        "%s/plots/data/series/accuracy-f32.gp",
                        dir),
                     0);
}

static void test_report_embeds_every_figure_and_reads_the_data(void **state)
{
    (void)state;
    NEED_GNUPLOT();
    char *md = slurp(test_path("REPORT.md"), NULL);
    assert_non_null(md);
    assert_no_temp_files();   /* REPORT.md is renamed into place */
    for (size_t i = 0; i < NEXPECTED; i++) {
        char link[128];
        snprintf(link, sizeof link, "](plots/%s.png)", expected[i]);
        assert_non_null(strstr(md, link));
    }
    /* metadata of both sidecar files */
    assert_non_null(strstr(md, "Intel(R) Xeon(R) Platinum 8481C"));
    assert_non_null(strstr(md, "| git_commit | 3312996 | 3312996 |"));
    /* sentences computed from the fixtures: the naive kernel's normwise error passes 1e3 u at
     * offset 1e4 and stays above (NaN from 1e6); two-pass never does */
    assert_non_null(strstr(md, "f32-naive-scalar's max_norm exceeds 1e3 u from offset:1e4 on (non-finite output from offset:1e6)"));
    assert_null(strstr(md, "f32-twopass-scalar's max_norm exceeds"));
    assert_non_null(strstr(md, "Non-finite outputs from f32-naive-scalar on const rows at eps = 1e-12."));
    assert_non_null(strstr(md, "f32-naive-scalar on const, f32-naive-scalar on huge"));
    /* the memory-resident fastest f32 kernel and the probe it is compared with */
    assert_non_null(strstr(md, "Fastest here: ext-onednn-f32"));
    assert_non_null(strstr(md, "of the probe-copy rate, 13 GB/s"));
    /* a pivot table row with a non-finite cell kept, not dropped */
    assert_non_null(strstr(md, "| inf (16384 non-finite) |"));
    free(md);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_figure_is_a_png_and_an_svg),
        cmocka_unit_test(test_figures_without_data_are_skipped_with_a_message),
        cmocka_unit_test(test_a_kernel_has_one_colour_in_every_figure),
        cmocka_unit_test(test_report_embeds_every_figure_and_reads_the_data),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
