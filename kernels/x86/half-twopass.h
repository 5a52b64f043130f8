/* The fp32 two-pass LayerNorm on 16-bit storage (f16 or bf16) over vec.h, for AVX2 + F16C:
 * each block of 2 W 16-bit elements is widened into two fp32 vectors, the mean and the squared
 * deviations are summed in four vector accumulators, the epilogue is fp32 with one rounding
 * per output. (The AVX-512 16-bit kernels keep half.h's own intrinsics code, tuned on an
 * AVX-512 machine.) Included by the *-f32acc-twopass-avx2.c files.
 *
 * The widening trick for bf16: a bf16 is the top half of a float, so one 256-bit load of 16
 * bf16 gives the even elements as floats by a 16-bit left shift of each 32-bit lane and the
 * odd ones by masking off its low half: two in-lane integer operations, no shuffles. The
 * epilogue puts the rounded halves back the same way (a shift and an or). Sums do not care in
 * which lane an element sits, so a block is "two vectors" without a fixed order: f16 blocks
 * are elements 0-7 and 8-15 (vcvtph2ps), bf16 blocks the even and the odd ones.
 *
 * Row by row, the variance pass prefetching the next row; non-temporal stores for outputs far
 * larger than the caches. A three-row pipeline as in the AVX-512 16-bit kernels was measured
 * on a Zen 3 (AVX2): +13% rows/s in cache at D 768, none from memory at D 768-1024 and 10-25%
 * fewer at D 2048, so it is not used here. */
#ifndef LN_X86_HALF_TWOPASS_H
#define LN_X86_HALF_TWOPASS_H

#include <math.h>

#include "half.h"
#include "vec.h"

#if VF_W != 8
#error "half-twopass.h is written for 8-lane (AVX2) vectors"
#endif

#define HB (2 * VF_W) /* 16-bit elements per block */

typedef struct {
    vf a, b;
} vf2;

/* A block's 16 words widened: f16 by vcvtph2ps, bf16 by the shift and the mask. */
LN_INLINE vf2 hb_widen(ln_dtype t, __m256i v)
{
    if (t == LN_F16)
        return (vf2){_mm256_cvtph_ps(_mm256_castsi256_si128(v)), _mm256_cvtph_ps(_mm256_extracti128_si256(v, 1))};
    return (vf2){_mm256_castsi256_ps(_mm256_slli_epi32(v, 16)),
                 _mm256_castsi256_ps(_mm256_and_si256(v, _mm256_set1_epi32((int)0xffff0000u)))};
}

LN_INLINE vf2 hb_load(ln_dtype t, const uint16_t *p)
{
    if (t == LN_F16) /* vcvtph2ps straight from memory */
        return (vf2){_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p)),
                     _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(p + 8)))};
    return hb_widen(t, _mm256_loadu_si256((const __m256i *)p));
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

/* The block v as hb_load laid it out: the even lanes' bf16 in the low halves, the odd ones' in
 * the high halves. NaNs are rare, so one test per block picks the rounding that handles them. */
