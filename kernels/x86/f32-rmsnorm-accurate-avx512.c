/* Near-correctly-rounded RMSNorm for AVX512: see f32-rmsnorm-accurate.h. */
#include "f32-rmsnorm-accurate.h"

LN_SIMD_KERNEL(ln_f32_rmsnorm_accurate_avx512, "f32-rmsnorm-accurate", LN_F32, LN_OP_RMSNORM,
               f32_rmsnorm_accurate_forward, f32_rmsnorm_accurate_bound, ln_domain_any_row, 1,
               LN_TUNABLES(f32_rmsnorm_accurate_tunables),
               F32_RMSNORM_ACCURATE_HOW "; bound(768, 1) = 1, bound(4096, 1e3) = 1");
