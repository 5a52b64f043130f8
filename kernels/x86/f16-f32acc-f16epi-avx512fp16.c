/* Shifted-data LayerNorm on binary16 storage whose statistics are fp32 (as
 * f16-f32acc-shifted-avx512: one pass, four 16-lane accumulators, lanes in double, long rows two
 * by two) and whose epilogue is AVX512-FP16 arithmetic on the f16 words themselves: no widening of x, gamma and
 * beta and no rounding back, 4 instructions per 32 outputs instead of ~14:
 *   y = fma((x - mh) - ml, f16(rstd) * gamma, beta)
 * with the fp32 mean split into mh = f16(mean) and ml = f16(mean - mh) (mean - mh is exact in
 * fp32), so the mean costs u16^2 |mean| instead of u16 |mean| (kappa u16 relative). Rows with
 * rstd outside [2^-12, 2^10] take the fp32 epilogue (half_epi_for, half-shifted.h). */
#include "half-shifted.h"

static void forward(const ln_args *a) { half_shifted(a, LN_F16, HALF_EPI_F16); }

/* The shifted kernel's bound (statistics, and its fp32 epilogue, which covers the rows that take
 * it) plus the f16 epilogue: relative roundings of x - mh, - ml, f16(rstd), * gamma, 4 u16 on
 * gamma xhat (times LN_GAIN_REL; the fma's rounding is the final one); ml's own rounding,
 * u16^2 |mean|; and the f16 subnormal roundings of x - mh - ml and of ml, 2^-25 absolute each,
 * at most 2^-15 sigma with rstd <= 2^10 (times LN_GAIN_ABS). */
static double bound(size_t n, double kappa)
{
    const double u = 0x1p-11;
    return half_shifted_bound(n, kappa, u) + LN_GAIN_REL * 4.0 + ln_bound_mean(1.0, kappa, u * u, u) +
           2.0 * LN_GAIN_ABS * 0x1p-25 * 0x1p10 / u;
}

LN_SIMD_KERNEL(ln_f16_f32acc_f16epi_avx512fp16, "f16-f32acc-f16epi", LN_F16, LN_OP_LAYERNORM, forward, bound,
               ln_domain_any_row, 0, LN_TUNABLES(half_shifted_tunables),
               "fp32 statistics as f16-f32acc-shifted-avx512; epilogue in f16 (AVX512-FP16): "
               "fma((x - mh) - ml, f16(rstd)*g, b), mean = mh + ml; fp32 epilogue where rstd is outside "
               "[2^-12, 2^10]; bound ~14 u16 (4 f16 roundings on xhat)"
               "; bound(768, 1) = 14.4, bound(4096, 1e3) = 57.9");
