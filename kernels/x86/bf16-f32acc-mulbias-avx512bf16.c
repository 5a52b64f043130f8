/* The fp32 two-pass of bf16-f32acc-twopass-avx512bf16 with the epilogue a popular framework
 * uses for low precision: y = fma(x, rstd, -mean * rstd) * gamma + beta. The bias -mean * rstd
 * is rounded once, so x - mean is never formed: on a constant row (mean = x exactly, var = 0)
 * y = fma(x, rstd, -fl(x rstd)) is the rounding error of x rstd, ~|x| / sqrt(eps) 2^-24, not 0,
 * and on offset rows the error grows as kappa 2^-24 relative to y. */
#include "half.h"

static void forward(const ln_args *a) { ln_half_twopass_avx512(a, LN_BF16, 1); }

/* As the two-pass, plus the rounding of mean * rstd: |mean| rstd ua <= kappa ua, in u_bf16. */
static double bound(size_t n, double kappa)
{
    return ln_half_f32acc_bound(n / 64.0 + 10, kappa, 0x1p-8) + kappa * 0x1p-24 / 0x1p-8;
}

const ln_kernel ln_bf16_f32acc_mulbias_avx512bf16 = {
    .name = "bf16-f32acc-mulbias-avx512bf16",
    .dtype = LN_BF16,
    .isa = LN_ISA_AVX512 | LN_ISA_AVX512BF16,
    .forward = forward,
    .how = "as bf16-f32acc-twopass-avx512bf16 but y = fma(x, rstd, -mean*rstd): no x - mean, so "
           "const rows give ~|x|/sqrt(eps) 2^-24 instead of 0; bound adds kappa 2^-16 u_bf16",
    .bound = bound,
};
