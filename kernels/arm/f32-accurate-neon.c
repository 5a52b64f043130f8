/* fp32 accurate LayerNorm for NEON: see kernels/simd/f32-accurate.h. */
#include "f32-accurate.h"

LN_SIMD_KERNEL(ln_f32_accurate_neon, "f32-accurate", LN_F32, LN_OP_LAYERNORM, f32_accurate_forward, f32_accurate_bound,
               ln_domain_any_row, 1, LN_TUNABLES(f32_accurate_tunables),
               F32_ACCURATE_HOW "; bound(768, 1) = 1, bound(4096, 1e3) = 1");
