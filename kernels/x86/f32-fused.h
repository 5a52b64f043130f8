/* Fused fp32 LayerNorm: the rows are pipelined so that x is read from memory once. The mean
 * of row r+1 is summed inside the loop that normalizes row r, so the memory stream of the next
 * row overlaps the in-cache work on this one; the variance pass and the normalization then
 * read row r from L1/L2. Outputs far larger than the caches go out with non-temporal stores
 * (no read-for-ownership of y). Same two-pass arithmetic as f32-twopass.h, hence the same
 * bound. Included by f32-fused-avx2.c and f32-fused-avx512.c. */
#include "f32-rows.h"

#define ACC 4
#ifndef PF_HINT
#define PF_HINT _MM_HINT_T0
#endif

/* Sum of row x with four accumulators (the first row only; later rows are summed in
 * normalize_and_sum_next). */
static double row_sum(const float *x, size_t n)
{
    vf s0 = vf_set1(0.0f), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    for (; i + ACC * VF_W <= n; i += ACC * VF_W) {
        s0 = vf_add(s0, vf_load(x + i));
        s1 = vf_add(s1, vf_load(x + i + VF_W));
        s2 = vf_add(s2, vf_load(x + i + 2 * VF_W));
        s3 = vf_add(s3, vf_load(x + i + 3 * VF_W));
    }
    for (; i + VF_W <= n; i += VF_W) s0 = vf_add(s0, vf_load(x + i));
    if (i < n) s1 = vf_add(s1, vf_load_part(x + i, n - i));
    return vf_sum(vf_add(vf_add(s0, s1), vf_add(s2, s3)));
}

/* Sum of squared deviations about mean, four accumulators, fma. While it works in cache it
 * prefetches the row pf (the next one, NULL for none), so the memory stays busy. */
