/* fp32 two-pass LayerNorm for SVE, vector-length agnostic: see sve.h. Its bound is
 * f32-twopass's (kernels/x86/f32-twopass.h) with the run-time lane count. */
#include "sve.h"
#include "vec.h" /* the NEON layer, for f32-passes.h's bound arithmetic */

#include "../x86/f32-passes.h"

static void forward(const ln_args *a) { sve_twopass(a, LN_F32); }

static double bound(size_t n, double kappa) { return f32_lanes_bound(n, kappa, (size_t)(4 * sve_lanes()), 0.0); }

#define DOMAIN ln_domain_any_row
#define AGREES_NONFINITE 0
#define HOW                                                                                     \
    "fp32 two-pass, vector-length agnostic (W = svcntw() lanes, predicated tail), 4 vector "    \
    "accumulators for the mean then for sum (x-mean)^2 (fma), lanes added in double; var rel. " \
    "error <= (n/(4W)+3) u + (n/(4W)+2)^2 kappa^2 u^2; overflow or underflow rows redone in double"

LN_SVE_KERNEL(ln_f32_twopass_sve, "f32-twopass-sve", LN_F32);
