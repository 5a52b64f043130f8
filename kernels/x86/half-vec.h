/* The 16-bit block layer over vec.h: the only ISA-specific code of the fp32-accumulating 16-bit
 * kernels (half-twopass.h, half-shifted.h). A block is HB = 2 W 16-bit elements (f16 or bf16),
 * widened into two fp32 vectors and rounded back; everything else is written once on vf.
 *
 * The widening trick for bf16: a bf16 is the top half of a float, so one load of HB bf16 gives
 * the even elements as floats by a 16-bit left shift of each 32-bit lane and the odd ones by
 * masking off its low half: two in-lane integer operations, no shuffles. Sums do not care in
 * which lane an element sits, so a block is "two vectors" without a fixed order: f16 blocks
 * are elements 0..W-1 and W..2W-1 (vcvtph2ps), bf16 blocks the even and the odd ones; the
 * epilogue computes on that layout (gamma and beta loaded the same way) and the rounding puts
 * the words back in memory order.
 *
 * Hooks, per ISA: hwords (the HB words as one integer vector), half_block_widen, half_block_load,
 * half_block_load_part (the first n < HB elements, the rest 0, no access past them), half_block_narrow (round
 * to the 16-bit format), half_block_store (stream: non-temporal, vector-aligned p), half_block_store_part,
 * half_block_keep (zero the lanes of elements n..HB-1); on AVX-512 also hwords_* (the words as they
 * are) and, where the ISA has it, f16 arithmetic (vh_*, LN_VEC_F16_ARITH). */
#ifndef LN_X86_HALF_VEC_H
#define LN_X86_HALF_VEC_H

#include "half.h"
#include "vec.h"

#define HB (2 * VF_W) /* 16-bit elements per block */

/* half_block_store's stream argument: 0 ordinary stores; HALF_STREAM non-temporal ones (f16 as
 * its two converted halves); HALF_STREAM_LINE non-temporal, f16 packed first into one whole
 * 64-byte line on AVX-512 (as HALF_STREAM on AVX2, whose block is half a line). */
#define HALF_STREAM 1
#define HALF_STREAM_LINE 2

/* A block of HB 16-bit elements as two fp32 vectors (loads and stores here agree on which element
 * goes where; sums do not care). */
typedef struct {
    vf a, b;
} vf_pair;

#if VF_W == 8

typedef __m256i hwords;

/* A block's 16 words widened: f16 by vcvtph2ps, bf16 by the shift and the mask. */
LN_INLINE vf_pair half_block_widen(ln_dtype t, __m256i v)
{
    if (t == LN_F16)
        return (vf_pair){_mm256_cvtph_ps(_mm256_castsi256_si128(v)), _mm256_cvtph_ps(_mm256_extracti128_si256(v, 1))};
    return (vf_pair){_mm256_castsi256_ps(_mm256_slli_epi32(v, 16)),
                     _mm256_castsi256_ps(_mm256_and_si256(v, _mm256_set1_epi32((int)0xffff0000u)))};
}

LN_INLINE vf_pair half_block_load(ln_dtype t, const uint16_t *p)
{
    if (t == LN_F16) /* vcvtph2ps straight from memory */
        return (vf_pair){_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p)),
                         _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(p + 8)))};
    return half_block_widen(t, _mm256_loadu_si256((const __m256i *)p));
}

/* A block as half_block_load lays it out put in memory order (a: elements 0..W-1, b: W..2W-1),
 * and back: for arithmetic with fp32 arrays (the mixed-format kernels' fp32 residual). f16
 * blocks are in memory order already; bf16 blocks hold the even and the odd elements. */
