/* The f16 copy op (the bandwidth probe) for NEON, streaming by STNP: see copy.h. */
#include "copy.h"

LN_SIMD_KERNEL(ln_f16_copy_neon, "f16-copy", LN_F16, LN_OP_COPY, copy_f16_forward, NULL, NULL, 0,
               LN_TUNABLES(copy_tunables), LN_COPY_HOW);
