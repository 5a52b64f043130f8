/* fp32 Welford LayerNorm for AVX512: see f32-welford.h. */
#include "f32-welford.h"

LN_SIMD_KERNEL(ln_f32_welford_avx512, "f32-welford", LN_F32, LN_OP_LAYERNORM, f32_welford_forward, f32_welford_bound,
               ln_domain_any_row, 0, LN_NO_TUNABLES,
               F32_WELFORD_HOW "; bound(768, 1) = 405, bound(4096, 1e3) = 3.12e+05");
