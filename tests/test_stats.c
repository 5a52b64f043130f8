/* `lnbench stats` (the binary named by $LNBENCH) on temporary files whose exact statistics are
 * known by hand. */
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
#include <unistd.h>

#include <mpfr.h>

static char dir[64];
static const char *lnbench;

static char out[4096], err[4096];

static void slurp(const char *name, char *buf, size_t size)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, size - 1, f);
    buf[n] = 0;
    fclose(f);
}

/* Writes `content` to dir/name and returns the path (static buffer). */
static const char *file_with(const char *name, const char *content)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(content, f);
    fclose(f);
    return path;
}

/* Runs `lnbench stats ARGS`; returns its exit status, output in out and err. */
static int run(const char *args)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' stats %s >'%s/out' 2>'%s/err'", lnbench, args, dir, dir);
    int status = system(cmd);
    slurp("out", out, sizeof out);
    slurp("err", err, sizeof err);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

/* The value printed for `name`, checked to be printed as %.17g of itself. */
static double value(const char *name)
{
    char key[64];
    snprintf(key, sizeof key, "%s ", name);
    const char *line = strstr(out, key);
    while (line && line != out && line[-1] != '\n') line = strstr(line + 1, key);
    if (!line) print_error("no '%s' in:\n%s", name, out);
    assert_non_null(line);
    char text[64], again[64];
    assert_int_equal(sscanf(line + strlen(key), "%63s", text), 1);
    double v = strtod(text, NULL);
    snprintf(again, sizeof again, "%.17g", v);
    assert_string_equal(text, again);
    return v;
}

static int setup(void **state)
{
    (void)state;
    lnbench = getenv("LNBENCH");
    strcpy(dir, "/tmp/lnbench-stats-XXXXXX");
    return lnbench && mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* 1e16, 1, -1e16: a double sum loses the 1 (mean 0). Exactly: mean 1/3, sum x^2 = 2e32 + 1,
 * n sum x^2 - (sum x)^2 = 6e32 + 2, var_pop = (6e32 + 2)/9, var_sample = 1e32 + 1/3,
 * sd_sample = 1e16 + 1/(6e16) + ... */
static void test_cancellation(void **state)
{
    (void)state;
    volatile double naive = 1e16;
    naive += 1, naive += -1e16;
    assert_true(naive / 3 != 1.0 / 3); /* the case is one a double sum gets wrong */
    assert_int_equal(run(file_with("a.txt", "1e16\n1\n-1e16\n")), 0);
    assert_true(value("n") == 3);
    assert_true(value("mean") == 1.0 / 3);
    mpfr_t var_pop;
    mpfr_init2(var_pop, 200);
    mpfr_set_str(var_pop, "600000000000000000000000000000002", 10, MPFR_RNDN); /* exact */
    mpfr_div_ui(var_pop, var_pop, 9, MPFR_RNDN);
    assert_true(value("var_pop") == mpfr_get_d(var_pop, MPFR_RNDN));
    mpfr_clear(var_pop);
    /* 1e32 is 2^32 5^32 with 5^32 a 75-bit odd number, so it lies a multiple of 2^32 away
     * from any midpoint of doubles: adding 1/3 cannot change its rounding */
    assert_true(value("var_sample") == 1e32);
    assert_true(value("sd_sample") == 1e16);
}

/* 1e8 + 0.1, 0.2, 0.3: mean 1e8 + 0.2, var_pop 0.02/3 = 1/150, var_sample 0.01, sd 0.1 exactly;
 * in double the inputs are already off by ~1e-8, which a two-pass variance shows. */
static void test_offset_values(void **state)
{
    (void)state;
    double v[3] = {100000000.1, 100000000.2, 100000000.3}, mean = (v[0] + v[1] + v[2]) / 3, ss = 0;
    for (int i = 0; i < 3; i++) ss += (v[i] - mean) * (v[i] - mean);
    assert_true(ss / 2 != 0.01);
    assert_int_equal(run(file_with("b.txt", "100000000.1 100000000.2\n  100000000.3\n")), 0);
    assert_true(value("n") == 3);
    assert_true(value("mean") == 100000000.2);
    assert_true(value("var_pop") == 1.0 / 150);
    assert_true(value("var_sample") == 0.01);
    assert_true(value("sd_sample") == 0.1);
}

/* Header lines: an error without --skip (naming line 1), skipped with it. [1,2,3,4]: mean 2.5,
 * var_pop 1.25, var_sample 5/3, sd_sample sqrt(5/3). */
static void test_skip_and_bad_lines(void **state)
{
    (void)state;
    const char *path = file_with("c.txt", "x y\n# units\n1 2 3\n4\n");
    char args[256];
    snprintf(args, sizeof args, "'%s'", path);
    assert_int_equal(run(args), 2);
    assert_non_null(strstr(err, "c.txt:1:"));
    assert_non_null(strstr(err, "'x y'"));
    snprintf(args, sizeof args, "--skip 2 '%s'", path);
    assert_int_equal(run(args), 0);
    mpfr_t sd;
    mpfr_init2(sd, 200);
    mpfr_set_ui(sd, 5, MPFR_RNDN);
    mpfr_div_ui(sd, sd, 3, MPFR_RNDN);
    mpfr_sqrt(sd, sd, MPFR_RNDN);
    assert_true(value("n") == 4 && value("mean") == 2.5 && value("var_pop") == 1.25);
    assert_true(value("var_sample") == 5.0 / 3 && value("sd_sample") == mpfr_get_d(sd, MPFR_RNDN));
    mpfr_clear(sd);

    snprintf(args, sizeof args, "'%s'", file_with("d.txt", "1 2\n3 4x\n5\n"));
    assert_int_equal(run(args), 2);
    assert_non_null(strstr(err, "d.txt:2:"));
    assert_non_null(strstr(err, "4x"));
    assert_int_equal(run("/nonexistent/values.txt"), 2);
    assert_non_null(strstr(err, "/nonexistent/values.txt"));
}

/* --as f32: 0.1 becomes the float 13421773 2^-27 = 0.100000001490116119384765625; with n = 1
 * the sample statistics are nan. */
static void test_as_f32(void **state)
{
    (void)state;
    char args[256];
    snprintf(args, sizeof args, "--as f32 '%s'", file_with("e.txt", "0.1\n"));
    assert_int_equal(run(args), 0);
    assert_true(value("mean") == 0.100000001490116119384765625);
    assert_non_null(strstr(out, "mean 0.10000000149011612\n"));
    assert_true(value("var_pop") == 0);
    assert_non_null(strstr(out, "var_sample nan\n"));
    assert_non_null(strstr(out, "sd_sample nan\n"));
    snprintf(args, sizeof args, "'%s'", file_with("e.txt", "0.1\n"));
    assert_int_equal(run(args), 0);
    assert_true(value("mean") == 0.1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cancellation),
        cmocka_unit_test(test_offset_values),
        cmocka_unit_test(test_skip_and_bad_lines),
        cmocka_unit_test(test_as_f32),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
