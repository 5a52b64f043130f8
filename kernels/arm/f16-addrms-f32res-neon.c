/* Residual add + RMSNorm with an fp32 residual stream beside f16 x and y, for NEON: f32-add-rmsnorm.h's
 * pipeline from memory with x widened as it is loaded and y rounded once to f16 as it is stored,
 * in cache f32-rmsnorm-pipelined-neon on the stored h in row blocks (kernels/add-norm.h). */
#define ADD_HALF_DTYPE LN_F16
#include "f32-add-rmsnorm.h"

LN_MIXED_PIPELINE_KERNEL(f16_addrms_f32res_neon, "f16-addrms-f32res-neon", LN_VEC_ISA, LN_OP_ADD_RMSNORM,
                         ln_domain_any_row, 0,
                         "f16 x widened, fp32 r, h = x + r in fp32 (correctly rounded), then "
                         "f32-rmsnorm-pipelined-neon's sums and outputs on h, its fp32 y rounded once to f16: "
                         "from memory one pipeline streaming h and y, in cache 16 KiB row blocks"
                         "; bound(768, 1) = 1.01, bound(4096, 1e3) = 1.05");
