/* Pieces shared by the fp32 x86 kernels (include after nothing else; pulls in vec.h):
 * the vectorized normalization pass, the double-precision fallback for rows whose fp32
 * statistics overflow, and the error-bound arithmetic of multi-accumulator sums. */
#ifndef LN_X86_F32_ROWS_H
#define LN_X86_F32_ROWS_H

#include <math.h>

#include "bounds.h"
#include "vec.h"

/* Elements before the first vector-aligned address in y (at most n): the part written with
 * ordinary stores before the non-temporal ones. */
static inline size_t f32_stream_lead(const float *y, size_t n)
{
    size_t v = VF_W * sizeof(float), lead = (v - (uintptr_t)y % v) % v / sizeof(float);
    return lead < n ? lead : n;
}

/* Sum of x[j..n) added to the four partial sums acc (which the caller may have started on
 * x[0..j), j a multiple of 4 W), then returned in double: every caller, fused or not, groups
 * the terms the same way, so results do not depend on where the loop was entered. */
static inline double f32_sum_from(const float *x, size_t n, size_t j, vf acc[4])
{
    for (; j + 4 * VF_W <= n; j += 4 * VF_W)
        for (int k = 0; k < 4; k++) acc[k] = vf_add(acc[k], vf_load(x + j + k * VF_W));
    for (; j + VF_W <= n; j += VF_W) acc[0] = vf_add(acc[0], vf_load(x + j));
    if (j < n) acc[1] = vf_add(acc[1], vf_load_part(x + j, n - j));
    return vf_sum(vf_add(vf_add(acc[0], acc[1]), vf_add(acc[2], acc[3])));
}

static inline double f32_row_sum(const float *x, size_t n)
{
    vf acc[4] = {vf_set1(0.0f), vf_set1(0.0f), vf_set1(0.0f), vf_set1(0.0f)};
    return f32_sum_from(x, n, 0, acc);
}

/* Sum of squared deviations about mean, four accumulators, fma. While it works in cache it
 * may prefetch another row pf (NULL for none), so the memory stays busy. */
static inline double f32_row_sq_dev(const float *x, size_t n, float mean, const float *pf)
{
    const vf vmean = vf_set1(mean);
    vf s0 = vf_set1(0.0f), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    for (; i + 4 * VF_W <= n; i += 4 * VF_W) {
        if (pf)
            for (size_t k = 0; k < 4 * VF_W; k += 64 / sizeof(float)) _mm_prefetch((const char *)(pf + i + k), _MM_HINT_T0);
        vf d0 = vf_sub(vf_load(x + i), vmean), d1 = vf_sub(vf_load(x + i + VF_W), vmean);
        vf d2 = vf_sub(vf_load(x + i + 2 * VF_W), vmean), d3 = vf_sub(vf_load(x + i + 3 * VF_W), vmean);
        s0 = vf_fma(d0, d0, s0);
        s1 = vf_fma(d1, d1, s1);
        s2 = vf_fma(d2, d2, s2);
        s3 = vf_fma(d3, d3, s3);
    }
    for (; i + VF_W <= n; i += VF_W) {
        vf d = vf_sub(vf_load(x + i), vmean);
        s0 = vf_fma(d, d, s0);
    }
    if (i < n) {
        vf d = vf_keep(vf_sub(vf_load_part(x + i, n - i), vmean), n - i);
        s1 = vf_fma(d, d, s1);
    }
    return vf_sum(vf_add(vf_add(s0, s1), vf_add(s2, s3)));
}

/* One output vector (x - mean) * (rstd * g) + b at element i: all of it, or its first m < W
 * elements (part). */
LN_INLINE vf f32_norm_vec(const float *x, const float *g, const float *b, size_t i, vf vmean, vf vrstd,
                          int has_g, int has_b)
{
    vf s = has_g ? vf_mul(vrstd, vf_load(g + i)) : vrstd;
    return vf_fma(vf_sub(vf_load(x + i), vmean), s, has_b ? vf_load(b + i) : vf_set1(0.0f));
}
LN_INLINE vf f32_norm_part(const float *x, const float *g, const float *b, size_t i, size_t m, vf vmean,
                           vf vrstd, int has_g, int has_b)
{
    vf s = has_g ? vf_mul(vrstd, vf_load_part(g + i, m)) : vrstd;
    return vf_fma(vf_sub(vf_load_part(x + i, m), vmean), s, has_b ? vf_load_part(b + i, m) : vf_set1(0.0f));
}

