/* Near-correctly-rounded fp32 LayerNorm for AVX512: see f32-accurate.h. */
#include "f32-accurate.h"

LN_VEC_KERNEL(ln_f32_accurate_avx512, "f32-accurate", LN_F32);
