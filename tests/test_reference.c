/* The MPFR reference against values computed independently: closed forms, hand-made exact
 * cases, and a naive 600-bit MPFR LayerNorm rounded to each format by scaling and rint (a
 * different route from the reference's exponent-range emulation). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include <mpfr.h>

#include "dtype.h"
#include "reference.h"
#include "round_to.h"

#define ORACLE_BITS 600
#define MAXD 64

/* Stores doubles (representable in t) as an array of format t. */
static void *make(ln_dtype t, size_t n, const double *v)
{
    if (!v) return NULL;
    void *a = malloc(n * ln_fmt(t)->size);
    for (size_t i = 0; i < n; i++) {
        ln_store(t, a, i, v[i]);
        assert_true(ln_load(t, a, i) == v[i] || (isnan(v[i]) && isnan(ln_load(t, a, i))));
    }
    return a;
}

/* The two-pass formula at 600 bits. The deviation x_i - mean is formed as (D x_i - sum) / D,
 * whose numerator is exact at 600 bits for the rows here, so a zero deviation is exactly zero. */
static void deviation(mpfr_ptr d, double xi, mpfr_srcptr sum, size_t D)
{
    mpfr_set_d(d, xi, MPFR_RNDN);
    mpfr_mul_ui(d, d, D, MPFR_RNDN);
    mpfr_sub(d, d, sum, MPFR_RNDN);
    mpfr_div_ui(d, d, D, MPFR_RNDN);
}

static void oracle(size_t D, const double *x, const double *g, const double *b, double eps, mpfr_t *y)
{
    mpfr_t sum, var, d, s;
    mpfr_inits2(ORACLE_BITS, sum, var, d, s, (mpfr_ptr)0);
    mpfr_set_zero(sum, 1);
    mpfr_set_zero(var, 1);
    for (size_t i = 0; i < D; i++) mpfr_add_d(sum, sum, x[i], MPFR_RNDN);
    for (size_t i = 0; i < D; i++) {
        deviation(d, x[i], sum, D);
        mpfr_sqr(d, d, MPFR_RNDN);
        mpfr_add(var, var, d, MPFR_RNDN);
    }
    mpfr_div_ui(var, var, D, MPFR_RNDN);
    mpfr_add_d(s, var, eps, MPFR_RNDN);
    mpfr_sqrt(s, s, MPFR_RNDN);
    for (size_t i = 0; i < D; i++) {
        mpfr_init2(y[i], ORACLE_BITS);
        deviation(d, x[i], sum, D);
        mpfr_div(d, d, s, MPFR_RNDN);
        mpfr_mul_d(d, d, g ? g[i] : 1.0, MPFR_RNDN);
        mpfr_add_d(y[i], d, b ? b[i] : 0.0, MPFR_RNDN);
    }
    mpfr_clears(sum, var, d, s, (mpfr_ptr)0);
}

/* Runs the reference on a row and checks every y against the oracle rounded to t, and hi + lo
 * against the oracle to 2^-(p+60) relative (f64: 2^-104, about what a double-double holds). */
