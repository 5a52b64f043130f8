/* Near-correctly-rounded residual add + RMSNorm for AVX512: see kernels/simd/f32-add-rmsnorm-accurate.h. */
#include "f32-add-rmsnorm-accurate.h"

LN_SIMD_KERNEL(ln_f32_addrms_accurate_avx512, "f32-addrms-accurate", LN_F32, LN_OP_ADD_RMSNORM, add_norm_forward,
               f32_rmsnorm_accurate_bound, ln_domain_any_row, 1, LN_TUNABLES(f32_rmsnorm_accurate_tunables),
               F32_ADD_RMSNORM_ACCURATE_HOW "; bound(768, 1) = 1, bound(4096, 1e3) = 1");
