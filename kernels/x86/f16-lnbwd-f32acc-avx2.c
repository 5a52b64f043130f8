/* LayerNorm backward on binary16 storage with fp32 arithmetic for AVX2: see kernels/simd/norm-bwd.h. */
#define NORM_KIND NORM_LNBWD
#define NORM_HALF_DTYPE LN_F16
#include "norm-bwd.h"

LN_SIMD_KERNEL(ln_f16_lnbwd_f32acc_avx2, "f16-lnbwd-f32acc", LN_F16, LN_OP_LAYERNORM_BWD, norm_bwd_forward,
               norm_bwd_bound, ln_domain_any_row, 1, LN_TUNABLES(norm_bwd_tunables),
               NORM_BWD_HOW "; bound(768, 1) = 1.03, bound(4096, 1e3) = 128");
