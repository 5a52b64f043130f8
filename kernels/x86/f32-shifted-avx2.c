/* Shifted-data one-pass fp32 LayerNorm for AVX2: see f32-shifted.h. */
#include "f32-shifted.h"

LN_VEC_KERNEL(ln_f32_shifted_avx2, "f32-shifted", LN_F32);
