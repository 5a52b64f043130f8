/* fp32 RMSNorm at LayerNorm's speed, written once over vec.h (AVX2, AVX-512, NEON): the row
 * schedules of f32-shifted.h on the simpler statistic. Per row the sum of squares in four vector
 * accumulators (fma, lanes added in double), rstd = 1 / sqrt(ss / n + eps) in double rounded to
 * float, then y = x * (rstd * gamma) + beta with one fma (two fp32 roundings before the store).
 *
 * Schedules (tunables below, chosen per call; every one groups the sums and computes each output
 * the same way, so the bits do not depend on them: tests/test_tunables.c):
 *   pipeline: one loop normalizes row r (in cache) and sums the squares of row r+1 (from memory),
 *     so the reduction, square root and division of one row overlap the other's loads; streaming,
 *     it also prefetches row r+2 into L2;
 *   row groups, for long rows in cache (forward_grouped, below);
 *   row by row: the sums of row r (from L2 where the previous row prefetched it), then its
 *     normalization from L1/L2, prefetching row r+1 (shifted by prefetch_ahead floats, so memory
 *     keeps reading while the next sums run from L2). f32-shifted's form for long rows from
 *     memory, the default there from D 1024 (rowwise_min_d): on Zen 5 (64 MiB, gamma without
 *     beta, as LLMs run RMSNorm) it reached 0.88-0.92 of probe-stream at D 4096 where the
 *     pipeline reached 0.58-0.68, 0.75 against 0.62-0.67 at D 16384, best with no prefetch
 *     shift; Zen 3 (gamma and beta) had preferred the pipeline by 13-16%, which `make tune`
 *     chooses on such a machine. In cache the pipeline stays (cache_rowwise_min_d).
 * Outputs far larger than the caches go out with non-temporal stores (no read-for-ownership of y).
 *
 * Rows whose fp32 sum of squares overflowed or whose squares underflowed (ln_rms_radicand_ok) are
 * redone in double (ln_rms_row_f64): one test per row. Included by f32-rmsnorm-pipelined-<isa>.c. */
#include <stdlib.h>

#include "f32-passes.h"
#include "bounds-ops.h"
#include "norm-ops-common.h"

/* sum x^2 over x[j..n) added to the four partial sums a0..a3 (which the caller may have started
 * on x[0..j), j a multiple of 4 W), returned in double: grouped the same wherever the loop was
 * entered, so the pipelined and the plain row agree bit for bit. Lanes past n load as 0. Four
 * values, not an array, as SVE needs (f32_sum_from). */
LN_INLINE double rms_sq_from(const float *x, size_t n, size_t j, vf a0, vf a1, vf a2, vf a3)
{
    for (; j + 4 * VF_W <= n; j += 4 * VF_W) {
        vf v0 = vf_load(x + j), v1 = vf_load(x + j + VF_W), v2 = vf_load(x + j + 2 * VF_W);
        vf v3 = vf_load(x + j + 3 * VF_W);
        a0 = vf_fma(v0, v0, a0), a1 = vf_fma(v1, v1, a1), a2 = vf_fma(v2, v2, a2), a3 = vf_fma(v3, v3, a3);
    }
    for (; j + VF_W <= n; j += VF_W) {
        vf v = vf_load(x + j);
        a0 = vf_fma(v, v, a0);
    }
    if (j < n) {
        vf v = vf_load_part(x + j, n - j);
        a1 = vf_fma(v, v, a1);
    }
    return vf_sum(vf_add(vf_add(a0, a1), vf_add(a2, a3)));
}

static double rms_sq(const float *x, size_t n)
{
    const vf z = vf_set1(0.0f);
    return rms_sq_from(x, n, 0, z, z, z, z);
}

/* rstd from the sum of squares; 0 when the row must go to the double path. */
static int rms_stats(double ss, size_t n, double eps, float *rstd)
{
    const double radicand = ss / (double)n + eps;
    if (!ln_rms_radicand_ok(radicand)) return 0;
    *rstd = (float)(1.0 / sqrt(radicand));
    return 1;
}

