/* f32-rmsbwd-vector for AVX512: see f32-norm-ops-vec.h. */
#define NORM_KIND NORM_RMSBWD
#include "f32-norm-ops-vec.h"

NORM_VEC_KERNEL(ln_f32_rmsbwd_vector_avx512, "f32-rmsbwd-vector");
