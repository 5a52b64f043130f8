/* LayerNorm backward in fp32: see norm-ops.h. */
#define NORM_KIND NORM_LNBWD
#define NORM_ALGO NORM_NAIVE
#define NORM_DTYPE LN_F32
#include "norm-ops.h"

LN_KERNEL_DEFINE(ln_f32_lnbwd_naive_scalar, "f32-lnbwd-naive-scalar", LN_F32, 0, LN_OP_LAYERNORM_BWD, norm_forward,
                 norm_bound, ln_domain_any_row, 1, LN_NO_TUNABLES,
                 NORM_HOW "; bound(768, 1) = 1.55e+03, bound(4096, 1e3) = 8.21e+06");
