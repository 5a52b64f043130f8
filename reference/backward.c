/* The MPFR reference of the backward ops (docs/reference.md, "Backward"). Per row, exactly:
 *   S1 = sum x_i (0 for RMSNorm), R = D sum x_i^2 - S1^2 + D^2 eps = D^2 / rstd^2,
 *   N_i = D x_i - S1 (so xhat_i = N_i / sqrt(R)), g_i = gamma_i dy_i, G1 = sum g_i, GN = sum g_i N_i,
 *   dx_i = A_i / (R sqrt(R)),  A_i = R (D g_i - c G1) - N_i GN   (c = 1 LayerNorm, 0 RMSNorm)
 * which is rstd (g_i - c mean(g) - xhat_i mean(g xhat)) with every sum exact. Over rows:
 *   dgamma_j = sum_r dy_rj N_rj / sqrt(R_r),  dbeta_j = sum_r dy_rj.
 * A_i, R and the dbeta sums are exact dyadic numbers; sqrt(R) is the one irrational step. */
#include <math.h>
#include <stdlib.h>

#include <gmp.h>
#include <mpfr.h>

#include "ref_mpfr.h"
#include "reference.h"

#define W0 128   /* first working precision: p + 64 correct bits for f32 and below */
#define LEVELS 9 /* W0 2^8 = 32768 bits: beyond it dgamma is taken as exactly on the grid */

typedef struct {
    int ok; /* x finite, R > 0 finite */
    int sqrt_exact;
    mpfr_t S1, R, sqrtR; /* sqrtR exact when sqrt_exact, else RN at R's precision (unused) */
    double var;          /* (D S2 - S1^2) / D^2 rounded: the variance (mean square uncentred) */
    mpfr_t s_at[LEVELS]; /* RN_w(sqrt R), w = W0 2^level, filled on demand */
    int levels;
} row_sums;

static mpfr_srcptr sqrt_at(row_sums *rs, int level)
{
    while (rs->levels <= level) {
        mpfr_init2(rs->s_at[rs->levels], (mpfr_prec_t)W0 << rs->levels);
        mpfr_sqrt(rs->s_at[rs->levels], rs->R, MPFR_RNDN);
        rs->levels++;
    }
    return rs->s_at[level];
}

/* hi = RN(v), lo = RN(v - hi), the difference exact at v's precision. */
static void split(mpfr_srcptr v, double *hi, double *lo)
{
    double h = mpfr_get_d(v, MPFR_RNDN), l = 0;
    if (isfinite(h) && h != 0) {
        mpfr_t t;
        mpfr_init2(t, mpfr_get_prec(v));
        mpfr_sub_d(t, v, h, MPFR_RNDN);
        l = mpfr_get_d(t, MPFR_RNDN);
        mpfr_clear(t);
    }
    if (hi) *hi = h;
    if (lo) *lo = l;
}

/* v_w (decided by Ziv's test, so its ternary value is the exact value's) rounded at p bits, then
 * to t's range; returned as a double. */
static double fit(mpfr_srcptr v_w, ln_dtype t)
{
    mpfr_t y;
    mpfr_init2(y, ln_fmt(t)->p);
    int ternary = mpfr_set(y, v_w, MPFR_RNDN);
    ln_mpfr_fit(y, ternary, t);
    double d = mpfr_get_d(y, MPFR_RNDN);
    mpfr_clear(y);
    return d;
}

