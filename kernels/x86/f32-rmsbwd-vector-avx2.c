/* f32-rmsbwd-vector for AVX2: see f32-norm-ops-vec.h. */
#define NORM_KIND 2
#include "f32-norm-ops-vec.h"

const ln_kernel ln_f32_rmsbwd_vector_avx2 = {.name = "f32-rmsbwd-vector-" LN_VEC_NAME,
                                             .dtype = LN_F32,
                                             .isa = LN_VEC_ISA,
                                             .op = LN_OP_RMSNORM_BWD,
                                             .forward = forward,
                                             .how = HOW,
                                             .bound = bound,
                                             .domain = ln_domain_any_row,
                                             .agrees_nonfinite = 1};
