/* f32-rmsbwd-vector for NEON: see kernels/simd/f32-norm-ops-vec.h. */
#define NORM_KIND NORM_RMSBWD
#include "f32-norm-ops-vec.h"

LN_SIMD_KERNEL(ln_f32_rmsbwd_vector_neon, "f32-rmsbwd-vector", LN_F32, LN_OP_RMSNORM_BWD, norm_vec_forward,
               norm_vec_bound, ln_domain_any_row, 1, LN_NO_TUNABLES,
               NORM_VEC_HOW "; bound(768, 1) = 115, bound(4096, 1e3) = 5.3e+05");