/* One output vector x * (rstd * g) + b at element i (without beta a plain product); part: its
 * first m < W elements. */
LN_INLINE vf rms_vec(const float *x, const float *g, const float *b, size_t i, vf vr, int has_g, int has_b)
{
    vf s = has_g ? vf_mul(vr, vf_load(g + i)) : vr;
    return has_b ? vf_fma(vf_load(x + i), s, vf_load(b + i)) : vf_mul(vf_load(x + i), s);
}
LN_INLINE vf rms_part(const float *x, const float *g, const float *b, size_t i, size_t m, vf vr, int has_g, int has_b)
{
    vf s = has_g ? vf_mul(vr, vf_load_part(g + i, m)) : vr;
    return has_b ? vf_fma(vf_load_part(x + i, m), s, vf_load_part(b + i, m)) : vf_mul(vf_load_part(x + i, m), s);
}

/* Outputs i..n-1 (streaming: y + i vector-aligned, whole lines streamed), prefetching pf + i (or nothing: NULL). */
LN_INLINE void rms_normalize_from(const float *x, float *y, const float *g, const float *b, size_t i, size_t n, vf vr,
                                  const float *pf, int has_g, int has_b, int stream)
{
    const vec_lines l = vec_stream_lines(y, n, sizeof *y);
    for (; i + VF_W <= n; i += VF_W) {
        if (pf && i % (64 / sizeof(float)) < VF_W) vec_prefetch_l2(pf + i);
        vf_put(y, i, rms_vec(x, g, b, i, vr, has_g, has_b), l, stream);
    }
    if (i < n) vf_store_part(y + i, rms_part(x, g, b, i, n - i, vr, has_g, has_b), n - i);
}

/* The stream lead (elements before the first vector-aligned y, ordinary stores) when streaming. */
LN_INLINE size_t rms_lead(const float *x, float *y, const float *g, const float *b, size_t n, vf vr, int has_g,
                          int has_b, int stream)
{
    const size_t i = stream ? f32_stream_lead(y, n) : 0;
    if (i) vf_store_part(y, rms_part(x, g, b, 0, i, vr, has_g, has_b), i);
    return i;
}

LN_INLINE void rms_normalize_body(const float *x, float *y, const float *g, const float *b, size_t n, float rstd,
                                  const float *pf, int has_g, int has_b, int stream)
{
    const vf vr = vf_set1(rstd);
    const size_t i = rms_lead(x, y, g, b, n, vr, has_g, has_b, stream);
    rms_normalize_from(x, y, g, b, i, n, vr, pf, has_g, has_b, stream);
}

static void rms_normalize(const float *x, float *y, const float *g, const float *b, size_t n, float rstd,
                          const float *pf, int stream)
{
#define CASE(G, B)                                                 \
    (stream ? rms_normalize_body(x, y, g, b, n, rstd, pf, G, B, 1) \
            : rms_normalize_body(x, y, g, b, n, rstd, pf, G, B, 0))
    LN_SPECIALIZE_GB(g, b, CASE);
#undef CASE
}

/* Normalizes x0 into y (rstd) and sums the squares of x1 into *ss; prefetches the row pf (or
 * none: NULL) into L2. */
