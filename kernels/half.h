/* Fast float <-> binary16 (f16) / bfloat16 (bf16) conversions for kernels, and the fp32-
 * accumulating LayerNorm loops the 16-bit kernels share. (common/dtype.c has the slow double
 * versions that ln_load/ln_store use; tests/test_half.c checks both against MPFR.)
 *
 * Conversions to 16 bits round to nearest even, keep subnormals, overflow to Inf as IEEE does
 * and keep a NaN a quiet NaN (sign and top payload bits kept). They are integer code, so they do
 * not depend on MXCSR (no FTZ/DAZ). Conversions from 16 bits are exact. */
#ifndef LN_HALF_H
#define LN_HALF_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "bounds.h"
#include "kernel.h"

static inline uint32_t ln_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float ln_f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Exact. A signalling NaN comes back quiet, as vcvtph2ps does. */
static inline float ln_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    if (e == 0x1f) return ln_f32_from_bits(sign | 0x7f800000 | (m ? 0x400000 | (m << 13) : 0));
    if (e == 0) { /* subnormal: m units of 2^-24, a normal float */
        float v = (float)m * 0x1p-24f;
        return sign ? -v : v;
    }
    return ln_f32_from_bits(sign | ((e + 127 - 15) << 23) | (m << 13));
}

static inline uint16_t ln_f32_to_f16(float f)
{
    uint32_t x = ln_f32_bits(f), sign = (x >> 16) & 0x8000, a = x & 0x7fffffff;
    if (a > 0x7f800000) return (uint16_t)(sign | 0x7e00 | ((a >> 13) & 0x3ff)); /* quiet NaN */
    if (a >= 0x477ff000) return (uint16_t)(sign | 0x7c00); /* >= 65520 = max + ulp/2: Inf */
    if (a >= 0x38800000) { /* normal result (>= 2^-14): rebias 127 -> 15, round 13 bits to even */
        a += 0xc8000fffu + ((a >> 13) & 1);
        return (uint16_t)(sign | (a >> 13));
    }
    if (a <= 0x33000000) return (uint16_t)sign; /* <= 2^-25, half the smallest subnormal: 0 */
    /* subnormal result: the significand in units of 2^-24, rounded to even */
    uint32_t e = a >> 23, m = (a & 0x7fffff) | 0x800000, shift = 126 - e; /* 14 .. 24 */
    uint32_t r = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    r += rem > half || (rem == half && (r & 1));
    return (uint16_t)(sign | r);
}

/* Exact: bf16 is the top half of a float. */
static inline float ln_bf16_to_f32(uint16_t h) { return ln_f32_from_bits((uint32_t)h << 16); }

/* Integer round to nearest even of the low 16 bits; the carry walks into the exponent, so
 * subnormals and overflow to Inf come out right. */
static inline uint16_t ln_f32_to_bf16(float f)
{
    uint32_t x = ln_f32_bits(f);
    if ((x & 0x7fffffff) > 0x7f800000) return (uint16_t)((x >> 16) | 0x40); /* quiet NaN */
    x += 0x7fff + ((x >> 16) & 1);
    return (uint16_t)(x >> 16);
}

/* Element i of a 16-bit array of dtype t (LN_F16 or LN_BF16), widened / rounded. */
static inline float ln_half_load(ln_dtype t, const uint16_t *p, size_t i)
{
    return t == LN_F16 ? ln_f16_to_f32(p[i]) : ln_bf16_to_f32(p[i]);
}

static inline void ln_half_store(ln_dtype t, uint16_t *p, size_t i, float v)
{
    p[i] = t == LN_F16 ? ln_f32_to_f16(v) : ln_f32_to_bf16(v);
}

/* Bound of an fp32 two-pass LayerNorm whose sums have at most c sequential additions per
 * accumulator (c = n sequentially; n / lanes + log2 lanes with SIMD accumulators), stored in a
 * format of unit roundoff us: the mean is off by c ua (|mean| + sigma), S = sum (x - mean)^2
 * by c ua + (c ua kappa)^2 relative (the two-pass bound of Chan, Golub & LeVeque), and the
 * epilogue is fp32 then one rounding to 16 bits; so the bound is ~1 for any realistic n. */
