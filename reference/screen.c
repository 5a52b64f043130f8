/* Cheap stand-ins for reference entry points (reference.h, ln_ref_screen_of). */
#include <math.h>
#include <stdlib.h>

#include "dd.h"
#include "reference.h"

/* One row of LayerNorm (centred) or RMSNorm in double-double: y is the double-double value
 * rounded once to t (a double rounding only where the value is within 2^-100 of a midpoint);
 * the variance comes from sum (x_i - mean)^2 about a double-double mean, so its error grows with
 * kappa^2 2^-106. Statistics as ln_ref_row and ln_ref_rms_row give them. */
static void norm_row(int centred, ln_dtype t, ln_dtype xt, size_t D, const void *x, const void *gamma, const void *beta,
                     double eps, void *y, double *y_hi, double *y_lo, ln_ref_stats *st)
{
    dd sum = {0, 0};
    if (centred)
        for (size_t i = 0; i < D; i++) sum = dd_add(sum, dd_from(ln_load(xt, x, i)));
    dd mean = dd_div_d(sum, (double)D), ss = {0, 0};
    for (size_t i = 0; i < D; i++) {
        dd d = dd_add(dd_from(ln_load(xt, x, i)), dd_neg(mean));
        ss = dd_add(ss, dd_mul(d, d));
    }
    dd var = dd_div_d(ss, (double)D), radicand = dd_add(var, dd_from(eps));
    dd rstd = radicand.hi > 0 ? dd_rsqrt(radicand) : (dd){INFINITY, 0};
    for (size_t i = 0; i < D; i++) {
        dd v = dd_mul(dd_add(dd_from(ln_load(xt, x, i)), dd_neg(mean)), rstd);
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

/* in: x (format xt), gamma, beta; out: y (the forward ops' roles in ops.def) */
static void rows_of(int centred, ln_dtype t, ln_dtype xt, size_t rows, size_t D, double eps, const void *const *in,
                    const ln_ref_out *out, ln_ref_stats *st)
{
    size_t es = ln_fmt(t)->size, xs = ln_fmt(xt)->size;
    for (size_t r = 0; r < rows; r++) {
        size_t off = r * D;
        norm_row(centred, t, xt, D, (const char *)in[0] + off * xs, in[1], in[2], eps,
                 (char *)out[0].rounded + off * es, out[0].hi ? out[0].hi + off : NULL,
                 out[0].lo ? out[0].lo + off : NULL, st ? st + r : NULL);
    }
}

/* The plain forward ops: x in t. */
static void norm_rows(int centred, ln_dtype t, ln_dtype rt, size_t rows, size_t D, double eps, const void *const *in,
                      const ln_ref_out *out, ln_ref_stats *st)
{
    (void)rt;
    rows_of(centred, t, t, rows, D, eps, in, out, st);
}

/* A screen over one of the row loops, centring or not. */
#define SCREEN_ENTRY(name, rows_fn, centred)                                                            \
    static void name(ln_dtype t, ln_dtype rt, size_t rows, size_t D, double eps, const void *const *in, \
                     const ln_ref_out *out, ln_ref_stats *st)                                           \
    {                                                                                                   \
        rows_fn(centred, t, rt, rows, D, eps, in, out, st);                                             \
    }

SCREEN_ENTRY(screen_layernorm, norm_rows, 1)

SCREEN_ENTRY(screen_rmsnorm, norm_rows, 0)

/* The fused residual-add ops (in: x, r, gamma, beta; out: y, h), as ln_ref_add_rmsnorm and
 * ln_ref_add_layernorm compute them: h = x + r exact as two_sum's hi + lo and rounded once to rt
 * (hi rounded: for f64 hi is IEEE's sum; for narrower formats (x in t, r in rt, t within rt) the
 * sum is inexact in double only when their exponents are more than 53 - p apart, and then hi lies
 * within an ulp of double of the larger one, never on a midpoint of rt), then rows_of on the
 * stored h, so y and the statistics are the plain op's screen of what a kernel normalises. */
static void add_norm_rows(int centred, ln_dtype t, ln_dtype rt, size_t rows, size_t D, double eps,
                          const void *const *in, const ln_ref_out *out, ln_ref_stats *st)
{
    size_t n = rows * D;
    void *h = out[1].rounded ? out[1].rounded : malloc(n * ln_fmt(rt)->size + 1);
    if (!h) abort();
    for (size_t i = 0; i < n; i++) {
        double xv = ln_load(t, in[0], i), rv = ln_load(rt, in[1], i);
        dd s = dd_two_sum(xv, rv);
        if (!isfinite(s.hi)) s.lo = 0; /* IEEE's sum, as the reference takes it */
        ln_store(rt, h, i, s.hi);
        if (out[1].hi) out[1].hi[i] = s.hi;
        if (out[1].lo) out[1].lo[i] = s.lo;
    }
    const void *norm_in[] = {h, in[2], in[3]};
    rows_of(centred, t, rt, rows, D, eps, norm_in, out, st);
    if (h != out[1].rounded) free(h);
}

SCREEN_ENTRY(screen_add_rmsnorm, add_norm_rows, 0)

SCREEN_ENTRY(screen_add_layernorm, add_norm_rows, 1)

/* Stores the double-double value v as an output element: rounded to t, and hi + lo. */
static void put(ln_dtype t, const ln_ref_out *o, size_t k, dd v)
{
    if (!o->rounded) return;
    ln_store(t, o->rounded, k, v.hi);
    if (o->hi) o->hi[k] = v.hi;
    if (o->lo) o->lo[k] = v.lo;
}

/* The backward ops (in: x, gamma, dy; out: dx, dgamma, dbeta) in double-double, with the
 * semantics of ln_ref_bwd_rows: the row's exact statistics from x and eps, xhat = (x - mean) rstd,
 * g = gamma dy, dx = rstd (g - c mean(g) - xhat mean(g xhat)); NaN in dx for a row with a
 * non-finite input or var + eps <= 0 (and then in every dgamma; dbeta only for a non-finite
 * dy); the statistics' kappa the condition number of dx, as the reference gives it. */
static void bwd_rows(int centred, ln_dtype t, ln_dtype rt, size_t rows, size_t D, double eps, const void *const *in,
                     const ln_ref_out *out, ln_ref_stats *st)
{
    (void)rt;
    const void *x = in[0], *gamma = in[1], *dy = in[2];
    size_t es = ln_fmt(t)->size;
    int gamma_ok = 1, all_ok = 1, dy_all_ok = 1;
    for (size_t i = 0; gamma && i < D; i++) gamma_ok &= isfinite(ln_load(t, gamma, i)) != 0;
    for (size_t j = 0; j < D; j++) put(t, &out[1], j, (dd){0, 0}), put(t, &out[2], j, (dd){0, 0});
    for (size_t r = 0; r < rows; r++) {
        const char *xr = (const char *)x + r * D * es, *dyr = (const char *)dy + r * D * es;
        int ok = 1, dy_ok = 1;
        dd sum = {0, 0}, ss = {0, 0}, g1 = {0, 0}, gx = {0, 0};
        for (size_t i = 0; i < D; i++) {
            ok &= isfinite(ln_load(t, xr, i)) != 0;
            dy_ok &= isfinite(ln_load(t, dyr, i)) != 0;
            if (centred) sum = dd_add(sum, dd_from(ln_load(t, xr, i)));
        }
        dd mean = dd_div_d(sum, (double)D);
        for (size_t i = 0; i < D; i++) {
            dd d = dd_add(dd_from(ln_load(t, xr, i)), dd_neg(mean));
            ss = dd_add(ss, dd_mul(d, d));
        }
        dd var = dd_div_d(ss, (double)D), radicand = dd_add(var, dd_from(eps));
        ok &= dy_ok && radicand.hi > 0 && isfinite(radicand.hi);
        all_ok &= ok, dy_all_ok &= dy_ok;
        dd rstd = ok ? dd_rsqrt(radicand) : (dd){NAN, 0};
        for (size_t i = 0; i < D; i++) {
            dd g = dd_mul(dd_from(gamma ? ln_load(t, gamma, i) : 1), dd_from(ln_load(t, dyr, i)));
            dd xhat = dd_mul(dd_add(dd_from(ln_load(t, xr, i)), dd_neg(mean)), rstd);
            if (centred) g1 = dd_add(g1, g);
            gx = dd_add(gx, dd_mul(g, xhat));
        }
        dd mg = dd_div_d(g1, (double)D), m2 = dd_div_d(gx, (double)D);
        double tmax = 0, dmax = 0;
        for (size_t i = 0; i < D; i++) {
            double dyv = ln_load(t, dyr, i);
            dd g = dd_mul(dd_from(gamma ? ln_load(t, gamma, i) : 1), dd_from(dyv));
            dd xhat = dd_mul(dd_add(dd_from(ln_load(t, xr, i)), dd_neg(mean)), rstd);
            dd b = dd_add(dd_add(g, dd_neg(mg)), dd_neg(dd_mul(xhat, m2)));
            put(t, &out[0], r * D + i, ok && gamma_ok ? dd_mul(rstd, b) : (dd){NAN, 0});
            tmax = fmax(tmax, fabs(g.hi) + fabs(mg.hi) + fabs(xhat.hi * m2.hi));
            dmax = fmax(dmax, fabs(b.hi));
            if (out[1].rounded && out[1].hi && out[1].lo) { /* running sums over the rows */
                dd acc = {out[1].hi[i], out[1].lo[i]};
                put(t, &out[1], i, dd_add(acc, dd_mul(dd_from(dyv), xhat)));
            }
            if (out[2].rounded && out[2].hi && out[2].lo)
                put(t, &out[2], i, dd_add((dd){out[2].hi[i], out[2].lo[i]}, dd_from(dyv)));
        }
        if (st) {
            st[r].mean = st[r].var = st[r].rstd = st[r].kappa = NAN;
            if (ok) {
                st[r].mean = mean.hi + mean.lo;
                st[r].var = var.hi + var.lo;
                st[r].rstd = rstd.hi;
                st[r].kappa = dmax > 0 ? tmax / dmax * (1 + fabs(st[r].mean) * st[r].rstd) : INFINITY;
            }
        }
    }
    for (size_t j = 0; j < D; j++) { /* the sums' semantics on rows that have none */
        if (!all_ok) put(t, &out[1], j, (dd){NAN, 0});
        if (!dy_all_ok) put(t, &out[2], j, (dd){NAN, 0});
    }
}

SCREEN_ENTRY(screen_layernorm_bwd, bwd_rows, 1)

SCREEN_ENTRY(screen_rmsnorm_bwd, bwd_rows, 0)

/* One line per reference that has a stand-in; an op without one is searched through its MPFR
 * reference itself (slower, docs/hunt.md). */
static const struct {
    ln_ref_op *reference, *screen;
} screens[] = {
    {ln_ref_layernorm, screen_layernorm},         {ln_ref_rmsnorm, screen_rmsnorm},
    {ln_ref_layernorm_bwd, screen_layernorm_bwd}, {ln_ref_rmsnorm_bwd, screen_rmsnorm_bwd},
    {ln_ref_add_rmsnorm, screen_add_rmsnorm},     {ln_ref_add_layernorm, screen_add_layernorm},
};

ln_ref_op *ln_ref_screen_of(ln_ref_op *reference)
{
    for (size_t i = 0; i < sizeof screens / sizeof screens[0]; i++)
        if (screens[i].reference == reference) return screens[i].screen;
    return NULL;
}
