/* Two-pass LayerNorm in double on double storage: the f32-twopass-scalar algorithm with
 * u = 2^-53 throughout. */
#include <math.h>

#include "bounds.h"
#include "kernel.h"

static void forward(const ln_args *a)
{
    if (a->D == 0) return;
    const double *g = a->gamma, *b = a->beta;
    for (size_t r = 0; r < a->rows; r++) {
        const double *x = (const double *)a->x + r * a->D;
        double *y = (double *)a->y + r * a->D;
        double sum = 0.0;
        for (size_t i = 0; i < a->D; i++) sum += x[i];
        double mean = sum / (double)a->D;
        double ss = 0.0;
        for (size_t i = 0; i < a->D; i++) {
            double d = x[i] - mean;
            ss += d * d;
        }
        double rstd = 1.0 / sqrt(ss / (double)a->D + a->eps);
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

const ln_kernel ln_f64_twopass_scalar = {
    .name = "f64-twopass-scalar",
    .dtype = LN_F64,
    .forward = forward,
    .how = "double sequential sum for the mean, then double sum of squared deviations; "
           "mean error n u (|mean| + sigma), var rel. error n u + n^2 kappa^2 u^2, u = 2^-53",
    .bound = bound,
    .domain = ln_domain_f64_sums,
    .agrees_nonfinite = 0,
};
