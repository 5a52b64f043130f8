/* RMSNorm backward with fp32 storage in double, one rounding per output: see norm-ops.h. */
#define NORM_KIND NORM_RMSBWD
#define NORM_ALGO NORM_ACCURATE
#define NORM_DTYPE LN_F32
#include "norm-ops.h"

LN_KERNEL_DEFINE(ln_f32_rmsbwd_accurate_scalar, "f32-rmsbwd-accurate-scalar", LN_F32, 0, LN_OP_RMSNORM_BWD,
                 norm_forward, norm_bound, ln_domain_any_row, 1, LN_NO_TUNABLES,
                 NORM_HOW "; bound(768, 1) = 1, bound(4096, 1e3) = 1.02");
