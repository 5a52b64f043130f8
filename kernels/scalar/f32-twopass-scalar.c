/* Two-pass LayerNorm in fp32: the mean first, then the variance as the mean of squared
 * deviations about it, so no cancellation between large sums (Chan, Golub & LeVeque: the
 * relative error of S = sum (x - mean)^2 is at most n u + n^2 kappa^2 u^2). */
#include "bounds.h"
#include "f32-normalize-row.h"

static void forward(const ln_args *a)
{
    if (a->D == 0) return;
    for (size_t r = 0; r < a->rows; r++) {
        const float *x = (const float *)a->x + r * a->D;
        float sum = 0.0f;
        for (size_t i = 0; i < a->D; i++) sum += x[i];
        float mean = sum / (float)a->D;
        float ss = 0.0f;
        for (size_t i = 0; i < a->D; i++) {
            float d = x[i] - mean;
            ss += d * d;
        }
        ln_f32_finish_row_or_redo(a, r, mean, ss / (float)a->D);
    }
}

/* Sequential sums: the mean is off by at most (n - 1) u sum|x_i| / n <= (n - 1) u (|mean| +
 * sigma) plus the division's u |mean|; S by (n - 1) u, the terms being >= 0. */
static double bound(size_t n, double kappa)
{
    return ln_bound_twopass((double)n, (double)n - 1, kappa, 0x1p-24, 0x1p-24);
}

LN_KERNEL_DEFINE(ln_f32_twopass_scalar, "f32-twopass-scalar", LN_F32, 0, LN_OP_LAYERNORM, forward, bound,
                 ln_domain_any_row, 0, LN_NO_TUNABLES,
                 "fp32 sequential sum for the mean, then fp32 sum of squared deviations; "
                 "mean error n u (|mean| + sigma), var rel. error n u + n^2 kappa^2 u^2; rows whose sums "
                 "overflow or squares underflow redone in double"
                 "; bound(768, 1) = 8.17e+03, bound(4096, 1e3) = 2.01e+07");
