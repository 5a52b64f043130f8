/* Residual add + LayerNorm: h = x + r rounded once, then f32-twopass-scalar on the stored h,
 * row by row (kernels/add-norm.h); the bound is that kernel's. */
#include "add-norm.h"
#include "bounds.h"

LN_ADD_NORM_KERNEL(f32_addln_twopass_scalar, "f32-addln-twopass-scalar", LN_F32, 0, LN_OP_ADD_LAYERNORM,
                   ln_add_elements, f32_twopass_scalar, ln_domain_any_row, 0,
                   "h = x + r in fp32 (one rounding), then f32-twopass-scalar's row on h: fp32 sequential mean, "
                   "then fp32 sum of squared deviations, rows whose sums overflow or squares underflow redone in "
                   "double"
                   "; bound(768, 1) = 8.17e+03, bound(4096, 1e3) = 2.01e+07");
