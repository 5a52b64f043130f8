/* RMSNorm with fp32 storage, the sum of squares and the epilogue in double, one rounding. */
#include "bounds-ops.h"
#include "norm-ops.h"

LN_NORM_RMSNORM(forward, double, LN_F32)

static double bound(size_t n, double kappa)
{
    (void)kappa;
    return ln_bound_rmsnorm((double)n - 1, 0x1p-53, 0x1p-24);
}

const ln_kernel ln_f32_rmsnorm_accurate_scalar = {
    .name = "f32-rmsnorm-accurate-scalar",
    .dtype = LN_F32,
    .op = LN_OP_RMSNORM,
    .forward = forward,
    .how = "fp32 storage, sum of squares and y in double, one rounding to fp32: "
           "correctly rounded on almost every element",
    .bound = bound,
    .domain = ln_domain_any_row,
    .agrees_nonfinite = 1,
};
