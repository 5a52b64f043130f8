/* fp32 twopass LayerNorm for NEON: see kernels/x86/f32-twopass.h. */
#include "vec.h"

#include "../x86/f32-twopass.h"

LN_VEC_KERNEL(ln_f32_twopass_neon, "f32-twopass", LN_F32);
