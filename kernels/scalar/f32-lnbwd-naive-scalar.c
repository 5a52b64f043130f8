/* LayerNorm backward in fp32 from the saved statistics: sequential fp32 sums, fp32 dgamma, dbeta. */
#include "bounds-ops.h"
#include "norm-ops.h"

LN_NORM_BWD(backward, float, 1, LN_F32)

static double bound(size_t n, double kappa) { return ln_bound_norm_bwd((double)n, kappa, 0x1p-24, 0x1p-24); }

const ln_kernel ln_f32_lnbwd_naive_scalar = {
    .name = "f32-lnbwd-naive-scalar",
    .dtype = LN_F32,
    .op = LN_OP_LAYERNORM_BWD,
    .forward = backward,
    .how = "fp32: one pass for sum g, sum g xhat (and dgamma, dbeta over rows), one for dx; "
           "dx normwise error 2 (n + 8) kappa u",
    .bound = bound,
    .domain = ln_domain_any_row,
    .agrees_nonfinite = 1,
};
