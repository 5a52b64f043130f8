/* oneDNN's bf16 layer normalization (libdnnl 2.6) as a peer to the bf16 kernels: bf16 src and
 * dst, scale and shift in fp32 (2.6 requires it: gamma/beta are widened on each call, exactly),
 * inference mode, one thread (see onednn.h). oneDNN widens x to fp32 and computes there. */
#include "half.h"
#include "onednn.h"

static int usable(void) { return ln_onednn_usable(LN_BF16); }

static void forward(const ln_args *a) { ln_onednn_forward(a, LN_BF16, "ext-onednn-bf16"); }

/* fp32 two-pass in an order we do not control: the sequential-sum bound (any order meets it),
 * then one rounding to bf16. */
static double bound(size_t n, double kappa) { return ln_half_f32acc_bound((double)n, kappa, 0x1p-8); }

LN_PEER_KERNEL(ln_ext_onednn_bf16, "ext-onednn-bf16", LN_BF16, LN_OP_LAYERNORM, forward, bound, usable,
               "oneDNN 2.6 layer_normalization_forward on bf16 src/dst (fp32 scale/shift widened per call, "
               "inference, one thread): widened to fp32, two-pass; claimed as sequential fp32 sums, bound "
               "~1 u_bf16 + n kappa 2^-16 u_bf16"
               "; bound(768, 1) = 1.12, bound(4096, 1e3) = 308");
