/* Two-pass LayerNorm entirely in binary16 arithmetic with AVX512-FP16 (vaddph, vfmaddph,
 * vsqrtsh, vdivsh): sums, mean, variance, eps and the epilogue are all f16, as a kernel that
 * never widens would do. Expected to be worse than the fp32-accumulating kernels: each 32-lane
 * accumulator adds n/32 terms with u16 = 2^-11 per addition, the sums overflow (65504) on offset
 * or large rows, and eps is rounded to f16, so eps = 1e-12 becomes 0 and a zero row gives
 * 0 * (1/sqrt(0)) = NaN. */
#include <immintrin.h>
#include <math.h>

#include "bounds.h"
#include "kernel.h"

static inline __mmask32 mask32(size_t n) { return n >= 32 ? 0xffffffffu : (__mmask32)((1u << n) - 1); }

static inline __m512h load32(const void *p, __mmask32 m) { return _mm512_castsi512_ph(_mm512_maskz_loadu_epi16(m, p)); }

static void forward(const ln_args *a)
{
    const size_t D = a->D;
    const _Float16 n = (_Float16)D, eps = (_Float16)a->eps; /* both rounded to f16 */
    const uint16_t *g = a->gamma, *b = a->beta;
    if (D == 0) return; /* nothing to normalize: no statistics either */
    for (size_t r = 0; r < a->rows; r++) {
        const uint16_t *x = (const uint16_t *)a->x + r * D;
        uint16_t *y = (uint16_t *)a->y + r * D;
        __m512h s0 = _mm512_setzero_ph(), s1 = s0;
        size_t i = 0;
        for (; i + 64 <= D; i += 64) {
            s0 = _mm512_add_ph(s0, load32(x + i, 0xffffffffu));
            s1 = _mm512_add_ph(s1, load32(x + i + 32, 0xffffffffu));
        }
        for (; i < D; i += 32) s0 = _mm512_add_ph(s0, load32(x + i, mask32(D - i)));
        _Float16 mean = _mm512_reduce_add_ph(_mm512_add_ph(s0, s1)) / n;
        __m512h vmean = _mm512_set1_ph(mean);
        s0 = _mm512_setzero_ph();
        s1 = s0;
        for (i = 0; i + 64 <= D; i += 64) {
            __m512h d0 = _mm512_sub_ph(load32(x + i, 0xffffffffu), vmean);
            __m512h d1 = _mm512_sub_ph(load32(x + i + 32, 0xffffffffu), vmean);
            s0 = _mm512_fmadd_ph(d0, d0, s0);
            s1 = _mm512_fmadd_ph(d1, d1, s1);
        }
        for (; i < D; i += 32) {
            __mmask32 m = mask32(D - i);
            __m512h d = _mm512_maskz_sub_ph(m, load32(x + i, m), vmean);
            s0 = _mm512_fmadd_ph(d, d, s0);
        }
        _Float16 var = _mm512_reduce_add_ph(_mm512_add_ph(s0, s1)) / n;
        /* f16 sqrt and division, through fp32: correctly rounded to f16 either way, since
         * 24 >= 2 * 11 + 2 makes the double rounding innocuous for sqrt and division. */
        _Float16 sd = (_Float16)sqrtf((float)(_Float16)(var + eps));
        _Float16 rstd = (_Float16)(1.0f / (float)sd);
        __m512h vrstd = _mm512_set1_ph(rstd);
        for (i = 0; i < D; i += 32) {
            __mmask32 m = mask32(D - i);
            __m512h v = _mm512_mul_ph(_mm512_sub_ph(load32(x + i, m), vmean), vrstd);
            if (g) v = _mm512_mul_ph(v, load32(g + i, m));
            if (b) v = _mm512_add_ph(v, load32(b + i, m));
            _mm512_mask_storeu_epi16(y + i, m, _mm512_castph_si512(v));
        }
        if (a->mean) a->mean[r] = (double)mean;
        if (a->rstd) a->rstd[r] = (double)rstd;
    }
}

/* The 32 lanes of one __m512h: ln_bound_f16_native (bounds.h). */
static double bound(size_t n, double kappa) { return ln_bound_f16_native(n, kappa, 32); }

LN_KERNEL_DEFINE(ln_f16_native_avx512fp16, "f16-native-avx512fp16", LN_F16, LN_ISA_AVX512 | LN_ISA_AVX512FP16,
                 LN_OP_LAYERNORM, forward, bound, ln_domain_f16_sums, 0, LN_NO_TUNABLES,
                 "all arithmetic in f16 (AVX512-FP16): 32-lane f16 sums for mean and squared deviations, "
                 "eps rounded to f16 (1e-12 -> 0), f16 epilogue; bound ~(n/32)(kappa+1) u16, Inf on overflow"
                 "; bound(768, 1) = 368, bound(4096, 1e3) = inf");