static inline double ln_half_f32acc_bound(double c, double kappa, double us)
{
    const double ua = 0x1p-24;
    double r = c * ua + (c * ua * kappa) * (c * ua * kappa);
    return ln_bound_mean(c + 1, kappa, ua, us) + ln_bound_var(r, us) + ln_bound_epilogue(ua, us);
}

/* The whole row in double, scalar: for rows whose fp32 sums overflowed (bf16 has fp32's range,
 * so its squares can) or are not finite, or whose rstd is not (squares underflowing to a zero
 * variance with eps = 0); NaN or Inf inputs, and exactly constant rows with eps = 0, still give
 * NaN outputs. */
static inline void ln_half_row_f64(ln_dtype t, const uint16_t *x, uint16_t *y, const uint16_t *g, const uint16_t *b,
                                   size_t n, double eps, double *mean_out, double *rstd_out)
{
    double s = 0.0, ss = 0.0;
    for (size_t i = 0; i < n; i++) s += ln_half_load(t, x, i);
    double mean = s / (double)n;
    for (size_t i = 0; i < n; i++) ss += (ln_half_load(t, x, i) - mean) * (ln_half_load(t, x, i) - mean);
    double rstd = 1.0 / sqrt(ss / (double)n + eps);
    for (size_t i = 0; i < n; i++) /* one rounding, from double */
        ln_store(t, y, i, (ln_half_load(t, x, i) - mean) * rstd * (g ? ln_half_load(t, g, i) : 1.0f) +
                              (b ? ln_half_load(t, b, i) : 0.0f));
    *mean_out = mean;
    *rstd_out = rstd;
}

/* The portable fp32 two-pass on 16-bit storage: widen each element, sequential fp32 sums for the
 * mean then for the squared deviations about it, fp32 epilogue, one rounding to 16 bits; the
 * double path for rows whose fp32 sums overflow or underflow (ln_half_row_f64). */
static inline void ln_half_twopass_scalar(const ln_args *a, ln_dtype t)
{
    const uint16_t *g = a->gamma, *b = a->beta;
    if (a->D == 0) return; /* nothing to normalize: no statistics either */
    for (size_t r = 0; r < a->rows; r++) {
        const uint16_t *x = (const uint16_t *)a->x + r * a->D;
        uint16_t *y = (uint16_t *)a->y + r * a->D;
        float sum = 0.0f;
        for (size_t i = 0; i < a->D; i++) sum += ln_half_load(t, x, i);
        float mean = sum / (float)a->D;
        float ss = 0.0f;
        for (size_t i = 0; i < a->D; i++) {
            float d = ln_half_load(t, x, i) - mean;
            ss += d * d;
        }
        float rstd = 1.0f / sqrtf(ss / (float)a->D + (float)a->eps);
        double mean_out = mean, rstd_out = rstd;
        if (!isfinite(sum) || !isfinite(ss) || !isfinite(rstd)) {
            ln_half_row_f64(t, x, y, g, b, a->D, a->eps, &mean_out, &rstd_out);
        } else {
            for (size_t i = 0; i < a->D; i++) {
                float v = (ln_half_load(t, x, i) - mean) * rstd;
                if (g) v *= ln_half_load(t, g, i);
                if (b) v += ln_half_load(t, b, i);
                ln_half_store(t, y, i, v);
            }
        }
        if (a->mean) a->mean[r] = mean_out;
        if (a->rstd) a->rstd[r] = rstd_out;
    }
}

#ifdef __AVX512F__
#include <immintrin.h>

/* Mask of the first min(n, 16) lanes. */
static inline __mmask16 ln_half_mask16(size_t n) { return n >= 16 ? 0xffff : (__mmask16)((1u << n) - 1); }

/* 16 elements of a 16-bit array widened to fp32; lanes outside m read as 0 (and are not
 * touched in memory, so tails need no padding). */