LN_INLINE vf_pair half_block_in_order(ln_dtype t, vf_pair v)
{
    if (t == LN_F16) return v;
    __m256 lo = _mm256_unpacklo_ps(v.a, v.b), hi = _mm256_unpackhi_ps(v.a, v.b);
    return (vf_pair){_mm256_permute2f128_ps(lo, hi, 0x20), _mm256_permute2f128_ps(lo, hi, 0x31)};
}
LN_INLINE vf_pair half_block_of_order(ln_dtype t, vf_pair v)
{
    if (t == LN_F16) return v;
    __m256d even = _mm256_castps_pd(_mm256_shuffle_ps(v.a, v.b, 0x88));
    __m256d odd = _mm256_castps_pd(_mm256_shuffle_ps(v.a, v.b, 0xdd));
    return (vf_pair){_mm256_castpd_ps(_mm256_permute4x64_pd(even, 0xd8)),
                     _mm256_castpd_ps(_mm256_permute4x64_pd(odd, 0xd8))};
}

/* Each lane rounded to bf16 (nearest even, the integer rounding of ln_f32_to_bf16: carries walk
 * into the exponent, so overflow gives Inf and subnormals stay), in the top 16 bits of the
 * lane; with nans, NaN lanes are made quiet instead (the carry could turn them into Inf). */
LN_INLINE __m256i bf16_round_hi(vf v, int nans)
{
    __m256i x = _mm256_castps_si256(v);
    __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(1));
    __m256 r = _mm256_castsi256_ps(_mm256_add_epi32(x, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7fff))));
    if (nans) {
        __m256 quiet = _mm256_castsi256_ps(_mm256_or_si256(x, _mm256_set1_epi32(0x400000)));
        r = _mm256_blendv_ps(r, quiet, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    }
    return _mm256_castps_si256(r);
}

/* The block v as half_block_load laid it out: the even lanes' bf16 in the low halves, the odd ones' in
 * the high halves. NaNs are rare, so one test per block picks the rounding that handles them. */
LN_INLINE __m256i bf16_pack(vf_pair v)
{
    const __m256i hi = _mm256_set1_epi32((int)0xffff0000u);
    __m256 unord = _mm256_cmp_ps(v.a, v.b, _CMP_UNORD_Q); /* lanes where either is NaN */
    if (__builtin_expect(!_mm256_testz_ps(unord, unord), 0))
        return _mm256_or_si256(_mm256_srli_epi32(bf16_round_hi(v.a, 1), 16),
                               _mm256_and_si256(bf16_round_hi(v.b, 1), hi));
    /* no NaN: the top halves of a and b and, beside them, their low halves as packed 16-bit
     * words; a word rounds up where low + lsb > 0x8000 (nearest, ties to even; the carry walks
     * into the exponent), compared unsigned through a flip of the sign bit */
    __m256i ia = _mm256_castps_si256(v.a), ib = _mm256_castps_si256(v.b);
    __m256i top = _mm256_blend_epi16(_mm256_srli_epi32(ia, 16), ib, 0xaa);
    __m256i low = _mm256_blend_epi16(ia, _mm256_slli_epi32(ib, 16), 0xaa);
    __m256i t = _mm256_adds_epu16(low, _mm256_and_si256(top, _mm256_set1_epi16(1)));
    __m256i up = _mm256_cmpgt_epi16(_mm256_xor_si256(t, _mm256_set1_epi16((short)0x8000)), _mm256_setzero_si256());
    return _mm256_sub_epi16(top, up);
}

/* 8 floats rounded to f16 (vcvtps2ph, nearest even). */
LN_INLINE __m128i f16_round(vf v) { return _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }

/* The block v, as half_block_load laid it out, rounded to the 16-bit format: its 16 words. */
LN_INLINE __m256i half_block_narrow(ln_dtype t, vf_pair v)
{
    if (t == LN_F16) return _mm256_set_m128i(f16_round(v.b), f16_round(v.a));
    return bf16_pack(v);
}

/* The block v rounded and stored; stream: non-temporal stores (p must then be 32-byte aligned).
 * f16 stores its two vcvtps2ph halves as they come, without half_block_narrow's insert. */
