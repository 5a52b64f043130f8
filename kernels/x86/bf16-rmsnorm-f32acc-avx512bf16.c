/* RMSNorm on bfloat16 storage with fp32 arithmetic for AVX-512 with AVX512-BF16 (vcvtne2ps2bf16
 * rounds the outputs, two vectors an instruction, where plain AVX-512 takes seven integer
 * operations a vector; it flushes results below 2^-126 to zero: docs/lowp.md): see
 * kernels/simd/half-rmsnorm.h. */
#define HALF_RMSNORM_DTYPE LN_BF16
#include "half-rmsnorm.h"

LN_SIMD_KERNEL(ln_bf16_rmsnorm_f32acc_avx512bf16, "bf16-rmsnorm-f32acc", LN_BF16, LN_OP_RMSNORM, half_rmsnorm_forward,
               half_rmsnorm_claim, ln_domain_any_row, 0, LN_TUNABLES(half_rmsnorm_tunables),
               HALF_RMSNORM_HOW "; bound(768, 1) = 1, bound(4096, 1e3) = 1");
