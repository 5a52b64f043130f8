/* fp32 accurate LayerNorm for NEON: see kernels/x86/f32-accurate.h. */
#include "vec.h"

#include "../x86/f32-accurate.h"

LN_VEC_KERNEL(ln_f32_accurate_neon, "f32-accurate", LN_F32);
