/* Two-pass LayerNorm on bfloat16 storage with AVX-512: see half-twopass.h (bf16 widened by a
 * shift or a mask of each 32-bit lane, fp32 lane accumulators, fp32 epilogue, vcvtne2ps2bf16
 * once per output: round to nearest even, flushes fp32 subnormals, i.e. outputs below 2^-126,
 * to zero; rows through the three-row pipeline). */
#include "half-twopass.h"

static void forward(const ln_args *a) { half_twopass(a, LN_BF16, HALF_EPI_F32, 1); }

static double bound(size_t n, double kappa) { return half_twopass_bound(n, kappa, 0x1p-8); }

LN_SIMD_KERNEL(ln_bf16_f32acc_twopass_avx512bf16, "bf16-f32acc-twopass", LN_BF16, LN_OP_LAYERNORM, forward, bound,
               ln_domain_any_row, 0, LN_TUNABLES(half_twopass_tunables),
               "bf16 widened by shift/mask, fp32 16-lane sums (4 accumulators) for mean then squared "
               "deviations (fma), 3-row pipeline, fp32 epilogue, vcvtne2ps2bf16 once; eps in "
               "fp32; double path for overflowed/underflowed sums; bound ~1 u_bf16 + (n/64) kappa 2^-16"
               "; bound(768, 1) = 1, bound(4096, 1e3) = 6.17");
