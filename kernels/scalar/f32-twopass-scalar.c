/* Two-pass LayerNorm in fp32: the mean first, then the variance as the mean of squared
 * deviations about it, so no cancellation between large sums (Chan, Golub & LeVeque: the
 * relative error of S = sum (x - mean)^2 is at most n u + n^2 kappa^2 u^2). */
#include <math.h>

#include "bounds.h"
#include "kernel.h"

static void forward(const ln_args *a)
{
    const float *g = a->gamma, *b = a->beta;
    for (size_t r = 0; r < a->rows; r++) {
        const float *x = (const float *)a->x + r * a->D;
        float *y = (float *)a->y + r * a->D;
        float sum = 0.0f;
        for (size_t i = 0; i < a->D; i++) sum += x[i];
        float mean = sum / (float)a->D;
        float ss = 0.0f;
        for (size_t i = 0; i < a->D; i++) {
            float d = x[i] - mean;
            ss += d * d;
        }
        float rstd = 1.0f / sqrtf(ss / (float)a->D + (float)a->eps);
        for (size_t i = 0; i < a->D; i++) {
            float v = (x[i] - mean) * rstd;
            y[i] = (g ? v * g[i] : v) + (b ? b[i] : 0.0f);
        }
        if (a->mean) a->mean[r] = mean;
        if (a->rstd) a->rstd[r] = rstd;
    }
}

/* Sequential sums: the mean is off by at most (n + 1) u (|mean| + sigma); S by the two-pass
 * bound above. */
static double bound(size_t n, double kappa)
{
    const double u = 0x1p-24;
    double nn = (double)n;
    return ln_bound_mean(nn + 1, kappa, u, u) + ln_bound_var(nn * u + nn * nn * kappa * kappa * u * u, u) +
           ln_bound_epilogue(u, u);
}

const ln_kernel ln_f32_twopass_scalar = {
    .name = "f32-twopass-scalar",
    .dtype = LN_F32,
    .forward = forward,
    .how = "fp32 sequential sum for the mean, then fp32 sum of squared deviations; "
           "var rel. error <= n u + n^2 kappa^2 u^2",
    .bound = bound,
};