static void x_sums(ln_dtype t, size_t D, const void *x, int centred, double eps, row_sums *rs)
{
    mpfr_t *xs = malloc(2 * D * sizeof *xs);
    mpfr_ptr *ptrs = malloc(2 * D * sizeof *ptrs);
    if (!xs || !ptrs) abort();
    rs->ok = 1;
    for (size_t i = 0; i < 2 * D; i++) mpfr_init2(xs[i], i < D ? 53 : 106), ptrs[i] = xs[i];
    for (size_t i = 0; i < D; i++) {
        double v = ln_load(t, x, i);
        rs->ok &= isfinite(v) != 0;
        mpfr_set_d(xs[i], isfinite(v) ? v : 0, MPFR_RNDN);
        mpfr_sqr(xs[D + i], xs[i], MPFR_RNDN); /* exact */
    }
    mpfr_t S2, DS2, S1sq, V, D2eps;
    mpfr_inits2(64, S2, DS2, S1sq, V, D2eps, (mpfr_ptr)0);
    mpfr_inits2(64, rs->S1, rs->R, rs->sqrtR, (mpfr_ptr)0);
    ln_mpfr_exact_sum(rs->S1, ptrs, D);
    if (!centred) mpfr_set_zero(rs->S1, 1);
    ln_mpfr_exact_sum(S2, ptrs + D, D);
    mpfr_set_prec(DS2, mpfr_get_prec(S2) + 64);
    mpfr_mul_ui(DS2, S2, (unsigned long)D, MPFR_RNDN);
    mpfr_set_prec(S1sq, 2 * mpfr_get_prec(rs->S1));
    mpfr_sqr(S1sq, rs->S1, MPFR_RNDN);
    ln_mpfr_exact_sub(V, DS2, S1sq);
    rs->var = NAN;
    if (rs->ok) {
        mpfr_t D2;
        mpfr_init2(D2, 128);
        mpfr_set_ui(D2, (unsigned long)D, MPFR_RNDN);
        mpfr_mul_ui(D2, D2, (unsigned long)D, MPFR_RNDN); /* exact: D^2 < 2^128 */
        rs->var = ln_mpfr_round_div(V, D2, LN_F64);
        mpfr_clear(D2);
    }
    mpfr_set_prec(D2eps, 128 + 53);
    mpfr_set_ui(D2eps, (unsigned long)D, MPFR_RNDN);
    mpfr_mul_ui(D2eps, D2eps, (unsigned long)D, MPFR_RNDN);
    mpfr_mul_d(D2eps, D2eps, eps, MPFR_RNDN); /* exact: D^2 < 2^128 */
    ln_mpfr_exact_add(rs->R, V, D2eps);
    rs->ok &= mpfr_sgn(rs->R) > 0 && mpfr_number_p(rs->R);
    if (rs->ok) {
        mpfr_set_prec(rs->sqrtR, mpfr_get_prec(rs->R));
        rs->sqrt_exact = mpfr_sqrt(rs->sqrtR, rs->R, MPFR_RNDN) == 0; /* exact iff dyadic */
    }
    mpfr_clears(S2, DS2, S1sq, V, D2eps, (mpfr_ptr)0);
    for (size_t i = 0; i < 2 * D; i++) mpfr_clear(xs[i]);
    free(xs);
    free(ptrs);
}

/* N = D x_i - S1, exact. */
static void numerator_N(mpfr_ptr N, const row_sums *rs, size_t D, double xi)
{
    mpfr_t Dx;
    mpfr_init2(Dx, 53 + 64);
    mpfr_set_d(Dx, xi, MPFR_RNDN);
    mpfr_mul_ui(Dx, Dx, (unsigned long)D, MPFR_RNDN);
    ln_mpfr_exact_sub(N, Dx, rs->S1);
    mpfr_clear(Dx);
}

/* A / (R sqrt(R)) correctly rounded to t (A exact and non-zero, R > 0). Exact sqrt(R): one
 * correctly rounded division. Otherwise irrational, never a (p+1)-bit number, and at w bits
 * q = RN(A / RN(R RN(sqrt R))) has relative error below 3.01 2^-w, so |q - exact| <
 * 2^(EXP(q) - w + 2): Ziv's test with err = w - 2. */
