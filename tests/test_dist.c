/* Input distributions: reproducible, and each one has the property it is named for. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "npy.h"

static const char *const generated[] = {"normal", "uniform", "offset:1e4", "shifted", "outlier:100", "heavy",
                                        "const",  "zero",    "tiny",       "huge",    "exact"};
#define NGEN (sizeof generated / sizeof generated[0])

static void *fill(const char *spec, ln_dtype t, size_t rows, size_t D, uint64_t seed)
{
    ln_dist d;
    ln_dist_parse(spec, &d);
    void *x = malloc(rows * D * ln_fmt(t)->size);
    assert_non_null(x);
    ln_dist_fill(&d, t, rows, D, seed, x);
    return x;
}

static void test_reproducible(void **state)
{
    (void)state;
    const size_t rows = 3, D = 301;
    for (int t = 0; t < LN_NDTYPES; t++)
        for (size_t s = 0; s < NGEN; s++) {
            size_t bytes = rows * D * ln_fmt(t)->size;
            void *a = fill(generated[s], t, rows, D, 7), *b = fill(generated[s], t, rows, D, 7);
            void *c = fill(generated[s], t, rows, D, 8);
            assert_memory_equal(a, b, bytes);
            /* zero has no randomness; offset:1e4 rounds to 1e4 in 16-bit formats (ulp 8 or 64) */
            int constant =
                !strcmp(generated[s], "zero") || (ln_fmt(t)->size == 2 && !strcmp(generated[s], "offset:1e4"));
            if (!constant) assert_memory_not_equal(a, c, bytes);
            free(a), free(b), free(c);
        }
    /* the same data whatever way the parameter is written */
    void *a = fill("offset:1e4", LN_F64, rows, D, 1), *b = fill("offset:10000", LN_F64, rows, D, 1);
    assert_memory_equal(a, b, rows * D * 8);
    free(a), free(b);
    /* every dtype sees the same draws, rounded once */
    double *x64 = fill("normal", LN_F64, rows, D, 3);
    float *x32 = fill("normal", LN_F32, rows, D, 3);
    for (size_t i = 0; i < rows * D; i++) assert_true(x32[i] == (float)x64[i]);
    free(x64), free(x32);
}

static void moments(const double *x, size_t n, double *mean, double *var)
{
    long double s = 0, ss = 0;
    for (size_t i = 0; i < n; i++) s += x[i];
    *mean = (double)(s / n);
    for (size_t i = 0; i < n; i++) ss += (x[i] - (long double)*mean) * (x[i] - (long double)*mean);
    *var = (double)(ss / n);
}

static void test_shapes_of_the_distributions(void **state)
{
    (void)state;
    const size_t rows = 16, D = 4096, n = rows * D;
    double m, v;
    double *x = fill("normal", LN_F64, rows, D, 1);
    moments(x, n, &m, &v);
    assert_true(fabs(m) < 0.02 && fabs(v - 1) < 0.03);
    free(x);
    x = fill("uniform", LN_F64, rows, D, 1);
    moments(x, n, &m, &v);
    assert_true(fabs(m - 0.5) < 0.01 && fabs(v - 1.0 / 12) < 0.005);
    for (size_t i = 0; i < n; i++) assert_true(x[i] >= 0 && x[i] < 1);
    free(x);
    x = fill("offset:1e6", LN_F64, rows, D, 1);
    moments(x, n, &m, &v);
    assert_true(fabs(m - 1e6) < 0.02 && fabs(v - 1) < 0.03);
    free(x);
    x = fill("shifted", LN_F64, rows, D, 1);
    moments(x, n, &m, &v);
    assert_true(fabs(m + 2.3) < 0.01 && fabs(v - 0.25) < 0.01);
    free(x);
    /* heavy tails: beyond 8 (about 1e-15 for a normal) happens ~0.2% of the time for t(3) */
    x = fill("heavy", LN_F64, rows, D, 1);
    size_t far = 0;
    for (size_t i = 0; i < n; i++) far += fabs(x[i]) > 8;
    assert_true(far > 20 && far < 1000);
    free(x);
    x = fill("zero", LN_F64, rows, D, 1);
    for (size_t i = 0; i < n; i++) assert_true(x[i] == 0);
    free(x);
}

static void test_const_rows(void **state)
{
    (void)state;
    const size_t rows = 8, D = 257;
    for (int t = 0; t < LN_NDTYPES; t++) {
        void *x = fill("const", t, rows, D, 5);
        for (size_t r = 0; r < rows; r++)
            for (size_t i = 1; i < D; i++) assert_true(ln_load(t, x, r * D + i) == ln_load(t, x, r * D));
        assert_true(ln_load(t, x, 0) != ln_load(t, x, D)); /* a value per row */
        free(x);
    }
}

static void test_outlier_channels_fixed(void **state)
{
    (void)state;
    const size_t rows = 8, D = 1000;
    double *x = fill("outlier:1e6", LN_F64, rows, D, 1);
    size_t count = 0;
    for (size_t i = 0; i < D; i++) {
        int big = fabs(x[i]) > 1000; /* an outlier channel, unless its normal draw is < 1e-3 */
        count += big;
        for (size_t r = 1; r < rows; r++) assert_int_equal(fabs(x[r * D + i]) > 1000, big);
    }
    assert_true(count >= 5 && count <= 20); /* ~1% */
    free(x);
    x = fill("outlier:1e6", LN_F64, 2, 50, 1); /* at least one even when 1% rounds to 0 */
    count = 0;
    for (size_t i = 0; i < 50; i++) count += fabs(x[i]) > 1000;
    assert_true(count >= 1);
    free(x);
}