LN_INLINE void half_block_store(ln_dtype t, uint16_t *p, vf_pair v, int stream)
{
    if (t == LN_F16) {
        __m128i lo = f16_round(v.a), hi = f16_round(v.b);
        if (stream) _mm_stream_si128((__m128i *)p, lo), _mm_stream_si128((__m128i *)(p + 8), hi);
        else _mm_storeu_si128((__m128i *)p, lo), _mm_storeu_si128((__m128i *)(p + 8), hi);
    } else if (stream) {
        _mm256_stream_si256((__m256i *)p, bf16_pack(v));
    } else {
        _mm256_storeu_si256((__m256i *)p, bf16_pack(v));
    }
}

/* Partial blocks, the first n < HB words, without touching memory past them (a row's tail, in
 * place or not): the n/2 whole 32-bit words by vpmaskmovd, an odd last word on its own. Copying
 * through a small buffer instead stalled every tail on store-to-load forwarding (D 257 ran at
 * half the rows/s of D 256). */
static const int32_t half_block_words_on[16] = {-1, -1, -1, -1, -1, -1, -1, -1};
static const int16_t half_block_word_at[31] = {[15] = -1};

LN_INLINE __m256i half_block_words_part(const uint16_t *p, size_t n)
{
    __m256i whole = _mm256_loadu_si256((const __m256i *)(half_block_words_on + 8 - n / 2));
    __m256i v = _mm256_maskload_epi32((const int *)p, whole);
    if (n & 1) /* p[n-1] broadcast, blended into word n-1 */
        v = _mm256_blendv_epi8(v, _mm256_set1_epi16((short)p[n - 1]),
                               _mm256_loadu_si256((const __m256i *)(half_block_word_at + 16 - n)));
    return v;
}

LN_INLINE void half_block_store_words_part(uint16_t *p, __m256i v, size_t n)
{
    _mm256_maskstore_epi32((int *)p, _mm256_loadu_si256((const __m256i *)(half_block_words_on + 8 - n / 2)), v);
    if (n & 1) /* word n-1 is the low half of 32-bit lane (n-1)/2 */
        p[n - 1] = (uint16_t)_mm256_cvtsi256_si32(_mm256_permutevar8x32_epi32(v, _mm256_set1_epi32((int)(n - 1) / 2)));
}

/* The first n < HB elements (the rest of the block reads as 0). */
LN_INLINE vf_pair half_block_load_part(ln_dtype t, const uint16_t *p, size_t n)
{
    return half_block_widen(t, half_block_words_part(p, n));
}

LN_INLINE void half_block_store_part(ln_dtype t, uint16_t *p, vf_pair v, size_t n)
{
    half_block_store_words_part(p, half_block_narrow(t, v), n);
}

/* v with the lanes of elements n .. HB-1 zeroed: the lane mask is a block of 16-bit all-ones
 * or zeros laid out as half_block_load does, each half sign-extended to 32 bits. */
LN_INLINE vf_pair half_block_keep(ln_dtype t, vf_pair v, size_t n)
{
    static const int16_t ones[2 * HB] = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
    __m256i m = _mm256_loadu_si256((const __m256i *)(ones + HB - n)), ma, mb;
    if (t == LN_F16) {
        ma = _mm256_cvtepi16_epi32(_mm256_castsi256_si128(m));
        mb = _mm256_cvtepi16_epi32(_mm256_extracti128_si256(m, 1));
    } else {
        ma = _mm256_srai_epi32(_mm256_slli_epi32(m, 16), 16);
        mb = _mm256_srai_epi32(m, 16);
    }
    return (vf_pair){_mm256_and_ps(v.a, _mm256_castsi256_ps(ma)), _mm256_and_ps(v.b, _mm256_castsi256_ps(mb))};
}

#elif VF_W == 16

typedef __m512i hwords;

LN_INLINE __mmask32 half_block_mask(size_t n) { return (__mmask32)((1u << n) - 1); }