LN_INLINE void pipeline_body(const float *x0, float *y, const float *g, const float *b, float rstd, const float *x1,
                             const float *pf, size_t n, double *ss, int has_g, int has_b, int stream)
{
    const vf vr = vf_set1(rstd), z = vf_set1(0.0f);
    vf q0 = z, q1 = z, q2 = z, q3 = z;
    size_t i = rms_lead(x0, y, g, b, n, vr, has_g, has_b, stream), j = 0; /* i walks x0 and y, j walks x1 */
    const vec_lines l = vec_stream_lines(y, n, sizeof *y);
#define STAGE(c)                                                  \
    do {                                                          \
        vf v = rms_vec(x0, g, b, i + c * VF_W, vr, has_g, has_b); \
        vf d = vf_load(x1 + j + c * VF_W);                        \
        q##c = vf_fma(d, d, q##c);                                \
        vf_put(y, i + c * VF_W, v, l, stream);                    \
    } while (0)
    for (; i + 4 * VF_W <= n; i += 4 * VF_W, j += 4 * VF_W) {
        if (pf) vec_prefetch_l2_span(pf + j, 4 * VF_W * sizeof(float));
        STAGE(0);
        STAGE(1);
        STAGE(2);
        STAGE(3);
    }
#undef STAGE
    rms_normalize_from(x0, y, g, b, i, n, vr, NULL, has_g, has_b, stream);
    *ss = rms_sq_from(x1, n, j, q0, q1, q2, q3);
}

/* The row's statistics out (RMSNorm has no mean: 0). */
static void rms_put_stats(const ln_args *a, size_t r, double rstd)
{
    if (a->mean) a->mean[r] = 0;
    if (a->rstd) a->rstd[r] = rstd;
}

/* The two-row pipeline over all rows. */
static void forward_pipelined(const ln_args *a, int stream)
{
    const size_t n = a->D, rows = a->rows;
    const float *X = a->x, *g = a->gamma, *b = a->beta;
    float *Y = a->y;
    double ss = rms_sq(X, n);
    for (size_t r = 0; r < rows; r++) {
        const float *x0 = X + r * n, *x1 = x0 + n;
        float *y = Y + r * n, rstd;
        const int ok = rms_stats(ss, n, a->eps, &rstd);
        const double rstd_out = ok ? rstd : ln_rms_row_f64(LN_F32, a, r);
        if (ok && r + 1 < rows) {
            const float *pf = stream && r + 2 < rows ? x1 + n : NULL;
#define CASE(G, B)                                                      \
    (stream ? pipeline_body(x0, y, g, b, rstd, x1, pf, n, &ss, G, B, 1) \
            : pipeline_body(x0, y, g, b, rstd, x1, pf, n, &ss, G, B, 0))
            LN_SPECIALIZE_GB(g, b, CASE);
#undef CASE
        } else {
            if (ok) rms_normalize(x0, y, g, b, n, rstd, NULL, stream);
            if (r + 1 < rows) ss = rms_sq(x1, n);
        }
        rms_put_stats(a, r, rstd_out);
    }
}

/* Row by row: the sums, then the normalization prefetching the next row (prefetch_ahead floats
 * past its start while a row follows it, so its last loads reach into the row after). */
static void forward_rowwise(const ln_args *a, int stream, size_t prefetch_ahead)
{
    const size_t n = a->D, rows = a->rows;
    for (size_t r = 0; r < rows; r++) {
        const float *x = (const float *)a->x + r * n;
        float *y = (float *)a->y + r * n, rstd;
        double rstd_out;
        if (rms_stats(rms_sq(x, n), n, a->eps, &rstd)) {
            const float *pf = r + 1 >= rows ? NULL : r + 2 < rows ? x + n + prefetch_ahead : x + n;
            rms_normalize(x, y, a->gamma, a->beta, n, rstd, pf, stream);
            rstd_out = rstd;
        } else {
            rstd_out = ln_rms_row_f64(LN_F32, a, r);
        }
        rms_put_stats(a, r, rstd_out);
    }
}

/* Long rows in cache, in groups of GROUP rows: the group's sums (x from L2 or L3), then its
 * normalization block by block of BLOCK floats, each block of gamma and beta loaded from L2 once
 * per group and kept in L1 for the group's rows, where the pipeline streams x twice, gamma, beta
 * and y through L2 for every row. */
#define GROUP 4
#define BLOCK 1024

