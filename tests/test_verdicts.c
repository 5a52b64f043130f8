/* Verdicts against the kernels' contracts (kernels/kernel.h, docs/metrics.md): every kernel on
 * the two classes of rows that used to break fp32 kernels silently (the sum of squares
 * overflows though each square fits; the squares underflow with eps = 0), what storing a drawn
 * row did to it (the `input` column), the bound for a user's own gamma and beta, and the exit
 * statuses of `lnbench accuracy --check` ($LNBENCH). */
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
#include "bounds.h"
#include "kernel.h"
#include "npy.h"
#include "lnbench_run.h"
#include "tmpdir.h"

/* A case whose rows are given: each of `rows` rows is `row` (D doubles), stored in dtype t. */
static void prepare_rows(ln_prepared *p, ln_dtype t, const double *row, size_t D, size_t rows, double eps, int affine,
                         const double *gamma, const double *beta)
{
    double *data = malloc(rows * D * sizeof *data);
    assert_non_null(data);
    for (size_t r = 0; r < rows; r++) memcpy(data + r * D, row, D * sizeof *row);
    ln_case c = {.dtype = t,
                 .D = D,
                 .rows = rows,
                 .eps = eps,
                 .seed = 1,
                 .affine = affine,
                 .gamma_src = gamma,
                 .beta_src = beta};
    c.dist = (ln_dist){.kind = LN_DIST_FILE, .data = data, .file_rows = rows, .file_D = D};
    snprintf(c.dist.spec, sizeof c.dist.spec, "rows");
    assert_int_equal(ln_prepare(&c, p), 0);
    free(data);
}

/* +-v alternating (0 last for odd D): mean 0 (or about), every |x| = v. */
static void alternating(double *row, size_t D, double v)
{
    for (size_t i = 0; i < D; i++) row[i] = i % 2 ? -v : v;
    if (D % 2) row[D - 1] = 0;
}

/* The record agrees with itself: a pass has max_norm <= bound, a fail max_norm > bound. */
static void check_record(const ln_kernel *k, const ln_errors *e, const ln_verdict *v)
{
    if (v->verdict == LN_PASS && !(e->max_norm <= v->bound))
        fail_msg("%s: pass with max_norm %g > bound %g", k->name, e->max_norm, v->bound);
    if (v->verdict == LN_FAIL && !isnan(v->bound) && !(e->max_norm > v->bound))
        fail_msg("%s: fail with max_norm %g <= bound %g", k->name, e->max_norm, v->bound);
}

/* The verdict of k (its forward run on p's x, then `spoil`, if any, applied to y) on p. */
static ln_verdict judged_spoiled(const ln_kernel *k, const ln_prepared *p, void (*spoil)(void *y))
{
    size_t bytes = p->c.rows * p->c.D * ln_fmt(p->c.dtype)->size;
    void *y = malloc(bytes);
    ln_errors e;
    ln_verdict v;
    ln_measure_kernel(k, p, &e, y);
    if (spoil) {
        spoil(y);
        ln_measure_output(p, y, &e);
    }
    ln_judge(k, p, y, &v);
    check_record(k, &e, &v);
    free(y);
    return v;
}

static ln_verdict judged(const ln_kernel *k, const ln_prepared *p) { return judged_spoiled(k, p, NULL); }

/* The two classes for dtype t: squares that fit but whose sum overflows the format (each
 * |x| = 0.75 2^((emax+1)/2), so x^2 = 0.56 2^(emax+1) and two of them overflow), and squares that
 * underflow (|x| far below 2^(emin/2); the values are normal, or subnormal in f16, never zero). */
static double overflow_value(ln_dtype t) { return 0.75 * ldexp(1.0, (ln_fmt(t)->emax + 1) / 2); }
static double underflow_value(ln_dtype t)
{
    return t == LN_F16 ? 0x1p-20 : t == LN_F64 ? 1e-170 : 1e-25; /* f16: subnormal, squares 2^-40 */
}