LN_INLINE __m256i bf16_pack(vf2 v)
{
    const __m256i hi = _mm256_set1_epi32((int)0xffff0000u);
    __m256 unord = _mm256_cmp_ps(v.a, v.b, _CMP_UNORD_Q); /* lanes where either is NaN */
    if (__builtin_expect(!_mm256_testz_ps(unord, unord), 0))
        return _mm256_or_si256(_mm256_srli_epi32(bf16_round_hi(v.a, 1), 16), _mm256_and_si256(bf16_round_hi(v.b, 1), hi));
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

/* The block v, as hb_load laid it out, rounded to the 16-bit format: its 16 words. */
LN_INLINE __m256i hb_narrow(ln_dtype t, vf2 v)
{
    if (t == LN_F16) return _mm256_set_m128i(f16_round(v.b), f16_round(v.a));
    return bf16_pack(v);
}

/* The block v rounded and stored; stream: non-temporal stores (p must then be 32-byte aligned).
 * f16 stores its two vcvtps2ph halves as they come, without hb_narrow's insert. */
LN_INLINE void hb_store(ln_dtype t, uint16_t *p, vf2 v, int stream)
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
static const int32_t hb_words_on[16] = {-1, -1, -1, -1, -1, -1, -1, -1};
static const int16_t hb_word_at[31] = {[15] = -1};

LN_INLINE __m256i hb_words_part(const uint16_t *p, size_t n)
{
    __m256i whole = _mm256_loadu_si256((const __m256i *)(hb_words_on + 8 - n / 2));
    __m256i v = _mm256_maskload_epi32((const int *)p, whole);
    if (n & 1) /* p[n-1] broadcast, blended into word n-1 */
        v = _mm256_blendv_epi8(v, _mm256_set1_epi16((short)p[n - 1]),
                               _mm256_loadu_si256((const __m256i *)(hb_word_at + 16 - n)));
    return v;
}

LN_INLINE void hb_store_words_part(uint16_t *p, __m256i v, size_t n)
{
    _mm256_maskstore_epi32((int *)p, _mm256_loadu_si256((const __m256i *)(hb_words_on + 8 - n / 2)), v);
    if (n & 1) /* word n-1 is the low half of 32-bit lane (n-1)/2 */
        p[n - 1] = (uint16_t)_mm256_cvtsi256_si32(_mm256_permutevar8x32_epi32(v, _mm256_set1_epi32((int)(n - 1) / 2)));
}

/* The first n < HB elements (the rest of the block reads as 0). */
LN_INLINE vf2 hb_load_part(ln_dtype t, const uint16_t *p, size_t n) { return hb_widen(t, hb_words_part(p, n)); }

LN_INLINE void hb_store_part(ln_dtype t, uint16_t *p, vf2 v, size_t n) { hb_store_words_part(p, hb_narrow(t, v), n); }

/* v with the lanes of elements n .. HB-1 zeroed: the lane mask is a block of 16-bit all-ones
 * or zeros laid out as hb_load does, each half sign-extended to 32 bits. */
LN_INLINE vf2 hb_keep(ln_dtype t, vf2 v, size_t n)
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
    return (vf2){_mm256_and_ps(v.a, _mm256_castsi256_ps(ma)), _mm256_and_ps(v.b, _mm256_castsi256_ps(mb))};
}

/* Four fp32 accumulators: the two vectors of two blocks. */
typedef struct {
    vf a0, b0, a1, b1;
} acc4;

LN_INLINE acc4 acc4_zero(void) { return (acc4){vf_set1(0.0f), vf_set1(0.0f), vf_set1(0.0f), vf_set1(0.0f)}; }

LN_INLINE void sum_step(acc4 *s, vf2 v, vf2 w)
{
    s->a0 = vf_add(s->a0, v.a), s->b0 = vf_add(s->b0, v.b);
    s->a1 = vf_add(s->a1, w.a), s->b1 = vf_add(s->b1, w.b);
}

LN_INLINE void sq_step(acc4 *q, vf2 v, vf2 w, vf m)
{
    vf da = vf_sub(v.a, m), db = vf_sub(v.b, m), ea = vf_sub(w.a, m), eb = vf_sub(w.b, m);
    q->a0 = vf_fma(da, da, q->a0), q->b0 = vf_fma(db, db, q->b0);
    q->a1 = vf_fma(ea, ea, q->a1), q->b1 = vf_fma(eb, eb, q->b1);
}

LN_INLINE double acc4_sum(acc4 s) { return vf_sum(vf_add(vf_add(s.a0, s.b0), vf_add(s.a1, s.b1))); }

/* The fp32 sum of a row, two blocks a step into four accumulators: at most n/(4 W) + 2 additions
 * per lane, then the lanes in double. */
LN_INLINE double half_row_sum(ln_dtype t, const uint16_t *x, size_t n)
{
    acc4 s = acc4_zero();
    size_t j = 0;
    for (; j + 2 * HB <= n; j += 2 * HB) sum_step(&s, hb_load(t, x + j), hb_load(t, x + j + HB));
    if (j + HB <= n) {
        vf2 v = hb_load(t, x + j);
        s.a0 = vf_add(s.a0, v.a), s.b0 = vf_add(s.b0, v.b);
        j += HB;
    }
    if (j < n) {
        vf2 v = hb_load_part(t, x + j, n - j);
        s.a1 = vf_add(s.a1, v.a), s.b1 = vf_add(s.b1, v.b);
    }
    return acc4_sum(s);
}

