/* Fast float <-> binary16 (f16) / bfloat16 (bf16) conversions for kernels, and the fp32-
 * accumulating LayerNorm loops the 16-bit kernels share. (common/dtype.c has the slow double
 * versions that ln_load/ln_store use; tests/test_half.c checks both against MPFR.)
 *
 * Conversions to 16 bits round to nearest even, keep subnormals, overflow to Inf as IEEE does
 * and keep a NaN a quiet NaN (sign and top payload bits kept). They are integer code, so they do
 * not depend on MXCSR (no FTZ/DAZ). Conversions from 16 bits are exact. */
#ifndef LN_HALF_H
#define LN_HALF_H

#include <float.h>
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
    if (a >= 0x477ff000) return (uint16_t)(sign | 0x7c00);                      /* >= 65520 = max + ulp/2: Inf */
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

/* Below this, var + eps computed in fp32 is not trusted: a square that underflows into the fp32
 * subnormals is off by up to 2^-150 absolute, so var by up to 2^-150, 2^-50 relative at most
 * above it. Rows of ordinary scale are far above (var + eps >= eps). */
#define LN_HALF_MIN_RADICAND 0x1p-100

/* Whether a row's fp32 statistics can be used: sum (of x) and ss (of the squared deviations)
 * finite, i.e. no fp32 overflow (bf16 has fp32's range, so its squares can overflow though each
 * value fits), and radicand = ss / n + eps (in double) in [LN_HALF_MIN_RADICAND, FLT_MAX] (above,
 * var + eps in fp32 is Inf: rstd 0, every output beta). Else the row goes to ln_half_row_f64: one
 * test per row on the final sums, ordinary rows never pay. */
static inline int ln_half_stats_ok(double sum, double ss, double radicand)
{
    return isfinite(sum) && isfinite(ss) && radicand >= LN_HALF_MIN_RADICAND && radicand <= FLT_MAX;
}

/* The whole row in double, scalar: the one fallback of the fp32-accumulating 16-bit kernels, for
 * rows whose fp32 statistics ln_half_stats_ok rejects (overflowed sums, squares underflowing to a
 * tiny or zero variance with eps = 0 or tiny). Double has the range for every 16-bit row: squares
 * of bf16 values lie in [2^-266, 2^256]. NaN or Inf inputs, and exactly constant rows with
 * eps = 0, still give NaN outputs. */
static inline void ln_half_row_f64(ln_dtype t, const uint16_t *x, uint16_t *y, const uint16_t *g, const uint16_t *b,
                                   size_t n, double eps, double *mean_out, double *rstd_out)
{
    double s = 0.0, ss = 0.0;
    for (size_t i = 0; i < n; i++) s += ln_half_load(t, x, i);
    double mean = s / (double)n;
    for (size_t i = 0; i < n; i++) ss += (ln_half_load(t, x, i) - mean) * (ln_half_load(t, x, i) - mean);
    double rstd = 1.0 / sqrt(ss / (double)n + eps);
    for (size_t i = 0; i < n; i++) /* one rounding, from double */
        ln_store(t, y, i,
                 (ln_half_load(t, x, i) - mean) * rstd * (g ? ln_half_load(t, g, i) : 1.0f) +
                     (b ? ln_half_load(t, b, i) : 0.0f));
    *mean_out = mean;
    *rstd_out = rstd;
}

/* The portable fp32 two-pass on 16-bit storage: widen each element, sequential fp32 sums for the
 * mean then for the squared deviations about it, fp32 epilogue, one rounding to 16 bits; the
 * double path for the rows ln_half_stats_ok rejects. */
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
        if (!ln_half_stats_ok(sum, ss, (double)ss / (double)a->D + a->eps)) {
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

#endif
