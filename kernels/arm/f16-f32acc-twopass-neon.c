/* Two-pass LayerNorm on binary16 storage for NEON: see kernels/x86/half-twopass.h. */
#include "half-vec.h"

#include "../x86/half-twopass.h"

static void forward(const ln_args *a) { half_twopass(a, LN_F16, HALF_EPI_F32, 0); }

static double bound(size_t n, double kappa) { return half_twopass_bound(n, kappa, 0x1p-11); }

#define DOMAIN ln_domain_any_row
#define AGREES_NONFINITE 0
#define HOW                                                                                      \
    "FCVTL widening, fp32 4-lane sums (4 accumulators) for mean then squared deviations (fma), " \
    "fp32 epilogue, FCVTN rounding to f16 once; eps in fp32; bound ~1 u + (n/16) kappa 2^-13 u"

LN_HALF_KERNEL(ln_f16_f32acc_twopass_neon, "f16-f32acc-twopass", LN_F16);
