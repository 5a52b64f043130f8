/* The MPFR reference (see docs/reference.md). Per row, exactly:
 *   S1 = sum x_i,  R = D sum x_i^2 - S1^2 + D^2 eps = D^2 (var + eps),
 *   y_i = gamma_i N_i / sqrt(R) + beta_i,  N_i = D x_i - S1 = D (x_i - mean).
 * Every input is a dyadic rational, so S1, R and N_i are computed exactly (ref_mpfr.h sizes
 * each precision from the operands' exponent spread); the only irrational step is sqrt(R),
 * handled by Ziv's strategy after the exact cases are taken out. */
#include "reference.h"

#include <math.h>
#include <stdlib.h>

#include "ref_mpfr.h"

#define ZIV_LEVELS 40 /* working precision w0 * 2^level; 40 doublings is far beyond memory */

typedef enum { R_POSITIVE, R_ZERO, R_NEGATIVE, R_INF, R_NAN } radicand_kind;

/* Per-row state: the exact sums, and sqrt(R) rounded to each working precision tried so far
 * (computed once per precision and row, not per element). */
typedef struct {
    size_t D;
    mpfr_t S1, R, sqrtR; /* sqrtR exact when sqrt_exact */
    int sqrt_exact;
    radicand_kind kind;
    mpfr_prec_t w0;
    int levels; /* s_at[0 .. levels-1] hold RN_w(sqrt R), w = w0 2^level */
    mpfr_t s_at[ZIV_LEVELS];
    mpfr_t Dx, N, gN, bs, t, q, yw, yp, tail; /* element scratch, reused across the row */
} row_state;

static void set_nonfinite_stats(ln_ref_stats *st)
{
    if (st) st->mean = st->var = st->rstd = st->kappa = NAN;
}

static mpfr_srcptr sqrt_at_level(row_state *r, int level)
{
    while (r->levels <= level) {
        mpfr_init2(r->s_at[r->levels], r->w0 << r->levels);
        mpfr_sqrt(r->s_at[r->levels], r->R, MPFR_RNDN);
        r->levels++;
    }
    return r->s_at[level];
}

/* hi = RN(v), lo = RN(v - hi); v - hi is exact in v's precision (it is v's tail below hi's
 * last bit, at most prec(v) - 53 bits long). */
static void split_double(row_state *r, mpfr_srcptr v, double *hi, double *lo, size_t i)
{
    double h = mpfr_get_d(v, MPFR_RNDN), l = 0;
    if (isfinite(h)) {
        mpfr_set_prec(r->tail, mpfr_get_prec(v));
        mpfr_sub_d(r->tail, v, h, MPFR_RNDN);
        l = mpfr_get_d(r->tail, MPFR_RNDN);
    }
    if (hi) hi[i] = h;
    if (lo) lo[i] = l;
}

/* y_i by IEEE arithmetic on the formula, for rows or elements where something is not finite
 * (R <= 0, R infinite or NaN, gamma or beta infinite or NaN). The ratio N/sqrt(R) enters only
 * through its IEEE behaviour: NaN for sqrt of a negative or NaN, N/0 (NaN when N = 0, else
 * +-Inf) for R = 0, +-0 for R = +Inf, and its sign for a finite positive R (the result is then
 * non-finite through gamma or beta, whatever the finite ratio's size). */
static double ieee_element(radicand_kind kind, int sign_n, double g, double b)
{
    double ratio;
    switch (kind) {
    case R_ZERO: ratio = (double)sign_n / 0.0; break;
    case R_INF: ratio = 0.0 * sign_n; break;
    case R_POSITIVE: ratio = sign_n; break;
    default: ratio = NAN; break;
    }
    /* NaN as the one quiet NaN of NAN: the sign of a NaN made by hardware is the CPU's (x86's
     * default NaN is negative, ARM's positive), and the reference must not depend on it. */
    const double y = g * ratio + b;
    return isnan(y) ? NAN : y;
}

