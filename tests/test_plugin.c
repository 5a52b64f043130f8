/* Kernels from a shared library (--plugin, docs/plugins.md): the example plugin is listed,
 * measured within its bound, timed and hunted beside the built-in kernels; a broken library gets
 * one message and exit status 2. $LNBENCH is the binary, $LNBENCH_PLUGIN_DIR the build folder
 * holding plugin-example.so and tests/plugin-bad-*.so (make test sets both). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "accuracy.h"
#include "plugin.h"
#include "lnbench_run.h"
#include "tmpdir.h"

static const char *plugin_dir;
static char example[512];

static void test_list_shows_plugin_kernel(void **state)
{
    (void)state;
    assert_int_equal(run("list --plugin %s", example), 0);
    if (!strstr(run_output, "f32-example-twopass-scalar") || !strstr(run_output, "plugin example"))
        fail_msg("list does not show the plugin's kernel: %s", run_output);
    assert_non_null(strstr(run_output, "f32-twopass-scalar")); /* the built-in ones still there */
    assert_int_equal(run("list --csv --plugin=%s", example), 0);
    assert_non_null(strstr(run_output, "f32-example-twopass-scalar,f32,example-twopass,scalar,yes,"));
    assert_int_equal(run("list"), 0);
    assert_null(strstr(run_output, "f32-example"));
}

/* In process: the loaded kernel, run by the harness on built-in distributions, stays within the
 * bound it states (and it is the kernel the library defines, not a built-in one). */
static void test_plugin_kernel_within_its_bound(void **state)
{
    (void)state;
    size_t before = ln_kernel_count();
    ln_plugin_load(example);
    assert_int_equal(ln_kernel_count(), before + 1);
    const ln_kernel *k = ln_kernel_at(before);
    assert_string_equal(k->name, "f32-example-twopass-scalar");
    assert_non_null(k->bound);
    const char *specs[] = {"normal", "offset:1e4", "outlier:1000", "heavy"};
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        ln_case c = {.dtype = LN_F32, .D = 768, .rows = 4, .eps = 1e-5, .seed = 3, .affine = 1};
        ln_dist_parse(specs[s], &c.dist);
        ln_prepared p;
        assert_int_equal(ln_prepare(&c, &p), 0);
        ln_errors e;
        ln_measure_kernel(k, &p, &e, NULL);
        double bound = k->bound(c.D, ln_kappa_max(&p));
        if (!(e.max_norm <= bound) || e.nonfinite) fail_msg("%s: max_norm %g > bound %g", specs[s], e.max_norm, bound);
        assert_true(e.max_norm > 0); /* it computes in fp32: not exact */
        ln_prepared_free(&p);
        ln_dist_free(&c.dist);
    }
}

/* accuracy, bench and hunt run it beside a built-in kernel, by name or by glob. */
static void test_verbs_run_plugin_kernel(void **state)
{
    (void)state;
    const char *csv = test_path("acc.csv");
    assert_int_equal(
        run("accuracy --quiet --plugin %s --kernels 'f32-*twopass-scalar' --D 64 --rows 2 --out %s", example, csv), 0);
    FILE *f = fopen(csv, "r");
    assert_non_null(f);
    char line[4096];
    int plugin_rows = 0, builtin_rows = 0;
    while (fgets(line, sizeof line, f)) {
        plugin_rows += !strncmp(line, "f32-example-twopass-scalar,", 27);
        builtin_rows += !strncmp(line, "f32-twopass-scalar,", 19);
    }
    fclose(f);
    assert_int_equal(plugin_rows, 3); /* the default dists normal, offset:1e4, const */
    assert_int_equal(builtin_rows, 3);

    int st = run("bench --quiet --plugin %s --kernels f32-example-twopass-scalar --D 64 --rows 16 "
                 "--benchmark_min_time=0.001 --benchmark_repetitions=1 --out %s",
                 example, test_path("b.csv"));
    if (st != 0) fail_msg("bench: exit %d: %s", st, run_output);
    f = fopen(test_path("b.csv"), "r");
    assert_non_null(f);
    int timed = 0;
    while (fgets(line, sizeof line, f)) timed += !strncmp(line, "f32-example-twopass-scalar,", 27);
    fclose(f);
    assert_true(timed >= 1);

    st = run("hunt --quiet --plugin %s --kernel f32-example-twopass-scalar --D 64 --evals 300 --starts 1 --out %s",
             example, test_path("hunt"));
    if (st != 0) fail_msg("hunt: exit %d: %s", st, run_output);
    assert_non_null(strstr(run_output, "verdict pass"));
    assert_no_temp_files();
}

static void expect_refused(const char *lib, const char *named)
{
    char path[600];
    snprintf(path, sizeof path, "%s/tests/plugin-bad-%s.so", plugin_dir, lib);
    int st = run("list --plugin %s", path);
    if (st != 2) fail_msg("plugin-bad-%s: exit %d, expected 2: %s", lib, st, run_output);
    if (!strstr(run_output, named)) fail_msg("plugin-bad-%s: message does not say '%s': %s", lib, named, run_output);
    int lines = 0;
    for (const char *p = run_output; *p; p++) lines += *p == '\n';
    if (lines != 1) fail_msg("plugin-bad-%s: %d lines of message: %s", lib, lines, run_output);
}

static void test_broken_plugins_refused(void **state)
{
    (void)state;
    expect_refused("nosymbol", "exports no ln_plugin_kernels");
    char abi[128];
    snprintf(abi, sizeof abi, "ABI version %d; this lnbench has version %d", LN_ABI_VERSION + 1, LN_ABI_VERSION);
    expect_refused("abi", abi);
    expect_refused("noname", "has no name");
    expect_refused("noforward", "'f32-broken-scalar' has no forward function");
    expect_refused("duplicate", "'f32-twopass-scalar' is already taken by a built-in kernel");
    assert_int_equal(run("list --plugin %s/no-such-plugin.so", plugin_dir), 2);
    assert_non_null(strstr(run_output, "cannot load"));
    assert_non_null(strstr(run_output, "no-such-plugin.so"));
    assert_int_equal(run("list --plugin"), 2);
    /* the same library twice: its kernel's name is taken by the first */
    assert_int_equal(run("accuracy --plugin %s --plugin %s", example, example), 2);
    assert_non_null(strstr(run_output, "already taken by"));
}

int main(void)
{
    lnbench = getenv("LNBENCH");
    plugin_dir = getenv("LNBENCH_PLUGIN_DIR");
    if (!lnbench || !plugin_dir) {
        fprintf(stderr, "test_plugin: set LNBENCH and LNBENCH_PLUGIN_DIR (make test does)\n");
        return 1;
    }
    snprintf(example, sizeof example, "%s/plugin-example.so", plugin_dir);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list_shows_plugin_kernel),
        cmocka_unit_test(test_plugin_kernel_within_its_bound),
        cmocka_unit_test(test_verbs_run_plugin_kernel),
        cmocka_unit_test(test_broken_plugins_refused),
    };
    return cmocka_run_group_tests(tests, test_dir_create, test_dir_remove);
}
