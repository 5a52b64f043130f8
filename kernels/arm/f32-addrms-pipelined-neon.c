/* Residual add + RMSNorm at memory speed for NEON: see kernels/simd/f32-add-rmsnorm.h. */
#include "f32-add-rmsnorm.h"

LN_SIMD_KERNEL(ln_f32_addrms_pipelined_neon, "f32-addrms-pipelined", LN_F32, LN_OP_ADD_RMSNORM, add_norm_forward,
               f32_rmsnorm_bound, ln_domain_any_row, 0, LN_TUNABLES(f32_rmsnorm_tunables),
               F32_ADD_RMSNORM_HOW "; bound(768, 1) = 114, bound(4096, 1e3) = 447");
