/* fp64 two-pass LayerNorm for NEON: see kernels/x86/f64-twopass.h. */
#include "vec.h"

#include "../x86/f64-twopass.h"

LN_VEC_KERNEL(ln_f64_twopass_neon, "f64-twopass", LN_F64);
