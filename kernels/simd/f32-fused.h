/* Fused fp32 LayerNorm: a three-stage software pipeline over the rows. One loop per row r
 * normalizes row r (from L1/L2), accumulates the squared deviations of row r+1 (whose mean is
 * known) and sums row r+2 (streaming it in from memory), so the memory stream never waits for
 * an in-cache phase and x is read from memory once. Outputs far larger than the caches go out
 * with non-temporal stores (no read-for-ownership of y), and then row r+3 is prefetched into L2
 * meanwhile (+10-15% from memory at D 768-1024; in cache the prefetches only cost load slots:
 * -15%, so not there). Each stage groups its terms exactly as
 * f32-twopass.h does, so the outputs are bit-identical to it and the bound is the same.
 * Included by f32-fused-avx2.c and f32-fused-avx512.c. */
#include "f32-passes.h"

typedef struct {
    double sum, ss; /* row sum, then sum of squared deviations about (float)(sum / n) */
} row_stats;

/* Normalizes x0 into y (mean, rstd), takes the squared deviations of x1 about mean1 and the
 * sum of x2, each stage with f32-twopass's grouping; prefetches the row pf (or none: NULL). */
LN_INLINE void pipeline_body(const float *x0, float *y, const float *g, const float *b, float mean, float rstd,
                             const float *x1, float mean1, const float *x2, const float *pf, size_t n, double *ss1,
                             double *sum2, int has_g, int has_b, int stream)
{
    const vf vmean = vf_set1(mean), vrstd = vf_set1(rstd), vmean1 = vf_set1(mean1);
    vf q0 = vf_set1(0.0f), q1 = q0, q2 = q0, q3 = q0, s0 = q0, s1 = q0, s2 = q0, s3 = q0;
    size_t i = stream ? f32_stream_lead(y, n) : 0, j = 0; /* i walks x0 and y, j walks x1 and x2 */
    const vec_lines l = vec_stream_lines(y, n, sizeof *y);
    if (i) vf_store_part(y, f32_norm_part(x0, g, b, 0, i, vmean, vrstd, has_g, has_b), i);
#define STAGES(k, q, s)                                                          \
    do {                                                                         \
        vf v = f32_norm_vec(x0, g, b, i + k * VF_W, vmean, vrstd, has_g, has_b); \
        vf d = vf_sub(vf_load(x1 + j + k * VF_W), vmean1);                       \
        q = vf_fma(d, d, q);                                                     \
        s = vf_add(s, vf_load(x2 + j + k * VF_W));                               \
        vf_put(y, i + k * VF_W, v, l, stream);                                   \
    } while (0)
    for (; i + 4 * VF_W <= n; i += 4 * VF_W, j += 4 * VF_W) {
        if (pf) vec_prefetch_l2_span(pf + j, 4 * VF_W * sizeof(float));
        STAGES(0, q0, s0);
        STAGES(1, q1, s1);
        STAGES(2, q2, s2);
        STAGES(3, q3, s3);
    }
#undef STAGES
    f32_normalize_from(x0, y, g, b, i, n, vmean, vrstd, has_g, has_b, stream);
    *ss1 = f32_sq_dev_from(x1, n, j, mean1, q0, q1, q2, q3, NULL);
    *sum2 = f32_sum_from(x2, n, j, s0, s1, s2, s3);
}

static void pipeline(const float *x0, float *y, const float *g, const float *b, float mean, float rstd, const float *x1,
                     float mean1, const float *x2, const float *pf, size_t n, double *ss1, double *sum2, int stream)
{
#define CASE(G, B)                                                                             \
    (stream ? pipeline_body(x0, y, g, b, mean, rstd, x1, mean1, x2, pf, n, ss1, sum2, G, B, 1) \
            : pipeline_body(x0, y, g, b, mean, rstd, x1, mean1, x2, pf, n, ss1, sum2, G, B, 0))
    LN_SPECIALIZE_GB(g, b, CASE);
#undef CASE
}

static float mean_of(const row_stats *s, size_t n) { return (float)(s->sum / (double)n); }

/* Row r's output from its finished statistics: the vector normalization, or the double
 * fallback when the fp32 sums overflowed or the squares underflowed. Returns whether the vector
 * path applies. */
static int row_ok(const row_stats *s, size_t n, double eps)
{
    return ln_f32_stats_usable(s->sum, s->ss / (double)n, eps);
}

/* Long rows, whose three-row pipeline would not fit in L1: row by row as f32-twopass, the
 * variance pass (in cache) prefetching the next row so the memory stream does not stall. */
