/* Building blocks of the kernels' claimed error bounds (see ln_kernel.bound in kernel.h).
 *
 * Notation: n = D, kappa = sqrt(1 + mean^2/(var + eps)), ua = unit roundoff of the arithmetic
 * the statistics are accumulated in, us = unit roundoff of the storage format. Every bound is a
 * first-order worst case (Higham, "Accuracy and Stability of Numerical Algorithms", ch. 3-4;
 * Chan, Golub & LeVeque 1983) with the constants rounded up, returned in units of us. The
 * normwise error of y is at most
 *   (error of mean) / sigma  +  max|xhat| * (relative error of var) / 2  +  epilogue roundings,
 * where sigma = sqrt(var + eps) and max|xhat| <= sqrt(n).
 */
#ifndef LN_BOUNDS_H
#define LN_BOUNDS_H

#include <math.h>
#include <stddef.h>

/* Epilogue y = (x - mean) * rstd * gamma + beta in unit roundoff ua, then one rounding to us:
 * a handful of roundings of ua on y, plus the final rounding. */
static inline double ln_bound_epilogue(double ua, double us) { return 1.0 + 6.0 * ua / us; }

/* A mean whose absolute error is at most c * ua * (|mean| + sigma), divided by sigma, is
 * c * ua * kappa' with kappa' = kappa + 1 (|mean|/sigma <= kappa). */
static inline double ln_bound_mean(double c, double kappa, double ua, double us)
{
    return c * ua * (kappa + 1.0) / us;
}

/* A variance with relative error r moves every xhat by at most |xhat| r / 2 <= sqrt(n) r / 2,
 * but relative to max|xhat| that is r / 2. r >= 1 means the variance may be lost entirely. */
static inline double ln_bound_var(double r, double us) { return r >= 1.0 ? INFINITY : r / us; }

#endif
