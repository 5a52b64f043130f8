/* RMSNorm on fp16 storage, computed in fp32: elements widened exactly, a sequential fp32 sum of
 * squares and epilogue, one rounding to fp16 per output. */
#include "bounds-ops.h"
#include "norm-ops.h"

LN_NORM_RMSNORM(forward, float, LN_F16)

static double bound(size_t n, double kappa)
{
    (void)kappa;
    return ln_bound_rmsnorm((double)n - 1, 0x1p-24, 0x1p-11);
}

const ln_kernel ln_f16_rmsnorm_f32acc_scalar = {
    .name = "f16-rmsnorm-f32acc-scalar",
    .dtype = LN_F16,
    .op = LN_OP_RMSNORM,
    .forward = forward,
    .how = "fp16 widened to fp32; fp32 sequential sum of squares and epilogue, one rounding to fp16",
    .bound = bound,
    .domain = ln_domain_f32_sums,
    .agrees_nonfinite = 0,
};