static void check_row(ln_dtype t, size_t D, const double *x, const double *g, const double *b, double eps,
                      double *y_out)
{
    const int p = ln_fmt(t)->p;
    void *xa = make(t, D, x), *ga = make(t, D, g), *ba = make(t, D, b), *ya = malloc(D * ln_fmt(t)->size);
    double hi[MAXD], lo[MAXD];
    mpfr_t y[MAXD], diff;
    assert_true(D <= MAXD);
    ln_ref_row(t, D, xa, ga, ba, eps, ya, hi, lo, NULL);
    oracle(D, x, g, b, eps, y);
    mpfr_init2(diff, ORACLE_BITS);
    for (size_t i = 0; i < D; i++) {
        double want = round_to(t, y[i]), got = ln_load(t, ya, i);
        if (got != want)
            print_error("%s D=%zu i=%zu: got %a, want %a (exact ~%.17g)\n", ln_fmt(t)->name, D, i, got, want,
                        mpfr_get_d(y[i], MPFR_RNDN));
        assert_true(got == want);
        if (mpfr_zero_p(y[i])) {
            assert_true(hi[i] == 0 && lo[i] == 0);
        } else if (fabs(mpfr_get_d(y[i], MPFR_RNDN)) < 0x1p-900 || fabs(mpfr_get_d(y[i], MPFR_RNDN)) > 0x1p1000) {
            /* lo would leave double's range: hi alone is the nearest double */
            assert_true(hi[i] == mpfr_get_d(y[i], MPFR_RNDN));
        } else {
            mpfr_set_d(diff, hi[i], MPFR_RNDN);
            mpfr_add_d(diff, diff, lo[i], MPFR_RNDN);
            mpfr_sub(diff, diff, y[i], MPFR_RNDN);
            mpfr_div(diff, diff, y[i], MPFR_RNDN);
            assert_true(mpfr_cmp_d(diff, ldexp(1.0, -(p + 60 < 104 ? p + 60 : 104))) <= 0);
            assert_true(mpfr_cmp_d(diff, -ldexp(1.0, -(p + 60 < 104 ? p + 60 : 104))) >= 0);
        }
        if (y_out) y_out[i] = got;
        mpfr_clear(y[i]);
    }
    mpfr_clear(diff);
    free(xa), free(ga), free(ba), free(ya);
}

/* [2, 4, 6], eps = 1e-5: y = -2/sqrt(8/3 + eps), 0, 2/sqrt(8/3 + eps). */
static void test_closed_form(void **state)
{
    (void)state;
    const double x[3] = {2, 4, 6}, eps = 1e-5;
    mpfr_t e;
    mpfr_init2(e, ORACLE_BITS);
    mpfr_set_ui(e, 8, MPFR_RNDN);
    mpfr_div_ui(e, e, 3, MPFR_RNDN);
    mpfr_add_d(e, e, eps, MPFR_RNDN);
    mpfr_rec_sqrt(e, e, MPFR_RNDN);
    mpfr_mul_ui(e, e, 2, MPFR_RNDN);         /* 2 / sqrt(8/3 + eps) */
    double exact = mpfr_get_d(e, MPFR_RNDN); /* correctly rounded to double */
    mpfr_t nb;
    mpfr_init2(nb, ORACLE_BITS);

    double y64[3];
    check_row(LN_F64, 3, x, NULL, NULL, eps, y64);
    assert_true(y64[0] == -exact && y64[1] == 0 && y64[2] == exact);

    float xa32[3] = {2, 4, 6}, y32[3];
    ln_ref_row(LN_F32, 3, xa32, NULL, NULL, eps, y32, NULL, NULL, NULL);
    assert_true(y32[1] == 0 && y32[0] == -y32[2]);
    /* y32[2] is the float nearest the exact value: neither neighbour is closer */
    float up = nextafterf(y32[2], INFINITY), down = nextafterf(y32[2], 0);
    mpfr_sub_d(nb, e, y32[2], MPFR_RNDN);
    mpfr_abs(nb, nb, MPFR_RNDN);
    mpfr_t other;
    mpfr_init2(other, ORACLE_BITS);
    mpfr_sub_d(other, e, up, MPFR_RNDN);
    mpfr_abs(other, other, MPFR_RNDN);
    assert_true(mpfr_less_p(nb, other));
    mpfr_sub_d(other, e, down, MPFR_RNDN);
    mpfr_abs(other, other, MPFR_RNDN);
    assert_true(mpfr_less_p(nb, other));
    assert_true(fabsf(y32[2] - 1.2247425f) < 1e-6f);
    mpfr_clears(e, nb, other, (mpfr_ptr)0);
}

