/* Residual add + RMSNorm with an fp32 residual stream beside bf16 x and y, for AVX-512 with
 * AVX512-BF16 (y rounded by vcvtne2ps2bf16, results below 2^-126 flushed to zero: docs/lowp.md):
 * f32-add-rmsnorm.h's pipeline from memory with x widened as it is loaded and y rounded once to bf16
 * as it is stored, in cache f32-rmsnorm-pipelined-avx512 on the stored h in row blocks (kernels/add-norm.h). */
#define ADD_HALF_DTYPE LN_BF16
#include "f32-add-rmsnorm.h"

LN_MIXED_PIPELINE_KERNEL(bf16_addrms_f32res_avx512bf16, "bf16-addrms-f32res-avx512bf16", LN_VEC_ISA, LN_OP_ADD_RMSNORM,
                         ln_domain_any_row, 0,
                         "bf16 x widened, fp32 r, h = x + r in fp32 (correctly rounded), then "
                         "f32-rmsnorm-pipelined-avx512's sums and outputs on h, its fp32 y rounded once to bf16: "
                         "from memory one pipeline streaming h and y, in cache 16 KiB row blocks"
                         "; bound(768, 1) = 1, bound(4096, 1e3) = 1");
