/* Two-pass LayerNorm on bfloat16 storage with AVX-512: widening is a 16-bit shift, fp32 lane
 * accumulators for the mean and the squared deviations, fp32 epilogue, vcvtneps2bf16 (round to
 * nearest even; flushes fp32 subnormals, i.e. outputs below 2^-126, to zero) once per output. */
#include "half.h"

static void forward(const ln_args *a) { ln_half_twopass_avx512(a, LN_BF16, 0); }

/* 16-lane accumulators (4 for the sum, 4 for the squares): <= n/64 + 10 additions per lane. */
static double bound(size_t n, double kappa) { return ln_half_f32acc_bound(n / 64.0 + 10, kappa, 0x1p-8); }

const ln_kernel ln_bf16_f32acc_twopass_avx512bf16 = {
    .name = "bf16-f32acc-twopass-avx512bf16",
    .dtype = LN_BF16,
    .isa = LN_ISA_AVX512 | LN_ISA_AVX512BF16,
    .forward = forward,
    .how = "bf16 widened by shift, fp32 16-lane sums for mean then squared deviations (fma), fp32 "
           "epilogue, vcvtneps2bf16 once; eps in fp32; bound ~1 u_bf16 + (n/64) kappa 2^-16",
    .bound = bound,
};
