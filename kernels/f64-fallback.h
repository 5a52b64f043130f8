/* The fallback of the fp64 kernels: rows whose double sums overflowed (values beyond 2^511, whose
 * squares do not fit) or whose squares underflowed (|x - mean| below ~2^-483: var + eps comes out
 * 0 or subnormal) are redone with every value scaled by a power of two, which adds no rounding:
 * 2^-512 or 2^512, so the squares land mid-range. Testing the final statistics costs an ordinary
 * row one comparison. */
#ifndef LN_F64_FALLBACK_H
#define LN_F64_FALLBACK_H

#include <math.h>

/* Below this var + eps, squares may have lost more than 2^-57 of the variance to underflow:
 * bounds.h's squares-underflow threshold for fp64, 2^(emin + p + 4). */
#define LN_F64_SQUARES_MIN 0x1p-965

/* Whether the unscaled statistics can be used: finite, and var + eps clear of underflow. */
static inline int ln_f64_stats_usable(double mean, double var, double eps)
{
    return isfinite(mean) && isfinite(var) && var + eps >= LN_F64_SQUARES_MIN;
}

/* The scale to redo a row with: down when something overflowed, up when the squares underflowed. */
static inline double ln_f64_rescale(double mean, double var)
{
    return isfinite(mean) && isfinite(var) ? 0x1p512 : 0x1p-512;
}

/* rstd from the sum of squared scaled deviations ss (scale s): s / sqrt(ss / n + eps s^2), eps
 * scaled with the squares (it underflows to nothing next to huge ones, as it should; next to
 * tiny ones it is itself below LN_F64_SQUARES_MIN, so eps s^2 cannot overflow). */
static inline double ln_f64_rstd_scaled(double ss, double n, double eps, double s)
{
    return s / sqrt(ss / n + eps * s * s);
}

#endif
