/* Two-pass LayerNorm on binary16 storage for NEON: see kernels/simd/half-twopass.h. */
#include "half-twopass.h"

static void forward(const ln_args *a) { half_twopass(a, LN_F16, HALF_EPI_F32, 0); }

static double bound(size_t n, double kappa) { return half_twopass_bound(n, kappa, 0x1p-11); }

LN_SIMD_KERNEL(ln_f16_f32acc_twopass_neon, "f16-f32acc-twopass", LN_F16, LN_OP_LAYERNORM, forward, bound,
               ln_domain_any_row, 0, LN_TUNABLES(half_twopass_tunables),
               "FCVTL widening, fp32 4-lane sums (4 accumulators) for mean then squared deviations (fma), "
               "fp32 epilogue, FCVTN rounding to f16 once; eps in fp32; bound ~1 u16 + (n/16) kappa 2^-13 u16"
               "; bound(768, 1) = 1.08, bound(4096, 1e3) = 149");
