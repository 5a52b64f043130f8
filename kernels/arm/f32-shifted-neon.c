/* fp32 shifted LayerNorm for NEON: see kernels/x86/f32-shifted.h. */
#include "vec.h"

#include "../x86/f32-shifted.h"

LN_VEC_KERNEL(ln_f32_shifted_neon, "f32-shifted", LN_F32);
