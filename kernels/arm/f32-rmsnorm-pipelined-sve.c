/* RMSNorm at LayerNorm's speed for SVE at any vector length: see kernels/simd/f32-rmsnorm.h. */
#include "f32-rmsnorm.h"

LN_SIMD_KERNEL(ln_f32_rmsnorm_pipelined_sve, "f32-rmsnorm-pipelined", LN_F32, LN_OP_RMSNORM, f32_rmsnorm_forward,
               f32_rmsnorm_bound, ln_domain_any_row, 0, LN_TUNABLES(f32_rmsnorm_tunables),
               F32_RMSNORM_HOW
               "; bound taken at W = 4 (it holds at every W); bound(768, 1) = 114, bound(4096, 1e3) = 447");
