/* fp32 fused LayerNorm for NEON: see kernels/simd/f32-fused.h. */
#include "f32-fused.h"

LN_SIMD_KERNEL(ln_f32_fused_neon, "f32-fused", LN_F32, LN_OP_LAYERNORM, f32_fused_forward, f32_fused_bound,
               ln_domain_any_row, 0, LN_TUNABLES(f32_fused_tunables),
               F32_FUSED_HOW "; bound(768, 1) = 554, bound(4096, 1e3) = 1.17e+06");
