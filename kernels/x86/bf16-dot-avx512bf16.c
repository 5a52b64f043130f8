/* Two-pass LayerNorm on bfloat16 storage whose sums use the AVX512-BF16 dot-product instruction
 * vdpbf16ps (acc += a0 b0 + a1 b1 per fp32 lane: bf16 products are exact in fp32, each of the
 * two accumulations rounds to nearest even).
 *   mean: dot(x, ones), i.e. an fp32 sum of x in 16 lanes.
 *   S:    vdpbf16ps only takes bf16, and d = x - mean (fp32) rounded once to bf16 would cost
 *         2 u_bf16 relative in S. So d is split exactly into dh = bf16(d) and the residual
 *         d - dh (exact in fp32), itself rounded to dl = bf16(d - dh); then
 *         S = dot(dh, dh) + 2 dot(dh, dl), whose per-term error is <= 3 u_bf16^2 d^2 (the
 *         dropped dl^2 and the rounding of dl): ~2^-14 relative, far below u_bf16.
 *   epilogue: half-twopass.h's, as in bf16-f32acc-twopass-avx512bf16 (fp32, vcvtne2ps2bf16
 *         once per output, non-temporal stores for outputs far larger than the caches).
 * The instruction treats bf16 subnormal inputs as zero and flushes subnormal sums (Intel SDM):
 * rows in the subnormal range (|x| < 2^-126) lose their mean and variance; with eps below
 * 2^-100 such a row fails ln_half_stats_ok and is redone in double (ln_half_row_f64), as are
 * rows whose fp32 sums overflow. */
#include "half-twopass.h"

static inline __mmask32 mask32(size_t n) { return n >= 32 ? 0xffffffffu : half_block_mask(n); }

/* The 32 bf16 of v widened to two fp32 vectors (elements 0-15, 16-31). */
static inline void widen(__m512i v, __m512 *lo, __m512 *hi)
{
    *lo = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm512_castsi512_si256(v)), 16));
    *hi = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(v, 1)), 16));
}

static void forward(const ln_args *a)
{
    const size_t D = a->D;
    const __m512bh ones = (__m512bh)_mm512_set1_epi16(0x3f80); /* bf16 1.0 */
    if (D == 0 || a->rows == 0) return;                        /* nothing to normalize: no statistics either */
    const int stream =
        ln_tune_streams(a->rows, D, sizeof(uint16_t), ln_param(a, half_twopass_tunables, T_STREAM_MIN_BYTES));
    for (size_t r = 0; r < a->rows; r++) {
        const uint16_t *x = (const uint16_t *)a->x + r * D;
        uint16_t *y = (uint16_t *)a->y + r * D;
        __m512 s0 = _mm512_setzero_ps(), s1 = s0;
        size_t i = 0;
        for (; i + 64 <= D; i += 64) {
            s0 = _mm512_dpbf16_ps(s0, (__m512bh)_mm512_loadu_si512(x + i), ones);
            s1 = _mm512_dpbf16_ps(s1, (__m512bh)_mm512_loadu_si512(x + i + 32), ones);
        }
        for (; i < D; i += 32)
            s0 = _mm512_dpbf16_ps(s0, (__m512bh)_mm512_maskz_loadu_epi16(mask32(D - i), x + i), ones);
        float sum = _mm512_reduce_add_ps(_mm512_add_ps(s0, s1)), mean = sum / (float)D;

        __m512 vmean = _mm512_set1_ps(mean), hh = _mm512_setzero_ps(), hl = hh;
        for (i = 0; i < D; i += 32) {
            __mmask32 m = mask32(D - i);
            __m512 x0, x1, h0, h1;
            widen(_mm512_maskz_loadu_epi16(m, x + i), &x0, &x1);
            __m512 d0 = _mm512_maskz_sub_ps((__mmask16)m, x0, vmean);
            __m512 d1 = _mm512_maskz_sub_ps((__mmask16)(m >> 16), x1, vmean);
            __m512bh dh = _mm512_cvtne2ps_pbh(d1, d0);
            widen((__m512i)dh, &h0, &h1);
            __m512bh dl = _mm512_cvtne2ps_pbh(_mm512_sub_ps(d1, h1), _mm512_sub_ps(d0, h0));
            hh = _mm512_dpbf16_ps(hh, dh, dh);
            hl = _mm512_dpbf16_ps(hl, dh, dl);
        }
        float ss = _mm512_reduce_add_ps(hh) + 2.0f * _mm512_reduce_add_ps(hl);
        float rstd = 1.0f / sqrtf(ss / (float)D + (float)a->eps);
        double mean_out = mean, rstd_out = rstd;
        if (ln_half_stats_ok(sum, ss, (double)ss / (double)D + a->eps))
            half_normalize(LN_BF16, x, y, a->gamma, a->beta, D, mean, rstd, HALF_EPI_F32, stream);
        else ln_half_row_f64(LN_BF16, x, y, a->gamma, a->beta, D, a->eps, &mean_out, &rstd_out);
        if (a->mean) a->mean[r] = mean_out;
        if (a->rstd) a->rstd[r] = rstd_out;
    }
    if (stream) vec_stream_fence(); /* order the non-temporal stores before the caller reads y */
}

/* The mean: 2 roundings per 32 elements per lane, <= n/16 + 6 additions per lane with the tree;
 * S: the same plus the 3 u_bf16^2 of the hi/lo split, added to the fp32 two-pass bound. */
static double bound(size_t n, double kappa)
{
    const double us = 0x1p-8;
    return ln_half_f32acc_bound(n / 16.0 + 8, kappa, us) + ln_bound_var(3 * us * us, us);
}

LN_KERNEL_DEFINE(ln_bf16_dot_avx512bf16, "bf16-dot-avx512bf16", LN_BF16, LN_ISA_AVX512 | LN_ISA_AVX512BF16,
                 LN_OP_LAYERNORM, forward, bound, ln_domain_any_row, 0, LN_TUNABLES(half_twopass_tunables),
                 "vdpbf16ps sums: mean = dot(x, 1); S = dot(dh,dh) + 2 dot(dh,dl), x - mean split exactly "
                 "into bf16 hi + lo (rel. err 3 u^2); fp32 epilogue; bound ~1.02 u_bf16 + (n/16) kappa 2^-16"
                 "; bound(768, 1) = 1.03, bound(4096, 1e3) = 19.3");