/* The sum of (x - mean)^2 the same way (fma); pf: a row to prefetch into L2 meanwhile (the next
 * one: this pass runs from cache, so the hardware prefetcher would not fetch it), or NULL. */
LN_INLINE double half_row_sq_dev(ln_dtype t, const uint16_t *x, size_t n, float mean, const uint16_t *pf)
{
    const vf m = vf_set1(mean);
    acc4 q = acc4_zero();
    size_t j = 0;
    for (; j + 2 * HB <= n; j += 2 * HB) {
        if (pf) _mm_prefetch((const char *)(pf + j), _MM_HINT_T1); /* 2 HB elements: one line */
        sq_step(&q, hb_load(t, x + j), hb_load(t, x + j + HB), m);
    }
    if (j + HB <= n) {
        vf2 v = hb_load(t, x + j);
        vf da = vf_sub(v.a, m), db = vf_sub(v.b, m);
        q.a0 = vf_fma(da, da, q.a0), q.b0 = vf_fma(db, db, q.b0);
        j += HB;
    }
    if (j < n) { /* the lanes past n hold 0 - mean: zeroed */
        vf2 v = hb_load_part(t, x + j, n - j);
        vf2 d = hb_keep(t, (vf2){vf_sub(v.a, m), vf_sub(v.b, m)}, n - j);
        q.a1 = vf_fma(d.a, d.a, q.a1), q.b1 = vf_fma(d.b, d.b, q.b1);
    }
    return acc4_sum(q);
}

/* One block of output, (x - mean) * (rstd * g) + b with one fma: three fp32 roundings before
 * the one to 16 bits. has_g, has_b are compile-time constants at every call. */
LN_INLINE vf2 half_norm(vf2 x, vf2 g, vf2 b, vf vmean, vf vrstd, int has_g, int has_b)
{
    vf sa = has_g ? vf_mul(vrstd, g.a) : vrstd, sb = has_g ? vf_mul(vrstd, g.b) : vrstd;
    vf ba = has_b ? b.a : vf_set1(0.0f), bb = has_b ? b.b : vf_set1(0.0f);
    return (vf2){vf_fma(vf_sub(x.a, vmean), sa, ba), vf_fma(vf_sub(x.b, vmean), sb, bb)};
}

/* The first k < HB outputs from element j on. */
LN_INLINE void half_norm_part(ln_dtype t, const uint16_t *x, uint16_t *y, const uint16_t *g, const uint16_t *b,
                              size_t j, size_t k, vf vmean, vf vrstd, int has_g, int has_b)
{
    const vf2 none = {vf_set1(0.0f), vf_set1(0.0f)};
    hb_store_part(t, y + j,
                  half_norm(hb_load_part(t, x + j, k), has_g ? hb_load_part(t, g + j, k) : none,
                            has_b ? hb_load_part(t, b + j, k) : none, vmean, vrstd, has_g, has_b),
                  k);
}

/* The full block of outputs at element i. */
LN_INLINE void half_norm_block(ln_dtype t, const uint16_t *x, uint16_t *y, const uint16_t *g, const uint16_t *b,
                               size_t i, vf vmean, vf vrstd, int has_g, int has_b, int stream)
{
    const vf2 none = {vf_set1(0.0f), vf_set1(0.0f)};
    hb_store(t, y + i,
             half_norm(hb_load(t, x + i), has_g ? hb_load(t, g + i) : none, has_b ? hb_load(t, b + i) : none, vmean,
                       vrstd, has_g, has_b),
             stream);
}

/* Outputs i..n-1 (with stream, y + i must be vector-aligned): the rest of a row whose bulk a
 * row pipeline normalized, or all of it. */
LN_INLINE void half_normalize_from(ln_dtype t, const uint16_t *x, uint16_t *y, const uint16_t *g,
                                   const uint16_t *b, size_t i, size_t n, vf vmean, vf vrstd, int has_g,
                                   int has_b, int stream)
{
    for (; i + HB <= n; i += HB) half_norm_block(t, x, y, g, b, i, vmean, vrstd, has_g, has_b, stream);
    if (i < n) half_norm_part(t, x, y, g, b, i, n - i, vmean, vrstd, has_g, has_b);
}

