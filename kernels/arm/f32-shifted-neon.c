/* fp32 shifted-data LayerNorm for NEON: see kernels/simd/f32-shifted.h. */
#include "f32-shifted.h"

LN_SIMD_KERNEL(ln_f32_shifted_neon, "f32-shifted", LN_F32, LN_OP_LAYERNORM, f32_shifted_forward, f32_shifted_bound,
               ln_domain_any_row, 0, LN_TUNABLES(f32_shifted_tunables),
               F32_SHIFTED_HOW "; bound(768, 1) = 1.39e+03, bound(4096, 1e3) = 1.17e+06");
