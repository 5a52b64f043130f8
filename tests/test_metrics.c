/* Error metrics on synthetic outputs whose errors are known by construction. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "accuracy.h"

#define ROWS 4
#define DIM 64
#define N (ROWS * DIM)

static ln_prepared prep; /* f32, normal, D = 64, 4 rows, affine */

static int setup(void **state)
{
    (void)state;
    ln_case c = {.dtype = LN_F32, .D = DIM, .rows = ROWS, .eps = 1e-5, .seed = 3, .affine = 1};
    ln_dist_parse("normal", &c.dist);
    return ln_prepare(&c, &prep);
}

static int teardown(void **state)
{
    (void)state;
    ln_prepared_free(&prep);
    return 0;
}

/* An element whose neighbours are in the same binade, so one step is one ulp of y_exact. */
static size_t plain_element(const float *y)
{
    for (size_t k = 0; k < N; k++) {
        float v = fabsf(y[k]);
        if (v > 0.1f && v < 1.9f && frexpf(v, &(int){0}) != 0.5f) return k;
    }
    fail_msg("no suitable element");
    return 0;
}

static void test_reference_itself(void **state)
{
    (void)state;
    ln_errors e;
    ln_measure_output(&prep, prep.y_ref, &e);
    assert_true(e.cr_frac == 1.0);
    assert_true(e.max_ulp <= 0.5 && e.max_ulp > 0);
    assert_true(e.mean_ulp <= e.max_ulp && e.mean_ulp > 0);
    assert_true(e.max_norm <= 1.0); /* |y - y_exact| <= ulp/2 <= u |y_exact| */
    assert_int_equal(e.nonfinite, 0);
}

static void test_one_ulp_off(void **state)
{
    (void)state;
    float y[N];
    memcpy(y, prep.y_ref, sizeof y);
    size_t k = plain_element(y);
    y[k] = nextafterf(y[k], INFINITY);
    ln_errors e;
    ln_measure_output(&prep, y, &e);
    assert_true(e.max_ulp > 0.5 && e.max_ulp <= 1.5);
    assert_true(fabs(e.cr_frac - (1.0 - 1.0 / N)) < 1e-12);
    assert_int_equal(e.worst_row, k / DIM);
    assert_int_equal(e.worst_col, k % DIM);
    assert_true(e.worst_y == y[k]);
    assert_true(e.worst_x == ((float *)prep.x)[k]);
    assert_true(fabs(e.worst_y_exact - prep.y_hi[k]) <= fabs(prep.y_hi[k]) * 1e-15);
    assert_int_equal(e.nonfinite, 0);
}

static void test_nan_is_counted_not_averaged(void **state)
{
    (void)state;
    float y[N];
    memcpy(y, prep.y_ref, sizeof y);
    y[5] = NAN;
    y[9] = INFINITY;
    ln_errors e, clean;
    ln_measure_output(&prep, y, &e);
    ln_measure_output(&prep, prep.y_ref, &clean);
    assert_int_equal(e.nonfinite, 2);
    /* the maxima say a non-finite output is there; the mean is over the finite pairs */
    assert_true(isinf(e.max_ulp) && isinf(e.max_norm));
    assert_true(isfinite(e.mean_ulp) && e.mean_ulp <= 0.5);
    assert_true(fabs(e.cr_frac - (1.0 - 2.0 / N)) < 1e-12);
    assert_true(e.mean_ulp != clean.mean_ulp); /* the two elements left the mean */
}

/* A hand-made one-row case: x, y_ref, y_hi, y_lo given. */
static void one_row(ln_prepared *p, float *x, float *y_ref, double *hi, double *lo, ln_ref_stats *st, size_t D)
{
    memset(p, 0, sizeof *p);
    p->c.dtype = LN_F32;
    p->c.rows = 1;
    p->c.D = D;
    p->x = x, p->y_ref = y_ref, p->y_hi = hi, p->y_lo = lo, p->stats = st;
}

static void test_reference_nonfinite(void **state)
{
    (void)state;
    float x[2] = {0}, ref[2] = {NAN, 1.0f}, y[2] = {NAN, 1.0f};
    double hi[2] = {NAN, 1.0}, lo[2] = {0, 0};
    ln_ref_stats st = {0};
    ln_prepared p;
    one_row(&p, x, ref, hi, lo, &st, 2);
    ln_errors e;
    ln_measure_output(&p, y, &e);
    assert_int_equal(e.nonfinite, 0); /* NaN where the reference is NaN: agreement */
    assert_true(e.cr_frac == 1.0);
    y[0] = 0.5f;
    ln_measure_output(&p, y, &e);
    assert_int_equal(e.nonfinite, 1); /* a number where the reference is NaN */
    assert_true(e.cr_frac == 0.5);
    assert_true(isinf(e.max_ulp) && e.mean_ulp == 0);
}

