/* RMSNorm, the backward ops and the fused residual-add ops (one format, and fp32 r and h beside
 * 16-bit x and y): the references against closed forms and against an independent 600-bit
 * textbook evaluation rounded by scaling and rint; every op kernel within its claimed bound; and
 * kernels that centre an RMSNorm row, drop the mean(g xhat) term of a backward pass, normalise x
 * instead of h, truncate h or round an fp32 h to 16 bits caught by that same check. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpfr.h>

#include "accuracy.h"
#include "add-norm.h"
#include "bounds.h"
#include "dtype.h"
#include "kernel.h"
#include "lnbench_run.h"
#include "reference.h"
#include "round_to.h"
#include "vl_repeat.h"

extern const ln_kernel ln_f32_rmsnorm_accurate_scalar, ln_bf16_rmsnorm_f32acc_scalar, ln_f32_addrms_accurate_scalar,
    ln_bf16_addrms_f32acc_scalar, ln_f16_addrms_f32res_scalar, ln_bf16_addln_f32res_scalar;

#define BITS 600
#define MAXD 64
#define MAXR 4

/* Random values of format t: normal-ish with a mean offset, stored and read back. */
static void fill(ln_dtype t, size_t n, double offset, unsigned *seed, void *a, double *v)
{
    for (size_t i = 0; i < n; i++) {
        double u = 0;
        for (int k = 0; k < 4; k++) u += (double)rand_r(seed) / RAND_MAX - 0.5;
        ln_store(t, a, i, offset + 1.7 * u);
        v[i] = ln_load(t, a, i);
    }
}

/* The textbook operator at 600 bits: mean (0 without centring), var or mean square, rstd,
 * xhat; forward y = xhat g + b; backward dx = rstd (g dy - c mean(g dy) - xhat mean(g dy xhat)),
 * dgamma = sum dy xhat, dbeta = sum dy. */
typedef struct {
    mpfr_t y[MAXR][MAXD], dg[MAXD], db[MAXD];
} oracle_out;

static void oracle_given(int centred, size_t rows, size_t D, double x[][MAXD], double dy[][MAXD], const double *g,
                         const double *b, double eps, const double *gmean, const double *grstd, oracle_out *o)
{
    mpfr_t m, v, rstd, xh, t, mg, mgx;
    mpfr_inits2(BITS, m, v, rstd, xh, t, mg, mgx, (mpfr_ptr)0);
    for (size_t j = 0; j < D; j++) {
        mpfr_init2(o->dg[j], BITS), mpfr_init2(o->db[j], BITS);
        mpfr_set_zero(o->dg[j], 1), mpfr_set_zero(o->db[j], 1);
    }
    for (size_t r = 0; r < rows; r++) {
        mpfr_set_zero(m, 1), mpfr_set_zero(v, 1);
        for (size_t i = 0; centred && i < D; i++) mpfr_add_d(m, m, x[r][i], MPFR_RNDN);
        mpfr_div_ui(m, m, D, MPFR_RNDN);
        for (size_t i = 0; i < D; i++) {
            mpfr_sub_d(t, m, x[r][i], MPFR_RNDN);
            mpfr_sqr(t, t, MPFR_RNDN);
            mpfr_add(v, v, t, MPFR_RNDN);
        }
        mpfr_div_ui(v, v, D, MPFR_RNDN);
        mpfr_add_d(v, v, eps, MPFR_RNDN);
        mpfr_rec_sqrt(rstd, v, MPFR_RNDN);
        if (gmean) mpfr_set_d(m, centred ? gmean[r] : 0, MPFR_RNDN), mpfr_set_d(rstd, grstd[r], MPFR_RNDN);
        mpfr_set_zero(mg, 1), mpfr_set_zero(mgx, 1);
        for (size_t i = 0; dy && i < D; i++) {
            mpfr_set_d(t, dy[r][i], MPFR_RNDN);
            mpfr_mul_d(t, t, g ? g[i] : 1, MPFR_RNDN);
            if (centred) mpfr_add(mg, mg, t, MPFR_RNDN);
            mpfr_d_sub(xh, x[r][i], m, MPFR_RNDN);
            mpfr_mul(xh, xh, rstd, MPFR_RNDN);
            mpfr_mul(t, t, xh, MPFR_RNDN);
            mpfr_add(mgx, mgx, t, MPFR_RNDN);
        }
        mpfr_div_ui(mg, mg, D, MPFR_RNDN), mpfr_div_ui(mgx, mgx, D, MPFR_RNDN);
        for (size_t i = 0; i < D; i++) {
            mpfr_init2(o->y[r][i], BITS);
            mpfr_d_sub(xh, x[r][i], m, MPFR_RNDN);
            mpfr_mul(xh, xh, rstd, MPFR_RNDN);
            if (!dy) {
                mpfr_mul_d(t, xh, g ? g[i] : 1, MPFR_RNDN);
                mpfr_add_d(o->y[r][i], t, b ? b[i] : 0, MPFR_RNDN);
                continue;
            }
            mpfr_mul_d(t, xh, dy[r][i], MPFR_RNDN);
            mpfr_add(o->dg[i], o->dg[i], t, MPFR_RNDN);
            mpfr_add_d(o->db[i], o->db[i], dy[r][i], MPFR_RNDN);
            mpfr_set_d(t, dy[r][i], MPFR_RNDN);
            mpfr_mul_d(t, t, g ? g[i] : 1, MPFR_RNDN);
            mpfr_sub(t, t, mg, MPFR_RNDN);
            mpfr_mul(xh, xh, mgx, MPFR_RNDN);
            mpfr_sub(t, t, xh, MPFR_RNDN);
            mpfr_mul(o->y[r][i], t, rstd, MPFR_RNDN);
        }
    }
    mpfr_clears(m, v, rstd, xh, t, mg, mgx, (mpfr_ptr)0);
}

static void oracle(int centred, size_t rows, size_t D, double x[][MAXD], double dy[][MAXD], const double *g,
                   const double *b, double eps, oracle_out *o)
{
    oracle_given(centred, rows, D, x, dy, g, b, eps, NULL, NULL, o);
}

static void oracle_free(size_t rows, size_t D, oracle_out *o)
{
    for (size_t j = 0; j < D; j++) mpfr_clears(o->dg[j], o->db[j], (mpfr_ptr)0);
    for (size_t r = 0; r < rows; r++)
        for (size_t i = 0; i < D; i++) mpfr_clear(o->y[r][i]);
}

/* |hi + lo - exact| within 2^-(p + 60) relative. */
static void check_hilo(ln_dtype t, double hi, double lo, mpfr_srcptr exact)
{
    if (mpfr_zero_p(exact)) {
        assert_true(hi == 0 && lo == 0);
        return;
    }
    mpfr_t d;
    mpfr_init2(d, BITS);
    mpfr_set_d(d, hi, MPFR_RNDN);
    mpfr_add_d(d, d, lo, MPFR_RNDN);
    mpfr_sub(d, d, exact, MPFR_RNDN);
    mpfr_div(d, d, exact, MPFR_RNDN);
    int bits = ln_fmt(t)->p + 60 < 104 ? ln_fmt(t)->p + 60 : 104; /* f64: what a double-double holds */
    assert_true(mpfr_cmpabs_ui(d, 0) == 0 || mpfr_get_exp(d) <= -bits);
    mpfr_clear(d);
}

static void check_equal(ln_dtype t, const char *what, size_t k, double got, mpfr_srcptr exact)
{
    double want = round_to(t, exact);
    if (got != want)
        print_error("%s %s[%zu]: got %a, want %a (exact ~%.17g)\n", ln_fmt(t)->name, what, k, got, want,
                    mpfr_get_d(exact, MPFR_RNDN));
    assert_true(got == want);
}

/* RMSNorm of random rows in every format, with and without gamma and beta, against the oracle. */
static void test_rms_reference_random(void **state)
{
    (void)state;
    SKIP_ON_VL_REPEAT();
    unsigned seed = 7;
    for (int t = 0; t < LN_NDTYPES; t++)
        for (int trial = 0; trial < 40; trial++) {
            size_t D = 1 + (size_t)rand_r(&seed) % MAXD;
            double x[1][MAXD], g[MAXD], b[MAXD], hi[MAXD], lo[MAXD], offset = trial % 3 ? 0 : 20;
            char xa[8 * MAXD], ga[8 * MAXD], ba[8 * MAXD], ya[8 * MAXD];
            fill((ln_dtype)t, D, offset, &seed, xa, x[0]);
            fill((ln_dtype)t, D, 1, &seed, ga, g);
            fill((ln_dtype)t, D, 0, &seed, ba, b);
            int affine = trial % 2;
            double eps = trial % 4 == 3 ? 0 : 1e-5;
            ln_ref_rms_row((ln_dtype)t, D, xa, affine ? ga : NULL, affine ? ba : NULL, eps, ya, hi, lo, NULL);
            oracle_out o;
            oracle(0, 1, D, x, NULL, affine ? g : NULL, affine ? b : NULL, eps, &o);
            for (size_t i = 0; i < D; i++) {
                check_equal((ln_dtype)t, "rms y", i, ln_load((ln_dtype)t, ya, i), o.y[0][i]);
                check_hilo((ln_dtype)t, hi[i], lo[i], o.y[0][i]);
            }
            oracle_free(1, D, &o);
        }
}

