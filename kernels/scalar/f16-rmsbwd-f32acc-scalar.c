/* RMSNorm backward on fp16 storage computed in fp32, one rounding per output: see norm-ops.h. */
#define NORM_KIND NORM_RMSBWD
#define NORM_ALGO NORM_F32ACC
#define NORM_DTYPE LN_F16
#include "norm-ops.h"

NORM_KERNEL(ln_f16_rmsbwd_f32acc_scalar, "f16-rmsbwd-f32acc-scalar");