/* A block's 32 words widened: f16 by vcvtph2ps, bf16 by the shift and the mask. */
LN_INLINE vf_pair half_block_widen(ln_dtype t, __m512i v)
{
    if (t == LN_F16)
        return (vf_pair){_mm512_cvtph_ps(_mm512_castsi512_si256(v)), _mm512_cvtph_ps(_mm512_extracti64x4_epi64(v, 1))};
    return (vf_pair){_mm512_castsi512_ps(_mm512_slli_epi32(v, 16)),
                     _mm512_castsi512_ps(_mm512_and_si512(v, _mm512_set1_epi32((int)0xffff0000u)))};
}

LN_INLINE vf_pair half_block_load(ln_dtype t, const uint16_t *p)
{
    if (t == LN_F16) /* vcvtph2ps straight from memory */
        return (vf_pair){_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)p)),
                         _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(p + 16)))};
    return half_block_widen(t, _mm512_loadu_si512(p));
}

/* A block in memory order and back (see the AVX2 layer's). */
LN_INLINE vf_pair half_block_in_order(ln_dtype t, vf_pair v)
{
    if (t == LN_F16) return v;
    const __m512i lo = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
    const __m512i hi = _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);
    return (vf_pair){_mm512_permutex2var_ps(v.a, lo, v.b), _mm512_permutex2var_ps(v.a, hi, v.b)};
}
LN_INLINE vf_pair half_block_of_order(ln_dtype t, vf_pair v)
{
    if (t == LN_F16) return v;
    const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
    return (vf_pair){_mm512_permutex2var_ps(v.a, even, v.b), _mm512_permutex2var_ps(v.a, odd, v.b)};
}

/* Masked loads and stores touch only the first n words: tails need no copy. */
LN_INLINE vf_pair half_block_load_part(ln_dtype t, const uint16_t *p, size_t n)
{
    return half_block_widen(t, _mm512_maskz_loadu_epi16(half_block_mask(n), p));
}

/* 16 floats rounded to f16 (vcvtps2ph, nearest even). */
LN_INLINE __m256i f16_round(vf v) { return _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }

/* The block v as half_block_load laid it out (even elements in a, odd ones in b) rounded to bf16, in
 * memory order. With AVX512-BF16: vcvtne2ps2bf16 (nearest even, NaNs quiet; it treats fp32
 * subnormal inputs as zero, so results below 2^-126 become 0, see docs/lowp.md) gives the even
 * words then the odd ones, and one vpermw interleaves them. Without: the integer rounding of
 * ln_f32_to_bf16 on each lane (carries walk into the exponent; NaN lanes made quiet instead). */
LN_INLINE __m512i bf16_pack(vf_pair v)
{
#ifdef __AVX512BF16__
    const __m512i order = _mm512_set_epi16(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8, 23, 7, 22, 6,
                                           21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
    return _mm512_permutexvar_epi16(order, (__m512i)_mm512_cvtne2ps_pbh(v.b, v.a));
#else
    __m512i r[2];
    vf w[2] = {v.a, v.b};
    for (int k = 0; k < 2; k++) {
        __m512i x = _mm512_castps_si512(w[k]);
        __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(1));
        r[k] = _mm512_add_epi32(x, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7fff)));
        r[k] = _mm512_mask_mov_epi32(r[k], _mm512_cmp_ps_mask(w[k], w[k], _CMP_UNORD_Q),
                                     _mm512_or_si512(x, _mm512_set1_epi32(0x400000)));
    }
    return _mm512_or_si512(_mm512_srli_epi32(r[0], 16), _mm512_and_si512(r[1], _mm512_set1_epi32((int)0xffff0000u)));
#endif
}

/* The block v, as half_block_load laid it out, rounded to the 16-bit format: its 32 words. */
LN_INLINE __m512i half_block_narrow(ln_dtype t, vf_pair v)
{
    if (t == LN_F16) return _mm512_inserti64x4(_mm512_castsi256_si512(f16_round(v.a)), f16_round(v.b), 1);
    return bf16_pack(v);
}

