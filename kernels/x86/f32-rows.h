/* Pieces shared by the fp32 x86 kernels (include after nothing else; pulls in vec.h):
 * the vectorized normalization pass, the double-precision fallback for rows whose fp32
 * statistics overflow, and the error-bound arithmetic of multi-accumulator sums. */
#ifndef LN_X86_F32_ROWS_H
#define LN_X86_F32_ROWS_H

#include <math.h>

#include "bounds.h"
#include "vec.h"

/* y = (x - mean) * (rstd * gamma) + beta with one fused multiply-add: three roundings of fp32
 * per element (the subtraction, rstd * gamma, the fma). The gamma/beta presence flags are
 * compile-time constants at each call below, so the four variants have no branch inside. */
LN_INLINE void f32_normalize_body(const float *x, float *y, const float *g, const float *b,
                                  size_t n, float mean, float rstd, int has_g, int has_b,
                                  int stream)
{
    const vf vmean = vf_set1(mean), vrstd = vf_set1(rstd), zero = vf_set1(0.0f);
    size_t i = 0;
    if (stream) {
        /* peel up to the first vector-aligned y, then non-temporal aligned stores */
        size_t lead = ((VF_W * sizeof(float)) - ((uintptr_t)y % (VF_W * sizeof(float)))) /
                      sizeof(float) % VF_W;
        if (lead > n) lead = n;
        if (lead) {
            vf s = has_g ? vf_mul(vrstd, vf_load_part(g, lead)) : vrstd;
            vf v = vf_fma(vf_sub(vf_load_part(x, lead), vmean), s, has_b ? vf_load_part(b, lead) : zero);
            vf_store_part(y, v, lead);
            i = lead;
        }
        for (; i + VF_W <= n; i += VF_W) {
            vf s = has_g ? vf_mul(vrstd, vf_load(g + i)) : vrstd;
            vf_stream(y + i, vf_fma(vf_sub(vf_load(x + i), vmean), s, has_b ? vf_load(b + i) : zero));
        }
    } else {
        for (; i + 2 * VF_W <= n; i += 2 * VF_W) {
            vf s0 = has_g ? vf_mul(vrstd, vf_load(g + i)) : vrstd;
            vf s1 = has_g ? vf_mul(vrstd, vf_load(g + i + VF_W)) : vrstd;
            vf v0 = vf_fma(vf_sub(vf_load(x + i), vmean), s0, has_b ? vf_load(b + i) : zero);
            vf v1 = vf_fma(vf_sub(vf_load(x + i + VF_W), vmean), s1, has_b ? vf_load(b + i + VF_W) : zero);
            vf_store(y + i, v0);
            vf_store(y + i + VF_W, v1);
        }
        for (; i + VF_W <= n; i += VF_W) {
            vf s = has_g ? vf_mul(vrstd, vf_load(g + i)) : vrstd;
            vf_store(y + i, vf_fma(vf_sub(vf_load(x + i), vmean), s, has_b ? vf_load(b + i) : zero));
        }
    }
    if (i < n) {
        size_t m = n - i;
        vf s = has_g ? vf_mul(vrstd, vf_load_part(g + i, m)) : vrstd;
        vf v = vf_fma(vf_sub(vf_load_part(x + i, m), vmean), s, has_b ? vf_load_part(b + i, m) : zero);
        vf_store_part(y + i, v, m);
    }
}

/* stream: use non-temporal stores (y must be 4-byte aligned, as any float array is). */
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
