/* Residual add + LayerNorm with an fp32 residual stream beside f16 x and y: h = x + r in fp32 (x
 * widened exactly, one rounding), then f32-accurate-scalar on the stored h, its fp32 y
 * rounded once to f16 (kernels/add-norm.h, ln_mixed_add_norm). */
#include "add-norm.h"
#include "bounds.h"

LN_MIXED_ADD_NORM_KERNEL(f16_addln_f32res_scalar, "f16-addln-f32res-scalar", LN_F16, 0, LN_OP_ADD_LAYERNORM,
                         f32_accurate_scalar, ln_domain_any_row, 0,
                         "f16 x widened, fp32 r, h = x + r in fp32 (correctly rounded), then "
                         "f32-accurate-scalar's row on h, its fp32 y rounded once to f16"
                         "; bound(768, 1) = 1, bound(4096, 1e3) = 1");