/* Constant rows with eps > 0 give beta exactly, in every format. */
static void test_constant_rows(void **state)
{
    (void)state;
    double x[5] = {3.25, 3.25, 3.25, 3.25, 3.25}, g[5] = {1, -2, 0.5, 3, 0}, b[5] = {0.25, -1, 0, 7, -0.5};
    for (int t = 0; t < LN_NDTYPES; t++) {
        double y[5];
        check_row(t, 5, x, g, b, 1e-5, y);
        for (int i = 0; i < 5; i++) assert_true(y[i] == b[i]);
    }
}

/* Perfect-square radicands: y is rational, rounded by one division; midpoints go to even. */
static void test_perfect_squares_and_midpoints(void **state)
{
    (void)state;
    const double xs[2][2] = {{-1, 1}, {1, 3}}; /* var = 1, eps = 0: y = -gamma + beta, gamma + beta */
    for (int t = 0; t < LN_NDTYPES; t++) {
        int p = ln_fmt(t)->p;
        double h = ldexp(1.0, -p); /* half an ulp of 1 */
        for (int k = 0; k < 2; k++) {
            double y[2];
            check_row(t, 2, xs[k], NULL, NULL, 0, y);
            assert_true(y[0] == -1 && y[1] == 1);
            /* y = -(1 + 3h) and 1 + h: both midpoints; nearest-even gives -(1 + 4h) and 1 */
            double g[2] = {1, 1}, b[2] = {-3 * h, h};
            check_row(t, 2, xs[k], g, b, 0, y);
            assert_true(y[0] == -(1 + 4 * h) && y[1] == 1);
        }
    }
}

/* x = [0, 1]: y_1 = gamma / sqrt(1 + 4 eps) + beta, y_0 = -gamma / sqrt(1 + 4 eps) + beta. */
static void check_scaled(ln_dtype t, double gamma, double beta, double eps, double *y)
{
    const double x[2] = {0, 1}, g[2] = {gamma, gamma}, b[2] = {beta, beta};
    check_row(t, 2, x, g, b, eps, y);
}

/* Just below a power of two: 2^k / sqrt(1 + c 2^-p) = 2^k (1 - c 2^-(p+1) + ...), whose
 * rounding flips near c = 1 (the midpoint 2^k (1 - 2^-(p+1));  the next term, 3/8 c^2 2^-2p,
 * shifts the flip by 3/4 2^-p in c: 0.3% for bf16), and 2^(k+1) - that, just above. */
static void test_binade_edges(void **state)
{
    (void)state;
    for (int t = 0; t < LN_NDTYPES; t++) {
        const ln_format *f = ln_fmt(t);
        const int ks[] = {0, 7, -3, f->emin, f->emin + 1, f->emax};
        for (size_t j = 0; j < sizeof ks / sizeof ks[0]; j++) {
            double two_k = ldexp(1.0, ks[j]), y[2];
            const double cs[] = {0.9, 0.99, 1.01, 1.1};
            for (size_t c = 0; c < 4; c++) {
                double eps = cs[c] * ldexp(1.0, -f->p - 2);
                check_scaled(t, two_k, 0, eps, y);
                /* at 2^emin the spacing below is the subnormal one, as wide as above: no flip */
                double want = cs[c] < 1 || ks[j] == f->emin ? two_k : two_k - ldexp(1.0, ks[j] - f->p);
                if (y[1] != want) print_error("%s k=%d c=%g: %a vs %a\n", f->name, ks[j], cs[c], y[1], want);
                assert_true(y[1] == want && y[0] == -want);
                if (ks[j] < f->emax) check_scaled(t, two_k, 2 * two_k, eps, y);
            }
        }
    }
}

