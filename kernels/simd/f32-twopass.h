/* Two-pass fp32 LayerNorm, vectorized: the mean from four independent vector accumulators
 * (so the adds pipeline and each lane sums only n / (4 W) terms), then the sum of squared
 * deviations about it the same way (fma), then one normalization pass. Included by
 * f32-twopass-avx2.c and f32-twopass-avx512.c. */
#include "f32-passes.h"

static void f32_twopass_forward(const ln_args *a)
{
    const size_t n = a->D;
    for (size_t r = 0; r < a->rows && n > 0; r++) {
        const float *x = (const float *)a->x + r * n;
        float *y = (float *)a->y + r * n;
        double mean_out, rstd_out;
        f32_row_twopass(x, y, a->gamma, a->beta, n, a->eps, NULL, 0, &mean_out, &rstd_out);
        if (a->mean) a->mean[r] = mean_out;
        if (a->rstd) a->rstd[r] = rstd_out;
    }
}

/* 4 W lanes of sequential fp32 sums, combined in double. */
static double f32_twopass_bound(size_t n, double kappa) { return ln_bound_f32_lanes(n, kappa, 4 * VF_W, 0.0); }

#define F32_TWOPASS_HOW                                                                        \
    "fp32 two-pass, 4 vector accumulators for the mean then for sum (x-mean)^2 (fma), lanes "  \
    "added in double; var rel. error <= (n/(4W)+3) u + (n/(4W)+2)^2 kappa^2 u^2; overflow or " \
    "underflow rows redone in double"