/* Closed forms: [3, 4, 0, 0] has mean square 25/4, so y = [6/5, 8/5, 0, 0] (a rational output:
 * the perfect-square path); [2] with eps 0 gives exactly 1; [1, 2] gives 1/sqrt(5/2), 2/sqrt(5/2). */
static void test_rms_reference_closed(void **state)
{
    (void)state;
    SKIP_ON_VL_REPEAT();
    double x[4] = {3, 4, 0, 0}, y[4];
    ln_ref_rms_row(LN_F64, 4, x, NULL, NULL, 0, y, NULL, NULL, NULL);
    assert_true(y[0] == 1.2 && y[1] == 1.6 && y[2] == 0 && y[3] == 0);
    float xf[1] = {2}, yf[1];
    ln_ref_stats st;
    ln_ref_rms_row(LN_F32, 1, xf, NULL, NULL, 0, yf, NULL, NULL, &st);
    assert_true(yf[0] == 1.0f && st.mean == 0 && st.var == 4 && st.rstd == 0.5 && st.kappa == 1);
    double x2[2] = {1, 2}, y2[2];
    ln_ref_rms_row(LN_F64, 2, x2, NULL, NULL, 0, y2, NULL, NULL, NULL);
    assert_true(y2[0] == 1 / sqrt(2.5) || fabs(y2[0] - 1 / sqrt(2.5)) <= 0x1p-53); /* sqrt, / each CR */
    assert_true(y2[1] == 2 * y2[0]); /* exact doubling of a correctly rounded value */
}

/* The fused ops' reference (add_norm: 1 for add-layernorm, 0 for add-rmsnorm) on rows x D of format
 * t: in x, r, gamma, beta; out y, h with hi + lo each; st the rows' statistics. */
static void add_norm_ref(int centred, ln_dtype t, size_t rows, size_t D, const void *x, const void *r, const void *g,
                         const void *b, double eps, void *y, void *h, double *hi, double *lo, double *hhi, double *hlo,
                         ln_ref_stats *st)
{
    const void *in[] = {x, r, g, b};
    ln_ref_out out[] = {{y, hi, lo}, {h, hhi, hlo}};
    (centred ? ln_ref_add_layernorm : ln_ref_add_rmsnorm)(t, t, rows, D, eps, in, out, st);
}

/* The fused references, every format, both ops, with and without gamma and beta: h against the
 * 600-bit sum rounded by rint (and, below f64, against plain double addition, exact for these
 * values, rounded once by a store), hi + lo against the exact sum; y and the statistics bit-equal
 * to the plain op's row reference on the stored h. */
static void test_add_reference_random(void **state)
{
    (void)state;
    SKIP_ON_VL_REPEAT();
    unsigned seed = 11;
    for (int t = 0; t < LN_NDTYPES; t++)
        for (int trial = 0; trial < 24; trial++) {
            const size_t rows = 2, D = 1 + (size_t)rand_r(&seed) % MAXD, n = rows * D;
            const int centred = trial % 2, affine = trial % 3 != 0;
            double xv[MAXR * MAXD], rv[MAXR * MAXD], g[MAXD], b[MAXD], hi[MAXR * MAXD], lo[MAXR * MAXD];
            double hhi[MAXR * MAXD], hlo[MAXR * MAXD], hi2[MAXD], lo2[MAXD];
            char xa[8 * MAXR * MAXD], ra[8 * MAXR * MAXD], ga[8 * MAXD], ba[8 * MAXD];
            char ya[8 * MAXR * MAXD], ha[8 * MAXR * MAXD], y2[8 * MAXD], want[8];
            fill((ln_dtype)t, n, trial % 4 == 1 ? 20 : 0, &seed, xa, xv);
            fill((ln_dtype)t, n, 0, &seed, ra, rv);
            fill((ln_dtype)t, D, 1, &seed, ga, g);
            fill((ln_dtype)t, D, 0, &seed, ba, b);
            double eps = trial % 5 == 4 ? 0 : 1e-5;
            ln_ref_stats st[2], st2;
            add_norm_ref(centred, (ln_dtype)t, rows, D, xa, ra, affine ? ga : NULL, affine ? ba : NULL, eps, ya, ha, hi,
                         lo, hhi, hlo, st);
            mpfr_t sum;
            mpfr_init2(sum, BITS);
            for (size_t i = 0; i < n; i++) {
                mpfr_set_d(sum, xv[i], MPFR_RNDN);
                mpfr_add_d(sum, sum, rv[i], MPFR_RNDN); /* exact at 600 bits */
                check_equal((ln_dtype)t, "h", i, ln_load((ln_dtype)t, ha, i), sum);
                check_hilo((ln_dtype)t, hhi[i], hlo[i], sum);
                if (t != LN_F64) { /* x + r of these values is exact in double */
                    ln_store((ln_dtype)t, want, 0, xv[i] + rv[i]);
                    assert_true(ln_load((ln_dtype)t, ha, i) == ln_load((ln_dtype)t, want, 0));
                    assert_true(hhi[i] == xv[i] + rv[i] && hlo[i] == 0);
                }
            }
            mpfr_clear(sum);
            size_t es = ln_fmt((ln_dtype)t)->size;
            for (size_t r = 0; r < rows; r++) {
                (centred ? ln_ref_row : ln_ref_rms_row)((ln_dtype)t, D, ha + r * D * es, affine ? ga : NULL,
                                                        affine ? ba : NULL, eps, y2, hi2, lo2, &st2);
                assert_memory_equal(ya + r * D * es, y2, D * es);
                assert_memory_equal(hi + r * D, hi2, D * sizeof(double));
                assert_memory_equal(lo + r * D, lo2, D * sizeof(double));
                assert_memory_equal(&st[r], &st2, sizeof st2);
            }
        }
}

/* The mixed-format references (16-bit x, gamma, beta, y; fp32 r and h), both ops, with and
 * without gamma and beta, against independent computations: h against plain double addition
 * (exact for these values) rounded once to fp32 by a cast and against the 600-bit sum rounded by
 * rint; y against the 600-bit textbook operator on the stored fp32 h, rounded by rint to the
 * 16-bit format. r carries bits below x's precision, so most h differ from x + r rounded to 16
 * bits, and y from the all-16-bit reference's: a reference rounding h to the dtype fails here. */
static void test_mixed_reference(void **state)
{
    (void)state;
    SKIP_ON_VL_REPEAT();
    unsigned seed = 23;
    size_t wide_h = 0, sums = 0, y_moved = 0;
    for (ln_dtype t = LN_F16; t <= LN_BF16; t++)
        for (int trial = 0; trial < 16; trial++) {
            const size_t rows = 2, D = 2 + (size_t)rand_r(&seed) % (MAXD - 1), n = rows * D;
            const int centred = trial % 2, affine = trial % 3 != 0;
            double xv[MAXR * MAXD], rv[MAXR * MAXD], g[MAXD], b[MAXD], hi[MAXR * MAXD], lo[MAXR * MAXD];
            double hhi[MAXR * MAXD], hlo[MAXR * MAXD], hrow[MAXR][MAXD];
            char xa[2 * MAXR * MAXD], ga[2 * MAXD], ba[2 * MAXD], ya[2 * MAXR * MAXD], y16[2 * MAXR * MAXD],
                h16[2 * MAXR * MAXD], r16[2 * MAXR * MAXD];
            float ra[MAXR * MAXD], ha[MAXR * MAXD];
            fill(t, n, trial % 4 == 1 ? 20 : 0, &seed, xa, xv);
            fill(LN_F32, n, 0, &seed, ra, rv);
            fill(t, D, 1, &seed, ga, g);
            fill(t, D, 0, &seed, ba, b);
            const double eps = trial % 5 == 4 ? 0 : 1e-5;
            const void *in[] = {xa, ra, affine ? ga : NULL, affine ? ba : NULL};
            ln_ref_out out[] = {{ya, hi, lo}, {ha, hhi, hlo}};
            (centred ? ln_ref_add_layernorm : ln_ref_add_rmsnorm)(t, LN_F32, rows, D, eps, in, out, NULL);
            mpfr_t sum;
            mpfr_init2(sum, BITS);
            for (size_t i = 0; i < n; i++) {
                mpfr_set_d(sum, xv[i], MPFR_RNDN);
                mpfr_add_d(sum, sum, rv[i], MPFR_RNDN); /* exact at 600 bits */
                check_equal(LN_F32, "h", i, ha[i], sum);
                check_hilo(LN_F32, hhi[i], hlo[i], sum);
                if (mpfr_cmp_d(sum, xv[i] + rv[i]) == 0) { /* the double sum is exact: one cast rounds it */
                    assert_true(ha[i] == (float)(xv[i] + rv[i]));
                    sums++;
                }
                ln_store(t, h16, 0, ha[i]);
                wide_h += ln_load(t, h16, 0) != ha[i];
                hrow[i / D][i % D] = ha[i];
            }
            mpfr_clear(sum);
            oracle_out o;
            oracle(centred, rows, D, hrow, NULL, affine ? g : NULL, affine ? b : NULL, eps, &o);
            for (size_t i = 0; i < n; i++) {
                check_equal(t, "y", i, ln_load(t, ya, i), o.y[i / D][i % D]);
                check_hilo(t, hi[i], lo[i], o.y[i / D][i % D]);
            }
            oracle_free(rows, D, &o);
            /* the all-16-bit reference on r rounded to the dtype: another h, so another y */
            for (size_t i = 0; i < n; i++) ln_store(t, r16, i, rv[i]);
            const void *in16[] = {xa, r16, affine ? ga : NULL, affine ? ba : NULL};
            ln_ref_out out16[] = {{y16, NULL, NULL}, {h16, NULL, NULL}};
            (centred ? ln_ref_add_layernorm : ln_ref_add_rmsnorm)(t, t, rows, D, eps, in16, out16, NULL);
            for (size_t i = 0; i < n; i++) y_moved += ln_load(t, y16, i) != ln_load(t, ya, i);
        }
    assert_true(sums > 1000);       /* the double check ran on most elements */
    assert_true(wide_h > sums / 2); /* most h need fp32's bits */
    assert_true(y_moved > 100);
}