/* Subnormal outputs: gamma a few subnormal ulps, r = 1/sqrt(1 + 4 eps) irrational or 1/2. */
static void test_subnormals(void **state)
{
    (void)state;
    for (int t = 0; t < LN_NDTYPES; t++) {
        const ln_format *f = ln_fmt(t);
        double tiny = ldexp(1.0, f->emin - f->p + 1), y[2];
        const double ks[] = {1, 3, 5, 100, 1000};
        const double epss[] = {0.1, 0.7, 0.8, 0.75, 3.0};
        for (size_t i = 0; i < 5; i++)
            for (size_t j = 0; j < 5; j++)
                if (ks[i] < ldexp(1.0, f->p)) check_scaled(t, ks[i] * tiny, 0, epss[j], y);
        /* eps = 3/4: r = 1/2 exactly. tiny/2 is a midpoint: to 0 (even); 3 tiny/2 to 2 tiny */
        check_scaled(t, tiny, 0, 0.75, y);
        assert_true(y[1] == 0 && y[0] == 0);
        check_scaled(t, 3 * tiny, 0, 0.75, y);
        assert_true(y[1] == 2 * tiny && y[0] == -2 * tiny);
        /* r = 1/sqrt(3.8) = 0.513 > 1/2: rounds up to tiny; 1/sqrt(4.2) = 0.488: to 0 */
        check_scaled(t, tiny, 0, 0.7, y);
        assert_true(y[1] == tiny);
        check_scaled(t, tiny, 0, 0.8, y);
        assert_true(y[1] == 0);
        /* overflow: max + 0.9 max -> +-Inf */
        double max = ldexp(2.0 - ldexp(1.0, 1 - f->p), f->emax);
        check_scaled(t, max, max, 0.01, y);
        assert_true(y[1] == INFINITY);
    }
}

/* beta = -(a value of t next to gamma r): y = gamma r + beta cancels about p bits, so for f64 the
 * first working precision (128 bits, 112 wanted for hi + lo) is not enough and Ziv's loop
 * doubles it. */
static void test_cancellation_against_beta(void **state)
{
    (void)state;
    const double epss[] = {0.1, 0.3, 1e-5};
    void *tmp = malloc(8);
    for (int t = 0; t < LN_NDTYPES; t++)
        for (int j = 0; j < 3; j++) {
            double y[2];
            ln_store(t, tmp, 0, -1 / sqrt(1 + 4 * epss[j]));
            check_scaled(t, 1, ln_load(t, tmp, 0), epss[j], y);
            assert_true(fabs(y[1]) < 4 * ln_unit_roundoff(t));
        }
    free(tmp);
}

static uint64_t rng = 0x9e3779b97f4a7c15u;
static double uniform(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1p-53;
}

/* Random rows in every format against the oracle. */
static void test_random_rows(void **state)
{
    (void)state;
    const double offsets[] = {0, 1, 10, 1000, 1e4}, epss[] = {1e-5, 1e-3, 1e-12, 0.5};
    for (int t = 0; t < LN_NDTYPES; t++) {
        void *tmp = malloc(8);
        for (int r = 0; r < 250; r++) {
            size_t D = 1 + (size_t)(uniform() * 16);
            double x[16], g[16], b[16], y[16];
            double off = offsets[r % 5] * (uniform() < 0.5 ? -1 : 1), scale = ldexp(1.0, (int)(uniform() * 8) - 4);
            for (size_t i = 0; i < D; i++) {
                /* values of format t (rounded through ln_store) */
                ln_store(t, tmp, 0, off + scale * (uniform() - 0.5));
                x[i] = ln_load(t, tmp, 0);
                ln_store(t, tmp, 0, 0.5 + uniform());
                g[i] = ln_load(t, tmp, 0);
                ln_store(t, tmp, 0, uniform() - 0.5);
                b[i] = ln_load(t, tmp, 0);
            }
            if (r % 7 == 0) x[D / 2] = x[0]; /* repeats */
            check_row(t, D, x, r % 3 ? g : NULL, r % 3 ? b : NULL, epss[r % 4], y);
        }
        free(tmp);
    }
}

