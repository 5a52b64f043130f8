/* fp32 Welford LayerNorm for AVX512: see f32-welford.h. */
#include "f32-welford.h"

LN_VEC_KERNEL(ln_f32_welford_avx512, "f32-welford", LN_F32);
