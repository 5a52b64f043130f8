/* Residual add + RMSNorm with an fp32 residual stream beside f16 x and y, for AVX-512: h = x + r
 * over the 16-bit block layer (kernels/simd/mixed-add.h), then f32-rmsnorm-pipelined-avx512 on
 * the stored h in row blocks, its fp32 y rounded once to f16 (kernels/add-norm.h). */
#include "bounds.h"
#include "mixed-add.h"

LN_MIXED_ADD_NORM_KERNEL(f16_addrms_f32res_avx512, "f16-addrms-f32res-avx512", LN_F16, LN_VEC_ISA, LN_OP_ADD_RMSNORM,
                         mixed_add_run, mixed_narrow_run, f32_rmsnorm_pipelined_avx512, ln_domain_any_row, 0,
                         "f16 x widened, fp32 r, h = x + r in fp32 (correctly rounded), then "
                         "f32-rmsnorm-pipelined-avx512's rows on h in 16 KiB blocks, its fp32 y rounded once to f16; "
                         "from memory h and y streamed"
                         "; bound(768, 1) = 1.01, bound(4096, 1e3) = 1.02");
