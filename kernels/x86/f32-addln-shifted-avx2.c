/* Residual add + LayerNorm at memory speed: see kernels/simd/f32-add-layernorm.h. */
#include "f32-add-layernorm.h"

LN_SIMD_KERNEL(ln_f32_addln_shifted_avx2, "f32-addln-shifted", LN_F32, LN_OP_ADD_LAYERNORM, add_norm_forward,
               f32_shifted_bound, ln_domain_any_row, 0, LN_TUNABLES(f32_shifted_tunables),
               F32_ADD_LAYERNORM_HOW "; bound(768, 1) = 755, bound(4096, 1e3) = 5.87e+05");
