/* f32-rmsnorm-vector for AVX512: see f32-norm-ops-vec.h. */
#define NORM_KIND 0
#include "f32-norm-ops-vec.h"

const ln_kernel ln_f32_rmsnorm_vector_avx512 = {.name = "f32-rmsnorm-vector-" LN_VEC_NAME,
                                                .dtype = LN_F32,
                                                .isa = LN_VEC_ISA,
                                                .op = LN_OP_RMSNORM,
                                                .forward = forward,
                                                .how = HOW,
                                                .bound = bound,
                                                .domain = ln_domain_f32_sums,
                                                .agrees_nonfinite = 0};
