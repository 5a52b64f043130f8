/* The fallback every fp32 kernel with fp32 statistics shares (scalar and x86 alike): rows whose
 * fp32 sums overflowed (values whose squares fit but whose sum of squares does not: |x| of
 * 1.8e19 and up) or whose squares underflowed (|x - mean| below ~1e-23: var + eps comes out 0 or
 * a few subnormals, so rstd is Inf or wrong) are redone in double, where neither can happen for
 * any pair of fp32 values: squares lie in [2^-298, 2^256], far inside double's range. Testing the
 * final statistics costs an ordinary row one comparison. */
#ifndef LN_F32_FALLBACK_H
#define LN_F32_FALLBACK_H

#include <float.h>
#include <math.h>
#include <stddef.h>

/* Below this var + eps, fp32 squares may have lost more than 2^-28 of the variance to underflow
 * (each flushed or gradual-underflow square loses at most 2^-126 of n var): bounds.h's
 * squares-underflow threshold for fp32, 2^(emin + p + 4). */
#define LN_F32_SQUARES_MIN 0x1p-98

/* Whether fp32 statistics (a sum or mean, and the variance, both widened to double) can be used:
 * finite, var + eps clear of fp32 underflow, eps itself an fp32 number and var + eps too (either
 * beyond FLT_MAX makes rstd 0 and every output beta). NaN (Inf - Inf, Kahan's carry) fails too. */
static inline int ln_f32_stats_usable(double sum, double var, double eps)
{
    return isfinite(sum) && isfinite(var) && var + eps >= LN_F32_SQUARES_MIN && isfinite((float)eps) &&
           var + (float)eps <= FLT_MAX;
}

/* The whole row in double, scalar: sum, mean, sum of squared deviations, rstd, and
 * y = (x - mean) rstd gamma + beta rounded once to fp32. It is more accurate than any fp32 path,
 * so every kernel's bound still holds; NaN or Inf inputs give NaN outputs as before. */
static inline void ln_f32_row_f64(const float *x, float *y, const float *g, const float *b, size_t n, double eps,
                                  double *mean_out, double *rstd_out)
{
    double s = 0.0, ss = 0.0;
    for (size_t i = 0; i < n; i++) s += x[i];
    double mean = s / (double)n;
    for (size_t i = 0; i < n; i++) ss += (x[i] - mean) * (x[i] - mean);
    double rstd = 1.0 / sqrt(ss / (double)n + eps);
    for (size_t i = 0; i < n; i++) y[i] = (float)((x[i] - mean) * rstd * (g ? g[i] : 1.0f) + (b ? b[i] : 0.0f));
    *mean_out = mean;
    *rstd_out = rstd;
}

#endif