/* Closed forms: [1, 5, -1, 0.5] + [2, -1, 1, -0.5] = [3, 4, 0, 0], RMSNorm [6/5, 8/5, 0, 0];
 * [3, -1] + [-2, 4] = [1, 3], LayerNorm with eps 0 [-1, 1]; ties to even: in fp32 1 + 2^-24 is 1,
 * 1 + 3 2^-25 is 1 + 2^-23; in bf16 1 + 2^-8 is 1 and 1 + 3 2^-9 is 1 + 2^-7. */
static void test_add_reference_closed(void **state)
{
    (void)state;
    SKIP_ON_VL_REPEAT();
    double x[4] = {1, 5, -1, 0.5}, r[4] = {2, -1, 1, -0.5}, y[4], h[4];
    add_norm_ref(0, LN_F64, 1, 4, x, r, NULL, NULL, 0, y, h, NULL, NULL, NULL, NULL, NULL);
    assert_true(h[0] == 3 && h[1] == 4 && h[2] == 0 && h[3] == 0);
    assert_true(y[0] == 1.2 && y[1] == 1.6 && y[2] == 0 && y[3] == 0);
    float xf[2] = {3, -1}, rf[2] = {-2, 4}, yf[2], hf[2];
    ln_ref_stats st;
    add_norm_ref(1, LN_F32, 1, 2, xf, rf, NULL, NULL, 0, yf, hf, NULL, NULL, NULL, NULL, &st);
    assert_true(hf[0] == 1 && hf[1] == 3 && yf[0] == -1 && yf[1] == 1 && st.mean == 2 && st.var == 1);
    float one[2] = {1, 1}, ties[2] = {0x1p-24f, 3 * 0x1p-25f};
    add_norm_ref(0, LN_F32, 1, 2, one, ties, NULL, NULL, 1e-5, yf, hf, NULL, NULL, NULL, NULL, NULL);
    assert_true(hf[0] == 1 && hf[1] == 1 + 0x1p-23f);
    uint16_t b1[2], bt[2], by[2], bh[2];
    for (int i = 0; i < 2; i++) ln_store(LN_BF16, b1, i, 1), ln_store(LN_BF16, bt, i, i ? 3 * 0x1p-9 : 0x1p-8);
    add_norm_ref(0, LN_BF16, 1, 2, b1, bt, NULL, NULL, 1e-5, by, bh, NULL, NULL, NULL, NULL, NULL);
    assert_true(ln_load(LN_BF16, bh, 0) == 1 && ln_load(LN_BF16, bh, 1) == 1 + 0x1p-7);
}

/* Backward of random batches, LayerNorm and RMSNorm, every format: dx, dgamma, dbeta bit-equal to
 * the oracle rounded, and their hi + lo. */
static void test_bwd_reference_random(void **state)
{
    (void)state;
    SKIP_ON_VL_REPEAT();
    unsigned seed = 11;
    for (int centred = 0; centred <= 1; centred++)
        for (int t = 0; t < LN_NDTYPES; t++)
            for (int trial = 0; trial < 12; trial++) {
                size_t D = 1 + (size_t)rand_r(&seed) % MAXD, rows = 1 + (size_t)rand_r(&seed) % MAXR;
                double x[MAXR][MAXD], dy[MAXR][MAXD], g[MAXD], dxh[MAXR * MAXD], dxl[MAXR * MAXD];
                double dgh[MAXD], dgl[MAXD], dbh[MAXD], dbl[MAXD];
                char xa[8 * MAXR * MAXD], dya[8 * MAXR * MAXD], dxa[8 * MAXR * MAXD], ga[8 * MAXD];
                char dga[8 * MAXD], dba[8 * MAXD];
                size_t sz = ln_fmt((ln_dtype)t)->size;
                for (size_t r = 0; r < rows; r++) {
                    fill((ln_dtype)t, D, trial % 3 ? 0 : 30, &seed, xa + r * D * sz, x[r]);
                    fill((ln_dtype)t, D, 0, &seed, dya + r * D * sz, dy[r]);
                }
                fill((ln_dtype)t, D, 1, &seed, ga, g);
                int affine = trial % 2;
                ln_ref_bwd_rows(centred, (ln_dtype)t, rows, D, xa, dya, affine ? ga : NULL, 1e-5, dxa, dxh, dxl, dga,
                                dgh, dgl, dba, dbh, dbl, NULL);
                oracle_out o;
                oracle(centred, rows, D, x, dy, affine ? g : NULL, NULL, 1e-5, &o);
                for (size_t r = 0; r < rows; r++)
                    for (size_t i = 0; i < D; i++) {
                        check_equal((ln_dtype)t, "dx", r * D + i, ln_load((ln_dtype)t, dxa, r * D + i), o.y[r][i]);
                        check_hilo((ln_dtype)t, dxh[r * D + i], dxl[r * D + i], o.y[r][i]);
                    }
                for (size_t j = 0; j < D; j++) {
                    check_equal((ln_dtype)t, "dgamma", j, ln_load((ln_dtype)t, dga, j), o.dg[j]);
                    check_hilo((ln_dtype)t, dgh[j], dgl[j], o.dg[j]);
                    check_equal((ln_dtype)t, "dbeta", j, ln_load((ln_dtype)t, dba, j), o.db[j]);
                }
                oracle_free(rows, D, &o);
            }
}

/* dx with the statistics as given (the exact ones rounded to fp32), every format, against the
 * oracle fed the same statistics. */
static void test_bwd_saved_reference(void **state)
{
    (void)state;
    SKIP_ON_VL_REPEAT();
    unsigned seed = 13;
    for (int centred = 0; centred <= 1; centred++)
        for (int t = 0; t < LN_NDTYPES; t++)
            for (int trial = 0; trial < 8; trial++) {
                size_t D = 1 + (size_t)rand_r(&seed) % MAXD, rows = 1 + (size_t)rand_r(&seed) % MAXR;
                double x[MAXR][MAXD], dy[MAXR][MAXD], g[MAXD], hi[MAXR * MAXD], lo[MAXR * MAXD], gm[MAXR], gr[MAXR];
                char xa[8 * MAXR * MAXD], dya[8 * MAXR * MAXD], dxa[8 * MAXR * MAXD], ga[8 * MAXD];
                size_t sz = ln_fmt((ln_dtype)t)->size;
                for (size_t r = 0; r < rows; r++) {
                    fill((ln_dtype)t, D, trial % 2 ? 0 : 50, &seed, xa + r * D * sz, x[r]);
                    fill((ln_dtype)t, D, 0, &seed, dya + r * D * sz, dy[r]);
                }
                fill((ln_dtype)t, D, 1, &seed, ga, g);
                ln_ref_stats st[MAXR];
                ln_ref_bwd_rows(centred, (ln_dtype)t, rows, D, xa, dya, ga, 1e-5, dxa, NULL, NULL, NULL, NULL, NULL,
                                NULL, NULL, NULL, st);
                for (size_t r = 0; r < rows; r++) gm[r] = (float)st[r].mean, gr[r] = (float)st[r].rstd;
                ln_ref_bwd_saved_rows(centred, (ln_dtype)t, rows, D, xa, dya, ga, gm, gr, dxa, hi, lo);
                oracle_out o;
                oracle_given(centred, rows, D, x, dy, g, NULL, 1e-5, gm, gr, &o);
                for (size_t r = 0; r < rows; r++)
                    for (size_t i = 0; i < D; i++) {
                        check_equal((ln_dtype)t, "saved dx", r * D + i, ln_load((ln_dtype)t, dxa, r * D + i),
                                    o.y[r][i]);
                        check_hilo((ln_dtype)t, hi[r * D + i], lo[r * D + i], o.y[r][i]);
                    }
                oracle_free(rows, D, &o);
            }
}

