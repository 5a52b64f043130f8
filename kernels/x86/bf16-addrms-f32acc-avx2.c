/* Residual add + RMSNorm on bf16 storage: h = x + r over the 16-bit block layer
 * (kernels/simd/half-add.h), then bf16-rmsnorm-f32acc-avx2 on each row of the stored h while it
 * is in cache (kernels/add-norm.h); the bound is that kernel's. */
#include "bounds.h"
#include "half-add.h"

LN_ADD_NORM_KERNEL(bf16_addrms_f32acc_avx2, "bf16-addrms-f32acc-avx2", LN_BF16, LN_VEC_ISA, LN_OP_ADD_RMSNORM,
                   half_add_elements, bf16_rmsnorm_f32acc_avx2, ln_domain_any_row, 0,
                   "bf16 x, r widened, h = x + r in fp32 rounded once to bf16 (correctly rounded), then "
                   "bf16-rmsnorm-f32acc-avx2's row on h (one-row calls, no row pipeline)"
                   "; bound(768, 1) = 1, bound(4096, 1e3) = 1");
