/* Near-correctly-rounded residual add + LayerNorm for NEON: see kernels/simd/f32-add-layernorm-accurate.h. */
#include "f32-add-layernorm-accurate.h"

LN_SIMD_KERNEL(ln_f32_addln_accurate_neon, "f32-addln-accurate", LN_F32, LN_OP_ADD_LAYERNORM, add_norm_forward,
               f32_accurate_bound, ln_domain_any_row, 1, LN_TUNABLES(f32_accurate_tunables),
               F32_ADD_LAYERNORM_ACCURATE_HOW "; bound(768, 1) = 1, bound(4096, 1e3) = 1");