static double dx_element(mpfr_srcptr A, row_sums *rs, ln_dtype t, double *hi, double *lo)
{
    mpfr_prec_t p = ln_fmt(t)->p;
    mpfr_exp_t want = p + 66 < 112 ? p + 66 : 112; /* hi + lo carry p + 64 bits (f64: 106) */
    mpfr_t den, q;
    mpfr_inits2(W0, den, q, (mpfr_ptr)0);
    double d;
    if (rs->sqrt_exact) {
        ln_mpfr_exact_mul(den, rs->R, rs->sqrtR);
        d = ln_mpfr_round_div(A, den, t);
        mpfr_set_prec(q, 256);
        mpfr_div(q, A, den, MPFR_RNDN);
        split(q, hi, lo);
    } else {
        /* An irrational value is decided at some level; the last level's value is kept (never
         * an abort) should a non-number ever reach here. */
        for (int level = 0; level < LEVELS; level++) {
            mpfr_prec_t w = (mpfr_prec_t)W0 << level;
            mpfr_set_prec(den, w);
            mpfr_set_prec(q, w);
            mpfr_mul(den, rs->R, sqrt_at(rs, level), MPFR_RNDN);
            mpfr_div(q, A, den, MPFR_RNDN);
            if (!mpfr_number_p(q) || (w - 2 >= want && ln_mpfr_decided(q, w - 2, p))) break;
        }
        d = fit(q, t);
        split(q, hi, lo);
    }
    mpfr_clears(den, q, (mpfr_ptr)0);
    return d;
}

/* dgamma_j = sum over rows of dy N / sqrt(R). Terms of rows with a dyadic sqrt(R) are rational
 * and summed exactly as a GMP rational; the others are irrational. With none, the rational sum
 * is rounded once (mpfr_set_q is correctly rounded). Otherwise Ziv on the sum: at w bits each
 * irrational term q_r = RN(dyN / RN(sqrt R)) is off by < 2^(EXP(q_r) - w + 2), the rational part
 * by 2^(EXP - w), the sum by 2^(EXP(s) - w); their total E bounds |s - exact|. Irrational terms
 * can cancel exactly (rows with the same R and opposite dy); beyond LEVELS the value is taken as
 * the (p+1)-bit number it lies within 2^-32000 of (0 when s is 0): the one unproven case, said
 * in docs/reference.md. */
static double dgamma_column(size_t rows, const double *dyN_d, mpfr_t *dyN, row_sums *rss, ln_dtype t, double *hi,
                            double *lo)
{
    mpfr_prec_t p = ln_fmt(t)->p;
    mpq_t acc, term;
    mpq_inits(acc, term, NULL);
    size_t nirr = 0;
    for (size_t r = 0; r < rows; r++) {
        if (dyN_d[r] == 0) continue;
        if (rss[r].sqrt_exact) {
            mpq_t den;
            mpq_init(den);
            mpfr_get_q(term, dyN[r]);
            mpfr_get_q(den, rss[r].sqrtR);
            mpq_div(term, term, den);
            mpq_add(acc, acc, term);
            mpq_clear(den);
        } else {
            nirr++;
        }
    }
    double d;
    mpfr_t s, E, e1;
    mpfr_inits2(W0, s, (mpfr_ptr)0);
    mpfr_inits2(32, E, e1, (mpfr_ptr)0);
    if (nirr == 0) {
        mpfr_t y;
        mpfr_init2(y, p);
        int ternary = mpfr_set_q(y, acc, MPFR_RNDN);
        ln_mpfr_fit(y, ternary, t);
        d = mpfr_get_d(y, MPFR_RNDN);
        mpfr_set_prec(s, 256);
        mpfr_set_q(s, acc, MPFR_RNDN);
        split(s, hi, lo);
        mpfr_clear(y);
    } else {
        mpfr_t *qs = malloc((nirr + 1) * sizeof *qs);
        mpfr_ptr *ptrs = malloc((nirr + 1) * sizeof *ptrs);
        if (!qs || !ptrs) abort();
        for (size_t k = 0; k <= nirr; k++) mpfr_init2(qs[k], W0), ptrs[k] = qs[k];
        mpfr_exp_t want = p + 66 < 112 ? p + 66 : 112;
        int decided = 0;
        for (int level = 0; level < LEVELS && !decided; level++) {
            mpfr_prec_t w = (mpfr_prec_t)W0 << level;
            mpfr_set_prec(s, w);
            mpfr_set_zero(E, 1);
            size_t k = 0;
            for (size_t r = 0; r < rows; r++) {
                if (dyN_d[r] == 0 || rss[r].sqrt_exact) continue;
                mpfr_set_prec(qs[k], w);
                mpfr_div(qs[k], dyN[r], sqrt_at(&rss[r], level), MPFR_RNDN);
                mpfr_set_ui_2exp(e1, 1, mpfr_get_exp(qs[k]) - w + 2, MPFR_RNDU);
                mpfr_add(E, E, e1, MPFR_RNDU);
                k++;
            }
            mpfr_set_prec(qs[k], w);
            mpfr_set_q(qs[k], acc, MPFR_RNDN);
            if (mpfr_regular_p(qs[k])) {
                mpfr_set_ui_2exp(e1, 1, mpfr_get_exp(qs[k]) - w, MPFR_RNDU);
                mpfr_add(E, E, e1, MPFR_RNDU);
            }
            mpfr_sum(s, ptrs, nirr + 1, MPFR_RNDN);
            if (!mpfr_regular_p(s)) continue;
            mpfr_set_ui_2exp(e1, 1, mpfr_get_exp(s) - w, MPFR_RNDU);
            mpfr_add(E, E, e1, MPFR_RNDU);
            mpfr_exp_t err = mpfr_get_exp(s) - mpfr_get_exp(E);
            decided = err >= want && ln_mpfr_decided(s, err, p);
        }
        if (!decided && mpfr_regular_p(s)) mpfr_prec_round(s, p + 1, MPFR_RNDN); /* see above */
        d = fit(s, t);
        split(s, hi, lo);
        for (size_t k = 0; k <= nirr; k++) mpfr_clear(qs[k]);
        free(qs);
        free(ptrs);
    }
    mpfr_clears(s, E, e1, (mpfr_ptr)0);
    mpq_clears(acc, term, NULL);
    return d;
}

