/* fp32 two-pass LayerNorm for SVE, vector-length agnostic: see sve.h. Its bound is
 * f32-twopass's (kernels/simd/f32-twopass.h) with the run-time lane count. */
#include "bounds.h"
#include "sve.h"

static void forward(const ln_args *a) { sve_twopass(a, LN_F32); }

static double bound(size_t n, double kappa) { return ln_bound_f32_lanes(n, kappa, (size_t)(4 * sve_lanes()), 0.0); }

#define HOW                                                                                                            \
    "fp32 two-pass, vector-length agnostic (W = svcntw() lanes, predicated tail), 4 vector "                           \
    "accumulators for the mean then for sum (x-mean)^2 (fma), lanes added in double; var rel. "                        \
    "error <= (n/(4W)+3) u + (n/(4W)+2)^2 kappa^2 u^2; overflow or underflow rows redone in double; bound taken at W " \
    "= 4 (it holds at every W)"

LN_KERNEL_DEFINE(ln_f32_twopass_sve, "f32-twopass-sve", LN_F32, LN_SVE_ISA, LN_OP_LAYERNORM, forward, bound,
                 ln_domain_any_row, 0, LN_NO_TUNABLES, HOW "; bound(768, 1) = 554, bound(4096, 1e3) = 1.17e+06");
