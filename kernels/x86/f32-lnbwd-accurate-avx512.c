/* Near-correctly-rounded LayerNorm backward for AVX512: see f32-norm-bwd-accurate.h. */
#define NORM_KIND NORM_LNBWD
#include "f32-norm-bwd-accurate.h"

LN_SIMD_KERNEL(ln_f32_lnbwd_accurate_avx512, "f32-lnbwd-accurate", LN_F32, LN_OP_LAYERNORM_BWD,
               f32_bwd_accurate_forward, f32_bwd_accurate_bound, ln_domain_any_row, 1,
               LN_TUNABLES(f32_bwd_accurate_tunables),
               F32_BWD_ACCURATE_HOW "; bound(768, 1) = 1, bound(4096, 1e3) = 1");