/* Given fp32 statistics, the double-arithmetic kernel is correctly rounded against the reference
 * with those statistics, and loses hundreds of u against the exact one on offset rows: the loss
 * is the saved fp32 mean's, which the two columns tell apart. */
static void test_saved_stats_separate_the_losses(void **state)
{
    (void)state;
    SKIP_ON_VL_REPEAT();
    const ln_kernel *k = ln_kernel_find("f32-lnbwd-accurate-scalar");
    assert_non_null(k);
    for (int f32 = 0; f32 <= 1; f32++) {
        ln_case c = {.dtype = LN_F32,
                     .D = 256,
                     .rows = 4,
                     .eps = 1e-5,
                     .seed = 3,
                     .affine = 1,
                     .op = LN_OP_LAYERNORM_BWD,
                     .saved_f32 = f32};
        ln_dist_parse("offset:1e4", &c.dist);
        ln_prepared p;
        assert_int_equal(ln_prepare(&c, &p), 0);
        ln_errors e;
        ln_measure_kernel(k, &p, &e, NULL);
        assert_true(e.dx_saved_max_ulp <= 0.5000001);
        if (f32) assert_true(e.max_norm > 10);
        else assert_true(e.max_norm <= 1 && e.max_ulp <= 0.5000001);
        ln_prepared_free(&p);
        ln_dist_free(&c.dist);
    }
}

/* Statistics from forward kernel fwd (named by --saved-stats kernel:NAME): backward kernel k,
 * correctly rounded against the reference with the statistics it was given, is worse by more
 * than min_ratio against the exact statistics: that loss is fwd's. Given the exact statistics
 * instead, the two errors would be equal. The statistics of the other op's forward kernel, or
 * of another dtype, are refused. */
static void check_kernel_stats(const char *bwd, const char *fwd, const char *dist, double min_ratio,
                               const char *wrong_op)
{
    const ln_kernel *k = ln_kernel_find(bwd);
    assert_non_null(k);
    ln_case c = {.dtype = LN_F32, .D = 768, .rows = 4, .eps = 1e-5, .seed = 3, .affine = 1, .op = k->op};
    c.saved_kernel = ln_kernel_find(fwd);
    assert_non_null(c.saved_kernel);
    ln_dist_parse(dist, &c.dist);
    ln_prepared p;
    assert_int_equal(ln_prepare(&c, &p), 0);
    ln_errors e;
    ln_measure_kernel(k, &p, &e, NULL);
    assert_true(e.dx_saved_max_ulp <= 0.5000001);
    if (!(e.max_norm > min_ratio * e.dx_saved_max_norm))
        fail_msg("%s with %s's statistics on %s: dx_max_norm %g u, dx_saved_max_norm %g u", bwd, fwd, dist, e.max_norm,
                 e.dx_saved_max_norm);
    double bound;
    assert_string_equal(ln_row_contract(k, &p, 0, &bound), "saved-stats-kernel");
    ln_prepared_free(&p);
    c.saved_kernel = ln_kernel_find(wrong_op);
    assert_int_equal(ln_prepare(&c, &p), -1);
    c.saved_kernel = ln_kernel_find("f16-native-scalar");
    assert_int_equal(ln_prepare(&c, &p), -1);
    ln_dist_free(&c.dist);
}

/* f32-twopass-scalar's fp32 mean of offset rows is off by ~n u |mean|: dx moves by thousands
 * of u against the exact statistics. */
static void test_layernorm_stats_from_a_forward_kernel(void **state)
{
    (void)state;
    check_kernel_stats("f32-lnbwd-accurate-scalar", "f32-twopass-scalar", "offset:1e4", 100,
                       "f32-rmsnorm-naive-scalar");
}

/* f32-rmsnorm-naive-scalar's fp32 rstd: (n + 2) u relative, a few u of dx. */
static void test_rmsnorm_stats_from_a_forward_kernel(void **state)
{
    (void)state;
    check_kernel_stats("f32-rmsbwd-accurate-scalar", "f32-rmsnorm-naive-scalar", "normal", 2, "f32-twopass-scalar");
}

/* Closed forms of the backward: for D = 2 and eps = 0 LayerNorm's xhat is [-1, 1] and
 * dx = rstd (g - mean g - xhat mean(g xhat)) = 0 exactly whatever dy (so a kernel that drops the
 * last term returns rstd (dy1 - dy2) / 2, not 0); dgamma = dy xhat = [-dy1, dy2]. Two rows with
 * the same x and opposite dy: dgamma and dbeta exactly 0 (irrational terms cancelling, the case
 * Ziv's loop cannot decide). */
static void test_bwd_reference_closed(void **state)
{
    (void)state;
    SKIP_ON_VL_REPEAT();
    double x[2] = {1, 4}, dy[2] = {0.25, -3}, dx[2], dg[2], db[2];
    ln_ref_bwd_rows(1, LN_F64, 1, 2, x, dy, NULL, 0, dx, NULL, NULL, dg, NULL, NULL, db, NULL, NULL, NULL);
    assert_true(dx[0] == 0 && dx[1] == 0);
    assert_true(dg[0] == -0.25 && dg[1] == -3 && db[0] == 0.25 && db[1] == -3);
    /* RMSNorm, D = 1, eps = 0: xhat = sign(x), dx = rstd (g - xhat g xhat) = 0 */
    double x1[1] = {-3}, dy1[1] = {5};
    ln_ref_bwd_rows(0, LN_F64, 1, 1, x1, dy1, NULL, 0, dx, NULL, NULL, dg, NULL, NULL, db, NULL, NULL, NULL);
    assert_true(dx[0] == 0 && dg[0] == -5 && db[0] == 5);
    float xs[6] = {0.5f, 1.25f, -2, 0.5f, 1.25f, -2}, dys[6] = {1, 0.3f, -0.7f, -1, -0.3f, 0.7f}, dxs[6], dgs[3],
          dbs[3];
    ln_ref_bwd_rows(1, LN_F32, 2, 3, xs, dys, NULL, 1e-5, dxs, NULL, NULL, dgs, NULL, NULL, dbs, NULL, NULL, NULL);
    for (int j = 0; j < 3; j++) assert_true(dgs[j] == 0 && dbs[j] == 0);
    for (int i = 0; i < 3; i++) assert_true(dxs[i] == -dxs[3 + i]);
}

/* The bound check of every op kernel: max_norm of its output on a case of rows x D within
 * bound(D, kappa). */
static int within_bound_rows(const ln_kernel *k, ln_op op, const char *dist, size_t D, size_t rows)
{
    ln_case c = {
        .dtype = k->dtype, .resid = k->resid, .D = D, .rows = rows, .eps = 1e-5, .seed = 3, .affine = 1, .op = op};
    ln_dist_parse(dist, &c.dist);
    ln_prepared p;
    assert_int_equal(ln_prepare(&c, &p), 0);
    ln_errors e;
    ln_measure_kernel(k, &p, &e, NULL);
    double bound = k->bound(D, ln_kappa_max(&p));
    int ok = e.nonfinite == 0 && e.max_norm <= bound;
    if (!ok) print_message("%s on %s D=%zu: max_norm %g, bound %g\n", k->name, dist, D, e.max_norm, bound);
    ln_prepared_free(&p);
    ln_dist_free(&c.dist);
    return ok;
}

static int within_bound(const ln_kernel *k, ln_op op, const char *dist, size_t D)
{
    return within_bound_rows(k, op, dist, D, 8);
}

static const char *const dists[] = {"normal", "offset:1e4", "outlier:1000"};

static void test_op_kernels_within_bounds(void **state)
{
    (void)state;
    size_t n = 0;
    for (size_t i = 0; i < ln_num_op_kernels; i++) {
        const ln_kernel *k = ln_op_kernels[i];
        assert_true(k->op != LN_OP_LAYERNORM && k->op < LN_NOPS);
        if (!ln_kernel_available(k)) continue;
        for (size_t d = 0; d < sizeof dists / sizeof *dists; d++)
            for (size_t D = 1; D <= 1024; D = D * 4 + 3) assert_true(within_bound(k, k->op, dists[d], D)), n++;
    }
    assert_true(n > 0);
}

/* The fp32 fused SIMD kernels in cache run rows in blocks of 16 KiB of h but at least
 * ADD_MIN_BLOCK_ROWS (f32-add-pipeline.h: 8 for add-layernorm's accurate kernels): 19 rows of
 * D 3072 cross block boundaries and end in a short block, every row within the bound. */
