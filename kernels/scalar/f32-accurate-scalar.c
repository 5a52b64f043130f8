/* fp32 storage, everything else in double, so that almost every output is the correctly rounded
 * one. The mean is kept to about 2^-106 as an unevaluated pair mean_hi + mean_lo: a double
 * alone is off by up to 2^-53 |mean|, which at offset 1e6 is 2^-29 * 1e6 ulps of y ~ 1 and
 * misrounds ~0.3% of the outputs. Then the sum of squared deviations about it in double, the
 * normalization ((x - mean_hi) - mean_lo) * rstd * gamma + beta in double, and one rounding to
 * fp32 per output. Squares of |x| > 1.8e19, which overflow fp32, are finite here. */
#include <math.h>

#include "bounds.h"
#include "kernel.h"

static void forward(const ln_args *a)
{
    if (a->D == 0) return;
    const float *g = a->gamma, *b = a->beta;
    const double n = (double)a->D;
    for (size_t r = 0; r < a->rows; r++) {
        const float *x = (const float *)a->x + r * a->D;
        float *y = (float *)a->y + r * a->D;
        /* Neumaier's compensated sum: hi + lo is the exact sum to n^2 2^-106 relative. */
        double hi = 0.0, lo = 0.0;
        for (size_t i = 0; i < a->D; i++) {
            double v = x[i], t = hi + v;
            lo += fabs(hi) >= fabs(v) ? (hi - t) + v : (v - t) + hi;
            hi = t;
        }
        double mean_hi = hi / n;
        double mean_lo = (fma(-mean_hi, n, hi) + lo) / n; /* the division's remainder is exact */
        double ss = 0.0;
        for (size_t i = 0; i < a->D; i++) {
            double d = (x[i] - mean_hi) - mean_lo;
            ss += d * d;
        }
        double rstd = 1.0 / sqrt(ss / n + a->eps);
        for (size_t i = 0; i < a->D; i++) {
            double v = ((x[i] - mean_hi) - mean_lo) * rstd;
            if (g) v *= g[i];
            if (b) v += b[i];
            y[i] = (float)v;
        }
        if (a->mean) a->mean[r] = mean_hi + mean_lo;
        if (a->rstd) a->rstd[r] = rstd;
    }
}

/* The two-pass bound with double arithmetic (ua = 2^-53) and fp32 storage (us = 2^-24). The
 * mean pair is off by at most (n^2 + 2) ua^2 (|mean| + sigma) (the Neumaier sum's
 * gamma_{n-1}^2 sum|x_i|, two roundings of the small part); S by (n + 1) ua (one more rounding
 * per deviation). So: the final rounding, 1, plus ~n 2^-29 terms: 1.00003 at n = 768. */
static double bound(size_t n, double kappa)
{
    const double ua = 0x1p-53;
    double nn = (double)n;
    return ln_bound_twopass((nn * nn + 2) * ua, nn + 1, kappa, ua, 0x1p-24);
}

LN_KERNEL_DEFINE(ln_f32_accurate_scalar, "f32-accurate-scalar", LN_F32, 0, LN_OP_LAYERNORM, forward, bound,
                 ln_domain_any_row, 1, LN_NO_TUNABLES,
                 "fp32 storage; double compensated sum, mean kept as a double pair, double sum of squared "
                 "deviations, double epilogue, one rounding to fp32; bound 1 u + ~n 2^-29 u"
                 "; bound(768, 1) = 1, bound(4096, 1e3) = 1");
