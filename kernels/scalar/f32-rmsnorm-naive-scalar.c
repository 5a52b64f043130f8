/* RMSNorm in fp32: see norm-ops.h. */
#define NORM_KIND NORM_RMSNORM
#define NORM_ALGO NORM_NAIVE
#define NORM_DTYPE LN_F32
#include "norm-ops.h"

NORM_KERNEL(ln_f32_rmsnorm_naive_scalar, "f32-rmsnorm-naive-scalar");