static void test_fused_kernels_across_blocks(void **state)
{
    (void)state;
    size_t n = 0;
    for (size_t i = 0; i < ln_num_op_kernels; i++) {
        const ln_kernel *k = ln_op_kernels[i];
        const int fused = k->op == LN_OP_ADD_RMSNORM || k->op == LN_OP_ADD_LAYERNORM;
        if (!fused || k->dtype != LN_F32 || !k->isa || !ln_kernel_available(k)) continue;
        assert_true(within_bound_rows(k, k->op, "normal", 3072, 19)), n++;
    }
    assert_true(n > 0);
}

/* k's verdict (ln_judge, as `accuracy --check`) on a case of its op, in *v. */
static void verdict_of(const ln_kernel *k, const char *dist, size_t D, int saved_f32, ln_verdict *v)
{
    ln_case c = {.dtype = k->dtype,
                 .resid = k->resid,
                 .D = D,
                 .rows = 8,
                 .eps = 1e-5,
                 .seed = 3,
                 .affine = 1,
                 .op = k->op,
                 .saved_f32 = saved_f32};
    ln_dist_parse(dist, &c.dist);
    ln_prepared p;
    assert_int_equal(ln_prepare(&c, &p), 0);
    ln_errors e;
    void *y = malloc(D * c.rows * ln_fmt(k->dtype)->size);
    assert_non_null(y);
    ln_measure_kernel(k, &p, &e, y);
    ln_judge(k, &p, y, v);
    if (v->verdict == LN_FAIL)
        print_message("%s on %s D=%zu: %g u > bound %g u (%s)\n", k->name, dist, D, v->error, v->bound, v->domain);
    free(y);
    ln_prepared_free(&p);
    ln_dist_free(&c.dist);
}

/* The verdict's kind; *domain gets its domain. */
static ln_verdict_kind verdict_on(const ln_kernel *k, const char *dist, size_t D, int saved_f32, const char **domain)
{
    ln_verdict v;
    verdict_of(k, dist, D, saved_f32, &v);
    *domain = v.domain; /* a static string */
    return v.verdict;
}

/* Every op kernel's contract: f32 rows of normal, offset and outlier values are inside every
 * domain and pass; no kernel fails anywhere; every f32 RMSNorm kernel passes huge rows (the fp32
 * sums of squares overflow: the fallback redoes them in double); statistics saved in fp32 put
 * every backward case outside. */
static void test_op_kernel_verdicts(void **state)
{
    (void)state;
    const char *const all[] = {"normal", "offset:1e4", "outlier:1000", "huge", "tiny"};
    const char *dom;
    for (size_t i = 0; i < ln_num_op_kernels; i++) {
        const ln_kernel *k = ln_op_kernels[i];
        if (!ln_kernel_available(k) || k->external) continue;
        assert_non_null(k->domain);
        for (size_t d = 0; d < sizeof all / sizeof *all; d++)
            for (size_t D = 7; D <= 768; D += 761) {
                ln_verdict_kind v = verdict_on(k, all[d], D, 0, &dom);
                assert_int_not_equal(v, LN_FAIL);
                /* a claimed bound of 1/u or more (the naive backward pass at offset 1e4) promises
                 * nothing and is not judged; any other f32 case passes */
                if (k->dtype == LN_F32 && d < 3 && !(v == LN_OUTSIDE && !strcmp(dom, "bound-vacuous")))
                    assert_int_equal(v, LN_PASS);
            }
        if (k->dtype == LN_F32 && (k->op == LN_OP_RMSNORM || k->op == LN_OP_ADD_RMSNORM))
            for (size_t D = 7; D <= 768; D += 761) assert_int_equal(verdict_on(k, "huge", D, 0, &dom), LN_PASS);
        /* the fused ops on huge and tiny rows, judged on h's facts: every f32 kernel passes */
        if (k->dtype == LN_F32 && (k->op == LN_OP_ADD_RMSNORM || k->op == LN_OP_ADD_LAYERNORM))
            for (size_t d = 3; d < 5; d++) assert_int_equal(verdict_on(k, all[d], 768, 0, &dom), LN_PASS);
        if (ln_op_is_backward(k->op)) {
            assert_int_equal(verdict_on(k, "normal", 7, 1, &dom), LN_OUTSIDE);
            assert_string_equal(dom, "saved-stats-f32");
        }
    }
}

/* Rows whose fp32 sum of squares overflows ([3e19, -3e19, ...]: each square is beyond FLT_MAX) or
 * whose squares underflow ([1e-25, -1e-25, ...]: each square is below the smallest subnormal),
 * with eps = 0: every RMSNorm kernel of a format with fp32's range gives y = +-1 exactly (the
 * double row: x^2 exact, sqrt(x^2) = |x|, x / |x| within 2^-53 of 1) and the rstd of the row, at
 * D = 2, D = 100 (past the vector kernels' 4W lanes) and D = 4096 (row groups); the row after it, of
 * ordinary scale, is unchanged by its neighbour's fallback. */
static void test_rms_huge_tiny_rows(void **state)
{
    (void)state;
    const double scales[] = {3e19, 1e-25};
    size_t n = 0;
    for (size_t i = 0; i < ln_num_op_kernels; i++) {
        const ln_kernel *k = ln_op_kernels[i];
        if (k->op != LN_OP_RMSNORM || !ln_kernel_available(k) || ln_fmt(k->dtype)->emax < 127) continue;
        for (size_t s = 0; s < 2; s++)
            for (size_t d = 0; d < 3; d++) { /* D 4096: f32-rmsnorm-pipelined's row groups in cache */
                const size_t D = (size_t[]){2, 100, 4096}[d];
                static char x[2 * 4096 * 4], y[2 * 4096 * 4];
                for (size_t j = 0; j < D; j++) ln_store(k->dtype, x, j, j % 2 ? -scales[s] : scales[s]);
                for (size_t j = 0; j < D; j++) ln_store(k->dtype, x, D + j, j % 2 ? -1.5 : 1.5);
                double stored = ln_load(k->dtype, x, 0), rstd[2];
                ln_args a = {.rows = 2, .D = D, .x = x, .y = y, .eps = 0, .rstd = rstd};
                k->forward(&a);
                for (size_t j = 0; j < 2 * D; j++)
                    if (ln_load(k->dtype, y, j) != (j % 2 ? -1.0 : 1.0))
                        fail_msg("%s, rows of +-%g, D %zu: y[%zu] = %g, not %g", k->name, scales[s], D, j,
                                 ln_load(k->dtype, y, j), j % 2 ? -1.0 : 1.0);
                assert_true(fabs(rstd[0] * stored - 1) <= 0x1p-23);
                n++;
            }
    }
    assert_true(n >= 16); /* f32 naive and accurate, bf16, and the vector kernels on x86 */
}

/* In place (y over x, dx over dy) gives the bits of out of place, every op kernel. */
static void test_op_kernels_in_place(void **state)
{
    (void)state;
    for (size_t i = 0; i < ln_num_op_kernels; i++) {
        const ln_kernel *k = ln_op_kernels[i];
        if (!ln_kernel_available(k)) continue;
        ln_case c = {.dtype = k->dtype,
                     .resid = k->resid,
                     .D = 100,
                     .rows = 3,
                     .eps = 1e-5,
                     .seed = 5,
                     .affine = 1,
                     .op = k->op};
        ln_dist_parse("normal", &c.dist);
        ln_prepared p;
        assert_int_equal(ln_prepare(&c, &p), 0);
        /* x and y in the dtype; r and h in the residual format (fp32 for the mixed kernels) */
        size_t bytes = c.rows * c.D * ln_fmt(c.dtype)->size, rbytes = c.rows * c.D * ln_fmt(ln_kernel_resid(k))->size;
        void *out = malloc(bytes), *io = malloc(bytes), *dg = malloc(c.D * 8), *db = malloc(c.D * 8);
        ln_errors e;
        ln_measure_kernel(k, &p, &e, out);
        double mean[3], rstd[3];
        for (size_t r = 0; r < 3; r++) mean[r] = p.stats[r].mean, rstd[r] = p.stats[r].rstd;
        int bwd = ln_op_is_backward(k->op), fused = p.role[1].data && !strcmp(ln_ops[k->op].roles[1].name, "r");
        memcpy(io, bwd ? p.dy : p.x, bytes);
        /* the fused ops as engines run them: h over r (the residual updated), y over x */
        void *h_out = fused ? malloc(rbytes) : NULL, *rh = fused ? malloc(rbytes) : NULL;
        if (fused) {
            memcpy(rh, p.role[1].data, rbytes);
            ln_args o = {.rows = c.rows,
                         .D = c.D,
                         .x = p.x,
                         .y = out,
                         .gamma = p.gamma,
                         .beta = p.beta,
                         .eps = c.eps,
                         .r = p.role[1].data,
                         .h = h_out};
            k->forward(&o);
        }
        ln_args a = {.rows = c.rows,
                     .D = c.D,
                     .x = bwd ? p.x : io,
                     .y = bwd ? NULL : io,
                     .gamma = p.gamma,
                     .beta = p.beta,
                     .eps = c.eps,
                     .mean = mean,
                     .rstd = rstd,
                     .dy = bwd ? io : NULL,
                     .dx = bwd ? io : NULL,
                     .dgamma = bwd ? dg : NULL,
                     .dbeta = bwd ? db : NULL,
                     .r = rh,
                     .h = rh};
        k->forward(&a);
        if (memcmp(io, out, bytes) != 0) fail_msg("%s in place differs from out of place", k->name);
        if (fused && memcmp(rh, h_out, rbytes) != 0) fail_msg("%s: h over r differs from out of place", k->name);
        free(out), free(io), free(dg), free(db), free(h_out), free(rh);
        ln_prepared_free(&p);
        ln_dist_free(&c.dist);
    }
}

