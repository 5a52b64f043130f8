/* Two-pass LayerNorm on binary16 storage for SVE, fp32 arithmetic, vector-length
 * agnostic: see sve.h. The bound is the fp32-accumulating 16-bit two-pass one
 * (kernels/simd/half-twopass.h) with the run-time lane count. */
#include "sve.h"

static void forward(const ln_args *a) { sve_twopass(a, LN_F16); }

static double bound(size_t n, double kappa)
{
    return ln_half_f32acc_bound(n / (4.0 * sve_lanes()) + 10, kappa, 0x1p-11);
}

#define HOW                                                                                            \
    "f16 widened by FCVT in 32-bit lanes, fp32 W-lane sums (W = svcntw(), 4 accumulators, predicated " \
    "tail) for mean then squared deviations (fma), fp32 epilogue, FCVT rounding to f16 once; "         \
    "eps in fp32; bound ~1 u + (n/(4W)) kappa 2^-13 u, taken at W = 4 (it holds at every W)"

LN_KERNEL_DEFINE(ln_f16_f32acc_twopass_sve, "f16-f32acc-twopass-sve", LN_F16, LN_SVE_ISA, LN_OP_LAYERNORM, forward,
                 bound, ln_domain_any_row, 0, LN_NO_TUNABLES, HOW "; bound(768, 1) = 1.08, bound(4096, 1e3) = 149");
