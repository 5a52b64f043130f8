/* The textbook one-pass LayerNorm in fp32, kept as the cautionary baseline: sum x and sum x^2
 * in one sweep, var = E[x^2] - E[x]^2. The subtraction cancels the leading digits of two
 * numbers of size mean^2 + var, so the variance's relative error grows like n kappa^2 u; once
 * that reaches 1 the variance can come out negative, and with no clamp sqrt gives NaN. */
#include "bounds.h"
#include "f32-normalize-row.h"

static void forward(const ln_args *a)
{
    if (a->D == 0) return;
    for (size_t r = 0; r < a->rows; r++) {
        const float *x = (const float *)a->x + r * a->D;
        float sum = 0.0f, sumsq = 0.0f;
        for (size_t i = 0; i < a->D; i++) {
            sum += x[i];
            sumsq += x[i] * x[i];
        }
        float mean = sum / (float)a->D;
        ln_f32_finish_row(a, r, mean, sumsq / (float)a->D - mean * mean);
    }
}

/* Mean as in two-pass: n u (|mean| + sigma). E[x^2] = (mean^2 + var)(1 + (n + 1) u); mean^2
 * is off by 2 |mean| n u (|mean| + sigma) + u mean^2; the subtraction adds u var. All of it is
 * at most (4n + 2) u (mean^2 + sigma^2) = (4n + 2) u kappa^2 sigma^2: r = (4n + 2) kappa^2 u. */
static double bound(size_t n, double kappa)
{
    const double u = 0x1p-24;
    double nn = (double)n;
    return ln_bound_mean(nn, kappa, u, u) + ln_bound_var((4 * nn + 2) * kappa * kappa * u, u) + ln_bound_epilogue(u, u);
}

LN_KERNEL_DEFINE(ln_f32_naive_scalar, "f32-naive-scalar", LN_F32, 0, LN_OP_LAYERNORM, forward, bound,
                 ln_domain_f32_sums, 0, LN_NO_TUNABLES,
                 "one pass: fp32 sums of x and x^2, var = E[x^2] - mean^2, no clamp (negative var -> NaN); "
                 "var rel. error ~4 n kappa^2 u, no bound once that reaches 1"
                 "; bound(768, 1) = 1.19e+04, bound(4096, 1e3) = inf");