/* One element, R > 0 finite, gamma and beta finite. Returns y correctly rounded to t. */
static double element(row_state *r, ln_dtype t, double g, double b, mpfr_srcptr x_mp, double *y_hi, double *y_lo,
                      size_t i, mpfr_exp_t hilo_err)
{
    const mpfr_prec_t p = ln_fmt(t)->p;
    mpfr_mul_ui(r->Dx, x_mp, (unsigned long)r->D, MPFR_RNDN); /* exact: 53 + 64 bits */
    ln_mpfr_exact_sub(r->N, r->Dx, r->S1);
    if (g == 0 || mpfr_zero_p(r->N)) { /* y = beta exactly */
        if (y_hi) y_hi[i] = b;
        if (y_lo) y_lo[i] = 0;
        return b;
    }
    mpfr_set_prec(r->gN, mpfr_get_prec(r->N) + 53);
    mpfr_mul_d(r->gN, r->N, g, MPFR_RNDN); /* exact: the product of a 53-bit and an n-bit number */
    int ternary;
    if (r->sqrt_exact) {
        /* y = (gamma N + beta sqrtR) / sqrtR: a rational, correctly rounded by one division. */
        mpfr_set_prec(r->bs, mpfr_get_prec(r->sqrtR) + 53);
        mpfr_mul_d(r->bs, r->sqrtR, b, MPFR_RNDN);
        ln_mpfr_exact_add(r->t, r->gN, r->bs);
        if (y_hi || y_lo) {
            mpfr_set_prec(r->q, 256); /* relative error 2^-256, far below what hi + lo holds */
            mpfr_div(r->q, r->t, r->sqrtR, MPFR_RNDN);
            split_double(r, r->q, y_hi, y_lo, i);
        }
        ternary = mpfr_div(r->yp, r->t, r->sqrtR, MPFR_RNDN);
    } else {
        /* Irrational y (gamma N != 0 times an irrational, plus a rational): never on a
         * (p+1)-bit number, so the loop ends. At w bits, s = RN(sqrtR), q = RN(gN / s),
         * yw = RN(q + beta): q = gN/sqrtR (1+d2)/(1+d1), |d| <= u = 2^-w, so
         * |q - gN/sqrtR| < 2.1 u |q| < 2^(EXP(q) - w + 2); the addition adds at most
         * 2^(EXP(yw) - w - 1). Both under 2^(max(EXP q, EXP yw) - w + 3) = 2^(EXP(yw) - err)
         * with err = w - 3 - max(0, EXP(q) - EXP(yw)). */
        for (int level = 0;; level++) {
            if (level >= ZIV_LEVELS) abort(); /* unreachable: the value is irrational */
            mpfr_prec_t w = r->w0 << level;
            mpfr_set_prec(r->q, w);
            mpfr_set_prec(r->yw, w);
            mpfr_div(r->q, r->gN, sqrt_at_level(r, level), MPFR_RNDN);
            mpfr_add_d(r->yw, r->q, b, MPFR_RNDN);
            if (!mpfr_regular_p(r->yw)) continue;
            mpfr_exp_t cancel = mpfr_get_exp(r->q) - mpfr_get_exp(r->yw);
            mpfr_exp_t err = w - 3 - (cancel > 0 ? cancel : 0);
            if (err >= hilo_err && ln_mpfr_decided(r->yw, err, p)) break;
        }
        if (y_hi || y_lo) split_double(r, r->yw, y_hi, y_lo, i);
        /* decided, and yw is no (p+1)-bit number: this ternary is the exact value's */
        ternary = mpfr_set(r->yp, r->yw, MPFR_RNDN);
    }
    ln_mpfr_fit(r->yp, ternary, t);
    return mpfr_get_d(r->yp, MPFR_RNDN);
}

