/* RMSNorm backward on fp16 storage, computed in fp32 from the saved statistics; dx, dgamma, dbeta
 * each rounded once to fp16. */
#include "bounds-ops.h"
#include "norm-ops.h"

LN_NORM_BWD(backward, float, 0, LN_F16)

static double bound(size_t n, double kappa) { return ln_bound_norm_bwd((double)n, kappa, 0x1p-24, 0x1p-11); }

const ln_kernel ln_f16_rmsbwd_f32acc_scalar = {
    .name = "f16-rmsbwd-f32acc-scalar",
    .dtype = LN_F16,
    .op = LN_OP_RMSNORM_BWD,
    .forward = backward,
    .how = "fp16 widened to fp32; the fp32 sums of the naive kernel (dgamma, dbeta over rows in fp32), one "
           "rounding to fp16 per output",
    .bound = bound,
    .domain = ln_domain_any_row,
    .agrees_nonfinite = 1,
};
