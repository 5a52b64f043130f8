/* fp32 two-pass LayerNorm for AVX2: see f32-twopass.h. */
#include "f32-twopass.h"

LN_VEC_KERNEL(ln_f32_twopass_avx2, "f32-twopass", LN_F32);
