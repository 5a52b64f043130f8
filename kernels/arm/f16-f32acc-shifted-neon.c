/* One-pass (shifted-data) LayerNorm on binary16 storage for NEON: see kernels/simd/half-shifted.h. */
#include "half-shifted.h"

static void forward(const ln_args *a) { half_shifted(a, LN_F16, HALF_EPI_F32); }

static double bound(size_t n, double kappa) { return half_shifted_bound(n, kappa, 0x1p-11); }

LN_SIMD_KERNEL(ln_f16_f32acc_shifted_neon, "f16-f32acc-shifted", LN_F16, LN_OP_LAYERNORM, forward, bound,
               ln_domain_any_row, 0, LN_TUNABLES(half_shifted_tunables),
               "FCVTL widening; one pass: K = mean of the first 8 x, S1 = sum(x-K), S2 = sum(x-K)^2 in "
               "fp32 (4 accumulators each), rows with (S1/n)^2 > var redone two-pass; 2-row pipeline; "
               "fp32 epilogue, FCVTN rounding to f16 once; bound ~1 u16 + 10 (n/16) 2^-13 u16"
               "; bound(768, 1) = 1.17, bound(4096, 1e3) = 149");
