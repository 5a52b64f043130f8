/* The NEON 16-bit block layer: the hooks of kernels/x86/half-vec.h (see there) for 4-lane fp32
 * vectors, so the 16-bit templates (kernels/simd/half-twopass.h, half-shifted.h, copy.h) compile
 * for AArch64 unchanged. A block is HB = 8 16-bit elements, one 128-bit register: f16 widened
 * by FCVTL (elements 0..3 and 4..7) and rounded by FCVTN (nearest even, the FPCR default),
 * bf16 widened by a shift and a mask (the even and the odd elements) and rounded with
 * integers as on AVX2, the two halves put back in memory order by one TRN2. Partial blocks go
 * through a zeroed buffer: no access past the n words asked for. */
#ifndef LN_ARM_HALF_VEC_H
#define LN_ARM_HALF_VEC_H

#include "half.h"
#include "vec.h"

#if defined(__ARM_FEATURE_SVE) /* vf_pair holds two vectors: SVE's sizeless ones cannot be members */
#error "the 16-bit block layer has no SVE form: SVE 16-bit kernels use sve.h"
#endif

#define HB (2 * VF_W) /* 16-bit elements per block */

/* half_block_store's stream argument: 0 ordinary stores; non-temporal ones (STNP) otherwise. */
#define HALF_STREAM 1
#define HALF_STREAM_LINE 2

typedef struct {
    vf a, b;
} vf_pair;

typedef uint16x8_t hwords;

LN_INLINE vf_pair half_block_widen(ln_dtype t, hwords v)
{
    if (t == LN_F16) {
        float16x8_t h = vreinterpretq_f16_u16(v);
        return (vf_pair){vcvt_f32_f16(vget_low_f16(h)), vcvt_high_f32_f16(h)};
    }
    uint32x4_t w = vreinterpretq_u32_u16(v);
    return (vf_pair){vreinterpretq_f32_u32(vshlq_n_u32(w, 16)),
                     vreinterpretq_f32_u32(vandq_u32(w, vdupq_n_u32(0xffff0000u)))};
}

LN_INLINE vf_pair half_block_load(ln_dtype t, const uint16_t *p) { return half_block_widen(t, vld1q_u16(p)); }

/* A block in memory order and back (see the x86 layer's): bf16 blocks hold the even and the odd
 * elements. */
LN_INLINE vf_pair half_block_in_order(ln_dtype t, vf_pair v)
{
    if (t == LN_F16) return v;
    return (vf_pair){vzip1q_f32(v.a, v.b), vzip2q_f32(v.a, v.b)};
}
LN_INLINE vf_pair half_block_of_order(ln_dtype t, vf_pair v)
{
    if (t == LN_F16) return v;
    return (vf_pair){vuzp1q_f32(v.a, v.b), vuzp2q_f32(v.a, v.b)};
}

/* Each lane rounded to bf16 (nearest even by integer carry, so overflow gives Inf and
 * subnormals stay), in the top 16 bits; NaN lanes made quiet instead. */
LN_INLINE uint32x4_t bf16_round_hi(vf v)
{
    uint32x4_t x = vreinterpretq_u32_f32(v);
    uint32x4_t r = vaddq_u32(x, vaddq_u32(vandq_u32(vshrq_n_u32(x, 16), vdupq_n_u32(1)), vdupq_n_u32(0x7fff)));
    return vbslq_u32(vceqq_f32(v, v), r, vorrq_u32(x, vdupq_n_u32(0x400000)));
}

/* The block v, as half_block_load laid it out, rounded to the 16-bit format: its 8 words. */
LN_INLINE hwords half_block_narrow(ln_dtype t, vf_pair v)
{
    if (t == LN_F16) return vreinterpretq_u16_f16(vcvt_high_f16_f32(vcvt_f16_f32(v.a), v.b));
    return vtrn2q_u16(vreinterpretq_u16_u32(bf16_round_hi(v.a)), vreinterpretq_u16_u32(bf16_round_hi(v.b)));
}

LN_INLINE void half_block_store(ln_dtype t, uint16_t *p, vf_pair v, int stream)
{
    hwords w = half_block_narrow(t, v);
    if (stream)
        __asm__ volatile("stnp %d0, %d1, [%2]" : : "w"(vget_low_u16(w)), "w"(vget_high_u16(w)), "r"(p) : "memory");
    else vst1q_u16(p, w);
}

/* The first n < HB elements (the rest of the block reads as 0). */
LN_INLINE vf_pair half_block_load_part(ln_dtype t, const uint16_t *p, size_t n)
{
    uint16_t w[8] = {0};
    memcpy(w, p, n * sizeof *p);
    return half_block_widen(t, vld1q_u16(w));
}

LN_INLINE void half_block_store_part(ln_dtype t, uint16_t *p, vf_pair v, size_t n)
{
    uint16_t w[8];
    vst1q_u16(w, half_block_narrow(t, v));
    memcpy(p, w, n * sizeof *p);
}

/* v with the lanes of elements n .. HB-1 zeroed (lane i of a holds element i for f16, 2i for
 * bf16; of b, element 4 + i or 2i + 1). */
LN_INLINE vf_pair half_block_keep(ln_dtype t, vf_pair v, size_t n)
{
    const uint32x4_t iota = {0, 1, 2, 3}, vn = vdupq_n_u32((uint32_t)n);
    uint32x4_t ea = t == LN_F16 ? iota : vshlq_n_u32(iota, 1);
    uint32x4_t eb = t == LN_F16 ? vaddq_u32(iota, vdupq_n_u32(4)) : vaddq_u32(ea, vdupq_n_u32(1));
    return (vf_pair){vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(v.a), vcltq_u32(ea, vn))),
                     vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(v.b), vcltq_u32(eb, vn)))};
}

#include "half-vec-tail.h"

#endif
