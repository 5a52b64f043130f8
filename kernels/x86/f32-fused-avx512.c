/* Fused fp32 LayerNorm for AVX512: see f32-fused.h. */
#include "f32-fused.h"

LN_SIMD_KERNEL(ln_f32_fused_avx512, "f32-fused", LN_F32, LN_OP_LAYERNORM, f32_fused_forward, f32_fused_bound,
               ln_domain_any_row, 0, LN_TUNABLES(f32_fused_tunables),
               F32_FUSED_HOW "; bound(768, 1) = 173, bound(4096, 1e3) = 2.98e+05");
