/* Fused fp32 LayerNorm for AVX512: see f32-fused.h. */
#include "f32-fused.h"

LN_VEC_KERNEL(ln_f32_fused_avx512, "f32-fused", LN_F32);
