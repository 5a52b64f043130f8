#include "ref_mpfr.h"

#include <stdio.h>
#include <stdlib.h>

static void check_exact(int ternary, const char *what)
{
    if (ternary != 0) {
        fprintf(stderr, "lnbench: internal error: %s was not exact\n", what);
        abort();
    }
}

mpfr_prec_t ln_mpfr_exact_sum_prec(mpfr_ptr const *terms, size_t n)
{
    mpfr_exp_t hi = 0, lo = 0;
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        if (!mpfr_regular_p(terms[i])) continue; /* zeros add nothing */
        mpfr_exp_t e = mpfr_get_exp(terms[i]), l = e - mpfr_min_prec(terms[i]);
        if (!any || e > hi) hi = e;
        if (!any || l < lo) lo = l;
        any = 1;
    }
    if (!any) return MPFR_PREC_MIN;
    int log2n = 0;
    while (log2n < 64 && ((size_t)1 << log2n) < n) log2n++;
    mpfr_prec_t p = (mpfr_prec_t)(hi - lo) + log2n;
    return p < MPFR_PREC_MIN ? MPFR_PREC_MIN : p;
}

void ln_mpfr_exact_sum(mpfr_ptr out, mpfr_ptr const *terms, size_t n)
{
    mpfr_set_prec(out, ln_mpfr_exact_sum_prec(terms, n));
    check_exact(mpfr_sum(out, terms, n, MPFR_RNDN), "a sum");
}

static mpfr_prec_t pair_prec(mpfr_srcptr a, mpfr_srcptr b)
{
    mpfr_ptr pair[2] = {(mpfr_ptr)a, (mpfr_ptr)b};
    return ln_mpfr_exact_sum_prec(pair, 2);
}

void ln_mpfr_exact_add(mpfr_ptr out, mpfr_srcptr a, mpfr_srcptr b)
{
    mpfr_set_prec(out, pair_prec(a, b));
    check_exact(mpfr_add(out, a, b, MPFR_RNDN), "an addition");
}

void ln_mpfr_exact_sub(mpfr_ptr out, mpfr_srcptr a, mpfr_srcptr b)
{
    mpfr_set_prec(out, pair_prec(a, b));
    check_exact(mpfr_sub(out, a, b, MPFR_RNDN), "a subtraction");
}

void ln_mpfr_exact_mul(mpfr_ptr out, mpfr_srcptr a, mpfr_srcptr b)
{
    /* an m-bit times an n-bit significand has at most m + n bits */
    mpfr_prec_t pa = mpfr_regular_p(a) ? mpfr_min_prec(a) : 1, pb = mpfr_regular_p(b) ? mpfr_min_prec(b) : 1;
    mpfr_prec_t p = pa + pb;
    mpfr_set_prec(out, p < MPFR_PREC_MIN ? MPFR_PREC_MIN : p);
    check_exact(mpfr_mul(out, a, b, MPFR_RNDN), "a product");
}

int ln_mpfr_fit(mpfr_ptr y, int ternary, ln_dtype t)
{
    const ln_format *f = ln_fmt(t);
    mpfr_exp_t old_emin = mpfr_get_emin(), old_emax = mpfr_get_emax();
    /* MPFR writes values as 0.1xxx * 2^e, IEEE as 1.xxx * 2^e: MPFR's emax is IEEE emax + 1, and
     * its emin is that of the smallest subnormal 2^(emin - p + 1), i.e. emin - p + 2. */
    mpfr_set_emin(f->emin - f->p + 2);
    mpfr_set_emax(f->emax + 1);
    ternary = mpfr_check_range(y, ternary, MPFR_RNDN);
    ternary = mpfr_subnormalize(y, ternary, MPFR_RNDN);
    mpfr_set_emin(old_emin);
    mpfr_set_emax(old_emax);
    return ternary;
}

double ln_mpfr_round(mpfr_srcptr v, ln_dtype t)
{
    mpfr_t r;
    mpfr_init2(r, ln_fmt(t)->p);
    int ternary = mpfr_set(r, v, MPFR_RNDN);
    ln_mpfr_fit(r, ternary, t);
    double d = mpfr_get_d(r, MPFR_RNDN); /* exact: every format fits in a double */
    mpfr_clear(r);
    return d;
}

double ln_mpfr_round_div(mpfr_srcptr a, mpfr_srcptr b, ln_dtype t)
{
    mpfr_t r;
    mpfr_init2(r, ln_fmt(t)->p);
    int ternary = mpfr_div(r, a, b, MPFR_RNDN);
    ln_mpfr_fit(r, ternary, t);
    double d = mpfr_get_d(r, MPFR_RNDN);
    mpfr_clear(r);
    return d;
}

int ln_mpfr_decided(mpfr_srcptr b, mpfr_exp_t err, mpfr_prec_t p)
{
    return mpfr_regular_p(b) && err > 0 && mpfr_can_round(b, err, MPFR_RNDN, MPFR_RNDZ, p + 1);
}

double ln_mpfr_round_sqrt_div(mpfr_srcptr a, mpfr_srcptr b, ln_dtype t)
{
    mpfr_prec_t p = ln_fmt(t)->p, pa = mpfr_get_prec(a);
    mpfr_t s, q;
    mpfr_inits2(pa, s, q, (mpfr_ptr)0);
    double d;
    /* If sqrt(a) = m 2^k (m odd) is dyadic, a = m^2 4^k has at least as many bits as m, so a
     * pa-bit sqrt is exact: ternary 0 exactly when sqrt(a) is rational. */
    if (mpfr_sqrt(s, a, MPFR_RNDN) == 0) {
        d = ln_mpfr_round_div(s, b, t);
    } else {
        /* Irrational, so never on a (p+1)-bit number: Ziv's loop terminates. At w bits,
         * q = RN(RN(sqrt a) / b) = sqrt(a)/b (1+d1)(1+d2), |di| <= 2^-w: relative error below
         * 2.01 2^-w, so |q - exact| < 2^(EXP(q) - w + 2). */
        for (mpfr_prec_t w = p + 64;; w *= 2) {
            mpfr_set_prec(s, w);
            mpfr_set_prec(q, w);
            mpfr_sqrt(s, a, MPFR_RNDN);
            mpfr_div(q, s, b, MPFR_RNDN);
            if (ln_mpfr_decided(q, w - 2, p)) break;
        }
        mpfr_set_prec(s, p);
        int ternary = mpfr_set(s, q, MPFR_RNDN);
        ln_mpfr_fit(s, ternary, t);
        d = mpfr_get_d(s, MPFR_RNDN);
    }
    mpfr_clears(s, q, (mpfr_ptr)0);
    return d;
}
