/* One-pass (shifted-data) LayerNorm on binary16 storage with AVX-512: see half-shifted.h. */
#include "half-shifted.h"

static void forward(const ln_args *a) { half_shifted(a, LN_F16, HALF_EPI_F32); }

static double bound(size_t n, double kappa) { return half_shifted_bound(n, kappa, 0x1p-11); }

LN_SIMD_KERNEL(ln_f16_f32acc_shifted_avx512, "f16-f32acc-shifted", LN_F16, LN_OP_LAYERNORM, forward, bound,
               ln_domain_any_row, 0, LN_TUNABLES(half_shifted_tunables),
               "F16C widening; one pass: K = mean of the first 32 x, S1 = sum(x-K), S2 = sum(x-K)^2 in "
               "fp32 (4 16-lane accumulators each), rows with (S1/n)^2 > var redone two-pass; 2-row "
               "pipeline, long rows two by two; fp32 epilogue, vcvtps2ph once; bound ~1 u16 + 10 (n/64) 2^-13 u16"
               "; bound(768, 1) = 1.05, bound(4096, 1e3) = 42.3");
