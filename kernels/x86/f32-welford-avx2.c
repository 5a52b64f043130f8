/* fp32 Welford LayerNorm for AVX2: see f32-welford.h. */
#include "f32-welford.h"

LN_VEC_KERNEL(ln_f32_welford_avx2, "f32-welford", LN_F32);
