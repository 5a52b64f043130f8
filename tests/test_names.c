/* Names the user types: a misspelt kernel, distribution or verb gets the nearest name, an
 * unknown one the way to list them, exit status 2 either way; `lnbench --version` names the
 * commit and the compiler. The binary is $LNBENCH. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sh.h"
#include "tmpdir.h"

static const char *lnbench;

static void test_nearest_name(void **state)
{
    (void)state;
    const char *const names[] = {"f32-twopass-avx512", "f32-twopass-avx2", "f32-welford-avx512", "normal", "offset"};
    assert_string_equal(ln_did_you_mean("f32-twopas-avx512", names, 5), "f32-twopass-avx512");
    assert_string_equal(ln_did_you_mean("f32-twopass-avx22", names, 5), "f32-twopass-avx2");
    assert_string_equal(ln_did_you_mean("ofset", names, 5), "offset");
    assert_string_equal(ln_did_you_mean("nromal", names, 5), "normal"); /* a swap is two edits, within a third of 6 */
    assert_null(ln_did_you_mean("gauss", names, 5));                    /* no name is near */
    assert_null(ln_did_you_mean("normal", names, 5));                   /* an exact name is no misspelling */
}

/* Runs lnbench with args; its stderr in test_dir/err; returns the exit status. */
static int run(const char *args) { return sh("'%s' %s >%s 2>%s", lnbench, args, test_path("out"), test_path("err")); }

static void assert_err_has(const char *text)
{
    char *err = slurp_file(test_path("err"), NULL);
    assert_non_null(err);
    if (!strstr(err, text)) fail_msg("stderr lacks \"%s\": %s", text, err);
    free(err);
}

static void test_misspelt_names_exit_2_with_the_nearest(void **state)
{
    (void)state;
    assert_int_equal(run("accuracy --kernels f32-twopas-scalar --D 64 --rows 1"), 2);
    assert_err_has("did you mean 'f32-twopass-scalar'?");
    assert_int_equal(run("accuracy --dist ofset:1e4 --D 64 --rows 1"), 2);
    assert_err_has("did you mean 'offset:1e4'?");
    assert_int_equal(run("acuracy"), 2);
    assert_err_has("did you mean 'accuracy'?");
    /* a glob that matches nothing: no guess, the way to see them all, and a short message */
    assert_int_equal(run("bench --kernels 'zz*'"), 2);
    assert_err_has("no kernel matches 'zz*' ('lnbench list' shows the");
    char *err = slurp_file(test_path("err"), NULL);
    assert_true(strlen(err) < 120);
    free(err);
}

static void test_version(void **state)
{
    (void)state;
    assert_int_equal(run("--version"), 0);
    char *out = slurp_file(test_path("out"), NULL);
    assert_non_null(out);
    assert_true(strncmp(out, "lnbench ", 8) == 0);
    assert_non_null(strstr(out, "compiler: "));
    assert_non_null(strstr(out, "MPFR "));
    free(out);
}

int main(void)
{
    lnbench = getenv("LNBENCH");
    if (!lnbench) lnbench = "build/lnbench";
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nearest_name),
        cmocka_unit_test(test_misspelt_names_exit_2_with_the_nearest),
        cmocka_unit_test(test_version),
    };
    return cmocka_run_group_tests(tests, test_dir_create, test_dir_remove);
}
