/* The f32 copy op (the bandwidth probe) for NEON, streaming by STNP: see copy.h. */
#include "copy.h"

LN_SIMD_KERNEL(ln_f32_copy_neon, "f32-copy", LN_F32, LN_OP_COPY, copy_f32_forward, NULL, NULL, 0,
               LN_TUNABLES(copy_tunables), LN_COPY_HOW);
