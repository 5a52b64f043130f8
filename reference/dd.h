/* Double-double arithmetic: a value as the unevaluated sum hi + lo of two doubles, |lo| <=
 * ulp(hi) / 2, about 106 bits, from the error-free transformations of Knuth (two_sum) and
 * Dekker (the product's error by one fma). For scoring candidate rows fast (screen.c, harness/hunt/hunt.c);
 * the MPFR reference judges what is reported. */
#ifndef LN_DD_H
#define LN_DD_H

#include <math.h>

typedef struct {
    double hi, lo;
} dd;

static inline dd dd_two_sum(double a, double b)
{
    double s = a + b, bb = s - a;
    return (dd){s, (a - (s - bb)) + (b - bb)};
}

static inline dd dd_fast_two_sum(double a, double b) /* |a| >= |b| or a = 0 */
{
    double s = a + b;
    return (dd){s, b - (s - a)};
}

static inline dd dd_add(dd a, dd b)
{
    dd s = dd_two_sum(a.hi, b.hi), t = dd_two_sum(a.lo, b.lo);
    s = dd_fast_two_sum(s.hi, s.lo + t.hi);
    return dd_fast_two_sum(s.hi, s.lo + t.lo);
}

static inline dd dd_neg(dd a) { return (dd){-a.hi, -a.lo}; }
static inline dd dd_from(double a) { return (dd){a, 0}; }

static inline dd dd_mul(dd a, dd b)
{
    double p = a.hi * b.hi, e = fma(a.hi, b.hi, -p);
    return dd_fast_two_sum(p, e + (a.hi * b.lo + a.lo * b.hi));
}

static inline dd dd_div_d(dd a, double b)
{
    double q = a.hi / b;
    dd r = dd_add(a, dd_mul(dd_from(q), dd_from(-b)));
    return dd_fast_two_sum(q, r.hi / b);
}

/* 1 / sqrt(v): one Newton step r + r (1 - v r^2) / 2 from the double estimate doubles its bits. */
static inline dd dd_rsqrt(dd v)
{
    double r = 1.0 / sqrt(v.hi);
    dd e = dd_add(dd_from(1.0), dd_mul(dd_mul(v, dd_from(r)), dd_from(-r)));
    return dd_fast_two_sum(r, r * e.hi * 0.5);
}

#endif