static void test_tiny_and_huge_ranges(void **state)
{
    (void)state;
    const size_t rows = 4, D = 512;
    for (int t = 0; t < LN_NDTYPES; t++) {
        const ln_format *f = ln_fmt(t);
        double smallest_normal = ldexp(1, f->emin), max = ldexp(2 - ldexp(1, 1 - f->p), f->emax);
        void *x = fill("tiny", t, rows, D, 1);
        size_t sub = 0;
        for (size_t i = 0; i < rows * D; i++) {
            double v = fabs(ln_load(t, x, i));
            assert_true(v < 64 * smallest_normal);
            sub += v > 0 && v < smallest_normal;
        }
        assert_true(sub > 0);
        free(x);
        x = fill("huge", t, rows, D, 1);
        size_t overflowing = 0;
        for (size_t i = 0; i < rows * D; i++) {
            double v = ln_load(t, x, i);
            assert_true(isfinite(v));
            overflowing += v * v > max;
        }
        assert_true(overflowing > rows * D / 4); /* most squares overflow the format */
        free(x);
    }
}

/* exact: the mean and variance are representable in the format, and in f32 every sequential
 * partial sum of x and of (x - mean)^2 is exact, checked against long double sums. */
static void test_exact_statistics(void **state)
{
    (void)state;
    const size_t Ds[] = {1, 2, 3, 4, 5, 7, 64, 301, 4096};
    for (int t = 0; t < LN_NDTYPES; t++)
        for (size_t k = 0; k < sizeof Ds / sizeof Ds[0]; k++) {
            size_t D = Ds[k], rows = 6;
            void *x = fill("exact", t, rows, D, 11);
            for (size_t r = 0; r < rows; r++) {
                long double s = 0, ss = 0;
                float s32 = 0, ss32 = 0;
                for (size_t i = 0; i < D; i++) {
                    double v = ln_load(t, x, r * D + i);
                    s += v;
                    s32 += (float)v;
                    assert_true((long double)s32 == s);
                }
                long double mean = s / D;
                for (size_t i = 0; i < D; i++) {
                    long double d = ln_load(t, x, r * D + i) - mean;
                    ss += d * d;
                    ss32 += (float)(d * d);
                    assert_true((long double)ss32 == ss);
                }
                long double var = ss / D;
                assert_true((long double)(double)mean == mean && (long double)(double)var == var);
                double m = (double)mean, vv = (double)var;
                char buf[8];
                ln_store(t, buf, 0, m);
                assert_true(ln_load(t, buf, 0) == m);
                ln_store(t, buf, 0, vv);
                assert_true(ln_load(t, buf, 0) == vv);
                if (D > 1) assert_true(vv > 0);
            }
            free(x);
        }
}

static void test_file_and_affine(void **state)
{
    (void)state;
    double v[6] = {1, 2, 3, 4, 5, 1 + 0x1p-40};
    ln_npy_write("/tmp/lnbench-test-dist.npy", LN_F64, 2, 2, 3, v);
    ln_dist d;
    ln_dist_parse("file:/tmp/lnbench-test-dist.npy", &d);
    assert_int_equal(d.kind, LN_DIST_FILE);
    assert_int_equal(d.file_rows, 2);
    assert_int_equal(d.file_D, 3);
    float x[6];
    ln_dist_fill(&d, LN_F32, 2, 3, 1, x);
    for (int i = 0; i < 6; i++) assert_true(x[i] == (float)v[i]);
    double x3[9]; /* more rows than the file: its rows repeat */
    ln_dist_fill(&d, LN_F64, 3, 3, 1, x3);
    assert_memory_equal(x3, v, sizeof v);
    assert_memory_equal(x3 + 6, v, 3 * sizeof(double));
    remove("/tmp/lnbench-test-dist.npy");
    ln_dist_free(&d);

    const size_t D = 1000;
    double g[1000], b[1000], g2[1000];
    ln_affine_fill(LN_F64, D, 3, g, b);
    ln_affine_fill(LN_F64, D, 3, g2, NULL);
    assert_memory_equal(g, g2, sizeof g);
    double gmin = 2, gmax = 0, bmin = 1, bmax = -1;
    for (size_t i = 0; i < D; i++) {
        gmin = fmin(gmin, g[i]), gmax = fmax(gmax, g[i]);
        bmin = fmin(bmin, b[i]), bmax = fmax(bmax, b[i]);
    }
    assert_true(gmin >= 0.75 && gmin < 0.76 && gmax <= 1.25 && gmax > 1.24);
    assert_true(bmin >= -0.25 && bmin < -0.24 && bmax <= 0.25 && bmax > 0.24);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reproducible),         cmocka_unit_test(test_shapes_of_the_distributions),
        cmocka_unit_test(test_const_rows),           cmocka_unit_test(test_outlier_channels_fixed),
        cmocka_unit_test(test_tiny_and_huge_ranges), cmocka_unit_test(test_exact_statistics),
        cmocka_unit_test(test_file_and_affine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
