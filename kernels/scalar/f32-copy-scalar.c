/* The f32 copy op (the bandwidth probe) in portable C, for machines without a vector layer: see
 * kernels/simd/copy.h. The compiler may vectorize the loop with the baseline ISA; no
 * non-temporal stores, so no tunable. */
#include "kernel.h"

static void forward(const ln_args *a)
{
    const float *x = a->x;
    float *y = a->y;
    for (size_t i = 0; i < a->rows * a->D; i++) y[i] = 0.5f * x[i] + 1.0f;
}

LN_KERNEL_DEFINE(ln_f32_copy_scalar, "f32-copy-scalar", LN_F32, 0, LN_OP_COPY, forward, NULL, NULL, 0, LN_NO_TUNABLES,
                 "y = 0.5 x + 1 (the bandwidth probe)");
