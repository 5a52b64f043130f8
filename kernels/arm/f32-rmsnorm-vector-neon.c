/* f32-rmsnorm-vector for NEON: see kernels/simd/f32-norm-ops-vec.h. */
#define NORM_KIND NORM_RMSNORM
#include "f32-norm-ops-vec.h"

LN_SIMD_KERNEL(ln_f32_rmsnorm_vector_neon, "f32-rmsnorm-vector", LN_F32, LN_OP_RMSNORM, norm_vec_forward,
               norm_vec_bound, ln_domain_any_row, 0, LN_NO_TUNABLES,
               NORM_VEC_HOW "; bound(768, 1) = 106, bound(4096, 1e3) = 439");
