/* Two-pass LayerNorm on bfloat16 storage, computed in fp32: each element widened exactly, the
 * mean and the variance about it summed sequentially in fp32, the epilogue in fp32 and one
 * rounding to bf16 per output (see half.h). */
#include "half.h"

static void forward(const ln_args *a) { ln_half_twopass_scalar(a, LN_BF16); }

/* Sequential fp32 sums: ~1 u_bf16 (the final rounding) plus fp32 terms of order n 2^-24 / 2^-8. */
static double bound(size_t n, double kappa) { return ln_half_f32acc_bound((double)n, kappa, 0x1p-8); }

LN_KERNEL_DEFINE(ln_bf16_f32acc_twopass_scalar, "bf16-f32acc-twopass-scalar", LN_BF16, 0, LN_OP_LAYERNORM, forward,
                 bound, ln_domain_any_row, 0, LN_NO_TUNABLES,
                 "bf16 widened to fp32; fp32 sequential sums for mean, then squared deviations; fp32 "
                 "epilogue, one rounding to bf16; eps in fp32; bound ~1 u_bf16 + n kappa 2^-16 u_bf16"
                 "; bound(768, 1) = 1.12, bound(4096, 1e3) = 308");
