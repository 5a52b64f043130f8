/* The block conversions of the AVX2 16-bit kernels (half-twopass.h) as plain functions, so that
 * tests/test_half.c can check them bit for bit against half.h's scalar conversions, as it checks
 * the hardware's. Both take and give 16 elements in memory order; the caller checks that the
 * CPU has AVX2 (LN_ISA_AVX2). */
#ifndef LN_X86_HALF_BLOCKS_H
#define LN_X86_HALF_BLOCKS_H

#include <stdint.h>

#include "dtype.h"

/* 16 floats rounded to t (LN_F16 or LN_BF16) by the kernels' store path. */
void ln_half_block_store_avx2(ln_dtype t, const float *in, uint16_t *out);
/* 16 elements of t widened by the kernels' load path. */
void ln_half_block_load_avx2(ln_dtype t, const uint16_t *in, float *out);

#endif
