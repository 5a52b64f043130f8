/* PyTorch's fp32 layer norm through its public operator, as a C++ program calls it: at::layer_norm
 * (dispatcher, autograd and the allocation of y, mean and rstd on every call), then the new y
 * copied into the caller's. The same arithmetic as ext-torch-f32; the difference in time is what
 * the framework adds per call (see torch.h). */
#include "torch.h"

static int usable(void) { return ln_torch_usable(LN_F32); }

static void forward(const ln_args *a) { ln_torch_forward_op(a, LN_F32, "ext-torchop-f32"); }

LN_PEER_KERNEL(ln_ext_torchop_f32, "ext-torchop-f32", LN_F32, LN_OP_LAYERNORM, forward, ln_torch_f32_bound, usable,
               "PyTorch 1.13 at::layer_norm as called from C++ (dispatcher, new y/mean/rstd tensors each "
               "call, one thread), then y copied into the caller's: ext-torch-f32's arithmetic plus the "
               "per-call overhead and the copy"
               "; bound(768, 1) = 4.62e+03, bound(4096, 1e3) = 2.49e+05");