static void row_statistics(const row_sums *rs, size_t D, int centred, ln_ref_stats *st)
{
    mpfr_t Dm, D2R;
    mpfr_inits2(128, Dm, D2R, (mpfr_ptr)0);
    mpfr_set_ui(Dm, (unsigned long)D, MPFR_RNDN);
    st->mean = centred ? ln_mpfr_round_div(rs->S1, Dm, LN_F64) : 0.0;
    mpfr_mul_ui(Dm, Dm, (unsigned long)D, MPFR_RNDN); /* D^2, exact */
    ln_mpfr_exact_mul(D2R, Dm, rs->R);
    st->rstd = ln_mpfr_round_sqrt_div(D2R, rs->R, LN_F64);
    st->var = rs->var; /* the domain of a backward kernel is decided on it, as forward */
    mpfr_clears(Dm, D2R, (mpfr_ptr)0);
}

void ln_ref_bwd_rows(int centred, ln_dtype t, size_t rows, size_t D, const void *x, const void *dy, const void *gamma,
                     double eps, void *dx, double *dx_hi, double *dx_lo, void *dgamma, double *dg_hi, double *dg_lo,
                     void *dbeta, double *db_hi, double *db_lo, ln_ref_stats *st)
{
    if (D == 0 || rows == 0) return;
    const size_t size = ln_fmt(t)->size;
    mpfr_exp_t old_emin = mpfr_get_emin(), old_emax = mpfr_get_emax();
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());

    row_sums *rss = calloc(rows, sizeof *rss);
    int *dy_ok = calloc(rows, sizeof *dy_ok);
    if (!rss || !dy_ok) abort();
    mpfr_t N, g, G1, GN, term, A, B, DgG;
    mpfr_inits2(64, N, g, G1, GN, term, A, B, DgG, (mpfr_ptr)0);
    mpfr_t *terms = malloc(D * sizeof *terms);
    mpfr_ptr *ptrs = malloc(D * sizeof *ptrs);
    if (!terms || !ptrs) abort();
    for (size_t i = 0; i < D; i++) mpfr_init2(terms[i], 64), ptrs[i] = terms[i];
    /* dx with a non-finite gamma (Inf or NaN in the dtype: a value beyond f16's range becomes
     * Inf) is NaN, as with a non-finite x or dy: such a row is outside every kernel's domain
     * ("nonfinite-input"); dgamma and dbeta do not read gamma. */
    int gamma_ok = 1;
    for (size_t i = 0; gamma && i < D; i++) gamma_ok &= isfinite(ln_load(t, gamma, i)) != 0;

    for (size_t r = 0; r < rows; r++) {
        const void *xr = (const char *)x + r * D * size, *dyr = (const char *)dy + r * D * size;
        row_sums *rs = &rss[r];
        x_sums(t, D, xr, centred, eps, rs);
        dy_ok[r] = 1;
        for (size_t i = 0; i < D; i++) dy_ok[r] &= isfinite(ln_load(t, dyr, i)) != 0;
        rs->ok &= dy_ok[r] && isfinite(eps);
        if (st) {
            st[r].mean = st[r].var = st[r].rstd = st[r].kappa = NAN;
            if (rs->ok) row_statistics(rs, D, centred, &st[r]);
        }
        if (!rs->ok || !gamma_ok) {
            for (size_t i = 0; i < D; i++) {
                ln_store(t, dx, r * D + i, NAN);
                if (dx_hi) dx_hi[r * D + i] = NAN;
                if (dx_lo) dx_lo[r * D + i] = NAN;
            }
            continue;
        }
        /* G1 = sum g_i and GN = sum g_i N_i, exact */
        for (size_t i = 0; i < D; i++) {
            mpfr_set_prec(terms[i], 106);
            mpfr_set_d(terms[i], ln_load(t, dyr, i), MPFR_RNDN);
            mpfr_mul_d(terms[i], terms[i], gamma ? ln_load(t, gamma, i) : 1.0, MPFR_RNDN); /* exact: 53 x 53 */
        }
        ln_mpfr_exact_sum(G1, ptrs, D);
        if (!centred) mpfr_set_zero(G1, 1);
        for (size_t i = 0; i < D; i++) {
            numerator_N(N, rs, D, ln_load(t, xr, i));
            mpfr_set_prec(term, mpfr_get_prec(terms[i]));
            mpfr_set(term, terms[i], MPFR_RNDN);
            ln_mpfr_exact_mul(terms[i], term, N); /* g_i N_i */
        }
        ln_mpfr_exact_sum(GN, ptrs, D);
        /* dx_i; the statistics' kappa is the condition number of dx (docs/ops.md) */
        double rstd = st ? st[r].rstd : 0, sR = mpfr_get_d(rs->sqrtR, MPFR_RNDN);
        double mg = mpfr_get_d(G1, MPFR_RNDN) / (double)D, m2 = mpfr_get_d(GN, MPFR_RNDN) / ((double)D * sR);
        double tmax = 0, dmax = 0;
        for (size_t i = 0; i < D; i++) {
            double xi = ln_load(t, xr, i), gam = gamma ? ln_load(t, gamma, i) : 1.0;
            mpfr_set_prec(g, 106);
            mpfr_set_d(g, ln_load(t, dyr, i), MPFR_RNDN);
            mpfr_mul_d(g, g, gam, MPFR_RNDN); /* exact */
            mpfr_set_prec(DgG, 106 + 64);
            mpfr_mul_ui(DgG, g, (unsigned long)D, MPFR_RNDN); /* exact */
            ln_mpfr_exact_sub(B, DgG, G1);                    /* D g_i - c G1 */
            ln_mpfr_exact_mul(A, rs->R, B);
            numerator_N(N, rs, D, xi);
            ln_mpfr_exact_mul(term, N, GN);
            ln_mpfr_exact_sub(DgG, A, term); /* A_i */
            double *hi = dx_hi ? &dx_hi[r * D + i] : NULL, *lo = dx_lo ? &dx_lo[r * D + i] : NULL, v;
            if (mpfr_zero_p(DgG)) {
                v = 0;
                if (hi) *hi = 0;
                if (lo) *lo = 0;
            } else {
                v = dx_element(DgG, rs, t, hi, lo);
            }
            ln_store(t, dx, r * D + i, v);
            double xhat = mpfr_get_d(N, MPFR_RNDN) / sR, gd = mpfr_get_d(g, MPFR_RNDN);
            tmax = fmax(tmax, fabs(gd) + fabs(mg) + fabs(xhat * m2));
            dmax = fmax(dmax, fabs(gd - mg - xhat * m2));
        }
        if (st) {
            double kf = 1.0 + fabs(st[r].mean) * rstd;
            st[r].kappa = dmax > 0 ? tmax / dmax * kf : INFINITY;
        }
    }

    /* dgamma and dbeta, column by column over the rows */
    mpfr_t *dyN = malloc(rows * sizeof *dyN);
    double *dyN_d = malloc(rows * sizeof *dyN_d);
    mpfr_t *dys = malloc(rows * sizeof *dys);
    mpfr_ptr *dyp = malloc(rows * sizeof *dyp);
    if (!dyN || !dyN_d || !dys || !dyp) abort();
    for (size_t r = 0; r < rows; r++) mpfr_init2(dyN[r], 64), mpfr_init2(dys[r], 53), dyp[r] = dys[r];
    for (size_t j = 0; j < D; j++) {
        int all_ok = 1, dys_ok = 1;
        for (size_t r = 0; r < rows; r++) {
            double dyv = ln_load(t, dy, r * D + j);
            all_ok &= rss[r].ok;
            dys_ok &= dy_ok[r];
            mpfr_set_d(dys[r], isfinite(dyv) ? dyv : 0, MPFR_RNDN);
            if (rss[r].ok) {
                numerator_N(N, &rss[r], D, ln_load(t, x, r * D + j));
                ln_mpfr_exact_mul(dyN[r], dys[r], N);
                dyN_d[r] = mpfr_get_d(dyN[r], MPFR_RNDN);
            }
        }
        if (dgamma) {
            double v = NAN, h = NAN, l = NAN;
            if (all_ok) v = dgamma_column(rows, dyN_d, dyN, rss, t, &h, &l);
            ln_store(t, dgamma, j, v);
            if (dg_hi) dg_hi[j] = h;
            if (dg_lo) dg_lo[j] = l;
        }
        if (dbeta) {
            double v = NAN, h = NAN, l = NAN;
            if (dys_ok) {
                ln_mpfr_exact_sum(term, dyp, rows);
                v = ln_mpfr_round(term, t);
                split(term, &h, &l);
            }
            ln_store(t, dbeta, j, v);
            if (db_hi) db_hi[j] = h;
            if (db_lo) db_lo[j] = l;
        }
    }

    for (size_t r = 0; r < rows; r++) {
        mpfr_clears(dyN[r], dys[r], rss[r].S1, rss[r].R, rss[r].sqrtR, (mpfr_ptr)0);
        for (int l = 0; l < rss[r].levels; l++) mpfr_clear(rss[r].s_at[l]);
    }
    for (size_t i = 0; i < D; i++) mpfr_clear(terms[i]);
    mpfr_clears(N, g, G1, GN, term, A, B, DgG, (mpfr_ptr)0);
    free(dyN), free(dyN_d), free(dys), free(dyp), free(terms), free(ptrs), free(rss), free(dy_ok);
    mpfr_set_emin(old_emin);
    mpfr_set_emax(old_emax);
}

