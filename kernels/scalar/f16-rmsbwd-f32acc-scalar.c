/* RMSNorm backward on fp16 storage computed in fp32, one rounding per output: see norm-ops.h. */
#define NORM_KIND NORM_RMSBWD
#define NORM_ALGO NORM_F32ACC
#define NORM_DTYPE LN_F16
#include "norm-ops.h"

LN_KERNEL_DEFINE(ln_f16_rmsbwd_f32acc_scalar, "f16-rmsbwd-f32acc-scalar", LN_F16, 0, LN_OP_RMSNORM_BWD, norm_forward,
                 norm_bound, ln_domain_any_row, 1, LN_NO_TUNABLES,
                 NORM_HOW "; bound(768, 1) = 1.19, bound(4096, 1e3) = 1e+03");
