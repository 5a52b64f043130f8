/* RMSNorm on binary16 storage with fp32 arithmetic for AVX-512: see kernels/simd/half-rmsnorm.h. */
#define HALF_RMSNORM_DTYPE LN_F16
#include "half-rmsnorm.h"

LN_SIMD_KERNEL(ln_f16_rmsnorm_f32acc_avx512, "f16-rmsnorm-f32acc", LN_F16, LN_OP_RMSNORM, half_rmsnorm_forward,
               half_rmsnorm_claim, ln_domain_any_row, 0, LN_TUNABLES(half_rmsnorm_tunables),
               HALF_RMSNORM_HOW "; bound(768, 1) = 1.01, bound(4096, 1e3) = 1.02");