/* The block v rounded and stored; stream: non-temporal stores (p must then be 64-byte aligned).
 * f16 stores its two vcvtps2ph halves as they come, without half_block_narrow's insert, except
 * HALF_STREAM_LINE: one 64-byte non-temporal store per line, for the short rows from memory
 * (+4-8% at D 1024, but 13% slower for the two-pass at D 8192-16384: docs/lowp.md). */
LN_INLINE void half_block_store(ln_dtype t, uint16_t *p, vf_pair v, int stream)
{
    if (t == LN_F16 && stream == HALF_STREAM_LINE) {
        _mm512_stream_si512((__m512i *)p, half_block_narrow(t, v));
    } else if (t == LN_F16) {
        __m256i lo = f16_round(v.a), hi = f16_round(v.b);
        if (stream) _mm256_stream_si256((__m256i *)p, lo), _mm256_stream_si256((__m256i *)(p + 16), hi);
        else _mm256_storeu_si256((__m256i *)p, lo), _mm256_storeu_si256((__m256i *)(p + 16), hi);
    } else if (stream) {
        _mm512_stream_si512((__m512i *)p, bf16_pack(v));
    } else {
        _mm512_storeu_si512(p, bf16_pack(v));
    }
}

LN_INLINE void half_block_store_part(ln_dtype t, uint16_t *p, vf_pair v, size_t n)
{
    _mm512_mask_storeu_epi16(p, half_block_mask(n), half_block_narrow(t, v));
}

/* The HB words of a block as they are (no widening), for arithmetic on the 16-bit values
 * themselves: zero, load, the first n < HB words (the rest 0, nothing past them read), store
 * (stream: non-temporal, 64-byte aligned p) and the first n words stored. */
LN_INLINE hwords hwords_zero(void) { return _mm512_setzero_si512(); }
LN_INLINE hwords hwords_load(const uint16_t *p) { return _mm512_loadu_si512(p); }
LN_INLINE hwords hwords_load_part(const uint16_t *p, size_t n)
{
    return _mm512_maskz_loadu_epi16(half_block_mask(n), p);
}
LN_INLINE void hwords_store(uint16_t *p, hwords v, int stream)
{
    if (stream) _mm512_stream_si512((__m512i *)p, v);
    else _mm512_storeu_si512(p, v);
}
LN_INLINE void hwords_store_part(uint16_t *p, hwords v, size_t n)
{
    _mm512_mask_storeu_epi16(p, half_block_mask(n), v);
}

#if defined(__AVX512FP16__)
/* f16 arithmetic (AVX512-FP16): vh holds HB f16 values, a block's words reinterpreted. */
#define LN_VEC_F16_ARITH 1
typedef __m512h vh;
LN_INLINE vh vh_set1(_Float16 a) { return _mm512_set1_ph(a); }
LN_INLINE vh vh_of_words(hwords w) { return _mm512_castsi512_ph(w); }
LN_INLINE hwords vh_words(vh v) { return _mm512_castph_si512(v); }
LN_INLINE vh vh_sub(vh a, vh b) { return _mm512_sub_ph(a, b); }
LN_INLINE vh vh_mul(vh a, vh b) { return _mm512_mul_ph(a, b); }
LN_INLINE vh vh_fma(vh a, vh b, vh c) { return _mm512_fmadd_ph(a, b, c); }
#endif

/* v with the lanes of elements n .. HB-1 zeroed: f16 holds elements 0-15 in a and 16-31 in b,
 * bf16 the (n + 1) / 2 even ones in a and the n / 2 odd ones in b. */
LN_INLINE vf_pair half_block_keep(ln_dtype t, vf_pair v, size_t n)
{
    size_t na = t == LN_F16 ? (n < VF_W ? n : VF_W) : (n + 1) / 2, nb = t == LN_F16 ? (n < VF_W ? 0 : n - VF_W) : n / 2;
    return (vf_pair){vf_keep(v.a, na), vf_keep(v.b, nb)};
}

#else
#error "half-vec.h: no 16-bit block layer for this vector width"
#endif

#include "half-vec-tail.h"

#endif
