/* RMSNorm on bfloat16 storage with fp32 arithmetic for NEON: see kernels/simd/half-rmsnorm.h. */
#include "half-rmsnorm.h"

static void forward(const ln_args *a) { half_rmsnorm(a, LN_BF16); }

static double bound(size_t n, double kappa)
{
    (void)kappa;
    return half_rmsnorm_bound(n, 0x1p-8);
}

LN_SIMD_KERNEL(ln_bf16_rmsnorm_f32acc_neon, "bf16-rmsnorm-f32acc", LN_BF16, LN_OP_RMSNORM, forward, bound,
               ln_domain_any_row, 0, LN_TUNABLES(half_rmsnorm_tunables),
               HALF_RMSNORM_HOW "; bound(768, 1) = 1, bound(4096, 1e3) = 1.01");
