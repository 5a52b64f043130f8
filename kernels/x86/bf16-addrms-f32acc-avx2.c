/* Residual add + RMSNorm on bf16 storage: see kernels/simd/half-add-rmsnorm.h. */
#define HALF_RMSNORM_DTYPE LN_BF16
#include "half-add-rmsnorm.h"

LN_SIMD_KERNEL(ln_bf16_addrms_f32acc_avx2, "bf16-addrms-f32acc", LN_BF16, LN_OP_ADD_RMSNORM, half_add_rmsnorm_forward,
               half_rmsnorm_claim, ln_domain_any_row, 0, LN_TUNABLES(half_add_rmsnorm_tunables),
               HALF_ADD_RMSNORM_HOW "; bound(768, 1) = 1, bound(4096, 1e3) = 1");
