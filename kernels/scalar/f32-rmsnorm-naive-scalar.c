/* RMSNorm in fp32: a sequential fp32 sum of squares, the epilogue in fp32. */
#include "bounds-ops.h"
#include "norm-ops.h"

LN_NORM_RMSNORM(forward, float, LN_F32)

/* the squares are >= 0: the sequential sum's relative error is (n - 1) u */
static double bound(size_t n, double kappa)
{
    (void)kappa;
    return ln_bound_rmsnorm((double)n - 1, 0x1p-24, 0x1p-24);
}

const ln_kernel ln_f32_rmsnorm_naive_scalar = {
    .name = "f32-rmsnorm-naive-scalar",
    .dtype = LN_F32,
    .op = LN_OP_RMSNORM,
    .forward = forward,
    .how = "fp32 sequential sum of squares, rstd and y = x rstd gamma + beta in fp32; "
           "rel. error of mean(x^2) + eps (n + 2) u",
    .bound = bound,
    .domain = ln_domain_f32_sums,
    .agrees_nonfinite = 0,
};
