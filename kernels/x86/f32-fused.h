/* Fused fp32 LayerNorm: the rows are pipelined so that x is read from memory once. The sum of
 * row r+1 is taken inside the loop that normalizes row r, so the memory stream of the next row
 * overlaps the in-cache work on this one, and the variance pass over row r+1 (from L1/L2)
 * prefetches row r+2. Outputs far larger than the caches go out with non-temporal stores (no
 * read-for-ownership of y). The arithmetic is f32-twopass.h's, term for term (same groupings),
 * so the outputs are bit-identical to it and the bound is the same. Included by
 * f32-fused-avx2.c and f32-fused-avx512.c. */
#include "f32-rows.h"

/* Normalizes row x into y and returns the sum of the next row xn, grouped as f32_row_sum. */
LN_INLINE double normalize_and_sum_next_body(const float *x, float *y, const float *g, const float *b,
                                             const float *xn, size_t n, float mean, float rstd,
                                             int has_g, int has_b, int stream)
{
    const vf vmean = vf_set1(mean), vrstd = vf_set1(rstd);
    vf acc[4] = {vf_set1(0.0f), vf_set1(0.0f), vf_set1(0.0f), vf_set1(0.0f)};
    size_t i = stream ? f32_stream_lead(y, n) : 0, j = 0; /* i walks y (and x), j walks xn */
    if (i) vf_store_part(y, f32_norm_part(x, g, b, 0, i, vmean, vrstd, has_g, has_b), i);
    for (; i + 4 * VF_W <= n; i += 4 * VF_W, j += 4 * VF_W) {
        vf v[4];
        for (int k = 0; k < 4; k++) {
            v[k] = f32_norm_vec(x, g, b, i + k * VF_W, vmean, vrstd, has_g, has_b);
            acc[k] = vf_add(acc[k], vf_load(xn + j + k * VF_W));
        }
        for (int k = 0; k < 4; k++) {
            if (stream) vf_stream(y + i + k * VF_W, v[k]);
            else vf_store(y + i + k * VF_W, v[k]);
        }
    }
    for (; i + VF_W <= n; i += VF_W) {
        vf v = f32_norm_vec(x, g, b, i, vmean, vrstd, has_g, has_b);
        if (stream) vf_stream(y + i, v);
        else vf_store(y + i, v);
    }
    if (i < n) vf_store_part(y + i, f32_norm_part(x, g, b, i, n - i, vmean, vrstd, has_g, has_b), n - i);
    return f32_sum_from(xn, n, j, acc);
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
    double sum = f32_row_sum((const float *)a->x, n);
    for (size_t r = 0; r < a->rows; r++) {
        const float *x = (const float *)a->x + r * n;
        const float *xn = r + 1 < a->rows ? x + n : NULL;
        float *y = (float *)a->y + r * n;
        const float mean = (float)(sum / (double)n);
        double ss = f32_row_sq_dev(x, n, mean, xn), mean_out = mean, rstd_out;
        if (isfinite(ss) && isfinite(sum)) {
            const float rstd = (float)(1.0 / sqrt(ss / (double)n + a->eps));
            rstd_out = rstd;
            if (xn) sum = normalize_and_sum_next(x, y, a->gamma, a->beta, xn, n, mean, rstd, stream);
            else f32_normalize(x, y, a->gamma, a->beta, n, mean, rstd, stream);
        } else {
            f32_row_f64(x, y, a->gamma, a->beta, n, a->eps, &mean_out, &rstd_out);
            if (xn) sum = f32_row_sum(xn, n);
        }
        if (a->mean) a->mean[r] = mean_out;
        if (a->rstd) a->rstd[r] = rstd_out;
    }
    if (stream) _mm_sfence(); /* order the non-temporal stores before the caller reads y */
}

/* f32-twopass's arithmetic exactly. */
static double bound(size_t n, double kappa) { return f32_lanes_bound(n, kappa, 4 * VF_W, 0.0); }

#define HOW                                                                                       \
    "fp32 two-pass as f32-twopass (bit-identical), rows pipelined: next row's sum fused into "   \
    "this row's normalization, prefetch, non-temporal stores above 32 MiB; var rel. error <= " \
    "(n/(4W)+3) u + (n/(4W)+2)^2 kappa^2 u^2"
