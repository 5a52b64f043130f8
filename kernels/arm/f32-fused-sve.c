/* Fused fp32 LayerNorm for SVE, vector-length agnostic: kernels/simd/f32-fused.h's three-stage
 * row pipeline with W = svcntw() lanes at run time. One loop per row r normalizes row r, takes
 * the squared deviations of row r+1 (whose mean is known) and the sum of row r+2, so x is read
 * from memory once; rows longer than the pipeline's share of L1 (6 D floats over 40 KiB) go row
 * by row. Each stage keeps f32-twopass-sve's grouping (sve_sums_from, sve_normalize_from), so the
 * outputs are bit-identical to it and the bound is the same. */
#include "sve.h"

#define PIPELINE_MAX_BYTES (40 << 10) /* f32-fused's default */

/* Normalizes x0 into y (mean, rstd), takes sum (x1 - mean1)^2 into *ss1 and sum x2 into *sum2. */
static void pipeline(const float *x0, float *y, const float *g, const float *b, float mean, float rstd, const float *x1,
                     float mean1, const float *x2, size_t n, double *ss1, double *sum2, int stream)
{
    const uint64_t w = svcntw();
    const svbool_t all = svptrue_b32();
    const svfloat32_t m = svdup_n_f32(mean), r = svdup_n_f32(rstd), m1 = svdup_n_f32(mean1), z = svdup_n_f32(0);
    svfloat32_t q0 = z, q1 = z, q2 = z, q3 = z, s0 = z, s1 = z, s2 = z, s3 = z;
    size_t i = 0;
#define STAGES(c, q, s)                                                   \
    do {                                                                  \
        sve_norm_step(LN_F32, all, x0, y, g, b, i + c * w, m, r, stream); \
        sve_sums_step(LN_F32, all, x1, i + c * w, m1, 1, 0, 1, &q, &q);   \
        sve_sums_step(LN_F32, all, x2, i + c * w, z, 0, 1, 0, &s, &s);    \
    } while (0)
    for (; i + 4 * w <= n; i += 4 * w) {
        STAGES(0, q0, s0);
        STAGES(1, q1, s1);
        STAGES(2, q2, s2);
        STAGES(3, q3, s3);
    }
#undef STAGES
    sve_normalize_from(LN_F32, x0, y, g, b, i, n, mean, rstd, stream);
    sve_sums_from(LN_F32, x1, n, i, mean1, 1, 0, 1, z, z, z, z, q0, q1, q2, q3, NULL, ss1);
    sve_sums_from(LN_F32, x2, n, i, 0, 0, 1, 0, s0, s1, s2, s3, z, z, z, z, sum2, NULL);
}

static float mean_of(double sum, size_t n) { return (float)(sum / (double)n); }

static void forward(const ln_args *a)
{
    const size_t n = a->D, rows = a->rows;
    if (n == 0 || rows == 0) return;
    const int stream = sve_streams(a, LN_F32);
    if (6 * n * sizeof(float) > PIPELINE_MAX_BYTES) {
        for (size_t r = 0; r < rows; r++) sve_twopass_row(a, LN_F32, r, stream);
        sve_stream_fence(stream);
        return;
    }
    const float *X = a->x;
    float *Y = a->y;
    double sum[3], ss[3]; /* rows r, r+1, r+2 (index mod 3) */
    sum[0] = sve_row_reduce(LN_F32, X, n, 0, 0);
    ss[0] = sve_row_reduce(LN_F32, X, n, mean_of(sum[0], n), 1);
    if (rows > 1) sum[1] = sve_row_reduce(LN_F32, X + n, n, 0, 0);
    for (size_t r = 0; r < rows; r++) {
        const size_t k0 = r % 3, k1 = (r + 1) % 3, k2 = (r + 2) % 3;
        const float *x0 = X + r * n, *x1 = x0 + n, *x2 = x1 + n;
        float *y = Y + r * n;
        const float mean = mean_of(sum[k0], n), rstd = (float)(1.0 / sqrt(ss[k0] / (double)n + a->eps));
        const int ok = ln_f32_stats_usable(sum[k0], ss[k0] / (double)n, a->eps);
        double mean_out = mean, rstd_out = rstd;
        if (r + 2 < rows && ok) {
            pipeline(x0, y, a->gamma, a->beta, mean, rstd, x1, mean_of(sum[k1], n), x2, n, &ss[k1], &sum[k2], stream);
        } else {
            /* the last two rows, or a row for the double fallback: the stages one by one */
            if (ok) sve_normalize(LN_F32, x0, y, a->gamma, a->beta, n, mean, rstd, stream);
            else ln_f32_row_f64(x0, y, a->gamma, a->beta, n, a->eps, &mean_out, &rstd_out);
            if (r + 1 < rows) ss[k1] = sve_row_reduce(LN_F32, x1, n, mean_of(sum[k1], n), 1);
            if (r + 2 < rows) sum[k2] = sve_row_reduce(LN_F32, x2, n, 0, 0);
        }
        if (a->mean) a->mean[r] = mean_out;
        if (a->rstd) a->rstd[r] = rstd_out;
    }
    sve_stream_fence(stream);
}

/* f32-twopass-sve's arithmetic exactly. */
static double bound(size_t n, double kappa) { return ln_bound_f32_lanes(n, kappa, (size_t)(4 * sve_lanes()), 0.0); }

#define HOW                                                                                                       \
    "fp32 two-pass as f32-twopass-sve (bit-identical) in a 3-row pipeline, vector-length agnostic (W = svcntw() " \
    "lanes): one loop normalizes row r, sums (x-mean)^2 of r+1 and x of r+2; var rel. error <= (n/(4W)+3) u + "   \
    "(n/(4W)+2)^2 kappa^2 u^2; overflow or underflow rows redone in double; bound taken at W = 4 (it holds at "   \
    "every W)"

LN_KERNEL_DEFINE(ln_f32_fused_sve, "f32-fused-sve", LN_F32, LN_SVE_ISA, LN_OP_LAYERNORM, forward, bound,
                 ln_domain_any_row, 0, LN_NO_TUNABLES, HOW "; bound(768, 1) = 554, bound(4096, 1e3) = 1.17e+06");
