/* Residual add + LayerNorm: h = x + r rounded once, then f32-accurate-scalar on the stored h,
 * row by row (kernels/add-norm.h); the bound is that kernel's. */
#include "add-norm.h"
#include "bounds.h"

LN_ADD_NORM_KERNEL(f32_addln_accurate_scalar, "f32-addln-accurate-scalar", LN_F32, 0, LN_OP_ADD_LAYERNORM,
                   ln_add_elements, f32_accurate_scalar, ln_domain_any_row, 1,
                   "h = x + r in fp32 (one rounding), then f32-accurate-scalar's row on h: double compensated mean "
                   "kept as a pair, double squared deviations and epilogue, one rounding to fp32"
                   "; bound(768, 1) = 1, bound(4096, 1e3) = 1");
