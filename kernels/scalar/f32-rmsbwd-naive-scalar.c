/* RMSNorm backward in fp32: see norm-ops.h. */
#define NORM_KIND NORM_RMSBWD
#define NORM_ALGO NORM_NAIVE
#define NORM_DTYPE LN_F32
#include "norm-ops.h"

NORM_KERNEL(ln_f32_rmsbwd_naive_scalar, "f32-rmsbwd-naive-scalar");
