/* lnbench compare on runs written here with chosen repetitions and changes: a change the
 * repetitions cannot test is inconclusive (exit 3), never "same"; a 20% slowdown with enough
 * repetitions is slower (exit 1); the same code timed twice with 7% noise over many benchmarks
 * flags nothing (the correction for the number of tests); the per-kernel roll-up comes first;
 * --only-changed; a NEW lacking kernels of BASE is refused; two kernels of one run side by side.
 * Run from the repository root (make test). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "sh.h"
#include "tmpdir.h"

static const char *lnbench;

/* A deterministic uniform in [-1, 1) (xorshift). */
static double jitter(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return (double)(*s >> 11) / (double)(1ull << 52) - 1;
}

/* dir/bench.json: nkernels kernels x D 768, 4096 x cache, memory, reps repetitions each around
 * 20 GB/s (times factor for the kernel named slow, if any), spread +-noise; seed varies the noise. */
static void write_run(const char *dir, int nkernels, int reps, double noise, const char *slow, double factor,
                      uint64_t seed)
{
    sh("mkdir -p %s", dir);
    char path[512];
    snprintf(path, sizeof path, "%s/bench.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\"context\": {\"cpu_model\": \"Fixture CPU\", \"git_commit\": \"abc\"},\n \"benchmarks\": [\n");
    static const char *const regimes[] = {"1", "65536"}; /* rows: cache, memory */
    static const int Ds[] = {768, 4096};
    int first = 1;
    for (int k = -1; k < nkernels; k++)
        for (int d = 0; d < 2; d++)
            for (int r = 0; r < 2; r++)
                for (int i = 0; i < reps; i++) {
                    char name[128];
                    double base = 20e9;
                    if (k < 0) snprintf(name, sizeof name, "probe-copy/bytes:%s/real_time", r ? "256M" : "1M");
                    else {
                        char kernel[64];
                        if (k == 0 && slow) snprintf(kernel, sizeof kernel, "%s", slow);
                        else snprintf(kernel, sizeof kernel, "f32-k%d-scalar", k);
                        snprintf(name, sizeof name, "%s/D:%d/rows:%s/real_time", kernel, Ds[d], regimes[r]);
                        if (k == 0 && slow) base *= factor;
                    }
                    if (k < 0 && d) continue;
                    fprintf(f,
                            "%s  {\"name\": \"%s\", \"run_name\": \"%s\", \"run_type\": \"iteration\", "
                            "\"bytes_per_second\": %.1f}",
                            first ? "" : ",\n", name, name, base * (1 + noise * jitter(&seed)));
                    first = 0;
                }
    fprintf(f, "\n]}\n");
    fclose(f);
}

static int compare(const char *flags, const char *base, const char *new_)
{
    return sh("'%s' compare %s --out %s/c.csv %s/%s %s/%s >%s/out 2>&1", lnbench, flags, test_dir, test_dir, base,
              test_dir, new_, test_dir);
}

static int out_has(const char *s)
{
    char *text = slurp_file(test_path("out"), NULL);
    int has = text && strstr(text, s);
    free(text);
    return has;
}

static void test_min_p_and_holm(void **state)
{
    (void)state;
    assert_float_equal(ln_mann_whitney_min_p(3, 3), 0.1, 1e-12);
    assert_float_equal(ln_mann_whitney_min_p(5, 5), 2.0 / 252, 1e-12);
    const double p[] = {0.01, 0.04, 0.03, 0.005};
    double adj[4];
    ln_holm(p, 4, adj);
    /* sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1, never decreasing */
    assert_float_equal(adj[3], 0.02, 1e-12);
    assert_float_equal(adj[0], 0.03, 1e-12);
    assert_float_equal(adj[2], 0.06, 1e-12);
    assert_float_equal(adj[1], 0.06, 1e-12);
}

/* 3 repetitions a side cannot give p below 0.1: a kernel made 2x slower is inconclusive, exit 3. */
static void test_two_x_at_three_reps_is_inconclusive(void **state)
{
    (void)state;
    write_run(test_path("b3"), 3, 3, 0.01, "f32-slow-scalar", 1, 1);
    write_run(test_path("n3"), 3, 3, 0.01, "f32-slow-scalar", 0.5, 2);
    assert_int_equal(compare("", "b3", "n3"), 3);
    assert_true(out_has("inconclusive"));
    assert_true(out_has("compare: inconclusive (exit 3)"));
    char *csv = slurp_file(test_path("c.csv"), NULL);
    assert_non_null(strstr(csv, "f32-slow-scalar,f32-slow-scalar/D:768/rows:1,cache,3,3,"));
    assert_non_null(strstr(csv, ",inconclusive,GB/s,layernorm\n"));
    free(csv);
}

