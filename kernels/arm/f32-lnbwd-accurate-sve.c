/* Near-correctly-rounded LayerNorm backward for SVE at any vector length: see
 * kernels/simd/f32-norm-bwd-accurate.h. */
#define NORM_KIND NORM_LNBWD
#include "f32-norm-bwd-accurate.h"

LN_SIMD_KERNEL(ln_f32_lnbwd_accurate_sve, "f32-lnbwd-accurate", LN_F32, LN_OP_LAYERNORM_BWD, f32_bwd_accurate_forward,
               f32_bwd_accurate_bound, ln_domain_any_row, 1, LN_TUNABLES(f32_bwd_accurate_tunables),
               F32_BWD_ACCURATE_HOW " at the worst VD_W from 2 to 32; bound(768, 1) = 1, bound(4096, 1e3) = 1");
