/* oneDNN's fp32 layer normalization (libdnnl 2.6) as a peer to compare against: inference
 * mode with scale and shift, the caller's buffers, one thread (see onednn.h). */
#include "bounds.h"
#include "onednn.h"

static int usable(void) { return ln_onednn_usable(LN_F32); }

static void forward(const ln_args *a) { ln_onednn_forward(a, LN_F32, "ext-onednn-f32"); }

/* Two-pass in fp32 (mean, then mean of squared deviations) in an order we do not control:
 * claim the sequential-sum bound, which any summation order meets ((n - 1) u), with eps rounded
 * to float (one more ua in the radicand, inside the epilogue's allowance). */
static double bound(size_t n, double kappa)
{
    const double u = 0x1p-24;
    return ln_bound_twopass((double)n + 1.0, (double)n, kappa, u, u);
}

LN_PEER_KERNEL(ln_ext_onednn_f32, "ext-onednn-f32", LN_F32, LN_OP_LAYERNORM, forward, bound, usable,
               "oneDNN 2.6 layer_normalization_forward (inference, use_scale/use_shift, one thread): "
               "fp32 two-pass; claimed as sequential sums, var rel. error <= (n+3) u + (n+1)^2 kappa^2 u^2"
               "; bound(768, 1) = 8.18e+03, bound(4096, 1e3) = 2.01e+07");
