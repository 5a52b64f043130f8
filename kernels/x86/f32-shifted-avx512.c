/* Shifted-data one-pass fp32 LayerNorm for AVX512: see f32-shifted.h. */
#include "f32-shifted.h"

LN_SIMD_KERNEL(ln_f32_shifted_avx512, "f32-shifted", LN_F32, LN_OP_LAYERNORM, f32_shifted_forward, f32_shifted_bound,
               ln_domain_any_row, 0, LN_TUNABLES(f32_shifted_tunables),
               F32_SHIFTED_HOW "; bound(768, 1) = 435, bound(4096, 1e3) = 2.98e+05");
