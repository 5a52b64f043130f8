/* RMSNorm backward with fp32 storage and every sum and product in double, one rounding per output. */
#include "bounds-ops.h"
#include "norm-ops.h"

LN_NORM_BWD(backward, double, 0, LN_F32)

static double bound(size_t n, double kappa) { return ln_bound_norm_bwd((double)n, kappa, 0x1p-53, 0x1p-24); }

const ln_kernel ln_f32_rmsbwd_accurate_scalar = {
    .name = "f32-rmsbwd-accurate-scalar",
    .dtype = LN_F32,
    .op = LN_OP_RMSNORM_BWD,
    .forward = backward,
    .how = "fp32 storage, double sums and products (dgamma, dbeta summed over rows in double), "
           "one rounding: 1 + 2 (n + 8) kappa 2^-29 u",
    .bound = bound,
    .domain = ln_domain_any_row,
    .agrees_nonfinite = 1,
};
