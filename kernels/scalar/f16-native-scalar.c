/* Two-pass LayerNorm entirely in binary16 arithmetic, as a plain C loop over _Float16 would
 * compute it: every addition, multiplication, division and sqrt rounded to f16 (done here in
 * fp32 and rounded, which is exact f16 arithmetic since 24 >= 2 * 11 + 2), sequential sums,
 * eps rounded to f16 (1e-12 becomes 0, so a zero row gives 0 * Inf = NaN). A portable stand-in
 * for f16-native-avx512fp16 on CPUs without AVX512-FP16; slow, it exists for accuracy. */
#include "half.h"

static inline float r16(float v) { return ln_f16_to_f32(ln_f32_to_f16(v)); }

static void forward(const ln_args *a)
{
    const uint16_t *g = a->gamma, *b = a->beta;
    const float n = r16((float)a->D), eps = ln_f16_to_f32(ln_f64_to_f16(a->eps));
    if (a->D == 0) return; /* nothing to normalize: no statistics either */
    for (size_t r = 0; r < a->rows; r++) {
        const uint16_t *x = (const uint16_t *)a->x + r * a->D;
        uint16_t *y = (uint16_t *)a->y + r * a->D;
        float sum = 0.0f;
        for (size_t i = 0; i < a->D; i++) sum = r16(sum + ln_f16_to_f32(x[i]));
        float mean = r16(sum / n);
        float ss = 0.0f;
        for (size_t i = 0; i < a->D; i++) {
            float d = r16(ln_f16_to_f32(x[i]) - mean);
            ss = r16(ss + r16(d * d));
        }
        float rstd = r16(1.0f / r16(sqrtf(r16(r16(ss / n) + eps))));
        for (size_t i = 0; i < a->D; i++) {
            float v = r16(r16(ln_f16_to_f32(x[i]) - mean) * rstd);
            if (g) v = r16(v * ln_f16_to_f32(g[i]));
            if (b) v = r16(v + ln_f16_to_f32(b[i]));
            y[i] = ln_f32_to_f16(v);
        }
        if (a->mean) a->mean[r] = mean;
        if (a->rstd) a->rstd[r] = rstd;
    }
}

/* u = 2^-11 for every operation and n sequential additions: mean error (n + 1) u (|mean| +
 * sigma), S relative error (n + 4) u + (n u kappa)^2 (two-pass, plus n, sqrt, division), four
 * roundings in the epilogue. Large (n u = 0.375 at n = 768) and infinite once n u kappa >= 1;
 * no overflow assumed (sums beyond 65504 give Inf). */
static double bound(size_t n, double kappa)
{
    const double u = 0x1p-11, c = (double)n;
    double r = (c + 4) * u + (c * u * kappa) * (c * u * kappa);
    return ln_bound_mean(c + 1, kappa, u, u) + ln_bound_var(r, u) + ln_bound_epilogue(u, u);
}

LN_KERNEL_DEFINE(ln_f16_native_scalar, "f16-native-scalar", LN_F16, 0, LN_OP_LAYERNORM, forward, bound,
                 ln_domain_f16_sums, 0, LN_NO_TUNABLES,
                 "every operation rounded to f16 (plain _Float16 loop, emulated): sequential f16 sums, "
                 "eps rounded to f16 (1e-12 -> 0); bound (n+1)(kappa+1) + n/2 u16, Inf when n u kappa >= 1"
                 "; bound(768, 1) = 9.83e+03, bound(4096, 1e3) = inf");
