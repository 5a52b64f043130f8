/* PyTorch's CPU layer norm (libtorch 1.13, ATen) behind the kernel ABI, shared by the
 * ext-torch-<dtype> wrappers. The C++ stays in torch.cc; this header is C.
 *
 * The call: at::native::LayerNormKernel, the CPU kernel at::layer_norm and
 * at::native_layer_norm run (layer_norm_cpu allocates y, mean and rstd, then calls it), on
 * tensors that wrap the caller's buffers (from_blob, no copy; y written in place of a new
 * tensor). The wrapping tensors are cached per (pointer, shape, dtype), so a timing loop
 * measures the kernel, not tensor construction; the per-call cost of the public operator,
 * which allocates three tensors and goes through the dispatcher, is ln_torch_forward_op's.
 *
 * Threads: one intra-op thread (at::set_num_threads(1), checked on every call: Debian's
 * libtorch uses OpenMP, whose thread count is per calling thread). Dispatch: ATen picks its
 * DEFAULT, AVX2 or AVX-512 build of the kernel at its first call; it is told which through
 * ATEN_CPU_CAPABILITY, set from the CPU's features capped by LNBENCH_ISA (unless the variable
 * is set already), so the AVX-512 build runs on AVX-512 CPUs and a cap applies to ATen too. */
#ifndef LN_EXT_TORCH_H
#define LN_EXT_TORCH_H

#include <math.h>

#include "bounds.h"
#include "kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs PyTorch's layer norm kernel on a, whose x, y, gamma and beta are of dtype t (LN_F32 or
 * LN_BF16): gamma/beta NULL are undefined tensors (no affine), eps as given (ATen rounds it to
 * the data type), mean and rstd out converted to double when asked. name prefixes errors. */
void ln_torch_forward(const ln_args *a, ln_dtype t, const char *name);

/* The same through the public operator as a C++ user calls it: at::layer_norm on tensors
 * wrapping x, gamma and beta, then its new output copied into y. For measuring the
 * per-call overhead the framework adds. */
void ln_torch_forward_op(const ln_args *a, ln_dtype t, const char *name);

/* The fused residual-add LayerNorm (add-layernorm) as a model written in PyTorch runs it, two
 * operators: h = at::add(x, r) over the whole tensor (at::add_out into the caller's h: each
 * element one rounding, as the op asks), then ln_torch_forward's kernel on h. h is written whole
 * and read back, where a fused kernel normalises each row of h while it is in cache. */
void ln_torch_add_forward(const ln_args *a, ln_dtype t, const char *name);

/* Whether libtorch has a CPU layer norm for dtype t (1.13: fp32, fp64 and bf16; not fp16),
 * decided once per dtype by calling it on a small row. */
int ln_torch_usable(ln_dtype t);

/* The intra-op thread count ATen would use for the next call on this thread (for the tests). */
int ln_torch_num_threads(void);

/* The build of ATen's kernels in use: ATEN_CPU_CAPABILITY's value ("default", "avx2", "avx512"),
 * set from the CPU's features under LNBENCH_ISA's cap unless it was set already. */
const char *ln_torch_capability(void);

/* The bound of ATen's fp32 kernel (moments_utils.h's RowwiseMoments, layer_norm_kernel.cpp):
 * each of the vector's L lanes (16 with AVX-512, 8 otherwise) runs Welford over chunks of 16 of
 * its elements, the chunks merge in a binary-counter cascade (ceil(log2(chunks)) levels), then
 * the lanes merge one after another into the scalar Welford of the n mod L tail elements: up to
 * L more levels; counted with L = 8's lanes (longer: one more cascade level) and 16 lane merges,
 * it covers both. ATen merges the larger part into the smaller (the stack into its first slot, a
 * lane into the tail's Welford), so nb / na is up to a lane's count, n / 8. The epilogue is
 * y = (x * rstd + (-rstd * mean)) * gamma + beta: x * rstd and rstd * mean are each rounded
 * at |x| / sigma <= kappa + |xhat| before they cancel, 2 u (kappa + 1) more on xhat. */
static inline double ln_torch_f32_bound(size_t n, double kappa)
{
    const double u = 0x1p-24, lanes = 16, chunk = 16;
    double per_lane = floor((double)n / 8); /* with L = 8: the longer lanes */
    if (per_lane == 0) return ln_bound_cascade((double)n, 0, 1, kappa, u, u) + ln_bound_mean(2, kappa, u, u);
    /* the longest Welford run: a chunk, or the scalar tail (all of a row shorter than L = 16) */
    double run = fmin(chunk, fmax(per_lane, fmin((double)n, lanes - 1)));
    double chunks = ceil(per_lane / chunk), levels = (chunks > 1 ? ceil(log2(chunks)) : 0) + lanes;
    return ln_bound_cascade(run, levels, per_lane, kappa, u, u) + ln_bound_mean(2, kappa, u, u);
}

#ifdef __cplusplus
}
#endif

#endif
