/* fp32 welford LayerNorm for NEON: see kernels/x86/f32-welford.h. */
#include "vec.h"

#include "../x86/f32-welford.h"

LN_VEC_KERNEL(ln_f32_welford_neon, "f32-welford", LN_F32);