/* y = (x - mean) * (rstd * gamma) + beta with one fused multiply-add: three roundings of fp32
 * per element (the subtraction, rstd * gamma, the fma). The gamma/beta presence flags are
 * compile-time constants at each call below, so the four variants have no branch inside.
 * stream: non-temporal stores from the first vector-aligned y on. */
LN_INLINE void f32_normalize_body(const float *x, float *y, const float *g, const float *b,
                                  size_t n, float mean, float rstd, int has_g, int has_b,
                                  int stream)
{
    const vf vmean = vf_set1(mean), vrstd = vf_set1(rstd);
    size_t i = stream ? f32_stream_lead(y, n) : 0;
    if (i) vf_store_part(y, f32_norm_part(x, g, b, 0, i, vmean, vrstd, has_g, has_b), i);
    for (; i + VF_W <= n; i += VF_W) {
        vf v = f32_norm_vec(x, g, b, i, vmean, vrstd, has_g, has_b);
        if (stream) vf_stream(y + i, v);
        else vf_store(y + i, v);
    }
    if (i < n) vf_store_part(y + i, f32_norm_part(x, g, b, i, n - i, vmean, vrstd, has_g, has_b), n - i);
}

/* y must be 4-byte aligned, as any float array is. */
static inline void f32_normalize(const float *x, float *y, const float *g, const float *b, size_t n,
                                 float mean, float rstd, int stream)
{
    if (stream) {
        if (g && b) f32_normalize_body(x, y, g, b, n, mean, rstd, 1, 1, 1);
        else if (g) f32_normalize_body(x, y, g, b, n, mean, rstd, 1, 0, 1);
        else if (b) f32_normalize_body(x, y, g, b, n, mean, rstd, 0, 1, 1);
        else f32_normalize_body(x, y, g, b, n, mean, rstd, 0, 0, 1);
    } else {
        if (g && b) f32_normalize_body(x, y, g, b, n, mean, rstd, 1, 1, 0);
        else if (g) f32_normalize_body(x, y, g, b, n, mean, rstd, 1, 0, 0);
        else if (b) f32_normalize_body(x, y, g, b, n, mean, rstd, 0, 1, 0);
        else f32_normalize_body(x, y, g, b, n, mean, rstd, 0, 0, 0);
    }
}

/* The whole row in double, scalar: the rare path for rows whose fp32 sums overflowed (values
 * near the top of the float range) or are not finite. It is more accurate than any fp32
 * path, so every kernel's bound still holds; NaN or Inf inputs give NaN outputs as before. */
static inline void f32_row_f64(const float *x, float *y, const float *g, const float *b, size_t n,
                               double eps, double *mean_out, double *rstd_out)
{
    double s = 0.0, ss = 0.0;
    for (size_t i = 0; i < n; i++) s += x[i];
    double mean = s / (double)n;
    for (size_t i = 0; i < n; i++) ss += (x[i] - mean) * (x[i] - mean);
    double rstd = 1.0 / sqrt(ss / (double)n + eps);
    for (size_t i = 0; i < n; i++)
        y[i] = (float)((x[i] - mean) * rstd * (g ? g[i] : 1.0f) + (b ? b[i] : 0.0f));
    *mean_out = mean;
    *rstd_out = rstd;
}

/* Error bound of fp32 statistics accumulated in `lanes` independent partial sums, each a
 * sequential sum of about n / lanes terms, the partials then added in double: the mean is off by
 * at most c u (|mean| + sigma) with c = n / lanes + 2 (the division by n included); the sum of
 * squared deviations about that mean has relative error at most (n / lanes + 3) u plus the
 * two-pass term (c u kappa')^2. var_extra adds an algorithm's own relative error (in u). */
static inline double f32_lanes_bound(size_t n, double kappa, size_t lanes, double var_extra)
{
    const double u = 0x1p-24;
    double m = ceil((double)n / (double)lanes), c = m + 2.0, kp = kappa + 1.0;
    return ln_bound_mean(c, kappa, u, u) + ln_bound_var((m + 3.0 + var_extra) * u + (c * u * kp) * (c * u * kp), u) +
           ln_bound_epilogue(u, u);
}

#endif