/* Every kernel (but the peers, whose failures are findings: lnbench accuracy --check reports
 * them) is never `fail` on either class, with and without gamma/beta, eps 0 and 1e-5, D 2, 3
 * and 768; a kernel that states the any-row domain (its fallback handles both) passes. */
static void test_overflow_and_underflow_rows(void **state)
{
    (void)state;
    static const size_t dims[] = {2, 3, 768};
    double row[768];
    size_t judged_inside = 0;
    for (int t = 0; t < LN_NDTYPES; t++)
        for (int cls = 0; cls < 2; cls++)
            for (size_t di = 0; di < 3; di++)
                for (int affine = 0; affine < 2; affine++)
                    for (int e = 0; e < 2; e++) {
                        double eps = e ? 1e-5 : 0.0;
                        if (cls == 1 && e) continue; /* eps = 1e-5 hides underflowing squares */
                        alternating(row, dims[di], cls ? underflow_value(t) : overflow_value(t));
                        ln_prepared p;
                        prepare_rows(&p, (ln_dtype)t, row, dims[di], 2, eps, affine, NULL, NULL);
                        for (size_t i = 0; i < ln_num_kernels; i++) {
                            const ln_kernel *k = ln_all_kernels[i];
                            if ((int)k->dtype != t || !ln_kernel_available(k) || k->external) continue;
                            ln_verdict v = judged(k, &p);
                            const char *what = cls ? "squares underflow" : "sum of squares overflows";
                            if (v.verdict == LN_FAIL)
                                fail_msg("%s, %s row D=%zu eps=%g affine=%d: fail, error %g u > bound %g u (row %zu "
                                         "col %zu)",
                                         k->name, what, dims[di], eps, affine, v.error, v.bound, v.row, v.col);
                            if (k->domain == ln_domain_any_row && v.verdict != LN_PASS)
                                fail_msg("%s, %s row D=%zu eps=%g affine=%d: claims any row, verdict %s (%s)", k->name,
                                         what, dims[di], eps, affine, ln_verdict_names[v.verdict], v.domain);
                            judged_inside += v.verdict == LN_PASS;
                        }
                        ln_prepared_free(&p);
                    }
    assert_true(judged_inside > 0);
}

/* What storing the drawn rows did: f16 offset:1e5 overflows, bf16 offset:1e4 collapses every row
 * to 9984, an f32 row with 1e-50 flushes it, a file with a NaN is nonfinite; each such case is
 * outside for every kernel, with the input problem as its domain. */
static void check_input(ln_prepared *p, ln_input want, const char *domain)
{
    int any = 0;
    for (size_t r = 0; r < p->c.rows; r++) any |= p->input[r] == want;
    if (!any) fail_msg("%s %s: no row classified %s", ln_fmt(p->c.dtype)->name, p->c.dist.spec, ln_input_names[want]);
    for (size_t i = 0; i < ln_num_kernels; i++) {
        const ln_kernel *k = ln_all_kernels[i];
        if (k->dtype != p->c.dtype || !ln_kernel_available(k)) continue;
        ln_verdict v = judged(k, p);
        if (v.verdict != LN_OUTSIDE || v.input != want || strcmp(v.domain, domain) != 0)
            fail_msg("%s on %s: verdict %s, domain %s, input %s; expected outside, %s", k->name, p->c.dist.spec,
                     ln_verdict_names[v.verdict], v.domain, ln_input_names[v.input], domain);
    }
    ln_prepared_free(p);
}

static void drawn_case(ln_prepared *p, ln_dtype t, const char *dist, size_t D)
{
    ln_case c = {.dtype = t, .D = D, .rows = 4, .eps = 1e-5, .seed = 1, .affine = 1};
    ln_dist_parse(dist, &c.dist);
    assert_int_equal(ln_prepare(&c, p), 0);
}

