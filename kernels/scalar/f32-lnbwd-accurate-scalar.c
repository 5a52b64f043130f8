/* LayerNorm backward with fp32 storage in double, one rounding per output: see norm-ops.h. */
#define NORM_KIND NORM_LNBWD
#define NORM_ALGO NORM_ACCURATE
#define NORM_DTYPE LN_F32
#include "norm-ops.h"

NORM_KERNEL(ln_f32_lnbwd_accurate_scalar, "f32-lnbwd-accurate-scalar");
