/* Residual add + LayerNorm: h = x + r rounded once, then bf16-f32acc-twopass-scalar on the stored h,
 * row by row (kernels/add-norm.h); the bound is that kernel's. */
#include "add-norm.h"
#include "bounds.h"

LN_ADD_NORM_KERNEL(bf16_addln_f32acc_scalar, "bf16-addln-f32acc-scalar", LN_BF16, 0, LN_OP_ADD_LAYERNORM,
                   ln_add_elements, bf16_f32acc_twopass_scalar, ln_domain_any_row, 0,
                   "bf16 x, r widened exactly, h = x + r in fp32 rounded once to bf16 (correctly rounded: 24 >= 2p "
                   "+ 1), then bf16-f32acc-twopass-scalar's row on h"
                   "; bound(768, 1) = 1.12, bound(4096, 1e3) = 308");
