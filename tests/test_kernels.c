/* Accuracy of every fp32/fp64 kernel in the registry against the MPFR reference: each claimed
 * bound holds on benign data, in place equals out of place, the returned statistics agree with
 * the bound, rows with exact statistics come out exact, the accurate kernels round correctly,
 * and the bounds are tight enough to catch classic bugs. New kernels of these dtypes are covered
 * by the same loops. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accuracy.h"
#include "kernel.h"

#define ROWS 4
#define SEED 20240611u

static const size_t benign_D[] = {1, 2, 3, 7, 16, 257, 768};
static const char *const benign_dists[] = {"normal", "uniform", "shifted", "offset:1e2"};

/* Fails the test with a message naming the case, when cond is false. */
#define CHECK(cond, ...)              \
    do {                              \
        if (!(cond)) {                \
            print_error(__VA_ARGS__); \
            print_error("\n");        \
            fail_msg("%s", #cond);    \
        }                             \
    } while (0)

static int tested(const ln_kernel *k) { return ln_kernel_available(k) && (k->dtype == LN_F32 || k->dtype == LN_F64); }

static void prepare(ln_prepared *p, ln_dtype t, const char *dist, size_t D, double eps)
{
    ln_case c = {.dtype = t, .D = D, .rows = ROWS, .eps = eps, .seed = SEED, .affine = 1};
    ln_dist_parse(dist, &c.dist);
    assert_int_equal(ln_prepare(&c, p), 0);
}

/* Runs k on p's inputs in place (y = a copy of x) without statistics; y receives the result. */
static void run_in_place(const ln_kernel *k, const ln_prepared *p, void *y)
{
    memcpy(y, p->x, p->c.rows * p->c.D * ln_fmt(p->c.dtype)->size);
    ln_args a = {.rows = p->c.rows, .D = p->c.D, .x = y, .y = y, .gamma = p->gamma, .beta = p->beta, .eps = p->c.eps};
    k->forward(&a);
}

/* The claims every kernel makes on one prepared case: its bound (ln_judge: each row's, times the
 * row's affine factor), finite outputs where it claims a bound, statistics within the bound's implied error
 * (mean to bound u sigma, rstd to bound u relative; accuracy.c measures the mean against
 * max(|mean|, sigma)), and in place (without statistics) bit-identical to out of place (with). */
static void check_claims(const ln_kernel *k, const ln_prepared *p, ln_errors *e)
{
    const ln_case *c = &p->c;
    size_t bytes = c->rows * c->D * ln_fmt(c->dtype)->size;
    void *y = malloc(bytes), *y_in_place = malloc(bytes);
    assert_non_null(y);
    assert_non_null(y_in_place);
    ln_measure_kernel(k, p, e, y);
    double kappa = ln_kappa_max(p), bound = k->bound(c->D, kappa), u = ln_unit_roundoff(c->dtype);
    if (isfinite(bound)) {
        CHECK(e->nonfinite == 0, "%s on %s D=%zu: %zu non-finite outputs", k->name, c->dist.spec, c->D, e->nonfinite);
        ln_verdict v; /* each row's bound times its affine factor: y = beta where var < eps (D = 1) */
        ln_judge(k, p, y, &v);
        CHECK(v.verdict != LN_FAIL, "%s on %s D=%zu eps=%g: normwise error %g u > bound %g u (row %zu, kappa %g)",
              k->name, c->dist.spec, c->D, c->eps, v.error, v.bound, v.row, kappa);
        CHECK(isnan(e->mean_relerr) || e->mean_relerr <= bound * u, "%s on %s D=%zu: mean error %g u > %g u", k->name,
              c->dist.spec, c->D, e->mean_relerr / u, bound);
        CHECK(isnan(e->rstd_relerr) || e->rstd_relerr <= bound * u, "%s on %s D=%zu: rstd error %g u > %g u", k->name,
              c->dist.spec, c->D, e->rstd_relerr / u, bound);
    }
    run_in_place(k, p, y_in_place);
    CHECK(memcmp(y, y_in_place, bytes) == 0, "%s on %s D=%zu: in place (no statistics) differs from out of place",
          k->name, c->dist.spec, c->D);
    free(y);
    free(y_in_place);
}

static void check_every_kernel(const ln_prepared *p)
{
    for (size_t i = 0; i < ln_num_kernels; i++) {
        const ln_kernel *k = ln_all_kernels[i];
        ln_errors e;
        if (tested(k) && k->dtype == p->c.dtype) check_claims(k, p, &e);
    }
}

static void test_bounds_on_benign_data(void **state)
{
    (void)state;
    const ln_dtype dtypes[] = {LN_F32, LN_F64};
    for (size_t t = 0; t < 2; t++)
        for (size_t d = 0; d < sizeof benign_dists / sizeof *benign_dists; d++)
            for (size_t j = 0; j < sizeof benign_D / sizeof *benign_D; j++)
                for (int big_eps = 0; big_eps < 2; big_eps++) {
                    /* eps = 0.1 on normal rows: a kernel that drops or misplaces eps is off by ~5% */
                    if (big_eps && d != 0) continue;
                    ln_prepared p;
                    prepare(&p, dtypes[t], benign_dists[d], benign_D[j], big_eps ? 0.1 : 1e-5);
                    check_every_kernel(&p);
                    ln_prepared_free(&p);
                }
}

/* A row built so that sequential sums absorb whole terms: x = 1, -1, then +-delta alternating,
 * delta^2 below half an ulp of 2, so after the first two squares every one is lost to an
 * uncompensated sum of squares ((n - 2) delta^2 / 2 ~ 5e-4 relative in fp32 at n = 16384).
 * Bounds linear in n u allow that; compensated and accurate kernels must not lose it. */
static void test_bounds_on_absorbing_row(void **state)
{
    (void)state;
    const ln_dtype dtypes[] = {LN_F32, LN_F64};
    const size_t D = 16384;
    for (size_t t = 0; t < 2; t++) {
        ln_prepared p = {.c = {.dtype = dtypes[t], .D = D, .rows = 1, .eps = 1e-5, .seed = SEED, .affine = 1}};
        ln_dist_parse("zero", &p.c.dist);
        strcpy(p.c.dist.spec, "absorbing row");
        size_t es = ln_fmt(dtypes[t])->size;
        double delta = ldexp(1.0, -(ln_fmt(dtypes[t])->p + 1) / 2);
        p.x = malloc(D * es), p.gamma = malloc(D * es), p.beta = malloc(D * es), p.y_ref = malloc(D * es);
        p.y_hi = malloc(D * sizeof(double)), p.y_lo = malloc(D * sizeof(double)), p.stats = malloc(sizeof *p.stats);
        assert_true(p.x && p.gamma && p.beta && p.y_ref && p.y_hi && p.y_lo && p.stats);
        for (size_t i = 0; i < D; i++) ln_store(dtypes[t], p.x, i, i < 2 ? (i ? -1.0 : 1.0) : (i % 2 ? -delta : delta));
        ln_affine_fill(dtypes[t], D, SEED, p.gamma, p.beta);
        ln_ref_row(dtypes[t], D, p.x, p.gamma, p.beta, p.c.eps, p.y_ref, p.y_hi, p.y_lo, p.stats);
        check_every_kernel(&p);
        ln_prepared_free(&p);
    }
}

/* Nothing is read or written for an empty problem. */
static void test_empty_problem_does_nothing(void **state)
{
    (void)state;
    double y[4] = {1, 2, 3, 4}, mean[2] = {5, 6}, rstd[2] = {7, 8};
    const double x[4] = {0};
    for (size_t i = 0; i < ln_num_kernels; i++) {
        const ln_kernel *k = ln_all_kernels[i];
        if (!tested(k)) continue;
        ln_args shapes[2] = {{.rows = 2, .D = 0, .x = x, .y = y, .eps = 1e-5, .mean = mean, .rstd = rstd},
                             {.rows = 0, .D = 2, .x = x, .y = y, .eps = 1e-5, .mean = mean, .rstd = rstd}};
        for (int s = 0; s < 2; s++) {
            k->forward(&shapes[s]);
            CHECK(y[0] == 1 && y[3] == 4 && mean[0] == 5 && mean[1] == 6 && rstd[0] == 7 && rstd[1] == 8,
                  "%s wrote something for rows=%zu D=%zu", k->name, shapes[s].rows, shapes[s].D);
        }
    }
}

/* Rows whose values, mean and variance are exact in the format and whose sums are exact in any
 * order (dist.h's "exact", oneDNN's check). A kernel that sums and divides by D once gets the
 * mean bit-exact, then the variance exactly, and rstd = 1/sqrt(var + eps) to three roundings
 * (eps rounded, the addition, sqrt, the division: <= 3 u). Welford-type updates divide by k at
 * each step, so for them only the bound is claimed. */
static const char *const exact_sum_algorithms[] = {"naive", "twopass", "kahan", "accurate"};

static int sums_then_divides(const ln_kernel *k)
{
    char alg[64];
    ln_kernel_algorithm(k, alg, sizeof alg);
    for (size_t i = 0; i < sizeof exact_sum_algorithms / sizeof *exact_sum_algorithms; i++)
        if (strcmp(alg, exact_sum_algorithms[i]) == 0) return 1;
    return 0;
}

static void test_exact_rows(void **state)
{
    (void)state;
    const ln_dtype dtypes[] = {LN_F32, LN_F64};
    const size_t Ds[] = {3, 7, 16, 257, 768};
    for (size_t t = 0; t < 2; t++)
        for (size_t j = 0; j < sizeof Ds / sizeof *Ds; j++) {
            ln_prepared p;
            prepare(&p, dtypes[t], "exact", Ds[j], 1e-5);
            double u = ln_unit_roundoff(dtypes[t]);
            for (size_t i = 0; i < ln_num_kernels; i++) {
                const ln_kernel *k = ln_all_kernels[i];
                if (!tested(k) || k->dtype != dtypes[t]) continue;
                ln_errors e;
                check_claims(k, &p, &e);
                if (!sums_then_divides(k) || isnan(e.mean_relerr)) continue;
                CHECK(e.mean_relerr == 0, "%s on exact rows D=%zu: mean off by %g u", k->name, Ds[j],
                      e.mean_relerr / u);
                CHECK(e.rstd_relerr <= 3 * u, "%s on exact rows D=%zu: rstd off by %g u", k->name, Ds[j],
                      e.rstd_relerr / u);
            }
            ln_prepared_free(&p);
        }
}

/* An "accurate" kernel promises the correctly rounded output almost everywhere, on every
 * distribution, including offset rows (the mean must be kept beyond double), constant rows
 * (eps decides) and values whose squares overflow the storage format. */
static void test_accurate_kernels_round_correctly(void **state)
{
    (void)state;
    const char *dists[] = {"normal", "offset:1e6", "const", "outlier:1000", "huge", "exact"};
    int found = 0;
    for (size_t d = 0; d < sizeof dists / sizeof *dists; d++) {
        ln_prepared p[2];
        int have[2] = {0, 0};
        for (size_t i = 0; i < ln_num_kernels; i++) {
            const ln_kernel *k = ln_all_kernels[i];
            char alg[64];
            if (!tested(k) || strcmp(ln_kernel_algorithm(k, alg, sizeof alg), "accurate") != 0) continue;
            int t = k->dtype == LN_F64;
            if (!have[t]) prepare(&p[t], k->dtype, dists[d], 768, 1e-5), have[t] = 1;
            ln_errors e;
            ln_measure_kernel(k, &p[t], &e, NULL);
            CHECK(e.nonfinite == 0 && e.cr_frac >= 0.999 && e.max_norm <= 1.0,
                  "%s on %s D=768: %zu non-finite, %.5f correctly rounded, normwise %g u", k->name, dists[d],
                  e.nonfinite, e.cr_frac, e.max_norm);
            found = 1;
        }
        for (int t = 0; t < 2; t++)
            if (have[t]) ln_prepared_free(&p[t]);
    }
    assert_true(found);
}

/* The textbook one-pass variance on offset rows: E[x^2] ~ 1e8 has an fp32 ulp of 8, so the
 * variance (1) is lost, and the output is garbage or NaN; two-pass loses only the mean's
 * rounding. The metrics must show the difference. */
static void test_naive_failure_is_detected(void **state)
{
    (void)state;
    const ln_kernel *naive = ln_kernel_find("f32-naive-scalar"), *twopass = ln_kernel_find("f32-twopass-scalar");
    assert_non_null(naive);
    assert_non_null(twopass);
    ln_prepared p;
    prepare(&p, LN_F32, "offset:1e4", 4096, 1e-5);
    ln_errors en, et;
    ln_measure_kernel(naive, &p, &en, NULL);
    ln_measure_kernel(twopass, &p, &et, NULL);
    print_message("offset:1e4 D=4096: naive normwise %g u (%zu non-finite), two-pass %g u\n", en.max_norm, en.nonfinite,
                  et.max_norm);
    assert_true(et.nonfinite == 0 && isfinite(et.max_norm));
    /* every row NaN leaves no finite error to compare: then the NaNs are the detection */
    CHECK(isnan(en.max_norm) ? en.nonfinite > 0 : en.max_norm >= 100 * et.max_norm,
          "naive %g u is not 100x two-pass %g u", en.max_norm, et.max_norm);
    ln_prepared_free(&p);
}

/* Bugs a bound must catch: each mutant is exact arithmetic except for one classic mistake. */
enum { SAMPLE_VARIANCE, NO_EPS, MEAN_SHORT, NMUTANTS };
static const char *const mutant_names[] = {"sample variance (D - 1)", "eps dropped", "mean missing an element"};

static void mutant(const ln_prepared *p, int bug, void *y)
{
    const ln_case *c = &p->c;
    for (size_t r = 0; r < c->rows; r++) {
        size_t o = r * c->D;
        long double s = 0, ss = 0;
        for (size_t i = 0; i < c->D - (bug == MEAN_SHORT); i++) s += ln_load(c->dtype, p->x, o + i);
        long double mean = s / c->D;
        for (size_t i = 0; i < c->D; i++) {
            long double d = ln_load(c->dtype, p->x, o + i) - mean;
            ss += d * d;
        }
        long double var = ss / (c->D - (bug == SAMPLE_VARIANCE)), rstd = 1 / sqrtl(var + (bug == NO_EPS ? 0 : c->eps));
        for (size_t i = 0; i < c->D; i++) {
            long double v = (ln_load(c->dtype, p->x, o + i) - mean) * rstd;
            ln_store(c->dtype, y, o + i, (double)(v * ln_load(c->dtype, p->gamma, i) + ln_load(c->dtype, p->beta, i)));
        }
    }
}

static double mutant_error(const ln_prepared *p, int bug)
{
    void *y = malloc(p->c.rows * p->c.D * ln_fmt(p->c.dtype)->size);
    assert_non_null(y);
    mutant(p, bug, y);
    ln_errors e;
    ln_measure_output(p, y, &e);
    free(y);
    return e.max_norm;
}

/* At D = 16 (eps = 0.1, so that dropping it matters) every kernel's bound catches every mutant;
 * at D = 768 with eps = 1e-5 the bounds that are linear in n u or better catch the sample
 * variance (1/(2n) relative, ~1.1e4 u), and the compensated and accurate ones a dropped eps. */
static void test_bounds_catch_wrong_kernels(void **state)
{
    (void)state;
    const ln_dtype dtypes[] = {LN_F32, LN_F64};
    for (size_t t = 0; t < 2; t++) {
        ln_prepared p;
        prepare(&p, dtypes[t], "normal", 16, 0.1);
        for (int bug = 0; bug < NMUTANTS; bug++) {
            double err = mutant_error(&p, bug);
            for (size_t i = 0; i < ln_num_kernels; i++) {
                const ln_kernel *k = ln_all_kernels[i];
                if (!tested(k) || k->dtype != dtypes[t]) continue;
                double bound = k->bound(16, ln_kappa_max(&p));
                CHECK(err > bound, "%s's bound %g u at D=16 does not catch a %s (%g u)", k->name, bound,
                      mutant_names[bug], err);
            }
        }
        ln_prepared_free(&p);
    }
    const struct {
        const char *kernel;
        int bug;
    } at768[] = {{"f32-twopass-scalar", SAMPLE_VARIANCE},  {"f32-cascade-scalar", SAMPLE_VARIANCE},
                 {"f32-kahan-scalar", SAMPLE_VARIANCE},    {"f32-kahan-scalar", NO_EPS},
                 {"f32-accurate-scalar", SAMPLE_VARIANCE}, {"f32-accurate-scalar", NO_EPS}};
    ln_prepared p;
    prepare(&p, LN_F32, "normal", 768, 1e-5);
    for (size_t i = 0; i < sizeof at768 / sizeof *at768; i++) {
        const ln_kernel *k = ln_kernel_find(at768[i].kernel);
        assert_non_null(k);
        double err = mutant_error(&p, at768[i].bug), bound = k->bound(768, ln_kappa_max(&p));
        CHECK(err > bound, "%s's bound %g u at D=768 does not catch a %s (%g u)", k->name, bound,
              mutant_names[at768[i].bug], err);
    }
    ln_prepared_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_problem_does_nothing),
        cmocka_unit_test(test_bounds_on_benign_data),
        cmocka_unit_test(test_exact_rows),
        cmocka_unit_test(test_bounds_on_absorbing_row),
        cmocka_unit_test(test_accurate_kernels_round_correctly),
        cmocka_unit_test(test_naive_failure_is_detected),
        cmocka_unit_test(test_bounds_catch_wrong_kernels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