/* Elements before the first vector-aligned y when streaming (written with ordinary stores by
 * half_norm_part), else 0. */
LN_INLINE size_t half_stream_lead(const uint16_t *y, size_t n, int stream)
{
    return stream ? vec_stream_lead(y, n, sizeof *y) : 0;
}

/* stream: non-temporal stores from the first vector-aligned y on. */
LN_INLINE void half_normalize_body(ln_dtype t, const uint16_t *x, uint16_t *y, const uint16_t *g,
                                   const uint16_t *b, size_t n, float mean, float rstd, int has_g, int has_b,
                                   int stream)
{
    const vf vmean = vf_set1(mean), vrstd = vf_set1(rstd);
    size_t i = half_stream_lead(y, n, stream);
    if (i) half_norm_part(t, x, y, g, b, 0, i, vmean, vrstd, has_g, has_b);
    half_normalize_from(t, x, y, g, b, i, n, vmean, vrstd, has_g, has_b, stream);
}

LN_INLINE void half_normalize(ln_dtype t, const uint16_t *x, uint16_t *y, const uint16_t *g, const uint16_t *b,
                              size_t n, float mean, float rstd, int stream)
{
#define CASE(G, B) (stream ? half_normalize_body(t, x, y, g, b, n, mean, rstd, G, B, 1) \
                           : half_normalize_body(t, x, y, g, b, n, mean, rstd, G, B, 0))
    LN_SPECIALIZE_GB(g, b, CASE);
#undef CASE
}

/* One row as the two-pass computes it: the sum, the squared deviations about the fp32 mean
 * (prefetching the row pf, or none: NULL), the epilogue, or the double path where the fp32
 * sums overflowed or underflowed (ln_half_row_f64). The statistics used go to *mean_out and
 * *rstd_out. */
static inline void half_row_twopass(ln_dtype t, const uint16_t *x, uint16_t *y, const uint16_t *g, const uint16_t *b,
                                    size_t n, double eps, const uint16_t *pf, int stream, double *mean_out,
                                    double *rstd_out)
{
    double sum = half_row_sum(t, x, n);
    const float mean = (float)(sum / (double)n);
    double ss = half_row_sq_dev(t, x, n, mean, pf);
    const float rstd = (float)(1.0 / sqrt(ss / (double)n + eps));
    *mean_out = mean, *rstd_out = rstd;
    if (isfinite(sum) && isfinite(ss) && isfinite(rstd)) half_normalize(t, x, y, g, b, n, mean, rstd, stream);
    else ln_half_row_f64(t, x, y, g, b, n, eps, mean_out, rstd_out);
}

/* Row by row, the variance pass prefetching the next row. Outputs far larger than the caches go
 * out with non-temporal stores (no read-for-ownership of y). */
static inline void half_twopass(const ln_args *a, ln_dtype t)
{
    const size_t n = a->D;
    if (n == 0) return; /* nothing to normalize: no statistics either */
    const int stream = a->rows * n * sizeof(uint16_t) >= LN_STREAM_MIN_BYTES;
    for (size_t r = 0; r < a->rows; r++) {
        const uint16_t *x = (const uint16_t *)a->x + r * n;
        double mean_out, rstd_out;
        half_row_twopass(t, x, (uint16_t *)a->y + r * n, a->gamma, a->beta, n, a->eps, r + 1 < a->rows ? x + n : NULL,
                         stream, &mean_out, &rstd_out);
        if (a->mean) a->mean[r] = mean_out;
        if (a->rstd) a->rstd[r] = rstd_out;
    }
    if (stream) _mm_sfence(); /* order the non-temporal stores before the caller reads y */
}

/* Four 8-lane accumulators: <= n/32 + 2 additions per lane and three vector additions (the
 * lanes are then summed in double), three roundings in each squared deviation: at most
 * n/32 + 10 fp32 roundings on any term, the fp32 two-pass bound; us: the format's unit
 * roundoff. */
static inline double half_twopass_bound(size_t n, double kappa, double us)
{
    return ln_half_f32acc_bound(n / 32.0 + 10, kappa, us);
}

#endif