static double row_sq_dev(const float *x, size_t n, float mean, const float *pf)
{
    const vf vmean = vf_set1(mean);
    vf s0 = vf_set1(0.0f), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    for (; i + ACC * VF_W <= n; i += ACC * VF_W) {
        if (pf)
            for (size_t k = 0; k < ACC * VF_W; k += 64 / sizeof(float))
                _mm_prefetch((const char *)(pf + i + k), PF_HINT);
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

/* One output vector: (x - mean) * (rstd * g) + b, from element i (m < W elements if part). */
LN_INLINE vf norm_vec(const float *x, const float *g, const float *b, size_t i, vf vmean, vf vrstd,
                      int has_g, int has_b)
{
    vf s = has_g ? vf_mul(vrstd, vf_load(g + i)) : vrstd;
    return vf_fma(vf_sub(vf_load(x + i), vmean), s, has_b ? vf_load(b + i) : vf_set1(0.0f));
}
LN_INLINE vf norm_part(const float *x, const float *g, const float *b, size_t i, size_t m, vf vmean,
                       vf vrstd, int has_g, int has_b)
{
    vf s = has_g ? vf_mul(vrstd, vf_load_part(g + i, m)) : vrstd;
    return vf_fma(vf_sub(vf_load_part(x + i, m), vmean), s, has_b ? vf_load_part(b + i, m) : vf_set1(0.0f));
}

/* Normalizes row x into y and returns the sum of the next row xn (four accumulators). */
LN_INLINE double normalize_and_sum_next_body(const float *x, float *y, const float *g, const float *b,
                                             const float *xn, size_t n, float mean, float rstd,
                                             int has_g, int has_b, int stream)
{
    const vf vmean = vf_set1(mean), vrstd = vf_set1(rstd);
    vf s0 = vf_set1(0.0f), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    if (stream) {
        size_t lead = ((VF_W * sizeof(float)) - ((uintptr_t)y % (VF_W * sizeof(float)))) /
                      sizeof(float) % VF_W;
        if (lead > n) lead = n;
        if (lead) {
            vf_store_part(y, norm_part(x, g, b, 0, lead, vmean, vrstd, has_g, has_b), lead);
            s1 = vf_load_part(xn, lead);
            i = lead;
        }
    }
    for (; i + ACC * VF_W <= n; i += ACC * VF_W) {
        vf v0 = norm_vec(x, g, b, i, vmean, vrstd, has_g, has_b);
        vf v1 = norm_vec(x, g, b, i + VF_W, vmean, vrstd, has_g, has_b);
        vf v2 = norm_vec(x, g, b, i + 2 * VF_W, vmean, vrstd, has_g, has_b);
        vf v3 = norm_vec(x, g, b, i + 3 * VF_W, vmean, vrstd, has_g, has_b);
        s0 = vf_add(s0, vf_load(xn + i));
        s1 = vf_add(s1, vf_load(xn + i + VF_W));
        s2 = vf_add(s2, vf_load(xn + i + 2 * VF_W));
        s3 = vf_add(s3, vf_load(xn + i + 3 * VF_W));
        if (stream) {
            vf_stream(y + i, v0);
            vf_stream(y + i + VF_W, v1);
            vf_stream(y + i + 2 * VF_W, v2);
            vf_stream(y + i + 3 * VF_W, v3);
        } else {
            vf_store(y + i, v0);
            vf_store(y + i + VF_W, v1);
            vf_store(y + i + 2 * VF_W, v2);
            vf_store(y + i + 3 * VF_W, v3);
        }
    }
    for (; i + VF_W <= n; i += VF_W) {
        vf v = norm_vec(x, g, b, i, vmean, vrstd, has_g, has_b);
        s2 = vf_add(s2, vf_load(xn + i));
        if (stream) vf_stream(y + i, v);
        else vf_store(y + i, v);
    }
    if (i < n) {
        vf_store_part(y + i, norm_part(x, g, b, i, n - i, vmean, vrstd, has_g, has_b), n - i);
        s3 = vf_add(s3, vf_load_part(xn + i, n - i));
    }
    return vf_sum(vf_add(vf_add(s0, s1), vf_add(s2, s3)));
}

static double normalize_and_sum_next(const float *x, float *y, const float *g, const float *b,
                                     const float *xn, size_t n, float mean, float rstd, int stream)
{
#define CASE(G, B)                                                                                    \
    return stream ? normalize_and_sum_next_body(x, y, g, b, xn, n, mean, rstd, G, B, 1)              \
                  : normalize_and_sum_next_body(x, y, g, b, xn, n, mean, rstd, G, B, 0)
    if (g && b) CASE(1, 1);
    if (g) CASE(1, 0);
    if (b) CASE(0, 1);
    CASE(0, 0);
#undef CASE
}

static void forward(const ln_args *a)
{
    const size_t n = a->D;
    if (n == 0 || a->rows == 0) return;
    const int stream = a->rows * n * sizeof(float) >= LN_STREAM_MIN_BYTES;
    double sum = row_sum((const float *)a->x, n);
    for (size_t r = 0; r < a->rows; r++) {
        const float *x = (const float *)a->x + r * n;
        const float *xn = r + 1 < a->rows ? x + n : NULL;
        float *y = (float *)a->y + r * n;
        const float mean = (float)(sum / (double)n);
        double ss = row_sq_dev(x, n, mean, xn);
        double mean_out = mean, rstd_out;
        if (isfinite(ss) && isfinite(sum)) {
            const float rstd = (float)(1.0 / sqrt(ss / (double)n + a->eps));
            rstd_out = rstd;
            if (xn) sum = normalize_and_sum_next(x, y, a->gamma, a->beta, xn, n, mean, rstd, stream);
            else f32_normalize(x, y, a->gamma, a->beta, n, mean, rstd, stream);
        } else {
            f32_row_f64(x, y, a->gamma, a->beta, n, a->eps, &mean_out, &rstd_out);
            if (xn) sum = row_sum(xn, n);
        }
        if (a->mean) a->mean[r] = mean_out;
        if (a->rstd) a->rstd[r] = rstd_out;
    }
    if (stream) _mm_sfence(); /* order the non-temporal stores before the caller reads y */
}

/* As f32-twopass: 4 W lanes of sequential fp32 sums (one more term per lane at most). */
static double bound(size_t n, double kappa) { return f32_lanes_bound(n + ACC * VF_W, kappa, ACC * VF_W, 0.0); }

#define HOW                                                                                      \
    "fp32 two-pass (4 vector accumulators, fma) with the next row's sum fused into this row's " \
    "normalization, non-temporal stores above 32 MiB; var rel. error <= (n/(4W)+4) u + "       \
    "(n/(4W)+3)^2 kappa^2 u^2"
