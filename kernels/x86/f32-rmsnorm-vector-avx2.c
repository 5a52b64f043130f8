/* f32-rmsnorm-vector for AVX2: see f32-norm-ops-vec.h. */
#define NORM_KIND NORM_RMSNORM
#include "f32-norm-ops-vec.h"

NORM_VEC_KERNEL(ln_f32_rmsnorm_vector_avx2, "f32-rmsnorm-vector");