void ln_ref_bwd_saved_rows(int centred, ln_dtype t, size_t rows, size_t D, const void *x, const void *dy,
                           const void *gamma, const double *mean, const double *rstd, void *dx, double *dx_hi,
                           double *dx_lo)
{
    if (D == 0) return;
    mpfr_exp_t old_emin = mpfr_get_emin(), old_emax = mpfr_get_emax();
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
    mpfr_t *xh = malloc(2 * D * sizeof *xh), *g = xh + D;
    mpfr_ptr *ptrs = malloc(D * sizeof *ptrs);
    if (!xh || !ptrs) abort();
    mpfr_t m, rr, t1, G1, GX, num, Dm, q;
    mpfr_inits2(64, t1, G1, GX, num, (mpfr_ptr)0);
    mpfr_inits2(53, m, rr, (mpfr_ptr)0);
    mpfr_init2(Dm, 64);
    mpfr_init2(q, 256);
    mpfr_set_ui(Dm, (unsigned long)D, MPFR_RNDN);
    for (size_t i = 0; i < 2 * D; i++) mpfr_init2(xh[i], 64);
    for (size_t r = 0; r < rows; r++) {
        const size_t o = r * D;
        double mr = centred ? mean[r] : 0.0;
        int ok = isfinite(mr) && isfinite(rstd[r]);
        for (size_t i = 0; i < D && ok; i++)
            ok = isfinite(ln_load(t, x, o + i)) && isfinite(ln_load(t, dy, o + i)) &&
                 (!gamma || isfinite(ln_load(t, gamma, i)));
        if (!ok) {
            for (size_t i = 0; i < D; i++) {
                ln_store(t, dx, o + i, NAN);
                if (dx_hi) dx_hi[o + i] = NAN;
                if (dx_lo) dx_lo[o + i] = NAN;
            }
            continue;
        }
        mpfr_set_d(m, mr, MPFR_RNDN), mpfr_set_d(rr, rstd[r], MPFR_RNDN);
        /* xhat_i = (x_i - mean) rstd and g_i = gamma_i dy_i, exact */
        for (size_t i = 0; i < D; i++) {
            mpfr_set_prec(t1, 53);
            mpfr_set_d(t1, ln_load(t, x, o + i), MPFR_RNDN);
            ln_mpfr_exact_sub(num, t1, m);
            ln_mpfr_exact_mul(xh[i], num, rr);
            mpfr_set_prec(g[i], 106);
            mpfr_set_d(g[i], ln_load(t, dy, o + i), MPFR_RNDN);
            mpfr_mul_d(g[i], g[i], gamma ? ln_load(t, gamma, i) : 1.0, MPFR_RNDN); /* exact: 53 x 53 bits */
            ptrs[i] = g[i];
        }
        ln_mpfr_exact_sum(G1, ptrs, D);
        if (!centred) mpfr_set_zero(G1, 1);
        mpfr_t *gx = malloc(D * sizeof *gx);
        if (!gx) abort();
        for (size_t i = 0; i < D; i++) {
            mpfr_init2(gx[i], 64);
            ln_mpfr_exact_mul(gx[i], g[i], xh[i]);
            ptrs[i] = gx[i];
        }
        ln_mpfr_exact_sum(GX, ptrs, D);
        for (size_t i = 0; i < D; i++) mpfr_clear(gx[i]);
        free(gx);
        /* dx_i = rstd (D g_i - c G1 - xhat_i GX) / D: an exact numerator, one correctly rounded division */
        for (size_t i = 0; i < D; i++) {
            mpfr_t a, b;
            mpfr_inits2(64, a, b, (mpfr_ptr)0);
            mpfr_set_prec(t1, mpfr_get_prec(g[i]) + 64);
            mpfr_mul_ui(t1, g[i], (unsigned long)D, MPFR_RNDN); /* exact */
            ln_mpfr_exact_sub(a, t1, G1);
            ln_mpfr_exact_mul(b, xh[i], GX);
            ln_mpfr_exact_sub(num, a, b);
            ln_mpfr_exact_mul(a, num, rr);
            ln_store(t, dx, o + i, ln_mpfr_round_div(a, Dm, t));
            mpfr_div(q, a, Dm, MPFR_RNDN);
            split(q, dx_hi ? &dx_hi[o + i] : NULL, dx_lo ? &dx_lo[o + i] : NULL);
            mpfr_clears(a, b, (mpfr_ptr)0);
        }
    }
    for (size_t i = 0; i < 2 * D; i++) mpfr_clear(xh[i]);
    mpfr_clears(m, rr, t1, G1, GX, num, Dm, q, (mpfr_ptr)0);
    free(xh);
    free(ptrs);
    mpfr_set_emin(old_emin);
    mpfr_set_emax(old_emax);
}
