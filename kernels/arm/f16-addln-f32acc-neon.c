/* Residual add + LayerNorm on f16 storage: see kernels/simd/half-add-layernorm.h. */
#define HALF_ADDLN_DTYPE LN_F16
#include "half-add-layernorm.h"

LN_SIMD_KERNEL(ln_f16_addln_f32acc_neon, "f16-addln-f32acc", LN_F16, LN_OP_ADD_LAYERNORM, half_add_layernorm_forward,
               half_add_layernorm_bound, ln_domain_any_row, 0, LN_TUNABLES(half_shifted_tunables),
               HALF_ADD_LAYERNORM_HOW "; bound(768, 1) = 1.17, bound(4096, 1e3) = 149");