static void row_stats(row_state *r, mpfr_srcptr V, mpfr_srcptr D2, ln_ref_stats *st)
{
    mpfr_t Dm, A, P;
    mpfr_inits2(64, Dm, A, P, (mpfr_ptr)0);
    mpfr_set_ui(Dm, (unsigned long)r->D, MPFR_RNDN);
    st->mean = ln_mpfr_round_div(r->S1, Dm, LN_F64);
    st->var = ln_mpfr_round_div(V, D2, LN_F64);
    switch (r->kind) {
    case R_POSITIVE:
        /* rstd = D / sqrt(R) = sqrt(D^2 R) / R; kappa^2 = 1 + S1^2 / R, so kappa = sqrt(A R) / R
         * with A = R + S1^2: both sqrt(exact) / exact, correctly rounded. */
        ln_mpfr_exact_mul(P, D2, r->R);
        st->rstd = ln_mpfr_round_sqrt_div(P, r->R, LN_F64);
        mpfr_set_prec(Dm, 2 * mpfr_get_prec(r->S1));
        mpfr_sqr(Dm, r->S1, MPFR_RNDN); /* exact */
        ln_mpfr_exact_add(A, r->R, Dm);
        ln_mpfr_exact_mul(P, A, r->R);
        st->kappa = ln_mpfr_round_sqrt_div(P, r->R, LN_F64);
        break;
    case R_ZERO: st->rstd = INFINITY, st->kappa = INFINITY; break;
    case R_INF: st->rstd = 0, st->kappa = 1; break; /* eps = +Inf */
    default: st->rstd = NAN, st->kappa = NAN; break;
    }
    mpfr_clears(Dm, A, P, (mpfr_ptr)0);
}

/* LayerNorm (centred) or RMSNorm (not): RMSNorm is the same computation with S1 taken as 0, so
 * R = D sum x^2 + D^2 eps = D^2 (mean(x^2) + eps) and N_i = D x_i. */
