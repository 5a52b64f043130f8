/* PyTorch's bf16 layer norm (libtorch 1.13, ATen's CPU kernel) as a peer: the caller's buffers
 * wrapped as tensors, one thread (see torch.h).
 *
 * 1.13 instantiates the fp32 kernel's template at BFloat16: RowwiseMoments runs on
 * Vectorized<BFloat16>, whose every +, -, * widens to fp32 and rounds back to bf16, so the
 * Welford means and M2 are bf16 numbers; mean, rstd (eps rounded to bf16) and the shift
 * -rstd * mean are bf16 too; only y = x * rstd + shift is fp32, rounded once to bf16. The
 * shift's rounding alone, 2^-9 |mean| / sigma, exceeds the result once kappa passes ~2^8, and
 * bf16 M2 sums lose the variance at any length: no bound is claimed. */
#include "torch.h"

static int usable(void) { return ln_torch_usable(LN_BF16); }

static void forward(const ln_args *a) { ln_torch_forward(a, LN_BF16, "ext-torch-bf16"); }

static double bound(size_t n, double kappa)
{
    (void)n;
    (void)kappa;
    return INFINITY;
}

LN_PEER_KERNEL(ln_ext_torch_bf16, "ext-torch-bf16", LN_BF16, LN_OP_LAYERNORM, forward, bound, usable,
               "PyTorch 1.13 CPU layer norm on bf16 (at::native::LayerNormKernel, one thread): the fp32 "
               "algorithm in bf16 arithmetic (Welford and cascade rounded to bf16 at every op, mean, rstd "
               "and -rstd*mean in bf16), y = x*rstd + shift in fp32; no bound claimed"
               "; bound(768, 1) = inf, bound(4096, 1e3) = inf");
