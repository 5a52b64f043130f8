/* RMSNorm in fp32: see norm-ops.h. */
#define NORM_KIND NORM_RMSNORM
#define NORM_ALGO NORM_NAIVE
#define NORM_DTYPE LN_F32
#include "norm-ops.h"

LN_KERNEL_DEFINE(ln_f32_rmsnorm_naive_scalar, "f32-rmsnorm-naive-scalar", LN_F32, 0, LN_OP_RMSNORM, norm_forward,
                 norm_bound, ln_domain_any_row, 0, LN_NO_TUNABLES,
                 NORM_HOW "; bound(768, 1) = 1.25e+03, bound(4096, 1e3) = 6.58e+03");
