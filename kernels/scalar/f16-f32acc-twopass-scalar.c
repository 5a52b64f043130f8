/* Two-pass LayerNorm on binary16 storage, computed in fp32: each element widened exactly, the
 * mean and the variance about it summed sequentially in fp32, the epilogue in fp32 and one
 * rounding to f16 per output (see half.h). */
#include "half.h"

static void forward(const ln_args *a) { ln_half_twopass_scalar(a, LN_F16); }

/* Sequential fp32 sums: ~1 u16 (the final rounding) plus fp32 terms of order n 2^-24 / 2^-11. */
static double bound(size_t n, double kappa) { return ln_half_f32acc_bound((double)n, kappa, 0x1p-11); }

LN_KERNEL_DEFINE(ln_f16_f32acc_twopass_scalar, "f16-f32acc-twopass-scalar", LN_F16, 0, LN_OP_LAYERNORM, forward, bound,
                 ln_domain_any_row, 0, LN_NO_TUNABLES,
                 "f16 widened to fp32; fp32 sequential sums for mean, then squared deviations; fp32 "
                 "epilogue, one rounding to f16; eps in fp32; bound ~1 u16 + n kappa 2^-13 u16"
                 "; bound(768, 1) = 2, bound(4096, 1e3) = 2.46e+03");
