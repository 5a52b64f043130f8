/* fp64 two-pass LayerNorm for NEON: see kernels/simd/f64-twopass.h. */
#include "f64-twopass.h"

LN_SIMD_KERNEL(ln_f64_twopass_neon, "f64-twopass", LN_F64, LN_OP_LAYERNORM, f64_twopass_forward, f64_twopass_bound,
               ln_domain_any_row, 0, LN_NO_TUNABLES,
               F64_TWOPASS_HOW "; bound(768, 1) = 1.1e+03, bound(4096, 1e3) = 2.33e+06");
