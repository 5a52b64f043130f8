/* PyTorch's fp32 layer norm (libtorch 1.13, ATen's CPU kernel) as a peer: the caller's buffers
 * wrapped as tensors, y written in place of a new tensor, one thread (see torch.h). */
#include "torch.h"

static int usable(void) { return ln_torch_usable(LN_F32); }

static void forward(const ln_args *a) { ln_torch_forward(a, LN_F32, "ext-torch-f32"); }

LN_PEER_KERNEL(ln_ext_torch_f32, "ext-torch-f32", LN_F32, LN_OP_LAYERNORM, forward, ln_torch_f32_bound, usable,
               "PyTorch 1.13 CPU layer norm (at::native::LayerNormKernel on the caller's buffers, one "
               "thread): fp32 Welford per vector lane over chunks of 16, cascaded (Chan), lanes merged "
               "in turn; y = x*rstd + (-rstd*mean); var rel. error ~(50 + 2 log2(n/256)) kappa u"
               "; bound(768, 1) = 4.62e+03, bound(4096, 1e3) = 2.49e+05");
