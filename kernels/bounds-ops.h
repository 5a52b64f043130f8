/* Claimed error bounds of the RMSNorm and backward kernels, in units of the storage format's u
 * (notation of bounds.h; derivations in docs/ops.md). */
#ifndef LN_BOUNDS_OPS_H
#define LN_BOUNDS_OPS_H

#include "bounds.h"

/* RMSNorm: no mean, so no cancellation (kappa = 1). The sum of squares of n terms >= 0 summed
 * with relative error s ua, each square one more rounding, D and eps two more: a relative error
 * (s + 3) ua of mean(x^2) + eps, then the epilogue of LayerNorm (x rstd gamma + beta; x is not
 * shifted, so one rounding fewer, which the shared constant covers). */
static inline double ln_bound_rmsnorm(double s, double ua, double us)
{
    return ln_bound_var((s + 3.0) * ua, us) + ln_bound_epilogue(ua, us);
}

/* Backward dx = rstd (g - c mean(g) - xhat mean(g xhat)), normwise against max|dx|. With T the
 * largest |g_i| + |mean g| + |xhat_i| |mean(g xhat)| of the row, every rounding costs at most
 * u T: g (1), xhat = (x - mean) rstd (3 |xhat| + kappa_f, kappa_f = |mean| rstd, from the
 * subtraction about a mean that is itself rounded to the arithmetic), the sums of n terms
 * (n each, sequentially), the two divisions by D, the two subtractions, the products by xhat
 * and rstd: below 2 (n + 8) (1 + kappa_f) ua T. kappa = (T / max|bracket|) (1 + kappa_f), the
 * condition number the reference reports for backward rows; plus the final rounding. */
static inline double ln_bound_norm_bwd(double n, double kappa, double ua, double us)
{
    return 1.0 + 2.0 * (n + 8.0) * kappa * ua / us;
}

#endif
