/* Near-correctly-rounded RMSNorm for SVE at any vector length: see kernels/simd/f32-rmsnorm-accurate.h. */
#include "f32-rmsnorm-accurate.h"

LN_SIMD_KERNEL(ln_f32_rmsnorm_accurate_sve, "f32-rmsnorm-accurate", LN_F32, LN_OP_RMSNORM, f32_rmsnorm_accurate_forward,
               f32_rmsnorm_accurate_bound, ln_domain_any_row, 1, LN_TUNABLES(f32_rmsnorm_accurate_tunables),
               F32_RMSNORM_ACCURATE_HOW
               "; bound taken at VD_W = 2 (it holds at every width); bound(768, 1) = 1, bound(4096, 1e3) = 1");
