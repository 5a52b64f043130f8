/* f32-rmsnorm-vector for NEON: see kernels/x86/f32-norm-ops-vec.h. */
#define NORM_KIND NORM_RMSNORM
#include "vec.h"

#include "../x86/f32-norm-ops-vec.h"

NORM_VEC_KERNEL(ln_f32_rmsnorm_vector_neon, "f32-rmsnorm-vector");
