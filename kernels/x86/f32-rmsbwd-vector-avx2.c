/* f32-rmsbwd-vector for AVX2: see f32-norm-ops-vec.h. */
#define NORM_KIND NORM_RMSBWD
#include "f32-norm-ops-vec.h"

LN_SIMD_KERNEL(ln_f32_rmsbwd_vector_avx2, "f32-rmsbwd-vector", LN_F32, LN_OP_RMSNORM_BWD, norm_vec_forward,
               norm_vec_bound, ln_domain_any_row, 1, LN_NO_TUNABLES,
               NORM_VEC_HOW "; bound(768, 1) = 67, bound(4096, 1e3) = 2.74e+05");
