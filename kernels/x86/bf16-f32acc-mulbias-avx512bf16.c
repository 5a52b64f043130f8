/* The fp32 two-pass of bf16-f32acc-twopass-avx512bf16 with the epilogue a popular framework
 * uses for low precision: y = fma(x, rstd, -mean * rstd) * gamma + beta (half_norm's mulbias).
 * The bias -mean * rstd is rounded once, so x - mean is never formed: on a constant row
 * (mean = x exactly, var = 0) y = fma(x, rstd, -fl(x rstd)) is the rounding error of x rstd,
 * ~|x| / sqrt(eps) 2^-24, not 0, and on offset rows the error grows as kappa 2^-24 relative
 * to y. */
#include "half-twopass.h"

static void forward(const ln_args *a) { half_twopass(a, LN_BF16, HALF_EPI_MULBIAS, 1); }

/* As the two-pass, plus the rounding of mean * rstd: |mean| rstd ua <= kappa ua, in u_bf16; and
 * the epilogue's fourth rounding (x rstd + bias, * gamma, + beta), within ln_bound_epilogue's. */
static double bound(size_t n, double kappa) { return half_twopass_bound(n, kappa, 0x1p-8) + kappa * 0x1p-24 / 0x1p-8; }

LN_SIMD_KERNEL(ln_bf16_f32acc_mulbias_avx512bf16, "bf16-f32acc-mulbias", LN_BF16, LN_OP_LAYERNORM, forward, bound,
               ln_domain_any_row, 0, LN_TUNABLES(half_twopass_tunables),
               "as bf16-f32acc-twopass-avx512bf16 but y = fma(x, rstd, -mean*rstd): no x - mean, so "
               "const rows give ~|x|/sqrt(eps) 2^-24 instead of 0; bound adds kappa 2^-16 u_bf16"
               "; bound(768, 1) = 1, bound(4096, 1e3) = 6.18");
