/* Two-pass LayerNorm on binary16 storage with AVX-512: vcvtph2ps widens 16 elements at a time,
 * fp32 lane accumulators for the mean and the squared deviations, fp32 epilogue, vcvtps2ph
 * (round to nearest even) once per output. */
#include "half.h"

static void forward(const ln_args *a) { ln_half_twopass_avx512(a, LN_F16, 0); }

/* 16-lane accumulators (4 for the sum, 4 for the squares): <= n/64 + 10 additions per lane. */
static double bound(size_t n, double kappa) { return ln_half_f32acc_bound(n / 64.0 + 10, kappa, 0x1p-11); }

const ln_kernel ln_f16_f32acc_twopass_avx512 = {
    .name = "f16-f32acc-twopass-avx512",
    .dtype = LN_F16,
    .isa = LN_ISA_AVX512,
    .forward = forward,
    .how = "F16C widening, fp32 16-lane sums for mean then squared deviations (fma), fp32 "
           "epilogue, vcvtps2ph once; eps in fp32; bound ~1 u16 + (n/64) kappa 2^-13 u16",
    .bound = bound,
};