static void test_input_classification(void **state)
{
    (void)state;
    ln_prepared p;
    drawn_case(&p, LN_F16, "offset:1e5", 64);
    check_input(&p, LN_INPUT_OVERFLOW, "input-overflow");
    drawn_case(&p, LN_BF16, "offset:1e4", 64);
    check_input(&p, LN_INPUT_COLLAPSED, "input-collapsed");
    double tiny_row[4] = {1e-50, 2.0, -1.0, 0.5};
    prepare_rows(&p, LN_F32, tiny_row, 4, 2, 1e-5, 1, NULL, NULL);
    check_input(&p, LN_INPUT_UNDERFLOW, "input-underflow");
    double nan_row[3] = {1.0, NAN, 2.0};
    prepare_rows(&p, LN_F32, nan_row, 3, 1, 1e-5, 1, NULL, NULL);
    check_input(&p, LN_INPUT_NONFINITE, "input-nonfinite");
    /* and an ordinary case is ok in every dtype */
    for (int t = 0; t < LN_NDTYPES; t++) {
        drawn_case(&p, (ln_dtype)t, "normal", 64);
        for (size_t r = 0; r < p.c.rows; r++) assert_int_equal(p.input[r], LN_INPUT_OK);
        ln_prepared_free(&p);
    }
}

/* A kernel whose affine step is wrong: statistics in double, but gamma rounded to 12 bits before
 * it multiplies xhat, an error of up to 2^-13 of gamma xhat (2^11 u). With a user's large gamma
 * and a beta that cancels most of gamma xhat, the bound grows by the affine factor (here ~6):
 * it must grow no more than the honest kernels need, and still catch this one. */
static void wrong_affine_forward(const ln_args *a)
{
    const float *g = a->gamma, *b = a->beta;
    for (size_t r = 0; r < a->rows; r++) {
        const float *x = (const float *)a->x + r * a->D;
        float *y = (float *)a->y + r * a->D;
        double s = 0, ss = 0;
        for (size_t i = 0; i < a->D; i++) s += x[i];
        double mean = s / (double)a->D;
        for (size_t i = 0; i < a->D; i++) ss += (x[i] - mean) * (x[i] - mean);
        double rstd = 1.0 / sqrt(ss / (double)a->D + a->eps);
        for (size_t i = 0; i < a->D; i++) {
            int ex;
            double gi = g ? g[i] : 1.0, gm = frexp(gi, &ex);
            gm = ldexp(round(ldexp(gm, 12)), -12); /* the deliberate bug: gamma to 12 bits */
            y[i] = (float)((x[i] - mean) * rstd * ldexp(gm, ex) + (b ? b[i] : 0.0f));
        }
    }
}

static void test_user_weights_get_a_verdict(void **state)
{
    (void)state;
    enum { D = 16 };
    const ln_kernel *right = ln_kernel_find("f32-twopass-scalar");
    assert_non_null(right);
    ln_kernel wrong = *right;
    wrong.name = "f32-wrongaffine-scalar";
    wrong.forward = wrong_affine_forward;
    double x[D], gamma[D], beta[D], mean = 0, var = 0;
    for (size_t i = 0; i < D; i++) mean += (x[i] = (double)(float)sin(1.0 + (double)i)) / D;
    for (size_t i = 0; i < D; i++) var += (x[i] - mean) * (x[i] - mean) / D;
    for (size_t i = 0; i < D; i++) {
        gamma[i] = 1000.0 * (1.0 + 0.3 * cos((double)i)) + 0.123456789; /* large, every bit used */
        beta[i] = -0.95 * gamma[i] * (x[i] - mean) / sqrt(var);         /* cancels 95% of gamma xhat */
    }
    ln_prepared p;
    prepare_rows(&p, LN_F32, x, D, 2, 1e-5, 1, gamma, beta);
    ln_verdict vr = judged(right, &p), vw = judged(&wrong, &p);
    print_message("user weights: right %s (%g u <= %g u), wrong affine %s (%g u, bound %g u)\n",
                  ln_verdict_names[vr.verdict], vr.error, vr.bound, ln_verdict_names[vw.verdict], vw.error, vw.bound);
    assert_int_equal(vr.verdict, LN_PASS);
    assert_int_equal(vw.verdict, LN_FAIL);
    /* the affine factor is what scales the bound here: it is above 1 for these weights */
    ln_row_facts f;
    ln_row_facts_of(&p, 0, &f);
    assert_true(ln_affine_factor(&f) > 1.0);
    ln_prepared_free(&p);
}