/* 12 repetitions a side: a 20% slowdown is slower (exit 1), named, with its kernel's roll-up first. */
static void test_twenty_percent_at_enough_reps_is_slower(void **state)
{
    (void)state;
    write_run(test_path("b12"), 10, 12, 0.03, "f32-slow-scalar", 1, 3);
    write_run(test_path("n12"), 10, 12, 0.03, "f32-slow-scalar", 0.8, 4);
    assert_int_equal(compare("", "b12", "n12"), 1);
    assert_true(out_has("slower: layernorm f32-slow-scalar/D:4096/rows:65536"));
    char *out = slurp_file(test_path("out"), NULL);
    char *roll = strstr(out, "per kernel:"), *detail = strstr(out, "\nkernel benchmark ");
    assert_non_null(roll);
    assert_non_null(detail);
    assert_true(roll < detail);
    /* slowest first: the slow kernel is the roll-up's first line */
    char *line = strchr(strchr(roll, '\n') + 1, '\n') + 1;
    assert_non_null(strstr(line, "f32-slow-scalar"));
    assert_true(strstr(line, "f32-slow-scalar") < strchr(line, '\n'));
    free(out);
    /* --only-changed: the unchanged kernels' rows are left out */
    assert_int_equal(compare("--only-changed", "b12", "n12"), 1);
    assert_false(out_has("f32-k3-scalar/D:768"));
    assert_true(out_has("f32-slow-scalar/D:768/rows:1 "));
}

/* The same code twice: 44 kernel benchmarks with +-7% noise, 12 repetitions a side; uncorrected,
 * some p would fall below 0.05 by chance; corrected, nothing is flagged and compare exits 0. */
static void test_same_code_flags_nothing(void **state)
{
    (void)state;
    int raw_below = 0;
    for (uint64_t s = 10; s < 14; s++) {
        write_run(test_path("sa"), 11, 12, 0.07, NULL, 1, s);
        write_run(test_path("sb"), 11, 12, 0.07, NULL, 1, s + 100);
        assert_int_equal(compare("", "sa", "sb"), 0);
        assert_false(out_has("slower:"));
        char *csv = slurp_file(test_path("c.csv"), NULL);
        for (char *l = strchr(csv, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
            char *f = l + 1;
            for (int c = 0; c < 8; c++) f = strchr(f, ',') + 1; /* p_value */
            if (strtod(f, NULL) < 0.05 && strncmp(l + 1, "probe", 5)) raw_below++;
        }
        free(csv);
    }
    assert_true(raw_below > 0); /* the noise did produce raw p < 0.05 */
}

/* NEW without a kernel (or a timing file) of BASE is refused, unless --allow-missing. */
static void test_missing_kernels_refused(void **state)
{
    (void)state;
    write_run(test_path("m1"), 3, 6, 0.01, NULL, 1, 5);
    write_run(test_path("m2"), 2, 6, 0.01, NULL, 1, 6);
    assert_int_equal(compare("", "m1", "m2"), 2);
    assert_true(out_has("lacks 4 kernel benchmarks"));
    assert_true(out_has("f32-k2-scalar/D:768/rows:1"));
    assert_int_equal(compare("--allow-missing", "m1", "m2"), 0);
    /* the new run lacking its whole timing file */
    sh("mkdir -p %s", test_path("empty"));
    assert_int_equal(compare("", "m1", "empty"), 2);
}

/* Two kernels of one run: case by case, which is faster and by how much, or inconclusive. */
static void test_two_kernels_of_one_run(void **state)
{
    (void)state;
    write_run(test_path("duel"), 3, 9, 0.02, "f32-fast-scalar", 1.3, 7);
    assert_int_equal(sh("'%s' compare --kernels f32-k1-scalar,f32-fast-scalar %s >%s/out 2>&1", lnbench,
                        test_path("duel"), test_dir),
                     0);
    assert_true(out_has("f32-fast-scalar faster by 3"));
    assert_false(out_has("f32-k1-scalar faster"));
    write_run(test_path("duel3"), 3, 3, 0.02, "f32-fast-scalar", 1.3, 8);
    assert_int_equal(sh("'%s' compare --kernels f32-k1-scalar,f32-fast-scalar %s >%s/out 2>&1", lnbench,
                        test_path("duel3"), test_dir),
                     0);
    assert_true(out_has("inconclusive (3 and 3 repetitions cannot tell)"));
    assert_int_equal(
        sh("'%s' compare --kernels f32-k1-scalar,nope %s >%s/out 2>&1", lnbench, test_path("duel"), test_dir), 2);
}

int main(void)
{
    lnbench = getenv("LNBENCH");
    if (!lnbench) lnbench = "build/lnbench";
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_min_p_and_holm),
        cmocka_unit_test(test_two_x_at_three_reps_is_inconclusive),
        cmocka_unit_test(test_twenty_percent_at_enough_reps_is_slower),
        cmocka_unit_test(test_same_code_flags_nothing),
        cmocka_unit_test(test_missing_kernels_refused),
        cmocka_unit_test(test_two_kernels_of_one_run),
    };
    return cmocka_run_group_tests(tests, test_dir_create, test_dir_remove);
}
