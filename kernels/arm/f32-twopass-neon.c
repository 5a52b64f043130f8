/* fp32 two-pass LayerNorm for NEON: see kernels/simd/f32-twopass.h. */
#include "f32-twopass.h"

LN_SIMD_KERNEL(ln_f32_twopass_neon, "f32-twopass", LN_F32, LN_OP_LAYERNORM, f32_twopass_forward, f32_twopass_bound,
               ln_domain_any_row, 0, LN_NO_TUNABLES,
               F32_TWOPASS_HOW "; bound(768, 1) = 554, bound(4096, 1e3) = 1.17e+06");
