/* Two-pass LayerNorm entirely in binary16 arithmetic with FEAT_FP16 (FADD, FMLA, FSUB on 8 f16
 * lanes): sums, mean, variance, eps and the epilogue are all f16, as f16-native-avx512fp16 does
 * with AVX512-FP16 (see there for why it is expected to be worse than the fp32-accumulating
 * kernels: f16 sums of n/16 terms per lane, overflow beyond 65504, eps rounded to f16). NEON has
 * no masked loads: a row's last partial vector goes through a zeroed buffer. */
#include <arm_neon.h>
#include <math.h>
#include <string.h>

#include "bounds.h"
#include "kernel.h"

/* The first m <= 8 words at p as f16 lanes, the rest 0. */
static inline float16x8_t load_part(const uint16_t *p, size_t m)
{
    uint16_t w[8] = {0};
    memcpy(w, p, m * sizeof *p);
    return vreinterpretq_f16_u16(vld1q_u16(w));
}

/* Lanes i < m of v, the rest 0. */
static inline float16x8_t keep(float16x8_t v, size_t m)
{
    const uint16x8_t iota = {0, 1, 2, 3, 4, 5, 6, 7};
    return vreinterpretq_f16_u16(vandq_u16(vreinterpretq_u16_f16(v), vcltq_u16(iota, vdupq_n_u16((uint16_t)m))));
}

/* The 8 lanes summed in f16 by a pairwise tree (FADDP three times). */
static inline _Float16 sum8(float16x8_t v)
{
    v = vpaddq_f16(v, v);
    v = vpaddq_f16(v, v);
    return vgetq_lane_f16(vpaddq_f16(v, v), 0);
}

static void forward(const ln_args *a)
{
    const size_t D = a->D;
    const _Float16 n = (_Float16)D, eps = (_Float16)a->eps; /* both rounded to f16 */
    const uint16_t *g = a->gamma, *b = a->beta;
    if (D == 0) return; /* nothing to normalize: no statistics either */
    for (size_t r = 0; r < a->rows; r++) {
        const uint16_t *x = (const uint16_t *)a->x + r * D;
        uint16_t *y = (uint16_t *)a->y + r * D;
        float16x8_t s0 = vdupq_n_f16(0), s1 = s0;
        size_t i = 0;
        for (; i + 16 <= D; i += 16) {
            s0 = vaddq_f16(s0, vreinterpretq_f16_u16(vld1q_u16(x + i)));
            s1 = vaddq_f16(s1, vreinterpretq_f16_u16(vld1q_u16(x + i + 8)));
        }
        for (; i < D; i += 8) s0 = vaddq_f16(s0, load_part(x + i, D - i < 8 ? D - i : 8));
        const _Float16 mean = sum8(vaddq_f16(s0, s1)) / n;
        const float16x8_t vmean = vdupq_n_f16(mean);
        s0 = vdupq_n_f16(0), s1 = s0;
        for (i = 0; i + 16 <= D; i += 16) {
            float16x8_t d0 = vsubq_f16(vreinterpretq_f16_u16(vld1q_u16(x + i)), vmean);
            float16x8_t d1 = vsubq_f16(vreinterpretq_f16_u16(vld1q_u16(x + i + 8)), vmean);
            s0 = vfmaq_f16(s0, d0, d0);
            s1 = vfmaq_f16(s1, d1, d1);
        }
        for (; i < D; i += 8) {
            size_t m = D - i < 8 ? D - i : 8;
            float16x8_t d = keep(vsubq_f16(load_part(x + i, m), vmean), m);
            s0 = vfmaq_f16(s0, d, d);
        }
        const _Float16 var = sum8(vaddq_f16(s0, s1)) / n;
        /* f16 sqrt and division through fp32: correctly rounded to f16 either way (24 >= 2 * 11 + 2) */
        const _Float16 sd = (_Float16)sqrtf((float)(_Float16)(var + eps));
        const _Float16 rstd = (_Float16)(1.0f / (float)sd);
        const float16x8_t vrstd = vdupq_n_f16(rstd);
        for (i = 0; i < D; i += 8) {
            size_t m = D - i < 8 ? D - i : 8;
            float16x8_t v = vmulq_f16(vsubq_f16(load_part(x + i, m), vmean), vrstd);
            if (g) v = vmulq_f16(v, load_part(g + i, m));
            if (b) v = vaddq_f16(v, load_part(b + i, m));
            uint16_t w[8];
            vst1q_u16(w, vreinterpretq_u16_f16(v));
            memcpy(y + i, w, m * sizeof *w);
        }
        if (a->mean) a->mean[r] = (double)mean;
        if (a->rstd) a->rstd[r] = (double)rstd;
    }
}

/* f16-native-avx512fp16's bound with one vector's 8 lanes in place of its 32 (bounds.h). */
static double bound(size_t n, double kappa) { return ln_bound_f16_native(n, kappa, 8); }

LN_KERNEL_DEFINE(ln_f16_native_fp16, "f16-native-fp16", LN_F16, LN_ISA_NEON | LN_ISA_FP16, LN_OP_LAYERNORM, forward,
                 bound, ln_domain_f16_sums, 0, LN_NO_TUNABLES,
                 "all arithmetic in f16 (FEAT_FP16): 8-lane f16 sums (2 accumulators) for mean and squared "
                 "deviations, eps rounded to f16 (1e-12 -> 0), f16 epilogue; bound ~(n/8)(kappa+1) u16, Inf on overflow"
                 "; bound(768, 1) = 1.15e+03, bound(4096, 1e3) = inf");
