/* Residual add + RMSNorm on f16 storage: h = x + r over the 16-bit block layer
 * (kernels/simd/half-add.h), then f16-rmsnorm-f32acc-avx512 on each row of the stored h while it
 * is in cache (kernels/add-norm.h); the bound is that kernel's. */
#include "bounds.h"
#include "half-add.h"

LN_ADD_NORM_KERNEL(f16_addrms_f32acc_avx512, "f16-addrms-f32acc-avx512", LN_F16, LN_VEC_ISA, LN_OP_ADD_RMSNORM,
                   half_add_elements, f16_rmsnorm_f32acc_avx512, ln_domain_any_row, 0,
                   "f16 x, r widened, h = x + r in fp32 rounded once to f16 (correctly rounded), then "
                   "f16-rmsnorm-f32acc-avx512's row on h (one-row calls, no row pipeline)"
                   "; bound(768, 1) = 1.01, bound(4096, 1e3) = 1.02");
