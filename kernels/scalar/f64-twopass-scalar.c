/* Two-pass LayerNorm in double on double storage: the f32-twopass-scalar algorithm with
 * u = 2^-53 throughout; rows whose squares overflow or underflow double are redone scaled by a
 * power of two (f64-fallback.h). */
#include <math.h>

#include "bounds.h"
#include "f64-fallback.h"
#include "kernel.h"

/* The mean of x and the sum of squared deviations about it, every value scaled by s (a power of
 * two: exact; 1 on ordinary rows, where x * 1 and / 1 are the plain sums); mean unscaled.
 * Inlined, so that at s = 1 the compiler drops the multiplications: an ordinary row runs the
 * loops it ran before the fallback existed. */
static inline __attribute__((always_inline)) void row_stats(const double *x, size_t n, double s, double *mean,
                                                            double *ss)
{
    double sum = 0.0, q = 0.0;
    for (size_t i = 0; i < n; i++) sum += x[i] * s;
    *mean = sum / (double)n / s;
    for (size_t i = 0; i < n; i++) {
        double d = (x[i] - *mean) * s;
        q += d * d;
    }
    *ss = q;
}

static void forward(const ln_args *a)
{
    if (a->D == 0) return;
    const double *g = a->gamma, *b = a->beta;
    for (size_t r = 0; r < a->rows; r++) {
        const double *x = (const double *)a->x + r * a->D;
        double *y = (double *)a->y + r * a->D;
        double mean, ss, rstd;
        row_stats(x, a->D, 1.0, &mean, &ss);
        if (ln_f64_stats_usable(mean, ss / (double)a->D, a->eps)) {
            rstd = 1.0 / sqrt(ss / (double)a->D + a->eps);
        } else {
            const double s = ln_f64_rescale(mean, ss / (double)a->D);
            row_stats(x, a->D, s, &mean, &ss);
            rstd = ln_f64_rstd_scaled(ss, (double)a->D, a->eps, s);
        }
        for (size_t i = 0; i < a->D; i++) {
            double v = (x[i] - mean) * rstd;
            if (g) v *= g[i];
            if (b) v += b[i];
            y[i] = v;
        }
        if (a->mean) a->mean[r] = mean;
        if (a->rstd) a->rstd[r] = rstd;
    }
}

/* Sequential double sums: as f32-twopass-scalar with u = 2^-53. */
static double bound(size_t n, double kappa)
{
    return ln_bound_twopass((double)n, (double)n - 1, kappa, 0x1p-53, 0x1p-53);
}

LN_KERNEL_DEFINE(ln_f64_twopass_scalar, "f64-twopass-scalar", LN_F64, 0, LN_OP_LAYERNORM, forward, bound,
                 ln_domain_any_row, 0, LN_NO_TUNABLES,
                 "double sequential sum for the mean, then double sum of squared deviations; "
                 "mean error n u (|mean| + sigma), var rel. error n u + n^2 kappa^2 u^2, u = 2^-53; rows "
                 "whose squares overflow or underflow redone scaled by 2^-+512"
                 "; bound(768, 1) = 8.17e+03, bound(4096, 1e3) = 1.85e+07");