static void forward_grouped(const ln_args *a)
{
    const size_t n = a->D, rows = a->rows;
    const float *g = a->gamma, *b = a->beta;
    for (size_t r = 0; r < rows; r += GROUP) {
        const size_t cnt = rows - r < GROUP ? rows - r : GROUP;
        const float *x = (const float *)a->x + r * n;
        float *y = (float *)a->y + r * n, rstd[GROUP];
        int ok[GROUP];
        for (size_t k = 0; k < cnt; k++) {
            ok[k] = rms_stats(rms_sq(x + k * n, n), n, a->eps, &rstd[k]);
            rms_put_stats(a, r + k, ok[k] ? rstd[k] : ln_rms_row_f64(LN_F32, a, r + k));
        }
        for (size_t j = 0; j < n; j += BLOCK) {
            const size_t len = n - j < BLOCK ? n - j : BLOCK;
            for (size_t k = 0; k < cnt; k++)
                if (ok[k])
                    rms_normalize(x + k * n + j, y + k * n + j, g ? g + j : NULL, b ? b + j : NULL, len, rstd[k], NULL,
                                  0);
        }
    }
}

/* The tunables (kernel.h), in the order of f32_rmsnorm_tunables. */
enum { T_STREAM_MIN_BYTES, T_ROWWISE_MIN_D, T_CACHE_ROWWISE_MIN_D, T_GROUP_MIN_D, T_PREFETCH_AHEAD };
static const int rowwise_min_d_values[] = {1024, 2048, 4096, 8192, 16384, LN_TUNE_OFF};
static const int prefetch_ahead_values[] = {0, 128, 256, 512, 1024};
static const ln_tunable f32_rmsnorm_tunables[] = {
    LN_TUNABLE_STREAM_MIN_BYTES,
    {"rowwise_min_d", "D from which streaming calls go row by row instead of the two-row pipeline", 1024,
     rowwise_min_d_values, 6},
    {"cache_rowwise_min_d", "D from which calls in cache go row by row instead of the two-row pipeline", LN_TUNE_OFF,
     rowwise_min_d_values, 6},
    {"group_min_d", "D from which calls in cache go in row groups sharing gamma and beta blocks", 4096,
     rowwise_min_d_values, 6},
    {"prefetch_ahead", "floats past the next row's start that row-by-row calls prefetch", 0, prefetch_ahead_values, 5},
};

static void f32_rmsnorm_forward(const ln_args *a)
{
    if (a->D == 0 || a->rows == 0) return;
    const ln_tunable *t = f32_rmsnorm_tunables;
    const int stream = ln_tune_streams(a->rows, a->D, sizeof(float), ln_param(a, t, T_STREAM_MIN_BYTES));
    if (!stream && a->D >= (size_t)ln_param(a, t, T_GROUP_MIN_D)) forward_grouped(a);
    else if (a->D >= (size_t)ln_param(a, t, stream ? T_ROWWISE_MIN_D : T_CACHE_ROWWISE_MIN_D))
        forward_rowwise(a, stream, (size_t)ln_param(a, t, T_PREFETCH_AHEAD));
    else forward_pipelined(a, stream);
    if (stream) vec_stream_fence(); /* order the non-temporal stores before the caller reads y */
}

/* Each lane of the sum of squares adds at most n/(4 W) + 4 terms (fma: one rounding each, the
 * square included), then two vector additions; the lanes in double. Taken at the narrowest W
 * (SVE: 4, its count falls as W grows), so one figure holds at every vector length. */
static double f32_rmsnorm_bound(size_t n, double kappa)
{
    (void)kappa;
    return ln_bound_rmsnorm((double)n / (4.0 * VF_W_MIN) + 6.0, 0x1p-24, 0x1p-24);
}

#define F32_RMSNORM_HOW                                                                                     \
    "fp32 FMA sum of squares in 4W lanes (summed in double), y = x (rstd gamma) + beta with one fma; "      \
    "2-row pipeline (normalize r, sum r+1) or row by row with prefetch for long rows, non-temporal "        \
    "stores past stream_min_bytes; rel. error of mean(x^2) + eps (n/(4W) + 9) u; rows whose sums overflow " \
    "or squares underflow redone in double"