/* A fail is decided row by row, each against its own bound: a small error on a row with a small
 * bound fails even beside a row whose larger kappa allows more, and the record names that row
 * and its bound (so max_norm > bound there too). */
static void spoil_first_row(void *y) { ((float *)y)[1] *= 1.0f + 0x1p-12f; }

static void test_fail_is_per_row(void **state)
{
    (void)state;
    enum { D = 64 };
    const ln_kernel *k = ln_kernel_find("f32-twopass-scalar");
    double rows[2 * D];
    for (size_t i = 0; i < D; i++) {
        rows[i] = sin(1.0 + (double)i);           /* kappa ~1: bound ~50 u */
        rows[D + i] = 1e3 + sin(2.0 + (double)i); /* kappa ~1e3: bound ~1e5 u */
    }
    double *data = malloc(sizeof rows);
    memcpy(data, rows, sizeof rows);
    ln_case c = {.dtype = LN_F32, .D = D, .rows = 2, .eps = 1e-5, .seed = 1, .affine = 1};
    c.dist = (ln_dist){.kind = LN_DIST_FILE, .data = data, .file_rows = 2, .file_D = D};
    ln_prepared p;
    assert_int_equal(ln_prepare(&c, &p), 0);
    free(data);
    ln_verdict clean = judged(k, &p), spoiled = judged_spoiled(k, &p, spoil_first_row);
    assert_int_equal(clean.verdict, LN_PASS);
    assert_int_equal(spoiled.verdict, LN_FAIL);
    assert_int_equal(spoiled.row, 0);
    assert_int_equal(spoiled.col, 1);
    assert_true(spoiled.bound < 1e3 && spoiled.error > spoiled.bound && spoiled.error < clean.bound);
    ln_prepared_free(&p);
}

/* ---- lnbench accuracy --check ---- */

static void test_check_exit_status(void **state)
{
    (void)state;
    char args[2048];
    /* a clean sweep: 0 */
    snprintf(args, sizeof args,
             "accuracy --check --quiet --kernels 'f32-*-scalar,f64-*' --dist normal,huge --D 2,768 "
             "--eps 1e-5,0 --rows 2 --out %s",
             test_path("clean.csv"));
    int status = run("%s", args);
    if (status != 0) fail_msg("clean sweep: exit %d: %s", status, run_output);
    assert_non_null(strstr(run_output, "check: 0 of"));
    /* bad input: 2 */
    snprintf(args, sizeof args, "accuracy --check --D 0 --out %s", test_path("never.csv"));
    assert_int_equal(run("%s", args), 2);
    /* a failing case: the oneDNN peer on a row whose squares fit but whose sum does not */
    const ln_kernel *peer = ln_kernel_find("ext-onednn-f32");
    if (!peer || !ln_kernel_available(peer)) {
        print_message("no oneDNN peer here: the failing --check case is not run\n");
        return;
    }
    double row[2] = {1.5e19, -1.5e19};
    ln_npy_write(test_path("overflow.npy"), LN_F64, 2, 1, 2, row);
    snprintf(args, sizeof args,
             "accuracy --check --quiet --kernels ext-onednn-f32,f32-twopass-scalar --no-affine "
             "--dist file:%s --out %s",
             test_path("overflow.npy"), test_path("fail.csv"));
    status = run("%s", args);
    if (status != 1) fail_msg("failing case: exit %d, expected 1: %s", status, run_output);
    const char *line = strstr(run_output, "FAIL ext-onednn-f32 f32");
    if (!line || !strstr(line, "row 0 col ") || !strstr(line, "--dump lnbench-dump") || strstr(run_output, "FAIL f32-"))
        fail_msg("failure lines: %s", run_output);
    assert_no_temp_files();
}

