/* RMSNorm on 16-bit storage (f16 or bf16) with fp32 arithmetic, written once over vec.h and the
 * 16-bit block layer (half-vec.h) for AVX2, AVX-512 and NEON, from half-twopass.h's pieces: the
 * sum of squares is its squared-deviation sum about 0 (x - 0 is exact), four vector accumulators
 * of fp32 fmas, lanes added in double; rstd = 1 / sqrt(ss / n + eps) in double, rounded to fp32;
 * the epilogue its fp32 one with mean 0, x * (rstd * gamma) + beta in one fma, rounded once to
 * the 16-bit format.
 *
 * Schedules (tunables; the same bits either way, tests/test_tunables.c): a two-row pipeline, one
 * loop normalizing row r and summing the squares of row r+1 (prefetching row r+2 into L2 when
 * streaming), or row by row (the sums prefetching the next row, then the normalization from
 * cache). Outputs far larger than the caches go out with non-temporal stores. Rows whose fp32
 * sum of squares overflowed (bf16 has fp32's range) or whose squares underflowed are redone in
 * double (ln_rms_row_f64). Included by the {f16,bf16}-rmsnorm-f32acc-<isa>.c files, which define
 * HALF_RMSNORM_DTYPE first. */
#ifndef LN_SIMD_HALF_RMSNORM_H
#define LN_SIMD_HALF_RMSNORM_H

#include <stdlib.h>

#include "half-twopass.h"
#include "bounds-ops.h"
#include "norm-ops-common.h"

/* rstd from the sum of squares; 0 when the row must go to the double path. */
LN_INLINE int hrms_stats(double ss, size_t n, double eps, float *rstd)
{
    const double radicand = ss / (double)n + eps;
    if (!ln_rms_radicand_ok(radicand)) return 0;
    *rstd = (float)(1.0 / sqrt(radicand));
    return 1;
}

/* The sum of squares of x[j..n) added to q (which the caller may have started on x[0..j), j a
 * multiple of 2 HB), grouped as half_row_sq_dev_from (the same bits as its sum about 0, without
 * the subtractions); part blocks load 0 past n. pf: a row to prefetch meanwhile, or NULL. */
LN_INLINE void hrms_sq_step(four_sums *q, vf_pair v, vf_pair w)
{
    q->a0 = vf_fma(v.a, v.a, q->a0), q->b0 = vf_fma(v.b, v.b, q->b0);
    q->a1 = vf_fma(w.a, w.a, q->a1), q->b1 = vf_fma(w.b, w.b, q->b1);
}

LN_INLINE double hrms_sq_from(ln_dtype t, const uint16_t *x, size_t n, size_t j, four_sums q, const uint16_t *pf)
{
    for (; j + 2 * HB <= n; j += 2 * HB) {
        if (pf) HB_PREFETCH2(pf + j);
        hrms_sq_step(&q, half_block_load(t, x + j), half_block_load(t, x + j + HB));
    }
    if (j + HB <= n) {
        vf_pair v = half_block_load(t, x + j);
        q.a0 = vf_fma(v.a, v.a, q.a0), q.b0 = vf_fma(v.b, v.b, q.b0);
        j += HB;
    }
    if (j < n) {
        vf_pair v = half_block_load_part(t, x + j, n - j);
        q.a1 = vf_fma(v.a, v.a, q.a1), q.b1 = vf_fma(v.b, v.b, q.b1);
    }
    return acc4_sum(q);
}

/* One block of outputs x (rstd g) + b (without beta a plain product), rounded once. */
LN_INLINE vf_pair hrms_norm(vf_pair x, vf_pair g, vf_pair b, vf vr, int has_g, int has_b)
{
    const vf sa = has_g ? vf_mul(vr, g.a) : vr, sb = has_g ? vf_mul(vr, g.b) : vr;
    if (has_b) return (vf_pair){vf_fma(x.a, sa, b.a), vf_fma(x.b, sb, b.b)};
    return (vf_pair){vf_mul(x.a, sa), vf_mul(x.b, sb)};
}

/* gamma or beta at element i: widened already (w, as half_widen lays it out) or from v. */
LN_INLINE vf_pair hrms_affine(ln_dtype t, const uint16_t *v, const float *w, size_t i, int has, int wide)
{
    if (!has) return (vf_pair){vf_set1(0.0f), vf_set1(0.0f)};
    return wide ? (vf_pair){vf_load(w + i), vf_load(w + i + VF_W)} : half_block_load(t, v + i);
}