/* The exact value 1 - 2^-60 rounds to hi = 1 in double, but it lies in the binade below 1,
 * where the f32 ulp is 2^-24: y = 1 - 2^-24 is one ulp away, not half of one. */
static void test_ulp_of_exact_value_below_power_of_two(void **state)
{
    (void)state;
    float x[1] = {0}, ref[1] = {1.0f}, y[1] = {1.0f - 0x1p-24f};
    double hi[1] = {1.0}, lo[1] = {-0x1p-60};
    ln_ref_stats st = {0};
    ln_prepared p;
    one_row(&p, x, ref, hi, lo, &st, 1);
    ln_errors e;
    ln_measure_output(&p, y, &e);
    assert_true(e.max_ulp > 0.99 && e.max_ulp <= 1.0);
    y[0] = 1.0f;
    ln_measure_output(&p, y, &e);
    assert_true(e.max_ulp < 1e-9);
}

/* A row whose exact output is all zero: the normwise error is taken against the smallest
 * normal, so an output of 0 is exact and a subnormal 2^-140 scores 2^-14 / u = 2^10. */
static void test_normwise_on_zero_row(void **state)
{
    (void)state;
    float x[2] = {0}, ref[2] = {0, 0}, y[2] = {0, -0.0f};
    double hi[2] = {0, 0}, lo[2] = {0, 0};
    ln_ref_stats st = {0};
    ln_prepared p;
    one_row(&p, x, ref, hi, lo, &st, 2);
    ln_errors e;
    ln_measure_output(&p, y, &e);
    assert_true(e.max_norm == 0 && e.cr_frac == 1.0); /* -0 agrees with +0 */
    y[1] = 0x1p-140f;
    ln_measure_output(&p, y, &e);
    assert_true(e.max_norm == 0x1p-140 / 0x1p-126 / 0x1p-24);
    assert_true(e.max_ulp == 0x1p-140 / 0x1p-149); /* in subnormal ulps */
}

/* Fake kernels: one copies the reference and writes no statistics, one writes nothing. */
static void copy_reference(const ln_args *a) { memcpy(a->y, prep.y_ref, a->rows * a->D * sizeof(float)); }
static void write_nothing(const ln_args *a) { (void)a; }
static void statistics_of_row0_only(const ln_args *a)
{
    copy_reference(a);
    a->mean[0] = prep.stats[0].mean;
    a->rstd[0] = prep.stats[0].rstd;
}

static void test_measure_kernel(void **state)
{
    (void)state;
    unsigned char x_before[N * 4];
    memcpy(x_before, prep.x, sizeof x_before);
    ln_errors e;
    float y[N];

    const ln_kernel copy = {.name = "f32-copy-test", .dtype = LN_F32, .forward = copy_reference};
    ln_measure_kernel(&copy, &prep, &e, y);
    assert_true(e.cr_frac == 1.0);
    assert_memory_equal(y, prep.y_ref, sizeof y);
    assert_true(isnan(e.mean_relerr) && isnan(e.rstd_relerr)); /* none returned */

    const ln_kernel none = {.name = "f32-none-test", .dtype = LN_F32, .forward = write_nothing};
    ln_measure_kernel(&none, &prep, &e, NULL);
    assert_int_equal(e.nonfinite, N); /* unwritten outputs are caught */

    const ln_kernel half = {.name = "f32-half-test", .dtype = LN_F32, .forward = statistics_of_row0_only};
    ln_measure_kernel(&half, &prep, &e, NULL);
    assert_true(isinf(e.mean_relerr) && isinf(e.rstd_relerr)); /* rows 1..3 not written */

    const ln_kernel *real = ln_kernel_find("f32-twopass-scalar");
    assert_non_null(real);
    ln_measure_kernel(real, &prep, &e, NULL);
    assert_true(e.mean_relerr >= 0 && e.mean_relerr < 1e-5);
    assert_true(e.rstd_relerr >= 0 && e.rstd_relerr < 1e-5);
    assert_true(e.max_norm < real->bound(DIM, 2));
    assert_memory_equal(x_before, prep.x, sizeof x_before); /* inputs untouched */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_itself),
        cmocka_unit_test(test_one_ulp_off),
        cmocka_unit_test(test_nan_is_counted_not_averaged),
        cmocka_unit_test(test_reference_nonfinite),
        cmocka_unit_test(test_ulp_of_exact_value_below_power_of_two),
        cmocka_unit_test(test_normwise_on_zero_row),
        cmocka_unit_test(test_measure_kernel),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