/* lnbench summary never shows a finite max beside non-finite outputs, even from a file whose
 * max_ulp column (written before max_ulp said so itself) holds a finite figure there. */
static void test_summary_shows_nonfinite(void **state)
{
    (void)state;
    FILE *f = fopen(test_path("acc.csv"), "w");
    assert_non_null(f);
    fputs("kernel,dist,max_ulp,mean_ulp,nonfinite,verdict\n"
          "f32-kahan-scalar,normal,0.8,0.3,0,pass\n"
          "f32-kahan-scalar,huge,2.22,0.5,4608,fail\n",
          f);
    fclose(f);
    char args[1024];
    snprintf(args, sizeof args, "summary --accuracy %s --bench %s", test_path("acc.csv"), test_path("none.csv"));
    assert_int_equal(run("%s", args), 0);
    const char *line = strstr(run_output, "f32-kahan-scalar");
    assert_non_null(line);
    char name[64], dist[64], mean[32], max[32];
    double nonfinite, fails;
    /* kernel, three '-' (no bench file), hardest dist, mean ulp, max ulp, nonfinite, fails */
    if (sscanf(line, "%63s - - - %63s %31s %31s %lf %lf", name, dist, mean, max, &nonfinite, &fails) != 6)
        fail_msg("summary line: %s", line);
    if (strcmp(dist, "huge") || strcmp(max, "inf") || nonfinite != 4608 || fails != 1)
        fail_msg("summary shows dist %s, max %s, nonfinite %g, fails %g: %s", dist, max, nonfinite, fails, line);
}

/* ---- The cascade bound, term by term ----
 * f32-cascade-scalar's and the Welford vector kernels' statistics against ln_bound_cascade_stats (bounds.h) on a row built to
 * line its roundings up: mean 2^20 + 2^11 (every running mean just above a power of two, where a
 * rounding costs the most relative to it), half of the chunks one sigma = 2^10 above, the others
 * one below (kappa about 1026), each element then moved by up to 2 ulps, in order, to the
 * value that pushes the kernel's own statistic furthest one way (its output through `mean` and
 * `rstd`). At this kappa the bound's |mean| terms are nearly all of it, so a bound that is
 * attained within a small factor here is tight where the search reaches (docs/hunt.md). */
enum { CASCADE_D = 768, CASCADE_CHUNK = 16 };
#define CASCADE_EPS 1e-5

typedef struct {
    double mean, var;
} row_stats;

static row_stats exact_stats(const float *x)
{
    double s = 0, q = 0; /* the sum is exact: multiples of 2^-3 below 2^31 */
    for (int i = 0; i < CASCADE_D; i++) s += x[i];
    double mean = s / CASCADE_D;
    for (int i = 0; i < CASCADE_D; i++) q += (x[i] - mean) * (x[i] - mean);
    return (row_stats){mean, q / CASCADE_D};
}

/* The kernel's error on one statistic, in units of u: the mean's relative to sigma, or var +
 * eps's relative error (from rstd, which adds a few u of its own). */
static double cascade_error(const ln_kernel *k, const float *x, int of_var)
{
    float y[CASCADE_D];
    double mean, rstd;
    ln_args a = {.rows = 1, .D = CASCADE_D, .x = x, .y = y, .eps = CASCADE_EPS, .mean = &mean, .rstd = &rstd};
    k->forward(&a);
    row_stats e = exact_stats(x);
    double s2 = e.var + CASCADE_EPS;
    return (of_var ? (1 / (rstd * rstd) - s2) / s2 : (mean - e.mean) / sqrt(s2)) / 0x1p-24;
}