/* The block of outputs at element i; wide: gamma and beta from w (the same bits). */
LN_INLINE void hrms_block(ln_dtype t, const uint16_t *x, uint16_t *y, const uint16_t *g, const uint16_t *b, hwide w,
                          size_t i, vf vr, int has_g, int has_b, int wide, int stream)
{
    half_block_store(t, y + i,
                     hrms_norm(half_block_load(t, x + i), hrms_affine(t, g, w.g, i, has_g, wide),
                               hrms_affine(t, b, w.b, i, has_b, wide), vr, has_g, has_b),
                     stream);
}

/* The k < HB outputs from element j on. */
LN_INLINE void hrms_part(ln_dtype t, const uint16_t *x, uint16_t *y, const uint16_t *g, const uint16_t *b, size_t j,
                         size_t k, vf vr, int has_g, int has_b)
{
    const vf_pair none = {vf_set1(0.0f), vf_set1(0.0f)};
    half_block_store_part(t, y + j,
                          hrms_norm(half_block_load_part(t, x + j, k), has_g ? half_block_load_part(t, g + j, k) : none,
                                    has_b ? half_block_load_part(t, b + j, k) : none, vr, has_g, has_b),
                          k);
}

/* Outputs i..n-1 (streaming: y + i vector-aligned, whole lines streamed). */
LN_INLINE void hrms_normalize_from(ln_dtype t, const uint16_t *x, uint16_t *y, const uint16_t *g, const uint16_t *b,
                                   hwide w, size_t i, size_t n, vf vr, int has_g, int has_b, int wide, int stream)
{
    const vec_lines l = vec_stream_lines(y, n, sizeof *y);
    for (; i + HB <= n; i += HB) hrms_block(t, x, y, g, b, w, i, vr, has_g, has_b, wide, half_stream_at(l, i, stream));
    if (i < n) hrms_part(t, x, y, g, b, i, n - i, vr, has_g, has_b);
}

/* The ordinary stores before the first vector-aligned y when streaming: the index after them. */
LN_INLINE size_t hrms_lead(ln_dtype t, const uint16_t *x, uint16_t *y, const uint16_t *g, const uint16_t *b, size_t n,
                           vf vr, int has_g, int has_b, int stream)
{
    const size_t i = half_stream_lead(y, n, stream);
    if (i) hrms_part(t, x, y, g, b, 0, i, vr, has_g, has_b);
    return i;
}

LN_INLINE void hrms_normalize_body(ln_dtype t, const uint16_t *x, uint16_t *y, const uint16_t *g, const uint16_t *b,
                                   hwide w, size_t n, float rstd, int has_g, int has_b, int wide, int stream)
{
    const vf vr = vf_set1(rstd);
    hrms_normalize_from(t, x, y, g, b, w, hrms_lead(t, x, y, g, b, n, vr, has_g, has_b, stream), n, vr, has_g, has_b,
                        wide, stream);
}

/* wide: gamma and beta from w (a call's constant, so the branch is predicted). */
LN_INLINE void hrms_normalize(ln_dtype t, const uint16_t *x, uint16_t *y, const uint16_t *g, const uint16_t *b, hwide w,
                              size_t n, float rstd, int wide, int stream)
{
#define CASE(G, B)                                                                                \
    (wide     ? hrms_normalize_body(t, x, y, g, b, w, n, rstd, G, B, 1, stream ? HALF_STREAM : 0) \
     : stream ? hrms_normalize_body(t, x, y, g, b, w, n, rstd, G, B, 0, HALF_STREAM)              \
              : hrms_normalize_body(t, x, y, g, b, w, n, rstd, G, B, 0, 0))
    LN_SPECIALIZE_GB(g, b, CASE);
#undef CASE
}

/* Normalizes x0 into y (rstd) and sums the squares of x1 into *ss (grouped as hrms_sq_from);
 * prefetches the row pf (or none: NULL) into L2. */
