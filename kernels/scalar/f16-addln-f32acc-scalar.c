/* Residual add + LayerNorm: h = x + r rounded once, then f16-f32acc-twopass-scalar on the stored h,
 * row by row (kernels/add-norm.h); the bound is that kernel's. */
#include "add-norm.h"
#include "bounds.h"

LN_ADD_NORM_KERNEL(f16_addln_f32acc_scalar, "f16-addln-f32acc-scalar", LN_F16, 0, LN_OP_ADD_LAYERNORM, ln_add_elements,
                   f16_f32acc_twopass_scalar, ln_domain_any_row, 0,
                   "f16 x, r widened exactly, h = x + r in fp32 rounded once to f16 (correctly rounded: 24 >= 2p + "
                   "1), then f16-f32acc-twopass-scalar's row on h"
                   "; bound(768, 1) = 2, bound(4096, 1e3) = 2.46e+03");