static void steer(const ln_kernel *k, float *x, int of_var)
{
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < CASCADE_D; i++) {
            float keep = x[i], best_x = keep;
            double best = cascade_error(k, x, of_var);
            for (int t = -2; t <= 2; t++) {
                x[i] = keep + (float)t * 0x1p-3f; /* ulp(2^20) */
                double err = cascade_error(k, x, of_var);
                if (err > best) best = err, best_x = x[i];
            }
            x[i] = best_x;
        }
}

static void test_cascade_bound_is_attained(void **state)
{
    (void)state;
    /* each kernel's tree (chunk length, height, merge ratio, as its bound states them), and the
     * period of the row's +-sigma pattern that puts whole chunks on one side: the row's halves,
     * or every other half of the lanes */
    static const struct {
        const char *name;
        double chunk, levels, ratio;
        int period;
    } trees[] = {{"f32-cascade-scalar", CASCADE_CHUNK, 6, 1, CASCADE_D}, /* 48 chunks */
                 {"f32-welford-avx2", CASCADE_D / 32, 5, 2, 32},         /* 32 lanes of 24 */
                 {"f32-welford-avx512", CASCADE_D / 64, 6, 2, 64}};      /* 64 lanes of 12 */
    for (size_t t = 0; t < sizeof trees / sizeof *trees; t++) {
        const ln_kernel *k = ln_kernel_find(trees[t].name);
        if (!k || !ln_kernel_available(k)) continue;
        for (int of_var = 0; of_var < 2; of_var++) {
            float x[CASCADE_D];
            for (int i = 0; i < CASCADE_D; i++)
                x[i] = 0x1p20f + 0x1p11f + (i % trees[t].period < trees[t].period / 2 ? 0x1p10f : -0x1p10f);
            steer(k, x, of_var);
            row_stats e = exact_stats(x);
            double kappa = sqrt(1 + e.mean * e.mean / (e.var + CASCADE_EPS));
            ln_stats_bound b = ln_bound_cascade_stats(trees[t].chunk, trees[t].levels, trees[t].ratio, kappa, 0x1p-24);
            double err = cascade_error(k, x, of_var), claimed = of_var ? b.var : b.mean;
            const char *what = of_var ? "var" : "mean";
            print_message("%s, %s steered: %.4g u, bound %.4g u (%.2f of it), kappa %.1f\n", k->name, what, err,
                          claimed, err / claimed, kappa);
            if (!(err <= claimed)) fail_msg("%s: %s error %g u above its bound %g u", k->name, what, err, claimed);
            if (!(err >= claimed / 4))
                fail_msg("%s: %s error %g u under a quarter of its bound %g u", k->name, what, err, claimed);
            double row[CASCADE_D]; /* and the verdict on the output */
            for (int i = 0; i < CASCADE_D; i++) row[i] = x[i];
            ln_prepared p;
            prepare_rows(&p, LN_F32, row, CASCADE_D, 1, CASCADE_EPS, 1, NULL, NULL);
            ln_verdict v = judged(k, &p);
            assert_int_equal(v.verdict, LN_PASS);
            ln_prepared_free(&p);
        }
    }
}

int main(void)
{
    lnbench = getenv("LNBENCH");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overflow_and_underflow_rows), cmocka_unit_test(test_input_classification),
        cmocka_unit_test(test_user_weights_get_a_verdict),  cmocka_unit_test(test_fail_is_per_row),
        cmocka_unit_test(test_check_exit_status),           cmocka_unit_test(test_summary_shows_nonfinite),
        cmocka_unit_test(test_cascade_bound_is_attained),
    };
    if (!lnbench) {
        fprintf(stderr, "test_verdicts: set LNBENCH to the lnbench binary (make test does)\n");
        return 1;
    }
    return cmocka_run_group_tests(tests, test_dir_create, test_dir_remove);
}
