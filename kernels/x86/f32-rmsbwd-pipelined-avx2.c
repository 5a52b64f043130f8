/* RMSNorm backward at the forward's speed for AVX2: see norm-bwd.h. */
#define NORM_KIND NORM_RMSBWD
#include "norm-bwd.h"

LN_SIMD_KERNEL(ln_f32_rmsbwd_pipelined_avx2, "f32-rmsbwd-pipelined", LN_F32, LN_OP_RMSNORM_BWD, norm_bwd_forward,
               norm_bwd_bound, ln_domain_any_row, 1, LN_TUNABLES(norm_bwd_tunables),
               NORM_BWD_HOW "; bound(768, 1) = 213, bound(4096, 1e3) = 1.04e+06");
