/* The block conversions of the 16-bit vector kernels (half-vec.h) as plain functions, so that
 * tests/test_half.c can check them bit for bit against half.h's scalar conversions, as it checks
 * the hardware's: one pair per build of the layer, avx2 (integer bf16 rounding), avx512 (its
 * 32-bit integer bf16 rounding) and avx512bf16 (vcvtne2ps2bf16 and the interleave) on x86, neon
 * (FCVTL / FCVTN, integer bf16 rounding and TRN2) on AArch64. Each takes
 * and gives LN_HALF_BLOCK elements in memory order; the caller checks the CPU
 * (ln_cpu_features()). */
#ifndef LN_SIMD_HALF_BLOCKS_H
#define LN_SIMD_HALF_BLOCKS_H

#include <stdint.h>

#include "dtype.h"
#include "kernel.h"

#define LN_HALF_BLOCK 32 /* a multiple of every build's block (8 NEON, 16 AVX2, 32 AVX-512) */

/* LN_HALF_BLOCK floats rounded to t (LN_F16 or LN_BF16) by the kernels' store path; LN_HALF_BLOCK
 * elements of t widened by the kernels' load path. */
#if LN_X86
void ln_half_block_store_avx2(ln_dtype t, const float *in, uint16_t *out);
void ln_half_block_store_avx512(ln_dtype t, const float *in, uint16_t *out);
void ln_half_block_store_avx512bf16(ln_dtype t, const float *in, uint16_t *out);
void ln_half_block_load_avx2(ln_dtype t, const uint16_t *in, float *out);
void ln_half_block_load_avx512(ln_dtype t, const uint16_t *in, float *out);
void ln_half_block_load_avx512bf16(ln_dtype t, const uint16_t *in, float *out);
#elif LN_ARM64
void ln_half_block_store_neon(ln_dtype t, const float *in, uint16_t *out);
void ln_half_block_load_neon(ln_dtype t, const uint16_t *in, float *out);
#endif

/* The definitions, one line in each half-blocks-<isa>.c (after half-vec.h). */
#define LN_HALF_BLOCKS_DEFINE(isa)                                                                 \
    void ln_half_block_store_##isa(ln_dtype t, const float *in, uint16_t *out)                     \
    {                                                                                              \
        for (int k = 0; k < LN_HALF_BLOCK; k += HB) half_block_store_in_order(t, in + k, out + k); \
    }                                                                                              \
    void ln_half_block_load_##isa(ln_dtype t, const uint16_t *in, float *out)                      \
    {                                                                                              \
        for (int k = 0; k < LN_HALF_BLOCK; k += HB) half_block_load_in_order(t, in + k, out + k);  \
    }

#endif
