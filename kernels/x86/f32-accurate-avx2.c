/* Near-correctly-rounded fp32 LayerNorm for AVX2: see f32-accurate.h. */
#include "f32-accurate.h"

LN_VEC_KERNEL(ln_f32_accurate_avx2, "f32-accurate", LN_F32);
