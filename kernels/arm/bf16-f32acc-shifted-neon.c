/* One-pass (shifted-data) LayerNorm on bfloat16 storage for NEON: see kernels/simd/half-shifted.h. */
#include "half-shifted.h"

static void forward(const ln_args *a) { half_shifted(a, LN_BF16, HALF_EPI_F32); }

static double bound(size_t n, double kappa) { return half_shifted_bound(n, kappa, 0x1p-8); }

LN_SIMD_KERNEL(ln_bf16_f32acc_shifted_neon, "bf16-f32acc-shifted", LN_BF16, LN_OP_LAYERNORM, forward, bound,
               ln_domain_any_row, 0, LN_TUNABLES(half_shifted_tunables),
               "bf16 widened by shift/mask (even/odd lanes); one pass: K = mean of the first 8 x, "
               "S1 = sum(x-K), S2 = sum(x-K)^2 in fp32 (4 accumulators each), rows with (S1/n)^2 > var "
               "redone two-pass; 2-row pipeline; fp32 epilogue, integer rounding to bf16 once; "
               "bound ~1 u_bf16 + 10 (n/16) 2^-16"
               "; bound(768, 1) = 1.02, bound(4096, 1e3) = 19.5");