static void ref_row(int centred, ln_dtype t, ln_dtype xt, size_t D, const void *x, const void *gamma, const void *beta,
                    double eps, void *y, double *y_hi, double *y_lo, ln_ref_stats *st)
{
    const mpfr_prec_t p = ln_fmt(t)->p;
    set_nonfinite_stats(st);
    if (D == 0) return;

    int finite = 1;
    for (size_t i = 0; i < D && finite; i++) finite = isfinite(ln_load(xt, x, i));
    if (!finite) {
        for (size_t i = 0; i < D; i++) {
            ln_store(t, y, i, NAN);
            if (y_hi) y_hi[i] = NAN;
            if (y_lo) y_lo[i] = NAN;
        }
        return;
    }

    mpfr_exp_t old_emin = mpfr_get_emin(), old_emax = mpfr_get_emax();
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());

    /* x_i (53 bits hold every format) and x_i^2 (106 bits), exact */
    mpfr_t *xs = malloc(2 * D * sizeof *xs);
    mpfr_ptr *ptrs = malloc(2 * D * sizeof *ptrs);
    if (!xs || !ptrs) abort();
    mpfr_t *sq = xs + D;
    for (size_t i = 0; i < D; i++) {
        mpfr_init2(xs[i], 53);
        mpfr_init2(sq[i], 106);
        mpfr_set_d(xs[i], ln_load(xt, x, i), MPFR_RNDN);
        mpfr_sqr(sq[i], xs[i], MPFR_RNDN);
        ptrs[i] = xs[i];
        ptrs[D + i] = sq[i];
    }

    row_state r = {.D = D};
    mpfr_t S2, DS2, S1sq, V, D2, D2eps;
    mpfr_inits2(64, r.S1, r.R, r.sqrtR, r.Dx, r.N, r.gN, r.bs, r.t, r.q, r.yw, r.tail, S2, DS2, S1sq, V, D2, D2eps,
                (mpfr_ptr)0);
    mpfr_init2(r.yp, p);
    mpfr_set_prec(r.Dx, 53 + 64);

    ln_mpfr_exact_sum(r.S1, ptrs, D);
    if (!centred) mpfr_set_zero(r.S1, 1);
    ln_mpfr_exact_sum(S2, ptrs + D, D);
    mpfr_set_prec(DS2, mpfr_get_prec(S2) + 64);
    mpfr_mul_ui(DS2, S2, (unsigned long)D, MPFR_RNDN); /* exact */
    mpfr_set_prec(S1sq, 2 * mpfr_get_prec(r.S1));
    mpfr_sqr(S1sq, r.S1, MPFR_RNDN); /* exact */
    ln_mpfr_exact_sub(V, DS2, S1sq); /* D^2 var >= 0 */
    mpfr_set_prec(D2, 128);
    mpfr_set_ui(D2, (unsigned long)D, MPFR_RNDN);
    mpfr_sqr(D2, D2, MPFR_RNDN); /* exact: D < 2^64 */

    if (isnan(eps) || eps == -INFINITY) {
        r.kind = R_NAN;
    } else if (eps == INFINITY) {
        r.kind = R_INF;
    } else {
        mpfr_set_prec(D2eps, 128 + 53);
        mpfr_mul_d(D2eps, D2, eps, MPFR_RNDN); /* exact */
        ln_mpfr_exact_add(r.R, V, D2eps);
        int sign = mpfr_sgn(r.R);
        r.kind = sign > 0 ? R_POSITIVE : sign == 0 ? R_ZERO : R_NEGATIVE;
    }
    if (r.kind == R_POSITIVE) {
        mpfr_set_prec(r.sqrtR, mpfr_get_prec(r.R));
        r.sqrt_exact = mpfr_sqrt(r.sqrtR, r.R, MPFR_RNDN) == 0; /* see ln_mpfr_round_sqrt_div */
    }

    /* hi + lo must carry p + 64 correct bits (f64: the ~106 a double-double holds), so the Ziv
     * loop also waits for that; the start precision covers it in one step, rounded up to
     * whole 64-bit limbs, which cost the same as the bits below them. */
    mpfr_exp_t hilo_err = (y_hi || y_lo) ? (p + 66 < 112 ? p + 66 : 112) : 0;
    mpfr_prec_t w0 = p + 40 > hilo_err + 8 ? p + 40 : hilo_err + 8;
    r.w0 = (w0 + 63) / 64 * 64;

    for (size_t i = 0; i < D; i++) {
        double g = gamma ? ln_load(t, gamma, i) : 1.0, b = beta ? ln_load(t, beta, i) : 0.0;
        double yi;
        if (r.kind != R_POSITIVE || !isfinite(g) || !isfinite(b)) {
            mpfr_mul_ui(r.Dx, xs[i], (unsigned long)D, MPFR_RNDN);
            ln_mpfr_exact_sub(r.N, r.Dx, r.S1);
            yi = ieee_element(r.kind, mpfr_sgn(r.N), g, b);
            if (y_hi) y_hi[i] = yi;
            if (y_lo) y_lo[i] = isnan(yi) ? NAN : 0;
        } else {
            yi = element(&r, t, g, b, xs[i], y_hi, y_lo, i, hilo_err);
        }
        ln_store(t, y, i, yi);
    }

    if (st) row_stats(&r, V, D2, st);

    for (int l = 0; l < r.levels; l++) mpfr_clear(r.s_at[l]);
    mpfr_clears(r.S1, r.R, r.sqrtR, r.Dx, r.N, r.gN, r.bs, r.t, r.q, r.yw, r.tail, r.yp, S2, DS2, S1sq, V, D2, D2eps,
                (mpfr_ptr)0);
    for (size_t i = 0; i < D; i++) mpfr_clear(xs[i]), mpfr_clear(sq[i]);
    free(xs);
    free(ptrs);
    mpfr_set_emin(old_emin);
    mpfr_set_emax(old_emax);
}

void ln_ref_row(ln_dtype t, size_t D, const void *x, const void *gamma, const void *beta, double eps, void *y,
                double *y_hi, double *y_lo, ln_ref_stats *st)
{
    ref_row(1, t, t, D, x, gamma, beta, eps, y, y_hi, y_lo, st);
}

void ln_ref_rms_row(ln_dtype t, size_t D, const void *x, const void *gamma, const void *beta, double eps, void *y,
                    double *y_hi, double *y_lo, ln_ref_stats *st)
{
    ref_row(0, t, t, D, x, gamma, beta, eps, y, y_hi, y_lo, st);
}

void ln_ref_norm_row(int centred, ln_dtype t, ln_dtype xt, size_t D, const void *x, const void *gamma, const void *beta,
                     double eps, void *y, double *y_hi, double *y_lo, ln_ref_stats *st)
{
    ref_row(centred, t, xt, D, x, gamma, beta, eps, y, y_hi, y_lo, st);
}
