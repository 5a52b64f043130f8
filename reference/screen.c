/* Cheap stand-ins for reference entry points (reference.h, ln_ref_screen_of). */
#include <math.h>

#include "dd.h"
#include "reference.h"

/* One row of LayerNorm (centred) or RMSNorm in double-double: y is the double-double value
 * rounded once to t (a double rounding only where the value is within 2^-100 of a midpoint);
 * the variance comes from sum (x_i - mean)^2 about a double-double mean, so its error grows with
 * kappa^2 2^-106. Statistics as ln_ref_row and ln_ref_rms_row give them. */
static void norm_row(int centred, ln_dtype t, size_t D, const void *x, const void *gamma, const void *beta, double eps,
                     void *y, double *y_hi, double *y_lo, ln_ref_stats *st)
{
    dd sum = {0, 0};
    if (centred)
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
        if (!isfinite(v.hi)) v = (dd){NAN, 0}; /* 0 * Inf on a zero variance: what the reference gives */
        if (y_hi) y_hi[i] = v.hi;
        if (y_lo) y_lo[i] = v.lo;
        ln_store(t, y, i, v.hi);
    }
    if (st) {
        st->mean = mean.hi + mean.lo;
        st->var = var.hi + var.lo;
        st->rstd = rstd.hi;
        st->kappa = !centred          ? 1
                    : radicand.hi > 0 ? sqrt(1.0 + st->mean * st->mean / (radicand.hi + radicand.lo))
                                      : INFINITY;
    }
}

/* in: x, gamma, beta; out: y (the forward ops' roles in ops.def) */
static void norm_rows(int centred, ln_dtype t, size_t rows, size_t D, double eps, const void *const *in,
                      const ln_ref_out *out, ln_ref_stats *st)
{
    size_t es = ln_fmt(t)->size;
    for (size_t r = 0; r < rows; r++) {
        size_t off = r * D;
        norm_row(centred, t, D, (const char *)in[0] + off * es, in[1], in[2], eps, (char *)out[0].rounded + off * es,
                 out[0].hi ? out[0].hi + off : NULL, out[0].lo ? out[0].lo + off : NULL, st ? st + r : NULL);
    }
}

static void screen_layernorm(ln_dtype t, size_t rows, size_t D, double eps, const void *const *in,
                             const ln_ref_out *out, ln_ref_stats *st)
{
    norm_rows(1, t, rows, D, eps, in, out, st);
}

static void screen_rmsnorm(ln_dtype t, size_t rows, size_t D, double eps, const void *const *in, const ln_ref_out *out,
                           ln_ref_stats *st)
{
    norm_rows(0, t, rows, D, eps, in, out, st);
}

/* One line per reference that has a stand-in; an op without one is searched through its MPFR
 * reference itself (slower, docs/hunt.md). */
static const struct {
    ln_ref_op *reference, *screen;
} screens[] = {
    {ln_ref_layernorm, screen_layernorm},
    {ln_ref_rmsnorm, screen_rmsnorm},
};

ln_ref_op *ln_ref_screen_of(ln_ref_op *reference)
{
    for (size_t i = 0; i < sizeof screens / sizeof screens[0]; i++)
        if (screens[i].reference == reference) return screens[i].screen;
    return NULL;
}
