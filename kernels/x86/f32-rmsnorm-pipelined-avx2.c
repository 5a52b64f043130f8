/* RMSNorm at LayerNorm's speed for AVX2: see f32-rmsnorm.h. */
#include "f32-rmsnorm.h"

LN_SIMD_KERNEL(ln_f32_rmsnorm_pipelined_avx2, "f32-rmsnorm-pipelined", LN_F32, LN_OP_RMSNORM, f32_rmsnorm_forward,
               f32_rmsnorm_bound, ln_domain_any_row, 0, LN_TUNABLES(f32_rmsnorm_tunables),
               F32_RMSNORM_HOW "; bound(768, 1) = 75.6, bound(4096, 1e3) = 242");