static inline __m512 ln_half_load16(ln_dtype t, const uint16_t *p, __mmask16 m)
{
    __m256i h = _mm256_maskz_loadu_epi16(m, p);
    if (t == LN_F16) return _mm512_cvtph_ps(h);
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

/* 16 floats rounded to the 16-bit format (nearest even) and stored under mask m. f16 uses
 * vcvtps2ph. bf16 uses vcvtneps2bf16 where the file is built with AVX512-BF16: it flushes fp32
 * subnormal inputs to zero (Intel SDM), so results below 2^-126 become 0 instead of bf16
 * subnormals; elsewhere the integer rounding of ln_f32_to_bf16, vectorized. */
static inline void ln_half_store16(ln_dtype t, uint16_t *p, __m512 v, __mmask16 m)
{
    __m256i h;
    if (t == LN_F16) {
        h = _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    } else {
#ifdef __AVX512BF16__
        h = (__m256i)_mm512_cvtneps_pbh(v);
#else
        __m512i x = _mm512_castps_si512(v);
        __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(1));
        __m512i r = _mm512_add_epi32(x, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7fff)));
        __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
        r = _mm512_mask_mov_epi32(r, nan, _mm512_or_si512(x, _mm512_set1_epi32(0x400000)));
        h = _mm512_cvtepi32_epi16(_mm512_srli_epi32(r, 16));
#endif
    }
    if (m == 0xffff) _mm256_storeu_si256((__m256i *)p, h);
    else _mm256_mask_storeu_epi16(p, m, h);
}

/* The fp32 sum of a 16-bit row: four 16-lane accumulators, so at most D/64 + 3 additions per
 * lane, then 6 levels of tree. _from: continues at element j (a multiple of 64) with the
 * partial sums acc, so a pipelined caller groups the terms exactly as a plain one. */
static inline float ln_half_sum_from_avx512(ln_dtype t, const uint16_t *x, size_t D, size_t i, __m512 acc[4])
{
    __m512 s0 = acc[0], s1 = acc[1], s2 = acc[2], s3 = acc[3];
    for (; i + 64 <= D; i += 64) {
        s0 = _mm512_add_ps(s0, ln_half_load16(t, x + i, 0xffff));
        s1 = _mm512_add_ps(s1, ln_half_load16(t, x + i + 16, 0xffff));
        s2 = _mm512_add_ps(s2, ln_half_load16(t, x + i + 32, 0xffff));
        s3 = _mm512_add_ps(s3, ln_half_load16(t, x + i + 48, 0xffff));
    }
    for (; i < D; i += 16) s0 = _mm512_add_ps(s0, ln_half_load16(t, x + i, ln_half_mask16(D - i)));
    return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
}

static inline float ln_half_sum_avx512(ln_dtype t, const uint16_t *x, size_t D)
{
    __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    return ln_half_sum_from_avx512(t, x, D, 0, acc);
}

/* The sum of (x - mean)^2 from element i (a multiple of 64) on, four accumulators acc (the fma
 * latency limits this loop: two measured 15-19% slower in L1), merged pairwise before the
 * tail; pf: a row whose lines to prefetch meanwhile (the hardware prefetcher sees only L1 hits
 * in this pass), or NULL. */
