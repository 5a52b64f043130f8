/* Two-pass LayerNorm on bfloat16 storage for NEON: see kernels/simd/half-twopass.h. */
#include "half-twopass.h"

static void forward(const ln_args *a) { half_twopass(a, LN_BF16, HALF_EPI_F32, 0); }

static double bound(size_t n, double kappa) { return half_twopass_bound(n, kappa, 0x1p-8); }

LN_SIMD_KERNEL(ln_bf16_f32acc_twopass_neon, "bf16-f32acc-twopass", LN_BF16, LN_OP_LAYERNORM, forward, bound,
               ln_domain_any_row, 0, LN_TUNABLES(half_twopass_tunables),
               "bf16 widened by shift/mask (even/odd lanes), fp32 4-lane sums (4 accumulators) for mean "
               "then squared deviations (fma), fp32 epilogue, integer rounding to bf16 once; eps in "
               "fp32; bound ~1 u_bf16 + (n/16) kappa 2^-16"
               "; bound(768, 1) = 1.01, bound(4096, 1e3) = 19.5");