static void assert_stats(ln_dtype t, size_t D, const double *x, double eps, double mean, double var, mpfr_srcptr rstd,
                         mpfr_srcptr kappa)
{
    void *xa = make(t, D, x), *ya = malloc(D * ln_fmt(t)->size);
    ln_ref_stats st;
    ln_ref_row(t, D, xa, NULL, NULL, eps, ya, NULL, NULL, &st);
    assert_true(st.mean == mean);
    assert_true(st.var == var);
    assert_true(st.rstd == mpfr_get_d(rstd, MPFR_RNDN));
    assert_true(st.kappa == mpfr_get_d(kappa, MPFR_RNDN));
    free(xa), free(ya);
}

/* Statistics of hand-checked rows. */
static void test_stats(void **state)
{
    (void)state;
    mpfr_t rstd, kappa;
    mpfr_inits2(ORACLE_BITS, rstd, kappa, (mpfr_ptr)0);
    /* [2,4,6], eps 1e-5: mean 4, var 8/3, rstd = 1/sqrt(8/3 + eps), kappa = sqrt(1 + 16/(8/3 + eps)) */
    mpfr_set_ui(rstd, 8, MPFR_RNDN);
    mpfr_div_ui(rstd, rstd, 3, MPFR_RNDN);
    mpfr_add_d(rstd, rstd, 1e-5, MPFR_RNDN);
    mpfr_ui_div(kappa, 16, rstd, MPFR_RNDN);
    mpfr_add_ui(kappa, kappa, 1, MPFR_RNDN);
    mpfr_sqrt(kappa, kappa, MPFR_RNDN);
    mpfr_rec_sqrt(rstd, rstd, MPFR_RNDN);
    const double a[3] = {2, 4, 6};
    assert_stats(LN_F32, 3, a, 1e-5, 4.0, 8.0 / 3.0, rstd, kappa);
    /* [1,2,3,4], eps 0: mean 2.5, var 1.25, rstd = 1/sqrt(1.25), kappa = sqrt(1 + 6.25/1.25) = sqrt 6 */
    const double c[4] = {1, 2, 3, 4};
    mpfr_set_d(rstd, 1.25, MPFR_RNDN);
    mpfr_rec_sqrt(rstd, rstd, MPFR_RNDN);
    mpfr_set_ui(kappa, 6, MPFR_RNDN);
    mpfr_sqrt(kappa, kappa, MPFR_RNDN);
    assert_stats(LN_F16, 4, c, 0, 2.5, 1.25, rstd, kappa);
    /* [-1, 1], eps 0: mean 0, var 1, rstd 1, kappa 1 exactly; [0, 2]: kappa = sqrt 2 */
    const double d[2] = {-1, 1}, e2[2] = {0, 2};
    mpfr_set_ui(rstd, 1, MPFR_RNDN);
    mpfr_set_ui(kappa, 1, MPFR_RNDN);
    assert_stats(LN_BF16, 2, d, 0, 0, 1, rstd, kappa);
    mpfr_set_ui(kappa, 2, MPFR_RNDN);
    mpfr_sqrt(kappa, kappa, MPFR_RNDN);
    assert_stats(LN_F64, 2, e2, 0, 1, 1, rstd, kappa);
    /* constant row, eps 0: var 0, rstd and kappa infinite */
    const double k[3] = {5, 5, 5};
    mpfr_set_inf(rstd, 1);
    mpfr_set_inf(kappa, 1);
    assert_stats(LN_F32, 3, k, 0, 5, 0, rstd, kappa);
    mpfr_clears(rstd, kappa, (mpfr_ptr)0);
}

