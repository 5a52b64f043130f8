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

const ln_kernel ln_ext_onednn_bf16 = {
    .name = "ext-onednn-bf16",
    .dtype = LN_BF16,
    .isa = 0,
    .forward = forward,
    .how = "oneDNN 2.6 layer_normalization_forward on bf16 src/dst (fp32 scale/shift widened per call, "
           "inference, one thread): widened to fp32, two-pass; claimed as sequential fp32 sums, bound "
           "~1 u_bf16 + n kappa 2^-16 u_bf16",
    .bound = bound,
    .domain = ln_domain_any_row,
    .agrees_nonfinite = 0,
    .external = 1,
    .usable = usable,
};
