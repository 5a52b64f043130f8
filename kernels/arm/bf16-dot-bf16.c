/* Two-pass LayerNorm on bfloat16 storage whose sums use the FEAT_BF16 dot-product instruction
 * BFDOT (vbfdotq_f32: acc += a0 b0 + a1 b1 per fp32 lane), the ARM twin of bf16-dot-avx512bf16:
 *   mean: dot(x, ones), an fp32 sum of x in 4 accumulators of 4 lanes, lanes added in double.
 *   S:    d = x - mean (fp32) split exactly into dh = bf16(d) and the residual d - dh (exact in
 *         fp32), itself rounded to dl = bf16(d - dh), both to nearest even with integers; then
 *         S = dot(dh, dh) + 2 dot(dh, dl), whose per-term error is <= 3 u_bf16^2 d^2.
 *   epilogue: half-twopass.h's fp32 one (HALF_EPI_F32), rounded to bf16 once.
 * Unlike vdpbf16ps, BFDOT (without FEAT_EBF16's FPCR.EBF, which the kernel does not set) rounds
 * both its sum of products and its accumulation to odd: each is off by up to one fp32 ulp, 2 u,
 * not u. Like it, BFDOT flushes bf16 subnormal inputs and fp32 subnormal results to zero:
 * rows in the subnormal range (|x| < 2^-126) lose their mean and variance; with eps below
 * 2^-100 such a row fails ln_half_stats_ok and is redone in double (ln_half_row_f64), as are
 * rows whose fp32 sums overflow. */
#include "half-twopass.h"

/* v (fp32) rounded to bf16 to nearest even, as fp32 bits with the low half 0 (finite v). */
static inline uint32x4_t round_bf16(float32x4_t v)
{
    uint32x4_t x = vreinterpretq_u32_f32(v);
    uint32x4_t lsb = vandq_u32(vshrq_n_u32(x, 16), vdupq_n_u32(1));
    return vandq_u32(vaddq_u32(x, vaddq_u32(lsb, vdupq_n_u32(0x7fff))), vdupq_n_u32(0xffff0000u));
}

/* The bf16 of two fp32 vectors (bits from round_bf16) packed in element order. */
static inline bfloat16x8_t pack(uint32x4_t lo, uint32x4_t hi)
{
    return vreinterpretq_bf16_u16(vshrn_high_n_u32(vshrn_n_u32(lo, 16), hi, 16));
}

/* 8 bf16 at x (the first m <= 8 when m < 8, the rest 0: never read past them). */
static inline uint16x8_t load8(const uint16_t *x, size_t m)
{
    if (m >= 8) return vld1q_u16(x);
    uint16_t t[8] = {0};
    memcpy(t, x, m * sizeof *t);
    return vld1q_u16(t);
}

/* dh, dl of the 8 elements v (m of them valid: the others' d set to 0) about mean; into
 * hh += dot(dh, dh), hl += dot(dh, dl). */
static inline void dev8(uint16x8_t v, size_t m, float32x4_t mean, float32x4_t *hh, float32x4_t *hl)
{
    static const uint32_t idx[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    float32x4_t d0 = vsubq_f32(vreinterpretq_f32_u32(vshll_n_u16(vget_low_u16(v), 16)), mean);
    float32x4_t d1 = vsubq_f32(vreinterpretq_f32_u32(vshll_high_n_u16(v, 16)), mean);
    if (m < 8) {
        const uint32x4_t mm = vdupq_n_u32((uint32_t)m);
        d0 = vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(d0), vcltq_u32(vld1q_u32(idx), mm)));
        d1 = vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(d1), vcltq_u32(vld1q_u32(idx + 4), mm)));
    }
    uint32x4_t h0 = round_bf16(d0), h1 = round_bf16(d1);
    uint32x4_t l0 = round_bf16(vsubq_f32(d0, vreinterpretq_f32_u32(h0)));
    uint32x4_t l1 = round_bf16(vsubq_f32(d1, vreinterpretq_f32_u32(h1)));
    bfloat16x8_t dh = pack(h0, h1), dl = pack(l0, l1);
    *hh = vbfdotq_f32(*hh, dh, dh);
    *hl = vbfdotq_f32(*hl, dh, dl);
}

/* The 4 lanes of each of four accumulators, added as vectors, then the lanes in double. */
static inline double sum4(float32x4_t a, float32x4_t b, float32x4_t c, float32x4_t d)
{
    float32x4_t s = vaddq_f32(vaddq_f32(a, b), vaddq_f32(c, d));
    return vaddvq_f64(vaddq_f64(vcvt_f64_f32(vget_low_f32(s)), vcvt_high_f64_f32(s)));
}

