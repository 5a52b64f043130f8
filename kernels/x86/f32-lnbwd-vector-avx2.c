/* f32-lnbwd-vector for AVX2: see f32-norm-ops-vec.h. */
#define NORM_KIND NORM_LNBWD
#include "f32-norm-ops-vec.h"

NORM_VEC_KERNEL(ln_f32_lnbwd_vector_avx2, "f32-lnbwd-vector");
