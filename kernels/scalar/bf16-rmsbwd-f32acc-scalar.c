/* RMSNorm backward on bf16 storage computed in fp32, one rounding per output: see norm-ops.h. */
#define NORM_KIND NORM_RMSBWD
#define NORM_ALGO NORM_F32ACC
#define NORM_DTYPE LN_BF16
#include "norm-ops.h"

LN_KERNEL_DEFINE(ln_bf16_rmsbwd_f32acc_scalar, "bf16-rmsbwd-f32acc-scalar", LN_BF16, 0, LN_OP_RMSNORM_BWD, norm_forward,
                 norm_bound, ln_domain_any_row, 1, LN_NO_TUNABLES,
                 NORM_HOW "; bound(768, 1) = 1.02, bound(4096, 1e3) = 126");
