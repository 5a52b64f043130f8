/* fp32 fused LayerNorm for NEON: see kernels/x86/f32-fused.h. */
#include "vec.h"

#include "../x86/f32-fused.h"

LN_VEC_KERNEL(ln_f32_fused_neon, "f32-fused", LN_F32);