static inline float ln_half_sq_dev_from_avx512(ln_dtype t, const uint16_t *x, size_t D, size_t i, float mean,
                                               __m512 acc[4], const uint16_t *pf)
{
    __m512 vmean = _mm512_set1_ps(mean), s0 = acc[0], s1 = acc[1], s2 = acc[2], s3 = acc[3];
    for (; i + 64 <= D; i += 64) {
        if (pf) {
            _mm_prefetch((const char *)(pf + i), _MM_HINT_T0);
            _mm_prefetch((const char *)(pf + i + 32), _MM_HINT_T0);
        }
        __m512 d0 = _mm512_sub_ps(ln_half_load16(t, x + i, 0xffff), vmean);
        __m512 d1 = _mm512_sub_ps(ln_half_load16(t, x + i + 16, 0xffff), vmean);
        __m512 d2 = _mm512_sub_ps(ln_half_load16(t, x + i + 32, 0xffff), vmean);
        __m512 d3 = _mm512_sub_ps(ln_half_load16(t, x + i + 48, 0xffff), vmean);
        s0 = _mm512_fmadd_ps(d0, d0, s0);
        s1 = _mm512_fmadd_ps(d1, d1, s1);
        s2 = _mm512_fmadd_ps(d2, d2, s2);
        s3 = _mm512_fmadd_ps(d3, d3, s3);
    }
    s0 = _mm512_add_ps(s0, s2), s1 = _mm512_add_ps(s1, s3);
    for (; i < D; i += 16) {
        __mmask16 m = ln_half_mask16(D - i);
        __m512 d = _mm512_maskz_sub_ps(m, ln_half_load16(t, x + i, m), vmean);
        s0 = _mm512_fmadd_ps(d, d, s0);
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
}

/* y = (x - mean) * rstd * gamma + beta in fp32, one rounding to 16 bits per element. With
 * mulbias, y = fma(x, rstd, -mean * rstd) instead, the low-precision epilogue of a popular
 * framework: -mean * rstd is rounded once, so a constant row gives fma(c, rstd, -fl(c rstd)),
 * the rounding error of c * rstd (~ |c| rstd 2^-24), not 0; for offset rows the error is
 * ~ kappa 2^-24 relative to y. */
static inline void ln_half_epilogue16(ln_dtype t, const uint16_t *x, uint16_t *y, const uint16_t *g,
                                      const uint16_t *b, __m512 vmean, __m512 vrstd, __m512 vbias,
                                      int mulbias, __mmask16 m)
{
    __m512 v = ln_half_load16(t, x, m);
    v = mulbias ? _mm512_fmadd_ps(v, vrstd, vbias) : _mm512_mul_ps(_mm512_sub_ps(v, vmean), vrstd);
    if (g) v = _mm512_mul_ps(v, ln_half_load16(t, g, m));
    if (b) v = _mm512_add_ps(v, ln_half_load16(t, b, m));
    ln_half_store16(t, y, v, m);
}

static inline void ln_half_epilogue_avx512(ln_dtype t, const uint16_t *x, uint16_t *y, const uint16_t *g,
                                           const uint16_t *b, size_t D, float mean, float rstd, int mulbias)
{
    __m512 vmean = _mm512_set1_ps(mean), vrstd = _mm512_set1_ps(rstd);
    __m512 vbias = _mm512_set1_ps(-(mean * rstd));
    size_t i = 0;
    /* full vectors with a constant mask, so the compiler emits plain loads and stores */
    for (; i + 16 <= D; i += 16)
        ln_half_epilogue16(t, x + i, y + i, g ? g + i : NULL, b ? b + i : NULL, vmean, vrstd, vbias, mulbias, 0xffff);
    if (i < D)
        ln_half_epilogue16(t, x + i, y + i, g ? g + i : NULL, b ? b + i : NULL, vmean, vrstd, vbias, mulbias,
                           ln_half_mask16(D - i));
}

/* One loop for three rows: normalizes x0 into y (mean, rstd), sums (x - mean1)^2 of x1 and x of
 * x2, each with the grouping of the plain passes above (so the results are the same bits);
 * prefetches the row pf (or none: NULL). */
static inline __attribute__((always_inline)) void
ln_half_pipeline_avx512(ln_dtype t, const uint16_t *x0, uint16_t *y, const uint16_t *g, const uint16_t *b, float mean,
                        float rstd, const uint16_t *x1, float mean1, const uint16_t *x2, const uint16_t *pf, size_t D,
                        float *ss1, float *sum2, int mulbias)
{
    const __m512 vmean = _mm512_set1_ps(mean), vrstd = _mm512_set1_ps(rstd), vbias = _mm512_set1_ps(-(mean * rstd));
    const __m512 vmean1 = _mm512_set1_ps(mean1), z = _mm512_setzero_ps();
    __m512 q0 = z, q1 = z, q2 = z, q3 = z, s0 = z, s1 = z, s2 = z, s3 = z;
    size_t i = 0;
#define STAGES(k, q, s)                                                                                        \
    do {                                                                                                       \
        ln_half_epilogue16(t, x0 + i + 16 * k, y + i + 16 * k, g ? g + i + 16 * k : NULL,                      \
                           b ? b + i + 16 * k : NULL, vmean, vrstd, vbias, mulbias, 0xffff);                   \
        __m512 d = _mm512_sub_ps(ln_half_load16(t, x1 + i + 16 * k, 0xffff), vmean1);                          \
        q = _mm512_fmadd_ps(d, d, q);                                                                          \
        s = _mm512_add_ps(s, ln_half_load16(t, x2 + i + 16 * k, 0xffff));                                      \
    } while (0)
    for (; i + 64 <= D; i += 64) {
        if (pf) {
            _mm_prefetch((const char *)(pf + i), _MM_HINT_T0);
            _mm_prefetch((const char *)(pf + i + 32), _MM_HINT_T0);
        }
        STAGES(0, q0, s0);
        STAGES(1, q1, s1);
        STAGES(2, q2, s2);
        STAGES(3, q3, s3);
    }
#undef STAGES
    ln_half_epilogue_avx512(t, x0 + i, y + i, g ? g + i : NULL, b ? b + i : NULL, D - i, mean, rstd, mulbias);
    __m512 q[4] = {q0, q1, q2, q3}, s[4] = {s0, s1, s2, s3};
    *ss1 = ln_half_sq_dev_from_avx512(t, x1, D, i, mean1, q, NULL);
    *sum2 = ln_half_sum_from_avx512(t, x2, D, i, s);
}

static inline float ln_half_sq_dev_avx512(ln_dtype t, const uint16_t *x, size_t D, float mean, const uint16_t *pf)
{
    __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    return ln_half_sq_dev_from_avx512(t, x, D, 0, mean, acc, pf);
}

/* Rows up to this length go through the three-row pipeline (3 rows of x, y, gamma, beta: 6 D
 * 16-bit elements, kept within 40 KiB of L1). */
#define LN_HALF_PIPELINE_MAX_D ((40u << 10) / (6 * sizeof(uint16_t)))

/* The fp32 two-pass on 16-bit storage with AVX-512: 16-bit loads widened with vcvtph2ps (f16)
 * or a shift (bf16), fp32 accumulators, one rounding per output. Short rows as a three-row
 * software pipeline (one loop normalizes row r, sums the squared deviations of row r+1 and the
 * values of row r+2, prefetching row r+3): these kernels are bound by the core, not memory, and
 * the pipeline overlaps one row's reductions, square root and division with the others' loops.
 * Longer rows row by row, the variance pass prefetching the next row. Same bits either way. */
static inline void ln_half_twopass_avx512(const ln_args *a, ln_dtype t, int mulbias)
{
    const size_t D = a->D, rows = a->rows;
    if (D == 0 || rows == 0) return; /* nothing to normalize: no statistics either */
    const uint16_t *X = a->x, *g = a->gamma, *b = a->beta;
    uint16_t *Y = a->y;
    if (D > LN_HALF_PIPELINE_MAX_D) {
        for (size_t r = 0; r < rows; r++) {
            const uint16_t *x = X + r * D;
            float mean = ln_half_sum_avx512(t, x, D) / (float)D;
            float ss = ln_half_sq_dev_avx512(t, x, D, mean, r + 1 < rows ? x + D : NULL);
            float rstd = 1.0f / sqrtf(ss / (float)D + (float)a->eps);
            ln_half_epilogue_avx512(t, x, Y + r * D, g, b, D, mean, rstd, mulbias);
            if (a->mean) a->mean[r] = mean;
            if (a->rstd) a->rstd[r] = rstd;
        }
        return;
    }
    float sum[3], ss[3]; /* rows r, r+1, r+2 (index mod 3) */
    sum[0] = ln_half_sum_avx512(t, X, D);
    ss[0] = ln_half_sq_dev_avx512(t, X, D, sum[0] / (float)D, NULL);
    if (rows > 1) sum[1] = ln_half_sum_avx512(t, X + D, D);
    for (size_t r = 0; r < rows; r++) {
        const size_t k0 = r % 3, k1 = (r + 1) % 3, k2 = (r + 2) % 3;
        const uint16_t *x0 = X + r * D, *x1 = x0 + D, *x2 = x1 + D;
        const float mean = sum[k0] / (float)D, rstd = 1.0f / sqrtf(ss[k0] / (float)D + (float)a->eps);
        if (r + 2 < rows) {
            const uint16_t *pf = r + 3 < rows ? x2 + D : NULL;
            if (mulbias) ln_half_pipeline_avx512(t, x0, Y + r * D, g, b, mean, rstd, x1, sum[k1] / (float)D, x2, pf, D, &ss[k1], &sum[k2], 1);
            else ln_half_pipeline_avx512(t, x0, Y + r * D, g, b, mean, rstd, x1, sum[k1] / (float)D, x2, pf, D, &ss[k1], &sum[k2], 0);
        } else {
            ln_half_epilogue_avx512(t, x0, Y + r * D, g, b, D, mean, rstd, mulbias);
            if (r + 1 < rows) ss[k1] = ln_half_sq_dev_avx512(t, x1, D, sum[k1] / (float)D, NULL);
        }
        if (a->mean) a->mean[r] = mean;
        if (a->rstd) a->rstd[r] = rstd;
    }
}
#endif

#endif