/* Every backward kernel gives each row of a call the dx bits of a call on that row alone (the
 * pipelines sum the next rows while writing this one; a row's sums must not depend on where its
 * loop began), at row lengths around the kernel's vector width (W - 1 .. 8 W + 5 elements, W its
 * run-time width on SVE). */
static void test_bwd_rows_alone_at_tails(void **state)
{
    (void)state;
    size_t n = 0;
    for (size_t i = 0; i < ln_num_op_kernels; i++) {
        const ln_kernel *k = ln_op_kernels[i];
        if (!ln_op_is_backward(k->op) || !ln_kernel_available(k) || k->external) continue;
        const size_t w = ln_kernel_vector_width(k), rows = 5, size = ln_fmt(k->dtype)->size;
        const size_t dims[] = {w > 1 ? w - 1 : 1, w, w + 1, 2 * w + 3, 8 * w + 5};
        for (size_t di = 0; di < sizeof dims / sizeof *dims; di++) {
            const size_t D = dims[di];
            ln_case c = {.dtype = k->dtype, .D = D, .rows = rows, .eps = 1e-5, .seed = 11, .affine = 1, .op = k->op};
            ln_dist_parse("offset:1e4", &c.dist);
            ln_prepared p;
            assert_int_equal(ln_prepare(&c, &p), 0);
            char *all = malloc(rows * D * size), *one = malloc(rows * D * size);
            double mean[5], rstd[5], *dg = malloc(D * 8), *db = malloc(D * 8);
            assert_true(all && one && dg && db);
            for (size_t r = 0; r < rows; r++) mean[r] = p.stats[r].mean, rstd[r] = p.stats[r].rstd;
            ln_args a = {.rows = rows,
                         .D = D,
                         .x = p.x,
                         .gamma = p.gamma,
                         .eps = c.eps,
                         .mean = mean,
                         .rstd = rstd,
                         .dy = p.dy,
                         .dx = all,
                         .dgamma = dg,
                         .dbeta = db};
            k->forward(&a);
            for (size_t r = 0; r < rows; r++) {
                ln_args b = a;
                b.rows = 1, b.mean = mean + r, b.rstd = rstd + r, b.dgamma = NULL, b.dbeta = NULL;
                b.x = (const char *)p.x + r * D * size, b.dy = (const char *)p.dy + r * D * size;
                b.dx = one + r * D * size;
                k->forward(&b);
            }
            if (memcmp(all, one, rows * D * size) != 0)
                fail_msg("%s D=%zu: dx of a %zu-row call differs from its rows alone", k->name, D, rows);
            free(all), free(one), free(dg), free(db);
            ln_prepared_free(&p);
            ln_dist_free(&c.dist);
            n++;
        }
    }
    assert_true(n > 0);
}

/* The 16-bit SIMD add-layernorm kernels, in cache and streaming (stream_min_bytes 0 through
 * params), h aligned and not, at every tail length and across row blocks: h bit-equal to x + r
 * rounded once (the double sum of two 16-bit values is exact here, rounded once by a store), on
 * residuals chosen so that a quarter of the sums are ties (half an ulp of x: a truncating or
 * round-half-up add fails), a quarter a third of an ulp off (a rounding that truncates fails), the
 * rest ordinary; y against the reference on the stored h, normwise within bound(D, kappa). */
static void test_half_addln_kernels(void **state)
{
    (void)state;
    const char *const names[] = {"f16-addln-f32acc-avx2",    "bf16-addln-f32acc-avx2", "f16-addln-f32acc-avx512",
                                 "bf16-addln-f32acc-avx512", "f16-addln-f32acc-neon",  "bf16-addln-f32acc-neon"};
    const size_t Ds[] = {1, 7, 16, 31, 33, 64, 100, 257, 1000, 4096};
    enum { ROWS = 5, MAXN = ROWS * 4096 + 1 };
    static uint16_t x[MAXN], r[MAXN], hbuf[MAXN + 1], y[MAXN], want[1];
    static double xv[MAXN], rv[MAXN], hi[MAXN], lo[MAXN];
    static char yref[2 * MAXN], href[2 * MAXN];
    size_t kernels = 0, ties = 0, inexact = 0;
    unsigned seed = 17;
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        const ln_kernel *K = ln_kernel_find(names[k]);
        if (!K || !ln_kernel_available(K)) continue;
        kernels++;
        const ln_dtype t = K->dtype;
        const double u = ldexp(1, -ln_fmt(t)->p);
        int params[16];
        assert_true(K->n_tunables >= 1 && K->n_tunables <= 16);
        for (size_t i = 0; i < K->n_tunables; i++) params[i] = K->tunables[i].def;
        params[0] = 0; /* stream_min_bytes: every call streams */
        for (size_t d = 0; d < sizeof Ds / sizeof *Ds; d++)
            for (int regime = 0; regime < 4; regime++) {
                const size_t D = Ds[d], n = ROWS * D;
                uint16_t *h = hbuf + regime / 2; /* odd regimes: h one element off its alignment */
                fill(t, n, d % 3 == 2 ? 30 : 0, &seed, x, xv);
                for (size_t i = 0; i < n; i++) {
                    const double ulp = ldexp(1, ilogb(xv[i]) - ln_fmt(t)->p + 1);
                    double v = (double)rand_r(&seed) / RAND_MAX - 0.5;
                    if (xv[i] != 0 && i % 4 == 1) v = ulp / 2;      /* a tie */
                    else if (xv[i] != 0 && i % 4 == 3) v = ulp / 3; /* rounds down, to x */
                    ln_store(t, r, i, v);
                    rv[i] = ln_load(t, r, i);
                }
                ln_args a = {.rows = ROWS,
                             .D = D,
                             .x = x,
                             .r = r,
                             .h = h,
                             .y = y,
                             .eps = 1e-5,
                             .params = regime % 2 ? params : NULL};
                K->forward(&a);
                for (size_t i = 0; i < n; i++) {
                    ln_store(t, want, 0, xv[i] + rv[i]);
                    if (h[i] != want[0])
                        fail_msg("%s D %zu regime %d: h[%zu] = %g, x + r = %.17g rounds to %g", K->name, D, regime, i,
                                 ln_load(t, h, i), xv[i] + rv[i], ln_load(t, want, 0));
                    inexact += ln_load(t, want, 0) != xv[i] + rv[i];
                    ties += xv[i] != 0 && rv[i] == ldexp(1, ilogb(xv[i]) - ln_fmt(t)->p);
                }
                ln_ref_stats st[ROWS];
                add_norm_ref(1, t, ROWS, D, x, r, NULL, NULL, 1e-5, yref, href, hi, lo, NULL, NULL, st);
                assert_memory_equal(href, h, n * 2); /* the reference's h: the same rounding */
                for (size_t row = 0; row < ROWS; row++) {
                    double err = 0, big = 0;
                    for (size_t i = row * D; i < (row + 1) * D; i++) {
                        err = fmax(err, fabs(ln_load(t, y, i) - hi[i] - lo[i]));
                        big = fmax(big, fabs(hi[i]));
                    }
                    const double bound = K->bound(D, st[row].kappa);
                    if (!(err <= bound * u * big))
                        fail_msg("%s D %zu regime %d row %zu: y error %g u > bound %g", K->name, D, regime, row,
                                 err / (u * big), bound);
                }
            }
    }
    if (LN_X86 || LN_ARM64) assert_true(kernels >= 2);
    if (kernels) assert_true(ties > 100 && inexact > ties);
}

/* Deliberately wrong kernels the check above must reject. */
static void rms_centred(const ln_args *a)
{
    for (size_t r = 0; r < a->rows; r++) {
        const float *x = (const float *)a->x + r * a->D, *g = a->gamma, *b = a->beta;
        float *y = (float *)a->y + r * a->D;
        double s = 0, ss = 0;
        for (size_t i = 0; i < a->D; i++) s += x[i];
        double m = s / (double)a->D;
        for (size_t i = 0; i < a->D; i++) ss += (x[i] - m) * (x[i] - m);
        double rstd = 1 / sqrt(ss / (double)a->D + a->eps);
        for (size_t i = 0; i < a->D; i++) y[i] = (float)((x[i] - m) * rstd * (g ? g[i] : 1) + (b ? b[i] : 0));
    }
}

