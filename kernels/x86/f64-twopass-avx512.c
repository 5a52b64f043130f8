/* fp64 two-pass LayerNorm for AVX512: see f64-twopass.h. */
#include "f64-twopass.h"

LN_VEC_KERNEL(ln_f64_twopass_avx512, "f64-twopass", LN_F64);
