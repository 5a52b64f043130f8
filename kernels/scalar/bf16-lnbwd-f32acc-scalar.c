/* LayerNorm backward on bf16 storage, computed in fp32 from the saved statistics; dx, dgamma, dbeta
 * each rounded once to bf16. */
#include "bounds-ops.h"
#include "norm-ops.h"

LN_NORM_BWD(backward, float, 1, LN_BF16)

static double bound(size_t n, double kappa) { return ln_bound_norm_bwd((double)n, kappa, 0x1p-24, 0x1p-8); }

const ln_kernel ln_bf16_lnbwd_f32acc_scalar = {
    .name = "bf16-lnbwd-f32acc-scalar",
    .dtype = LN_BF16,
    .op = LN_OP_LAYERNORM_BWD,
    .forward = backward,
    .how = "bf16 widened to fp32; the fp32 sums of the naive kernel (dgamma, dbeta over rows in fp32), one "
           "rounding to bf16 per output",
    .bound = bound,
    .domain = ln_domain_any_row,
    .agrees_nonfinite = 1,
};