/* A fused RMSNorm that normalises x, not h (h written right). */
static void add_rms_of_x(const ln_args *a)
{
    ln_add_elements(LN_F32, a, 0, a->rows * a->D);
    ln_args b = *a;
    ln_f32_rmsnorm_accurate_scalar.forward(&b);
}

/* A bf16 fused RMSNorm that truncates h to bf16 (the fp32 sum's low 16 bits dropped), then
 * normalises its own h exactly as the reference would. */
static void add_rms_truncated(const ln_args *a)
{
    for (size_t i = 0; i < a->rows * a->D; i++) {
        float v = ln_half_load(LN_BF16, a->x, i) + ln_half_load(LN_BF16, a->r, i);
        ((uint16_t *)a->h)[i] = (uint16_t)(ln_f32_bits(v) >> 16);
    }
    ln_args b = *a;
    b.x = a->h;
    ln_bf16_rmsnorm_f32acc_scalar.forward(&b);
}

/* dx = rstd (g - c mean(g)), the mean(g xhat) term dropped; dgamma, dbeta right. */
static void bwd_dropped_term(const ln_args *a, int centred)
{
    for (size_t r = 0; r < a->rows; r++) {
        const float *dy = (const float *)a->dy + r * a->D, *g = a->gamma;
        float *dx = (float *)a->dx + r * a->D;
        double sg = 0;
        for (size_t i = 0; i < a->D; i++) sg += dy[i] * (g ? g[i] : 1.0);
        for (size_t i = 0; i < a->D; i++)
            dx[i] = (float)(a->rstd[r] * (dy[i] * (g ? g[i] : 1.0) - (centred ? sg / (double)a->D : 0)));
    }
}
static void ln_bwd_dropped(const ln_args *a) { bwd_dropped_term(a, 1); }
static void rms_bwd_dropped(const ln_args *a) { bwd_dropped_term(a, 0); }

static double loose_bound(size_t D, double kappa) { return 1.0 + 2.0 * ((double)D + 8) * kappa * 0x1p-29; }

static void test_breakage_caught(void **state)
{
    (void)state;
    const ln_kernel centring = {.name = "f32-rmsnorm-centred-scalar",
                                .dtype = LN_F32,
                                .op = LN_OP_RMSNORM,
                                .forward = rms_centred,
                                .bound = loose_bound};
    const ln_kernel ln_dropped = {.name = "f32-lnbwd-dropped-scalar",
                                  .dtype = LN_F32,
                                  .op = LN_OP_LAYERNORM_BWD,
                                  .forward = ln_bwd_dropped,
                                  .bound = loose_bound};
    const ln_kernel rms_dropped = {.name = "f32-rmsbwd-dropped-scalar",
                                   .dtype = LN_F32,
                                   .op = LN_OP_RMSNORM_BWD,
                                   .forward = rms_bwd_dropped,
                                   .bound = loose_bound};
    /* RMSNorm does not centre: even on zero-mean normal rows the sample mean shows */
    assert_false(within_bound(&centring, LN_OP_RMSNORM, "normal", 768));
    assert_false(within_bound(&centring, LN_OP_RMSNORM, "offset:1e4", 768));
    assert_false(within_bound(&ln_dropped, LN_OP_LAYERNORM_BWD, "normal", 768));
    assert_false(within_bound(&rms_dropped, LN_OP_RMSNORM_BWD, "normal", 768));
    /* and the verdict, judged with a contract, fails them */
    const char *dom;
    const ln_kernel *broken[] = {&centring, &ln_dropped, &rms_dropped};
    for (size_t i = 0; i < 3; i++) assert_int_equal(verdict_on(broken[i], "normal", 768, 0, &dom), LN_FAIL);
    /* the fused ops: y of x instead of h fails on y; a truncated h fails on h, though y is the
     * correct norm of the h it wrote */
    const ln_kernel of_x = {.name = "f32-addrms-ofx-scalar",
                            .dtype = LN_F32,
                            .op = LN_OP_ADD_RMSNORM,
                            .forward = add_rms_of_x,
                            .bound = ln_f32_rmsnorm_accurate_scalar.bound,
                            .domain = ln_domain_any_row};
    const ln_kernel truncated = {.name = "bf16-addrms-truncated-scalar",
                                 .dtype = LN_BF16,
                                 .op = LN_OP_ADD_RMSNORM,
                                 .forward = add_rms_truncated,
                                 .bound = ln_bf16_rmsnorm_f32acc_scalar.bound,
                                 .domain = ln_domain_any_row};
    assert_false(within_bound(&of_x, LN_OP_ADD_RMSNORM, "normal", 768));
    const char *const on[] = {"y", "h"};
    const ln_kernel *fused[] = {&of_x, &truncated};
    for (size_t i = 0; i < 2; i++) {
        ln_verdict v;
        verdict_of(fused[i], "normal", 768, 0, &v);
        assert_int_equal(v.verdict, LN_FAIL);
        assert_string_equal(v.failed_on, on[i]);
        if (i == 1) assert_true(v.bound == 0 && v.error > 0);
    }
    /* and the correct kernels pass the same cases */
    assert_int_equal(verdict_on(&ln_f32_addrms_accurate_scalar, "normal", 768, 0, &dom), LN_PASS);
    assert_int_equal(verdict_on(&ln_bf16_addrms_f32acc_scalar, "normal", 768, 0, &dom), LN_PASS);
}

/* Planted: a mixed-format kernel (fp32 r and h) that rounds h to its 16-bit dtype, as an engine
 * keeping a 16-bit residual does, and then normalises that h correctly: the kernel k of its op
 * run again with x = 0 and r = the rounded h, so only h is wrong. */
static const ln_kernel *planted_base;
static void mixed_h_rounded(const ln_args *a)
{
    const size_t n = a->rows * a->D;
    uint16_t *zero = calloc(n ? n : 1, sizeof *zero), *h16 = malloc((n ? n : 1) * sizeof *h16);
    assert_non_null(zero), assert_non_null(h16);
    planted_base->forward(a);
    for (size_t i = 0; i < n; i++) {
        ln_half_store(planted_base->dtype, h16, i, ((float *)a->h)[i]);
        ((float *)a->h)[i] = ln_half_load(planted_base->dtype, h16, i);
    }
    ln_args b = *a;
    b.x = zero, b.r = a->h;
    planted_base->forward(&b);
    free(zero), free(h16);
}

/* The planted kernel fails its verdict on h, on both ops and both 16-bit formats, though y is the
 * correct norm of the h it wrote; the kernel it wraps passes the same cases. */
static void test_mixed_h_rounding_caught(void **state)
{
    (void)state;
    const ln_kernel *bases[] = {&ln_f16_addrms_f32res_scalar, &ln_bf16_addln_f32res_scalar};
    const char *dom;
    for (size_t i = 0; i < 2; i++) {
        planted_base = bases[i];
        ln_kernel planted = *bases[i];
        planted.name = "planted-h16-scalar", planted.forward = mixed_h_rounded;
        ln_verdict v;
        verdict_of(&planted, "normal", 768, 0, &v);
        assert_int_equal(v.verdict, LN_FAIL);
        assert_string_equal(v.failed_on, "h");
        assert_true(v.bound == 0 && v.error > 0);
        assert_int_equal(verdict_on(bases[i], "normal", 768, 0, &dom), LN_PASS);
    }
}

/* The mixed-format vector kernels from memory: a call with over 32 MiB of y (their fp32 kernels'
 * streaming threshold: f32-add-pipeline.h's pipeline on 16-bit x and y, h and y written with
 * non-temporal stores) gives the bits of two calls of half the rows each (in cache: the fp32
 * kernel on blocks of h, its y rounded), at a D of whole blocks and at one whose rows end in a
 * part block and start off the 64-byte lines, with a row whose fp32 sums overflow (the double
 * row) in each half. */
