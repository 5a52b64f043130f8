/* fp32 Welford LayerNorm for NEON: see kernels/simd/f32-welford.h. */
#include "f32-welford.h"

LN_SIMD_KERNEL(ln_f32_welford_neon, "f32-welford", LN_F32, LN_OP_LAYERNORM, f32_welford_forward, f32_welford_bound,
               ln_domain_any_row, 0, LN_NO_TUNABLES,
               F32_WELFORD_HOW "; bound(768, 1) = 591, bound(4096, 1e3) = 1.1e+06");
