/* Two-pass fp64 LayerNorm, vectorized: the mean from four independent vector accumulators,
 * then the sum of squared deviations about it (fma), then the normalization
 * y = (x - mean) * (rstd * gamma) + beta (one fma). Rows whose squares overflow double (values
 * beyond 2^511) are redone scaled by 2^-512, rows whose squares underflow scaled by 2^512
 * (f64-fallback.h). Included by f64-twopass-avx2.c and f64-twopass-avx512.c. */
#include <math.h>

#include "bounds.h"
#include "f64-fallback.h"
#include "vec.h"

#define ACC 4

static double row_sum(const double *x, size_t n, double scale)
{
    const vd s = vd_set1(scale);
    vd a0 = vd_set1(0.0), a1 = a0, a2 = a0, a3 = a0;
    size_t i = 0;
    for (; i + ACC * VD_W <= n; i += ACC * VD_W) {
        a0 = vd_fma(vd_load(x + i), s, a0);
        a1 = vd_fma(vd_load(x + i + VD_W), s, a1);
        a2 = vd_fma(vd_load(x + i + 2 * VD_W), s, a2);
        a3 = vd_fma(vd_load(x + i + 3 * VD_W), s, a3);
    }
    for (; i + VD_W <= n; i += VD_W) a0 = vd_fma(vd_load(x + i), s, a0);
    if (i < n) a1 = vd_fma(vd_load_part(x + i, n - i), s, a1);
    return vd_sum(vd_add(vd_add(a0, a1), vd_add(a2, a3)));
}

/* sum ((x - mean) * scale)^2; scale is a power of two, so it adds no rounding */
static double row_sq_dev(const double *x, size_t n, double mean, double scale)
{
    const vd m = vd_set1(mean), s = vd_set1(scale);
    vd a0 = vd_set1(0.0), a1 = a0, a2 = a0, a3 = a0;
    size_t i = 0;
    for (; i + ACC * VD_W <= n; i += ACC * VD_W) {
        vd d0 = vd_mul(vd_sub(vd_load(x + i), m), s), d1 = vd_mul(vd_sub(vd_load(x + i + VD_W), m), s);
        vd d2 = vd_mul(vd_sub(vd_load(x + i + 2 * VD_W), m), s), d3 = vd_mul(vd_sub(vd_load(x + i + 3 * VD_W), m), s);
        a0 = vd_fma(d0, d0, a0);
        a1 = vd_fma(d1, d1, a1);
        a2 = vd_fma(d2, d2, a2);
        a3 = vd_fma(d3, d3, a3);
    }
    for (; i + VD_W <= n; i += VD_W) {
        vd d = vd_mul(vd_sub(vd_load(x + i), m), s);
        a0 = vd_fma(d, d, a0);
    }
    if (i < n) {
        vd d = vd_keep(vd_mul(vd_sub(vd_load_part(x + i, n - i), m), s), n - i);
        a1 = vd_fma(d, d, a1);
    }
    return vd_sum(vd_add(vd_add(a0, a1), vd_add(a2, a3)));
}

LN_INLINE void normalize_body(const double *x, double *y, const double *g, const double *b, size_t n, double mean,
                              double rstd, int has_g, int has_b)
{
    const vd m = vd_set1(mean), r = vd_set1(rstd), zero = vd_set1(0.0);
    size_t i = 0;
    for (; i + VD_W <= n; i += VD_W) {
        vd s = has_g ? vd_mul(r, vd_load(g + i)) : r;
        vd_store(y + i, vd_fma(vd_sub(vd_load(x + i), m), s, has_b ? vd_load(b + i) : zero));
    }
    if (i < n) {
        size_t k = n - i;
        vd s = has_g ? vd_mul(r, vd_load_part(g + i, k)) : r;
        vd_store_part(y + i, vd_fma(vd_sub(vd_load_part(x + i, k), m), s, has_b ? vd_load_part(b + i, k) : zero), k);
    }
}

static void normalize(const double *x, double *y, const double *g, const double *b, size_t n, double mean, double rstd)
{
#define CASE(G, B) normalize_body(x, y, g, b, n, mean, rstd, G, B)
    LN_SPECIALIZE_GB(g, b, CASE);
#undef CASE
}

static void f64_twopass_forward(const ln_args *a)
{
    const size_t n = a->D;
    for (size_t r = 0; r < a->rows && n > 0; r++) {
        const double *x = (const double *)a->x + r * n;
        double *y = (double *)a->y + r * n;
        double mean = row_sum(x, n, 1.0) / (double)n;
        double ss = row_sq_dev(x, n, mean, 1.0), rstd;
        if (ln_f64_stats_usable(mean, ss / (double)n, a->eps)) {
            rstd = 1.0 / sqrt(ss / (double)n + a->eps);
        } else {
            /* overflowed or underflowed: the same in units of 2^512 or 2^-512 */
            const double s = ln_f64_rescale(mean, ss / (double)n);
            mean = row_sum(x, n, s) / (double)n / s;
            ss = row_sq_dev(x, n, mean, s);
            rstd = ln_f64_rstd_scaled(ss, (double)n, a->eps, s);
        }
        normalize(x, y, a->gamma, a->beta, n, mean, rstd);
        if (a->mean) a->mean[r] = mean;
        if (a->rstd) a->rstd[r] = rstd;
    }
}

/* 4 W lanes of sequential sums of about m = n / (4W) terms, lanes added by a pairwise tree of
 * depth log2(4W): the two-pass bound with c = s = m + log2(4W) + 2. */
static double f64_twopass_bound(size_t n, double kappa)
{
    const double u = 0x1p-53, lanes = ACC * VD_W;
    double c = ceil((double)n / lanes) + log2(lanes) + 2.0, dm = c * u * (kappa + 1.0);
    return ln_bound_mean(c, kappa, u, u) + ln_bound_var((c + 3.0) * u + dm * dm, u) + ln_bound_epilogue(u, u);
}

#define F64_TWOPASS_HOW                                                                        \
    "fp64 two-pass, 4 vector accumulators for the mean then sum (x-mean)^2 (fma), pairwise "   \
    "lane sums; var rel. error <= (n/(4W)+log2(4W)+5) u + (n/(4W)+log2(4W)+2)^2 kappa^2 u^2; " \
    "rows whose squares overflow or underflow redone scaled by 2^-+512"
