/* Pieces shared by the fp32 x86 kernels (include after nothing else; pulls in vec.h):
 * the vectorized normalization pass, the row code of f32-twopass with the double-precision
 * fallback (f32-fallback.h) for rows whose fp32 statistics overflow or underflow, and the
 * error-bound arithmetic of multi-accumulator sums. */
#ifndef LN_SIMD_F32_PASSES_H
#define LN_SIMD_F32_PASSES_H

#include <math.h>

#include "bounds.h"
#include "f32-fallback.h"
#include "tunables.h"
#include "vec.h"

/* Elements before the first vector-aligned address in y (at most n): the part written with
 * ordinary stores before the non-temporal ones. */
static inline size_t f32_stream_lead(const float *y, size_t n) { return vec_stream_lead(y, n, sizeof(float)); }

/* Sum of x[j..n) added to the four partial sums a0..a3 (which the caller may have started on
 * x[0..j), j a multiple of 4 W), then returned in double: every caller, fused or not, groups
 * the terms the same way, so results do not depend on where the loop was entered. The partial
 * sums are four values, not an array: SVE vectors cannot be array elements. */
LN_INLINE double f32_sum_from(const float *x, size_t n, size_t j, vf a0, vf a1, vf a2, vf a3)
{
    for (; j + 4 * VF_W <= n; j += 4 * VF_W) {
        a0 = vf_add(a0, vf_load(x + j));
        a1 = vf_add(a1, vf_load(x + j + VF_W));
        a2 = vf_add(a2, vf_load(x + j + 2 * VF_W));
        a3 = vf_add(a3, vf_load(x + j + 3 * VF_W));
    }
    for (; j + VF_W <= n; j += VF_W) a0 = vf_add(a0, vf_load(x + j));
    if (j < n) a1 = vf_add(a1, vf_load_part(x + j, n - j));
    return vf_sum(vf_add(vf_add(a0, a1), vf_add(a2, a3)));
}

static inline double f32_row_sum(const float *x, size_t n)
{
    const vf z = vf_set1(0.0f);
    return f32_sum_from(x, n, 0, z, z, z, z);
}

/* Sum of squared deviations about mean over x[j..n), fma, into the four partial sums a0..a3 (which
 * the caller may have started on x[0..j), j a multiple of 4 W), returned in double; grouped the
 * same wherever the loop was entered, like f32_sum_from. pf: a row of n floats to prefetch
 * meanwhile (the next one) into L2, or NULL. */
LN_INLINE double f32_sq_dev_from(const float *x, size_t n, size_t j, float mean, vf a0, vf a1, vf a2, vf a3,
                                 const float *pf)
{
    const vf m = vf_set1(mean);
    for (; j + 4 * VF_W <= n; j += 4 * VF_W) {
        if (pf) vec_prefetch_l2_span(pf + j, 4 * VF_W * sizeof(float));
        vf d0 = vf_sub(vf_load(x + j), m), d1 = vf_sub(vf_load(x + j + VF_W), m);
        vf d2 = vf_sub(vf_load(x + j + 2 * VF_W), m), d3 = vf_sub(vf_load(x + j + 3 * VF_W), m);
        a0 = vf_fma(d0, d0, a0);
        a1 = vf_fma(d1, d1, a1);
        a2 = vf_fma(d2, d2, a2);
        a3 = vf_fma(d3, d3, a3);
    }
    for (; j + VF_W <= n; j += VF_W) {
        vf d = vf_sub(vf_load(x + j), m);
        a0 = vf_fma(d, d, a0);
    }
    if (j < n) {
        vf d = vf_keep(vf_sub(vf_load_part(x + j, n - j), m), n - j);
        a1 = vf_fma(d, d, a1);
    }
    return vf_sum(vf_add(vf_add(a0, a1), vf_add(a2, a3)));
}

static inline double f32_row_sq_dev(const float *x, size_t n, float mean, const float *pf)
{
    const vf z = vf_set1(0.0f);
    return f32_sq_dev_from(x, n, 0, mean, z, z, z, z, pf);
}

/* One output vector (x - mean) * (rstd * g) + b at element i: all of it, or its first m < W
 * elements (part). */