static void test_nonfinite(void **state)
{
    (void)state;
    double hi[4], lo[4];
    ln_ref_stats st;
    for (int t = 0; t < LN_NDTYPES; t++) {
        double y[4];
        const double bad[2] = {NAN, INFINITY};
        for (int j = 0; j < 2; j++) {
            double x[4] = {1, 2, bad[j], 4};
            void *xa = make(t, 4, x), *ya = malloc(4 * ln_fmt(t)->size);
            ln_ref_row(t, 4, xa, NULL, NULL, 1e-5, ya, hi, lo, &st);
            for (int i = 0; i < 4; i++) assert_true(isnan(ln_load(t, ya, i)) && isnan(hi[i]) && isnan(lo[i]));
            assert_true(isnan(st.mean) && isnan(st.var) && isnan(st.rstd) && isnan(st.kappa));
            free(xa), free(ya);
        }
        /* constant row, eps 0: 0/0 everywhere, whatever gamma */
        double c[4] = {2, 2, 2, 2}, g[4] = {1, 0, -1, 2}, b[4] = {0, 1, 2, 3};
        void *xa = make(t, 4, c), *ga = make(t, 4, g), *ba = make(t, 4, b), *ya = malloc(4 * ln_fmt(t)->size);
        ln_ref_row(t, 4, xa, ga, ba, 0, ya, hi, lo, NULL);
        for (int i = 0; i < 4; i++) assert_true(isnan(ln_load(t, ya, i)) && isnan(hi[i]));
        free(xa), free(ga), free(ba);
        /* gamma = Inf times a nonzero deviation gives Inf; beta NaN gives NaN; others finite */
        double x[4] = {1, 2, 3, 4}, gi[4] = {INFINITY, 1, 1, 1}, bn[4] = {0, NAN, 0, 0};
        xa = make(t, 4, x), ga = make(t, 4, gi), ba = make(t, 4, bn);
        ln_ref_row(t, 4, xa, ga, ba, 1e-5, ya, hi, lo, NULL);
        assert_true(ln_load(t, ya, 0) == -INFINITY && isnan(ln_load(t, ya, 1)));
        assert_true(isfinite(ln_load(t, ya, 2)) && isfinite(ln_load(t, ya, 3)));
        check_row(t, 4, x, NULL, NULL, 1e-5, y);
        assert_true(ln_load(t, ya, 2) == y[2] && ln_load(t, ya, 3) == y[3]);
        free(xa), free(ga), free(ba), free(ya);
    }
}

/* f64 values whose squares overflow double (and tiny ones whose squares underflow): the exact
 * computation does not care. [a, -a, 3a]: y ~ [0, -sqrt 1.5, sqrt 1.5]. */
static void test_extreme_magnitudes(void **state)
{
    (void)state;
    double y[3];
    const double big[3] = {1e300, -1e300, 3e300}, small[3] = {1e-310, -1e-310, 3e-310};
    check_row(LN_F64, 3, big, NULL, NULL, 1e-5, y);
    assert_true(fabs(y[1] + sqrt(1.5)) < 1e-6 && fabs(y[2] - sqrt(1.5)) < 1e-6 && fabs(y[0]) < 1e-6);
    check_row(LN_F64, 3, small, NULL, NULL, 0, y);
    assert_true(fabs(y[1] + sqrt(1.5)) < 1e-6 && fabs(y[2] - sqrt(1.5)) < 1e-6);
    const double huge32[3] = {(float)3e38, (float)-3e38, (float)1e38};
    check_row(LN_F32, 3, huge32, NULL, NULL, 1e-5, y);
}

/* The reference leaves MPFR's exponent range as it found it. */
static void test_exponent_range_restored(void **state)
{
    (void)state;
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_set_emin(-5000);
    mpfr_set_emax(5000);
    float x[3] = {1, 2, 4}, y[3];
    ln_ref_row(LN_F32, 3, x, NULL, NULL, 1e-5, y, NULL, NULL, NULL);
    assert_int_equal(mpfr_get_emin(), -5000);
    assert_int_equal(mpfr_get_emax(), 5000);
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_closed_form),
        cmocka_unit_test(test_constant_rows),
        cmocka_unit_test(test_perfect_squares_and_midpoints),
        cmocka_unit_test(test_binade_edges),
        cmocka_unit_test(test_subnormals),
        cmocka_unit_test(test_cancellation_against_beta),
        cmocka_unit_test(test_random_rows),
        cmocka_unit_test(test_stats),
        cmocka_unit_test(test_nonfinite),
        cmocka_unit_test(test_extreme_magnitudes),
        cmocka_unit_test(test_exponent_range_restored),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
