/* Residual add + RMSNorm: h = x + r rounded once, then f32-rmsnorm-naive-scalar on the stored h,
 * row by row (kernels/add-norm.h); the bound is that kernel's. */
#include "add-norm.h"
#include "bounds.h"

LN_ADD_NORM_KERNEL(f32_addrms_naive_scalar, "f32-addrms-naive-scalar", LN_F32, 0, LN_OP_ADD_RMSNORM, ln_add_elements,
                   f32_rmsnorm_naive_scalar, ln_domain_any_row, 0,
                   "h = x + r in fp32 (one rounding), then f32-rmsnorm-naive-scalar's row on h: fp32 sequential sum"
                   " of squares and epilogue, rows whose sum overflows or squares underflow redone in double"
                   "; bound(768, 1) = 1.25e+03, bound(4096, 1e3) = 6.58e+03");
