/* The NEON 16-bit block conversions as plain functions, for tests/test_half.c: see
 * kernels/x86/half-blocks.h. */
#include "half-vec.h"

#include "../x86/half-blocks.h"

void ln_half_block_store_neon(ln_dtype t, const float *in, uint16_t *out);
void ln_half_block_load_neon(ln_dtype t, const uint16_t *in, float *out);

LN_HALF_BLOCKS_DEFINE(neon)
