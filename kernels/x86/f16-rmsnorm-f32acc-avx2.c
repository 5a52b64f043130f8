/* RMSNorm on binary16 storage with fp32 arithmetic for AVX2 + F16C: see kernels/simd/half-rmsnorm.h. */
#include "half-rmsnorm.h"

static void forward(const ln_args *a) { half_rmsnorm(a, LN_F16); }

static double bound(size_t n, double kappa)
{
    (void)kappa;
    return half_rmsnorm_bound(n, 0x1p-11);
}

LN_SIMD_KERNEL(ln_f16_rmsnorm_f32acc_avx2, "f16-rmsnorm-f32acc", LN_F16, LN_OP_RMSNORM, forward, bound,
               ln_domain_any_row, 0, LN_TUNABLES(half_rmsnorm_tunables),
               HALF_RMSNORM_HOW "; bound(768, 1) = 1.01, bound(4096, 1e3) = 1.03");
