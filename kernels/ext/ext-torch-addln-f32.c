/* The fused residual-add LayerNorm as PyTorch runs it, a composite of two operators: at::add
 * (h = x + r, fp32, one rounding per element, written whole), then ext-torch-f32's layer norm
 * kernel on h (see torch.h). The peer of the f32 add-layernorm kernels: what fusing saves is
 * h's trip through memory. Bound: ext-torch-f32's on h (the reference normalises the stored h). */
#include "torch.h"

static int usable(void) { return ln_torch_usable(LN_F32); }

static void forward(const ln_args *a) { ln_torch_add_forward(a, LN_F32, "ext-torch-addln-f32"); }

LN_PEER_KERNEL(ln_ext_torch_addln_f32, "ext-torch-addln-f32", LN_F32, LN_OP_ADD_LAYERNORM, forward, ln_torch_f32_bound,
               usable,
               "PyTorch 1.13 composite: at::add_out(h, x, r) over the whole tensor, then "
               "at::native::LayerNormKernel on h (one thread): ext-torch-f32's Welford cascade and "
               "epilogue on the stored h"
               "; bound(768, 1) = 4.62e+03, bound(4096, 1e3) = 2.49e+05");
