/* LayerNorm backward at the forward's speed for AVX512: see f32-norm-bwd.h. */
#define NORM_KIND NORM_LNBWD
#include "f32-norm-bwd.h"

LN_SIMD_KERNEL(ln_f32_lnbwd_pipelined_avx512, "f32-lnbwd-pipelined", LN_F32, LN_OP_LAYERNORM_BWD, f32_bwd_forward,
               f32_bwd_bound, ln_domain_any_row, 1, LN_TUNABLES(f32_bwd_tunables),
               F32_BWD_HOW "; bound(768, 1) = 117, bound(4096, 1e3) = 5.32e+05");
