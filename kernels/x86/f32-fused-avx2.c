/* Fused fp32 LayerNorm for AVX2: see f32-fused.h. */
#include "f32-fused.h"

LN_VEC_KERNEL(ln_f32_fused_avx2, "f32-fused", LN_F32);