LN_INLINE void hrms_pipeline_body(ln_dtype t, const uint16_t *x0, uint16_t *y, const uint16_t *g, const uint16_t *b,
                                  hwide w, float rstd, const uint16_t *x1, const uint16_t *pf, size_t n, double *ss,
                                  int has_g, int has_b, int wide, int stream)
{
    const vf vr = vf_set1(rstd);
    four_sums q = four_sums_zero();
    size_t i = hrms_lead(t, x0, y, g, b, n, vr, has_g, has_b, stream), j = 0; /* i walks x0 and y, j walks x1 */
    const vec_lines l = vec_stream_lines(y, n, sizeof *y);
    for (; i + 2 * HB <= n; i += 2 * HB, j += 2 * HB) {
        if (pf) HB_PREFETCH2(pf + j);
        hrms_block(t, x0, y, g, b, w, i, vr, has_g, has_b, wide, half_stream_at(l, i, stream));
        hrms_block(t, x0, y, g, b, w, i + HB, vr, has_g, has_b, wide, half_stream_at(l, i + HB, stream));
        hrms_sq_step(&q, half_block_load(t, x1 + j), half_block_load(t, x1 + j + HB));
    }
    hrms_normalize_from(t, x0, y, g, b, w, i, n, vr, has_g, has_b, wide, stream);
    *ss = hrms_sq_from(t, x1, n, j, q, NULL);
}

LN_INLINE void hrms_put_stats(const ln_args *a, size_t r, double rstd)
{
    if (a->mean) a->mean[r] = 0;
    if (a->rstd) a->rstd[r] = rstd;
}

/* The two-row pipeline over all rows. */
LN_INLINE void hrms_pipelined(const ln_args *a, ln_dtype t, hwide w, int wide, int stream)
{
    const size_t n = a->D, rows = a->rows;
    const uint16_t *X = a->x, *g = a->gamma, *b = a->beta;
    uint16_t *Y = a->y;
    double ss = hrms_sq_from(t, X, n, 0, four_sums_zero(), NULL);
    for (size_t r = 0; r < rows; r++) {
        const uint16_t *x0 = X + r * n, *x1 = x0 + n;
        uint16_t *y = Y + r * n;
        float rstd;
        const int ok = hrms_stats(ss, n, a->eps, &rstd);
        const double rstd_out = ok ? rstd : ln_rms_row_f64(t, a, r);
        if (ok && r + 1 < rows) {
            const uint16_t *pf = stream && r + 2 < rows ? x1 + n : NULL;
#define CASE(G, B)                                                                                             \
    (wide     ? hrms_pipeline_body(t, x0, y, g, b, w, rstd, x1, pf, n, &ss, G, B, 1, stream ? HALF_STREAM : 0) \
     : stream ? hrms_pipeline_body(t, x0, y, g, b, w, rstd, x1, pf, n, &ss, G, B, 0, HALF_STREAM)              \
              : hrms_pipeline_body(t, x0, y, g, b, w, rstd, x1, pf, n, &ss, G, B, 0, 0))
            LN_SPECIALIZE_GB(g, b, CASE);
#undef CASE
        } else {
            if (ok) hrms_normalize(t, x0, y, g, b, w, n, rstd, wide, stream);
            if (r + 1 < rows) ss = hrms_sq_from(t, x1, n, 0, four_sums_zero(), NULL);
        }
        hrms_put_stats(a, r, rstd_out);
    }
}

/* Row by row: the sums (prefetching the next row into L2), then the normalization from cache. */
LN_INLINE void hrms_rowwise(const ln_args *a, ln_dtype t, hwide w, int wide, int stream)
{
    const size_t n = a->D;
    for (size_t r = 0; r < a->rows; r++) {
        const uint16_t *x = (const uint16_t *)a->x + r * n;
        uint16_t *y = (uint16_t *)a->y + r * n;
        float rstd;
        double rstd_out;
        const uint16_t *pf = r + 1 < a->rows ? x + n : NULL;
        if (hrms_stats(hrms_sq_from(t, x, n, 0, four_sums_zero(), pf), n, a->eps, &rstd)) {
            hrms_normalize(t, x, y, a->gamma, a->beta, w, n, rstd, wide, stream);
            rstd_out = rstd;
        } else {
            rstd_out = ln_rms_row_f64(t, a, r);
        }
        hrms_put_stats(a, r, rstd_out);
    }
}

/* The tunables (kernel.h), in the order of half_rmsnorm_tunables; the fused 16-bit add-rmsnorm
 * kernels (half-add-rmsnorm.h) list the same entries first, then their own. */