static void forward(const ln_args *a)
{
    const size_t D = a->D;
    if (D == 0 || a->rows == 0) return;        /* nothing to normalize: no statistics either */
    uint16x8_t one_bits = vdupq_n_u16(0x3f80); /* bf16 1.0 */
    __asm__("" : "+w"(one_bits));              /* gcc 12 folds this constant into FMOV #1.0 of f16 (0x3c00) */
    const bfloat16x8_t ones = vreinterpretq_bf16_u16(one_bits);
    const float32x4_t z = vdupq_n_f32(0);
    const int stream =
        ln_tune_streams(a->rows, D, sizeof(uint16_t), ln_param(a, half_twopass_tunables, T_STREAM_MIN_BYTES));
    for (size_t r = 0; r < a->rows; r++) {
        const uint16_t *x = (const uint16_t *)a->x + r * D;
        float32x4_t s0 = z, s1 = z, s2 = z, s3 = z;
        size_t i = 0;
        for (; i + 32 <= D; i += 32) {
            s0 = vbfdotq_f32(s0, vreinterpretq_bf16_u16(vld1q_u16(x + i)), ones);
            s1 = vbfdotq_f32(s1, vreinterpretq_bf16_u16(vld1q_u16(x + i + 8)), ones);
            s2 = vbfdotq_f32(s2, vreinterpretq_bf16_u16(vld1q_u16(x + i + 16)), ones);
            s3 = vbfdotq_f32(s3, vreinterpretq_bf16_u16(vld1q_u16(x + i + 24)), ones);
        }
        for (; i < D; i += 8) s0 = vbfdotq_f32(s0, vreinterpretq_bf16_u16(load8(x + i, D - i)), ones);
        const double sum = sum4(s0, s1, s2, s3);
        const float mean = (float)(sum / (double)D);

        const float32x4_t vmean = vdupq_n_f32(mean);
        float32x4_t h0 = z, h1 = z, h2 = z, h3 = z, l0 = z, l1 = z, l2 = z, l3 = z;
        for (i = 0; i + 32 <= D; i += 32) {
            dev8(vld1q_u16(x + i), 8, vmean, &h0, &l0);
            dev8(vld1q_u16(x + i + 8), 8, vmean, &h1, &l1);
            dev8(vld1q_u16(x + i + 16), 8, vmean, &h2, &l2);
            dev8(vld1q_u16(x + i + 24), 8, vmean, &h3, &l3);
        }
        for (; i < D; i += 8) dev8(load8(x + i, D - i), D - i, vmean, &h0, &l0);
        half_row_from_sums(a, LN_BF16, r, sum, sum4(h0, h1, h2, h3) + 2.0 * sum4(l0, l1, l2, l3), HALF_EPI_F32, stream);
    }
    if (stream) vec_stream_fence(); /* order the non-temporal stores before the caller reads y */
}

/* Per lane of an accumulator: one BFDOT per 32 elements (4 accumulators of 4 lanes, 2 elements
 * a lane), its 2 roundings to odd of at most 2 u each: n/8 u; the tail's at most 4 more BFDOT into
 * the first (16 u), then 2 vector additions: c = n/8 + 18 in u for the sums, then bf16-dot-
 * avx512bf16's reasoning: the fp32 two-pass bound plus the 3 u_bf16^2 of the hi/lo split. */
static double bound(size_t n, double kappa)
{
    const double us = 0x1p-8;
    return ln_half_f32acc_bound(n / 8.0 + 18, kappa, us) + ln_bound_var(3 * us * us, us);
}

LN_KERNEL_DEFINE(ln_bf16_dot_bf16, "bf16-dot-bf16", LN_BF16, LN_ISA_NEON | LN_ISA_FP16 | LN_ISA_BF16, LN_OP_LAYERNORM,
                 forward, bound, ln_domain_any_row, 0, LN_TUNABLES(half_twopass_tunables),
                 "BFDOT sums (4-lane NEON, 4 accumulators): mean = dot(x, 1); S = dot(dh,dh) + 2 dot(dh,dl), x - mean "
                 "split exactly into bf16 hi + lo (rel. err 3 u^2); BFDOT rounds to odd (2 u a rounding); fp32 "
                 "epilogue; bound ~1.02 u_bf16 + (n/8) kappa 2^-16"
                 "; bound(768, 1) = 1.04, bound(4096, 1e3) = 37.9");
