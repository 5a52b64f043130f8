/* Residual add + LayerNorm: h = x + r over the vector layer (kernels/simd/f32-add.h), then
 * f32-shifted-avx512 on each row of the stored h while it is in cache (kernels/add-norm.h); the
 * bound is f32-shifted's. */
#include "f32-add.h"
#include "bounds.h"

LN_ADD_NORM_KERNEL(f32_addln_shifted_avx512, "f32-addln-shifted-avx512", LN_F32, LN_VEC_ISA, LN_OP_ADD_LAYERNORM,
                   f32_add_elements, f32_shifted_avx512, ln_domain_any_row, 0,
                   "h = x + r in fp32 (one rounding, vector adds), then f32-shifted-avx512's row on h: one pass for "
                   "the sums about a shift, fp32 epilogue; one-row calls, so no row pipeline"
                   "; bound(768, 1) = 435, bound(4096, 1e3) = 2.98e+05");