LN_INLINE vf f32_norm_vec(const float *x, const float *g, const float *b, size_t i, vf vmean, vf vrstd, int has_g,
                          int has_b)
{
    vf s = has_g ? vf_mul(vrstd, vf_load(g + i)) : vrstd;
    return vf_fma(vf_sub(vf_load(x + i), vmean), s, has_b ? vf_load(b + i) : vf_set1(0.0f));
}
LN_INLINE vf f32_norm_part(const float *x, const float *g, const float *b, size_t i, size_t m, vf vmean, vf vrstd,
                           int has_g, int has_b)
{
    vf s = has_g ? vf_mul(vrstd, vf_load_part(g + i, m)) : vrstd;
    return vf_fma(vf_sub(vf_load_part(x + i, m), vmean), s, has_b ? vf_load_part(b + i, m) : vf_set1(0.0f));
}

/* y = (x - mean) * (rstd * gamma) + beta with one fused multiply-add: three roundings of fp32
 * per element (the subtraction, rstd * gamma, the fma). The gamma/beta presence flags are
 * compile-time constants at each call below, so the four variants have no branch inside.
 * stream: non-temporal stores from the first vector-aligned y on. */
/* Elements i..n-1 of the normalization (with stream, y + i must be vector-aligned; whole lines
 * stream): the tail
 * of f32_normalize_body and of the row pipelines, which normalize the bulk of a row fused with
 * other rows' sums. */
LN_INLINE void f32_normalize_from(const float *x, float *y, const float *g, const float *b, size_t i, size_t n,
                                  vf vmean, vf vrstd, int has_g, int has_b, int stream)
{
    const vec_lines l = vec_stream_lines(y, n, sizeof *y);
    for (; i + VF_W <= n; i += VF_W) vf_put(y, i, f32_norm_vec(x, g, b, i, vmean, vrstd, has_g, has_b), l, stream);
    if (i < n) vf_store_part(y + i, f32_norm_part(x, g, b, i, n - i, vmean, vrstd, has_g, has_b), n - i);
}

LN_INLINE void f32_normalize_body(const float *x, float *y, const float *g, const float *b, size_t n, float mean,
                                  float rstd, int has_g, int has_b, int stream)
{
    const vf vmean = vf_set1(mean), vrstd = vf_set1(rstd);
    size_t i = stream ? f32_stream_lead(y, n) : 0;
    if (i) vf_store_part(y, f32_norm_part(x, g, b, 0, i, vmean, vrstd, has_g, has_b), i);
    f32_normalize_from(x, y, g, b, i, n, vmean, vrstd, has_g, has_b, stream);
}

/* y must be 4-byte aligned, as any float array is. */
static inline void f32_normalize(const float *x, float *y, const float *g, const float *b, size_t n, float mean,
                                 float rstd, int stream)
{
#define CASE(G, B)                                                   \
    (stream ? f32_normalize_body(x, y, g, b, n, mean, rstd, G, B, 1) \
            : f32_normalize_body(x, y, g, b, n, mean, rstd, G, B, 0))
    LN_SPECIALIZE_GB(g, b, CASE);
#undef CASE
}

/* One row as f32-twopass computes it (sum, squared deviations about the float mean, the
 * normalization; the double fallback when the sums overflow or the squares underflow); pf: the next row to prefetch into
 * L2 during the variance pass, or NULL. The statistics used go to *mean_out and *rstd_out. */
static inline void f32_row_twopass(const float *x, float *y, const float *g, const float *b, size_t n, double eps,
                                   const float *pf, int stream, double *mean_out, double *rstd_out)
{
    double sum = f32_row_sum(x, n);
    const float mean = (float)(sum / (double)n);
    double ss = f32_row_sq_dev(x, n, mean, pf);
    if (ln_f32_stats_usable(sum, ss / (double)n, eps)) {
        const float rstd = (float)(1.0 / sqrt(ss / (double)n + eps));
        f32_normalize(x, y, g, b, n, mean, rstd, stream);
        *mean_out = mean;
        *rstd_out = rstd;
    } else {
        ln_f32_row_f64(x, y, g, b, n, eps, mean_out, rstd_out);
    }
}

#endif
