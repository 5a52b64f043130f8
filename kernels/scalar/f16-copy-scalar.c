/* The f16 copy op (the bandwidth probe) in portable C: f16 widened, y = 0.5 x + 1 in fp32,
 * rounded back in software (kernels/simd/copy.h has the vector ones). */
#include "half.h"
#include "kernel.h"

static void forward(const ln_args *a)
{
    const uint16_t *x = a->x;
    uint16_t *y = a->y;
    for (size_t i = 0; i < a->rows * a->D; i++) y[i] = ln_f32_to_f16(0.5f * ln_f16_to_f32(x[i]) + 1.0f);
}

LN_KERNEL_DEFINE(ln_f16_copy_scalar, "f16-copy-scalar", LN_F16, 0, LN_OP_COPY, forward, NULL, NULL, 0, LN_NO_TUNABLES,
                 "y = 0.5 x + 1 (the bandwidth probe), f16 widened and rounded in software");
