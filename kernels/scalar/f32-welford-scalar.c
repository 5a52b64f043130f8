/* Welford's updating LayerNorm in fp32: one pass keeping the running mean m and M2 =
 * sum (x - m)^2, each element correcting both. No large sums cancel, but every update rounds
 * against the running mean, so S's relative error grows like n kappa u (Chan, Golub & LeVeque). */
#include "bounds.h"
#include "f32-normalize-row.h"

static void forward(const ln_args *a)
{
    if (a->D == 0) return;
    for (size_t r = 0; r < a->rows; r++) {
        const float *x = (const float *)a->x + r * a->D;
        float mean = 0.0f, m2 = 0.0f;
        for (size_t i = 0; i < a->D; i++) {
            float d = x[i] - mean;
            mean += d / (float)(i + 1);
            m2 += d * (x[i] - mean);
        }
        ln_f32_finish_row_or_redo(a, r, mean, m2 / (float)a->D);
    }
}

/* The Welford blocks of bounds.h, plus the second-order effect of the mean's error on S. */
static double bound(size_t n, double kappa)
{
    const double u = 0x1p-24;
    double c = ln_bound_welford_mean_c((double)n), dm = c * u * (kappa + 1);
    return ln_bound_mean(c, kappa, u, u) + ln_bound_var(ln_bound_welford_var((double)n, kappa) * u + dm * dm, u) +
           ln_bound_epilogue(u, u);
}

LN_KERNEL_DEFINE(ln_f32_welford_scalar, "f32-welford-scalar", LN_F32, 0, LN_OP_LAYERNORM, forward, bound,
                 ln_domain_any_row, 0, LN_NO_TUNABLES,
                 "one pass of Welford's updates in fp32 (running mean and M2); "
                 "mean error ~(2n/3) u (|mean| + sigma), var rel. error ~n (kappa + 4) u; rows whose sums "
                 "overflow or squares underflow redone in double"
                 "; bound(768, 1) = 1.18e+04, bound(4096, 1e3) = 2.16e+07");
