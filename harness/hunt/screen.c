#include "screen.h"

#include <math.h>

#include "dd.h"

void ln_screen_row(ln_dtype t, size_t D, const void *x, const void *gamma, const void *beta, double eps, void *y,
                   double *y_hi, double *y_lo, ln_ref_stats *st)
{
    dd sum = {0, 0};
    for (size_t i = 0; i < D; i++) sum = dd_add(sum, dd_from(ln_load(t, x, i)));
    dd mean = dd_div_d(sum, (double)D), ss = {0, 0};
    for (size_t i = 0; i < D; i++) {
        dd d = dd_add(dd_from(ln_load(t, x, i)), dd_neg(mean));
        ss = dd_add(ss, dd_mul(d, d));
    }
    dd var = dd_div_d(ss, (double)D), radicand = dd_add(var, dd_from(eps));
    dd rstd = radicand.hi > 0 ? dd_rsqrt(radicand) : (dd){INFINITY, 0};
    for (size_t i = 0; i < D; i++) {
        dd v = dd_mul(dd_add(dd_from(ln_load(t, x, i)), dd_neg(mean)), rstd);
        if (gamma) v = dd_mul(v, dd_from(ln_load(t, gamma, i)));
        if (beta) v = dd_add(v, dd_from(ln_load(t, beta, i)));
        if (!isfinite(v.hi)) v = (dd){NAN, 0}; /* 0 * Inf on a zero variance: what ln_ref_row gives */
        if (y_hi) y_hi[i] = v.hi;
        if (y_lo) y_lo[i] = v.lo;
        ln_store(t, y, i, v.hi);
    }
    if (st) {
        st->mean = mean.hi + mean.lo;
        st->var = var.hi + var.lo;
        st->rstd = rstd.hi;
        st->kappa = radicand.hi > 0 ? sqrt(1.0 + st->mean * st->mean / (radicand.hi + radicand.lo)) : INFINITY;
    }
}
