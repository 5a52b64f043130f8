/* Rounding an MPFR value to a storage format by scaling and mpfr_rint: the tests' route to a
 * correctly rounded value, independent of the reference's exponent-range emulation. */
#ifndef LN_TESTS_ROUND_TO_H
#define LN_TESTS_ROUND_TO_H

#include <math.h>

#include <mpfr.h>

#include "dtype.h"

/* The exact value of v rounded to nearest-even in format t: scale so that the ulp of v's
 * binade (or the subnormal ulp) is 1, round to the nearest even integer, scale back. */
static inline double round_to(ln_dtype t, mpfr_srcptr v)
{
    const ln_format *f = ln_fmt(t);
    if (mpfr_nan_p(v)) return NAN;
    if (mpfr_zero_p(v)) return 0.0;
    long e = mpfr_get_exp(v) - 1; /* v = 1.xxx 2^e */
    if (e < f->emin) e = f->emin;
    mpfr_t s;
    mpfr_init2(s, mpfr_get_prec(v));
    mpfr_mul_2si(s, v, f->p - 1 - e, MPFR_RNDN);
    mpfr_rint(s, s, MPFR_RNDN);
    mpfr_mul_2si(s, s, e - f->p + 1, MPFR_RNDN);
    double d = mpfr_get_d(s, MPFR_RNDN); /* at most p + 1 bits: exact (or Inf past double) */
    mpfr_clear(s);
    double max = ldexp(2.0 - ldexp(1.0, 1 - f->p), f->emax);
    return fabs(d) > max ? copysign(INFINITY, d) : d;
}

#endif