static void forward_long_rows(const ln_args *a, int stream)
{
    const size_t n = a->D;
    for (size_t r = 0; r < a->rows; r++) {
        const float *x = (const float *)a->x + r * n;
        float *y = (float *)a->y + r * n;
        double mean_out, rstd_out;
        f32_row_twopass(x, y, a->gamma, a->beta, n, a->eps, r + 1 < a->rows ? x + n : NULL, stream, &mean_out,
                        &rstd_out);
        if (a->mean) a->mean[r] = mean_out;
        if (a->rstd) a->rstd[r] = rstd_out;
    }
}

/* The tunables (kernel.h), in the order of f32_fused_tunables. The pipeline touches three rows
 * of x, one of y, gamma and beta: about 6 n floats, which should stay in L1 (40 KiB by default). */
enum { T_STREAM_MIN_BYTES, T_PIPELINE_MAX_BYTES };
static const int pipeline_max_bytes_values[] = {0, 16 << 10, 24 << 10, 40 << 10, 64 << 10, 128 << 10, LN_TUNE_OFF};
static const ln_tunable f32_fused_tunables[] = {
    LN_TUNABLE_STREAM_MIN_BYTES,
    {"pipeline_max_bytes", "bytes (6 D floats) up to which rows go through the three-row pipeline", 40 << 10,
     pipeline_max_bytes_values, 7},
};

static void f32_fused_forward(const ln_args *a)
{
    const size_t n = a->D, rows = a->rows;
    if (n == 0 || rows == 0) return;
    const ln_tunable *t = f32_fused_tunables;
    const int stream = ln_tune_streams(rows, n, sizeof(float), ln_param(a, t, T_STREAM_MIN_BYTES));
    if (6 * n * sizeof(float) > (size_t)ln_param(a, t, T_PIPELINE_MAX_BYTES)) {
        forward_long_rows(a, stream);
        if (stream) vec_stream_fence();
        return;
    }
    const float *X = a->x;
    float *Y = a->y;
    row_stats st[3]; /* rows r, r+1, r+2 (index mod 3) */
    st[0].sum = f32_row_sum(X, n);
    st[0].ss = f32_row_sq_dev(X, n, mean_of(&st[0], n), NULL);
    if (rows > 1) st[1].sum = f32_row_sum(X + n, n);
    for (size_t r = 0; r < rows; r++) {
        row_stats *s0 = &st[r % 3], *s1 = &st[(r + 1) % 3], *s2 = &st[(r + 2) % 3];
        const float *x0 = X + r * n, *x1 = x0 + n, *x2 = x1 + n;
        float *y = Y + r * n;
        const float mean = mean_of(s0, n);
        const float rstd = (float)(1.0 / sqrt(s0->ss / (double)n + a->eps));
        double mean_out = mean, rstd_out = rstd;
        if (r + 2 < rows && row_ok(s0, n, a->eps)) {
            pipeline(x0, y, a->gamma, a->beta, mean, rstd, x1, mean_of(s1, n), x2,
                     stream && r + 3 < rows ? x2 + n : NULL, n, &s1->ss, &s2->sum, stream);
        } else {
            /* the last two rows, or a row for the double fallback: the stages one by one */
            if (row_ok(s0, n, a->eps)) f32_normalize(x0, y, a->gamma, a->beta, n, mean, rstd, stream);
            else ln_f32_row_f64(x0, y, a->gamma, a->beta, n, a->eps, &mean_out, &rstd_out);
            if (r + 1 < rows) s1->ss = f32_row_sq_dev(x1, n, mean_of(s1, n), NULL);
            if (r + 2 < rows) s2->sum = f32_row_sum(x2, n);
        }
        if (a->mean) a->mean[r] = mean_out;
        if (a->rstd) a->rstd[r] = rstd_out;
    }
    if (stream) vec_stream_fence(); /* order the non-temporal stores before the caller reads y */
}

/* f32-twopass's arithmetic exactly. */
static double f32_fused_bound(size_t n, double kappa) { return ln_bound_f32_lanes(n, kappa, 4 * VF_W, 0.0); }

#define F32_FUSED_HOW                                                                            \
    "fp32 two-pass as f32-twopass (bit-identical) in a 3-row pipeline: one loop normalizes row " \
    "r, sums (x-mean)^2 of r+1 and x of r+2; non-temporal stores above 32 MiB; var rel. error "  \
    "<= (n/(4W)+3) u + (n/(4W)+2)^2 kappa^2 u^2; overflow or underflow rows redone in double"