enum { HR_STREAM_MIN_BYTES, HR_ROWWISE_MIN_D, HR_CACHE_ROWWISE_MIN_D, HR_WIDE_MIN_ROWS, HR_COUNT };
static const int hrms_rowwise_min_d_values[] = {1024, 2048, 4096, 8192, 16384, LN_TUNE_OFF};
static const int hrms_wide_min_rows_values[] = {2, 8, 64, LN_TUNE_OFF};
#define HALF_RMSNORM_TUNABLE_ENTRIES                                                                                   \
    LN_TUNABLE_STREAM_MIN_BYTES,                                                                                       \
        {"rowwise_min_d", "D from which streaming calls go row by row instead of the two-row pipeline", LN_TUNE_OFF,   \
         hrms_rowwise_min_d_values, 6},                                                                                \
        {"cache_rowwise_min_d", "D from which calls in cache go row by row instead of the two-row pipeline",           \
         LN_TUNE_OFF, hrms_rowwise_min_d_values, 6},                                                                   \
    {                                                                                                                  \
        "wide_min_rows", "rows from which a call in cache widens gamma and beta to fp32 once instead of every row", 2, \
            hrms_wide_min_rows_values, 4                                                                               \
    }
static const ln_tunable half_rmsnorm_tunables[] = {HALF_RMSNORM_TUNABLE_ENTRIES};

static inline void half_rmsnorm(const ln_args *a, ln_dtype t)
{
    const size_t n = a->D, rows = a->rows;
    if (n == 0 || rows == 0) return;
    const ln_tunable *tu = half_rmsnorm_tunables;
    const int stream = ln_tune_streams(rows, n, sizeof(uint16_t), ln_param(a, tu, HR_STREAM_MIN_BYTES));
    /* gamma and beta widened once per call: the epilogue then loads fp32 instead of converting
     * them for every row (NULL when there is nothing to widen or no memory: converted per row).
     * Not when streaming: a bf16 block's widened layout (even, odd elements) holds only at the
     * block boundaries of element 0, and the stream lead moves a row's blocks off them. */
    const int want = !stream && (a->gamma || a->beta) && n >= HB && rows >= (size_t)ln_param(a, tu, HR_WIDE_MIN_ROWS);
    float *buf = want ? aligned_alloc(64, ((2 * n + 2 * VF_W) * sizeof(float) + 63) / 64 * 64) : NULL;
    const hwide w = buf ? half_widen_gb(t, a->gamma, a->beta, n, buf, buf + n + VF_W) : (hwide){NULL, NULL};
    const int wide = buf != NULL;
    if (n >= (size_t)ln_param(a, tu, stream ? HR_ROWWISE_MIN_D : HR_CACHE_ROWWISE_MIN_D))
        hrms_rowwise(a, t, w, wide, stream);
    else hrms_pipelined(a, t, w, wide, stream);
    free(buf);
    if (stream) vec_stream_fence(); /* order the non-temporal stores before the caller reads y */
}

/* Each lane of the sum of squares adds at most n/(4 W) + 2 fmas, then two vector additions, the
 * lanes in double (the four_sums of half-twopass.h); us: the format's unit roundoff. */
static inline double half_rmsnorm_bound(size_t n, double us)
{
    return ln_bound_rmsnorm((double)n / (4.0 * VF_W) + 6.0, 0x1p-24, us);
}

/* The kernel's forward and bound, for the storage format HALF_RMSNORM_DTYPE (LN_F16 or LN_BF16)
 * that the including file defines. */
static void half_rmsnorm_forward(const ln_args *a) { half_rmsnorm(a, HALF_RMSNORM_DTYPE); }

static double half_rmsnorm_claim(size_t n, double kappa)
{
    (void)kappa;
    return half_rmsnorm_bound(n, HALF_RMSNORM_DTYPE == LN_F16 ? 0x1p-11 : 0x1p-8);
}

#define HALF_RMSNORM_HOW                                                                          \
    "fp32 FMA sum of squares in 4W lanes (summed in double), y = x (rstd gamma) + beta in fp32 "  \
    "with one fma, one rounding to 16 bits; 2-row pipeline (normalize r, sum r+1), non-temporal " \
    "stores past stream_min_bytes; rows whose sums overflow or squares underflow redone in double"

#endif
