/* RMSNorm at LayerNorm's speed for NEON: see kernels/simd/f32-rmsnorm.h. */
#include "f32-rmsnorm.h"

LN_SIMD_KERNEL(ln_f32_rmsnorm_pipelined_neon, "f32-rmsnorm-pipelined", LN_F32, LN_OP_RMSNORM, f32_rmsnorm_forward,
               f32_rmsnorm_bound, ln_domain_any_row, 0, LN_TUNABLES(f32_rmsnorm_tunables),
               F32_RMSNORM_HOW "; bound(768, 1) = 114, bound(4096, 1e3) = 447");