static void test_mixed_kernels_streaming(void **state)
{
    (void)state;
    SKIP_ON_VL_REPEAT();
    enum { DMAX = 4111, ROWS = 4096, NMAX = ROWS * DMAX };
    uint16_t *x = malloc(NMAX * sizeof *x), *y = malloc(NMAX * sizeof *y), *y2 = malloc(NMAX * sizeof *y2);
    float *r = malloc(NMAX * sizeof *r), *h = malloc(NMAX * sizeof *h), *h2 = malloc(NMAX * sizeof *h2);
    uint16_t g[DMAX], b[DMAX];
    assert_true(x && y && y2 && r && h && h2);
    size_t checked = 0;
    for (size_t i = 0; i < ln_num_op_kernels; i++) {
        const ln_kernel *k = ln_op_kernels[i];
        if (ln_kernel_resid(k) == k->dtype || !k->isa || !ln_kernel_available(k)) continue;
        for (size_t D = 4096; D <= DMAX; D += DMAX - 4096) {
            const size_t N = ROWS * D;
            for (size_t j = 0; j < N; j++) {
                ln_half_store(k->dtype, x, j, (float)((j * 2654435761u) % 1000) / 250 - 2);
                r[j] = (float)((j * 40503u) % 999983) / 333331 - 1.5f;
                if (j / D % (ROWS / 2) == 7) r[j] *= 0x1p100f; /* x^2 beyond fp32 */
            }
            for (size_t j = 0; j < D; j++)
                ln_half_store(k->dtype, g, j, 1 + (float)(j % 7) / 16),
                    ln_half_store(k->dtype, b, j, (float)(j % 5) / 8);
            ln_args a = {.rows = ROWS, .D = D, .x = x, .y = y, .gamma = g, .beta = b, .eps = 1e-5, .r = r, .h = h};
            k->forward(&a);
            for (size_t half = 0; half < 2; half++) {
                const size_t o = half * (N / 2);
                ln_args c = {.rows = ROWS / 2,
                             .D = D,
                             .x = x + o,
                             .y = y2 + o,
                             .gamma = g,
                             .beta = b,
                             .eps = 1e-5,
                             .r = r + o,
                             .h = h2 + o};
                k->forward(&c);
            }
            if (memcmp(y, y2, N * sizeof *y) || memcmp(h, h2, N * sizeof *h))
                fail_msg("%s at D %zu: streaming y or h differs from the in-cache calls", k->name, D);
            checked++;
        }
    }
    if (LN_X86 || LN_ARM64) assert_true(checked >= 8);
    free(x), free(y), free(y2), free(r), free(h), free(h2);
}

/* The worst ulp error of kernel k's outputs (for the backward ops dx, dgamma and dbeta; for the
 * fused ops y, h being judged apart) over rows of dist at each D of Ds (none a multiple of a vector
 * width; 8 rows, so dgamma and dbeta sum over rows), and the smallest fraction of correctly rounded
 * y or dx; a non-finite mismatch fails at once. */
static double worst_ulp_on(const ln_kernel *k, const char *dist, double *min_cr)
{
    double worst = 0;
    for (size_t D = 7; D <= 1300; D = D * 12 + 17) { /* 7, 101, 1229 */
        ln_case c = {.dtype = LN_F32, .D = D, .rows = 8, .eps = 1e-5, .seed = 7, .affine = 1, .op = k->op};
        ln_dist_parse(dist, &c.dist);
        ln_prepared p;
        assert_int_equal(ln_prepare(&c, &p), 0);
        ln_errors e;
        ln_measure_kernel(k, &p, &e, NULL);
        if (e.nonfinite) fail_msg("%s on %s D=%zu: %zu non-finite mismatches", k->name, dist, D, e.nonfinite);
        const double u[] = {e.max_ulp, e.dgamma_max_ulp, e.dbeta_max_ulp};
        for (int i = 0; i < 3; i++) worst = u[i] > worst ? u[i] : worst;
        *min_cr = e.cr_frac < *min_cr ? e.cr_frac : *min_cr;
        ln_prepared_free(&p);
        ln_dist_free(&c.dist);
    }
    return worst;
}

/* The accurate f32 kernels of the other ops (RMSNorm, the backward ops, the fused ops), scalar
 * and vector: every output correctly rounded (0.5 ulp, up to the 2^-26 ulp of their double
 * arithmetic) against the MPFR reference, on centred, offset, outlier, huge and tiny rows. The
 * op's fast fp32 kernel of the same ISA, which sums in fp32 lanes (and dgamma, dbeta over rows in
 * fp32), fails the same check: it has discriminating power. */
static void test_accurate_op_kernels_round_correctly(void **state)
{
    (void)state;
    const char *const all[] = {"normal", "offset:1e4", "outlier:1000", "huge", "tiny"};
    const char *const fast_of[LN_NOPS] = {[LN_OP_RMSNORM] = "f32-rmsnorm-pipelined",
                                          [LN_OP_LAYERNORM_BWD] = "f32-lnbwd-pipelined",
                                          [LN_OP_RMSNORM_BWD] = "f32-rmsbwd-pipelined",
                                          [LN_OP_ADD_RMSNORM] = "f32-addrms-pipelined",
                                          [LN_OP_ADD_LAYERNORM] = "f32-addln-shifted"};
    size_t simd = 0;
    for (size_t i = 0; i < ln_num_op_kernels; i++) {
        const ln_kernel *k = ln_op_kernels[i];
        if (k->dtype != LN_F32 || !strstr(k->name, "-accurate-") || !ln_kernel_available(k)) continue;
        double min_cr = 1;
        for (size_t d = 0; d < sizeof all / sizeof *all; d++) {
            double w = worst_ulp_on(k, all[d], &min_cr);
            if (!(w <= 0.5000001)) fail_msg("%s on %s: %.9g ulp, not correctly rounded", k->name, all[d], w);
        }
        assert_true(min_cr >= 0.999);
        const char *isa = strrchr(k->name, '-');
        if (!strcmp(isa, "-scalar")) continue;
        simd++;
        if (!strcmp(isa, "-sve")) continue; /* no pipelined SVE sibling: NEON's shows the rows are hard there */
        assert_non_null(fast_of[k->op]);
        char fast[64];
        snprintf(fast, sizeof fast, "%s%s", fast_of[k->op], isa);
        const ln_kernel *f = ln_kernel_find(fast);
        assert_non_null(f);
        double min_cr_fast = 1, w_fast = 0;
        for (size_t d = 0; d < sizeof all / sizeof *all; d++) {
            double w = worst_ulp_on(f, all[d], &min_cr_fast);
            w_fast = w > w_fast ? w : w_fast;
        }
        if (!(w_fast > 0.6))
            fail_msg("%s: %.9g ulp at worst, the check cannot tell it from %s", f->name, w_fast, k->name);
    }
#if defined(__x86_64__) || defined(__aarch64__)
    assert_true(simd >= 5); /* RMSNorm, the two backward ops, add-rmsnorm, add-layernorm */
#endif
}

/* --op on the verbs: list shows the op column and filters, accuracy writes the op column, a
 * wrong op is a usage error. */
static void test_op_cli(void **state)
{
    (void)state;
    SKIP_ON_VL_REPEAT();
    assert_int_equal(run("list --op rmsnorm"), 0);
    assert_non_null(strstr(run_output, "f32-rmsnorm-accurate-scalar"));
    assert_null(strstr(run_output, "f32-twopass-scalar"));
    assert_null(strstr(run_output, "lnbwd"));
    assert_int_equal(run("list --csv"), 0);
    assert_non_null(strstr(run_output, ",layernorm\n"));
    assert_non_null(strstr(run_output, ",layernorm-bwd\n"));
    char csv[64];
    snprintf(csv, sizeof csv, "/tmp/lnbench-test-ops-%d.csv", (int)getpid());
    assert_int_equal(run("accuracy --op layernorm-bwd --kernels 'f32-lnbwd-*' --D 33 --rows 3 --dist normal "
                         "--quiet --out %s && cat %s",
                         csv, csv),
                     0);
    remove(csv);
    strcat(csv, ".meta.json");
    remove(csv);
    assert_non_null(strstr(run_output, ",op,dgamma_max_ulp,"));
    assert_non_null(strstr(run_output, ",layernorm-bwd,"));
    assert_int_equal(run("accuracy --op rmsnorm --kernels f32-twopass-scalar --quiet --out /dev/null"), 2);
    assert_int_equal(run("list --op bogus"), 2);
    assert_non_null(strstr(run_output, "rmsnorm-bwd"));
}

int main(void)
{
    lnbench = getenv("LNBENCH") ? getenv("LNBENCH") : "build/lnbench";
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rms_reference_random),
        cmocka_unit_test(test_rms_reference_closed),
        cmocka_unit_test(test_add_reference_random),
        cmocka_unit_test(test_add_reference_closed),
        cmocka_unit_test(test_mixed_reference),
        cmocka_unit_test(test_bwd_saved_reference),
        cmocka_unit_test(test_saved_stats_separate_the_losses),
        cmocka_unit_test(test_bwd_reference_random),
        cmocka_unit_test(test_bwd_reference_closed),
        cmocka_unit_test(test_op_kernels_within_bounds),
        cmocka_unit_test(test_fused_kernels_across_blocks),
        cmocka_unit_test(test_breakage_caught),
        cmocka_unit_test(test_mixed_h_rounding_caught),
        cmocka_unit_test(test_mixed_kernels_streaming),
        cmocka_unit_test(test_op_kernels_in_place),
        cmocka_unit_test(test_half_addln_kernels),
        cmocka_unit_test(test_op_cli),
        cmocka_unit_test(test_op_kernel_verdicts),
        cmocka_unit_test(test_accurate_op_kernels_round_correctly),
        cmocka_unit_test(test_bwd_rows_alone_at_tails),
        cmocka_unit_test(test_rms_huge_tiny_rows),
        cmocka_unit_test(test_layernorm_stats_from_a_forward_kernel),
        cmocka_unit_test(test_rmsnorm_stats_from_a_forward_kernel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
