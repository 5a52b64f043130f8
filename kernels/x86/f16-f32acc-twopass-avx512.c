/* Two-pass LayerNorm on binary16 storage with AVX-512: see half-twopass.h (vcvtph2ps widens 16
 * elements at a time, fp32 lane accumulators, fp32 epilogue, vcvtps2ph once per output; the rows
 * through the three-row pipeline). */
#include "half-twopass.h"

static void forward(const ln_args *a) { half_twopass(a, LN_F16, HALF_EPI_F32, 1); }

static double bound(size_t n, double kappa) { return half_twopass_bound(n, kappa, 0x1p-11); }

LN_SIMD_KERNEL(ln_f16_f32acc_twopass_avx512, "f16-f32acc-twopass", LN_F16, LN_OP_LAYERNORM, forward, bound,
               ln_domain_any_row, 0, LN_TUNABLES(half_twopass_tunables),
               "F16C widening, fp32 16-lane sums (4 accumulators) for mean then squared deviations (fma), "
               "3-row pipeline, fp32 epilogue, vcvtps2ph once; eps in fp32; double path for "
               "overflowed/underflowed sums; bound ~1 u16 + (n/64) kappa 2^-13 u16"
               "; bound(768, 1) = 1.03, bound(4096, 1e3) = 42.3");
