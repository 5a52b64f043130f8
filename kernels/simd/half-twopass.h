/* The fp32 two-pass LayerNorm on 16-bit storage (f16 or bf16), written once over vec.h and the
 * 16-bit block layer (half-vec.h) for AVX2 and AVX-512: each block of 2 W 16-bit elements is
 * widened into two fp32 vectors, the mean and the squared deviations are summed in four vector
 * accumulators (lanes added in double), the epilogue is fp32 with one rounding per output.
 * Included by the *-f32acc-twopass-<isa>.c and bf16-f32acc-mulbias-avx512bf16.c files (and
 * half-shifted.h).
 *
 * Rows whose fp32 statistics cannot be trusted (a sum of squares that overflowed though each
 * square fits, bf16 having fp32's range; or var + eps below 2^-100, where squares underflowing
 * into fp32 subnormals would matter) are detected from the final sums and redone in double
 * (ln_half_row_f64, half.h): one test per row, ordinary rows never pay.
 *
 * Row schedule, a parameter of half_twopass: row by row, the variance pass prefetching the next
 * row; or (pipeline) a three-row software pipeline, one loop normalizing row r, summing the
 * squared deviations of row r+1 and the values of row r+2, prefetching row r+3, so one row's
 * reductions, square root and division overlap the others' loops, and row r+2's memory reads
 * overlap the other two stages (each stage grouped as the plain passes: same bits either way).
 * On AVX-512 the pipeline gave +40-50% rows/s in L1 at D 768-2048 and, for every D (the three
 * rows then in L2), +10-30% from memory at D 4096-16384 (docs/lowp.md); on a Zen 3 (AVX2) +13%
 * in cache at D 768, none from memory at D 768-1024 and 10-25% fewer at D 2048, so AVX2 goes
 * row by row. Outputs far larger than the caches go out with non-temporal stores. */
#ifndef LN_SIMD_HALF_TWOPASS_H
#define LN_SIMD_HALF_TWOPASS_H

#include <math.h>

#include "half-vec.h"
#include "tunables.h"

/* Four fp32 accumulators: the two vectors of two blocks. */
typedef struct {
    vf a0, b0, a1, b1;
} four_sums;

LN_INLINE four_sums four_sums_zero(void)
{
    return (four_sums){vf_set1(0.0f), vf_set1(0.0f), vf_set1(0.0f), vf_set1(0.0f)};
}

LN_INLINE void sum_step(four_sums *s, vf_pair v, vf_pair w)
{
    s->a0 = vf_add(s->a0, v.a), s->b0 = vf_add(s->b0, v.b);
    s->a1 = vf_add(s->a1, w.a), s->b1 = vf_add(s->b1, w.b);
}

LN_INLINE void sq_step(four_sums *q, vf_pair v, vf_pair w, vf m)
{
    vf da = vf_sub(v.a, m), db = vf_sub(v.b, m), ea = vf_sub(w.a, m), eb = vf_sub(w.b, m);
    q->a0 = vf_fma(da, da, q->a0), q->b0 = vf_fma(db, db, q->b0);
    q->a1 = vf_fma(ea, ea, q->a1), q->b1 = vf_fma(eb, eb, q->b1);
}

LN_INLINE double acc4_sum(four_sums s) { return vf_sum(vf_add(vf_add(s.a0, s.b0), vf_add(s.a1, s.b1))); }

/* The fp32 sum of x[j..n) into s (which the caller may have started on x[0..j), j a multiple of
 * 2 HB), two blocks a step into four accumulators: at most n/(4 W) + 2 additions per lane, then
 * the lanes in double. Grouped the same wherever the loop was entered. */
LN_INLINE double half_row_sum_from(ln_dtype t, const uint16_t *x, size_t n, size_t j, four_sums s)
{
    for (; j + 2 * HB <= n; j += 2 * HB) sum_step(&s, half_block_load(t, x + j), half_block_load(t, x + j + HB));
    if (j + HB <= n) {
        vf_pair v = half_block_load(t, x + j);
        s.a0 = vf_add(s.a0, v.a), s.b0 = vf_add(s.b0, v.b);
        j += HB;
    }
    if (j < n) {
        vf_pair v = half_block_load_part(t, x + j, n - j);
        s.a1 = vf_add(s.a1, v.a), s.b1 = vf_add(s.b1, v.b);
    }
    return acc4_sum(s);
}

LN_INLINE double half_row_sum(ln_dtype t, const uint16_t *x, size_t n)
{
    return half_row_sum_from(t, x, n, 0, four_sums_zero());
}

/* The sum of (x - mean)^2 the same way (fma); pf: a row to prefetch meanwhile (the next one:
 * this pass runs from cache, so the hardware prefetcher would not fetch it), or NULL. */
LN_INLINE double half_row_sq_dev_from(ln_dtype t, const uint16_t *x, size_t n, size_t j, float mean, four_sums q,
                                      const uint16_t *pf)
{
    const vf m = vf_set1(mean);
    for (; j + 2 * HB <= n; j += 2 * HB) {
        if (pf) HB_PREFETCH2(pf + j);
        sq_step(&q, half_block_load(t, x + j), half_block_load(t, x + j + HB), m);
    }
    if (j + HB <= n) {
        vf_pair v = half_block_load(t, x + j);
        vf da = vf_sub(v.a, m), db = vf_sub(v.b, m);
        q.a0 = vf_fma(da, da, q.a0), q.b0 = vf_fma(db, db, q.b0);
        j += HB;
    }
    if (j < n) { /* the lanes past n hold 0 - mean: zeroed */
        vf_pair v = half_block_load_part(t, x + j, n - j);
        vf_pair d = half_block_keep(t, (vf_pair){vf_sub(v.a, m), vf_sub(v.b, m)}, n - j);
        q.a1 = vf_fma(d.a, d.a, q.a1), q.b1 = vf_fma(d.b, d.b, q.b1);
    }
    return acc4_sum(q);
}

LN_INLINE double half_row_sq_dev(ln_dtype t, const uint16_t *x, size_t n, float mean, const uint16_t *pf)
{
    return half_row_sq_dev_from(t, x, n, 0, mean, four_sums_zero(), pf);
}

/* The epilogue forms, compile-time constants at every call:
 *   HALF_EPI_F32: (x - mean) * (rstd * g) + b in fp32 with one fma, three fp32 roundings before
 *     the one to 16 bits;
 *   HALF_EPI_MULBIAS: fma(x, rstd, bias) * g + b with bias = -mean * rstd rounded once, the
 *     low-precision epilogue of a popular framework (bf16-f32acc-mulbias);
 *   HALF_EPI_F16: f16 blocks in AVX512-FP16 arithmetic, fma((x - mh) - ml, rs * g, b) with
 *     mean = mh + ml split into two f16 and rs = f16(rstd): no conversions at all (files built
 *     with AVX512-FP16 only; f16-f32acc-h16epi-avx512fp16). */
enum { HALF_EPI_F32, HALF_EPI_MULBIAS, HALF_EPI_F16 };

/* A row's epilogue constants. */
typedef struct {
    vf mean, rstd; /* mean (MULBIAS: the bias -mean * rstd) and rstd */
#if LN_VEC_F16_ARITH
    vh mh, ml, rs; /* HALF_EPI_F16 */
#endif
} hconst;

LN_INLINE hconst half_consts(float mean, float rstd, int epi)
{
    hconst c;
    c.mean = vf_set1(epi == HALF_EPI_MULBIAS ? -(mean * rstd) : mean), c.rstd = vf_set1(rstd);
#if LN_VEC_F16_ARITH
    if (epi == HALF_EPI_F16) { /* mean - mh is exact in fp32; ml is it rounded to f16 */
        _Float16 mh = (_Float16)mean;
        c.mh = vh_set1(mh), c.ml = vh_set1((_Float16)(mean - (float)mh));
        c.rs = vh_set1((_Float16)rstd);
    }
#endif
    return c;
}

LN_INLINE vf_pair half_norm(vf_pair x, vf_pair g, vf_pair b, hconst c, int has_g, int has_b, int epi)
{
    if (epi == HALF_EPI_MULBIAS) {
        vf_pair v = {vf_fma(x.a, c.rstd, c.mean), vf_fma(x.b, c.rstd, c.mean)};
        if (has_g) v.a = vf_mul(v.a, g.a), v.b = vf_mul(v.b, g.b);
        if (has_b) v.a = vf_add(v.a, b.a), v.b = vf_add(v.b, b.b);
        return v;
    }
    vf sa = has_g ? vf_mul(c.rstd, g.a) : c.rstd, sb = has_g ? vf_mul(c.rstd, g.b) : c.rstd;
    vf ba = has_b ? b.a : vf_set1(0.0f), bb = has_b ? b.b : vf_set1(0.0f);
    return (vf_pair){vf_fma(vf_sub(x.a, c.mean), sa, ba), vf_fma(vf_sub(x.b, c.mean), sb, bb)};
}

#if LN_VEC_F16_ARITH
/* HALF_EPI_F16 on a block of HB f16 words: sub, sub, mul, fma. */
LN_INLINE hwords half_norm_f16(hwords x, hwords g, hwords b, hconst c, int has_g, int has_b)
{
    vh d = vh_sub(vh_sub(vh_of_words(x), c.mh), c.ml);
    vh s = has_g ? vh_mul(c.rs, vh_of_words(g)) : c.rs;
    return vh_words(has_b ? vh_fma(d, s, vh_of_words(b)) : vh_mul(d, s));
}
#endif

/* The first k < HB outputs from element j on. */
LN_INLINE void half_norm_part(ln_dtype t, const uint16_t *x, uint16_t *y, const uint16_t *g, const uint16_t *b,
                              size_t j, size_t k, hconst c, int has_g, int has_b, int epi)
{
#if LN_VEC_F16_ARITH
    if (epi == HALF_EPI_F16) {
        const hwords z = hwords_zero();
        hwords_store_part(y + j,
                          half_norm_f16(hwords_load_part(x + j, k), has_g ? hwords_load_part(g + j, k) : z,
                                        has_b ? hwords_load_part(b + j, k) : z, c, has_g, has_b),
                          k);
        return;
    }
#endif
    const vf_pair none = {vf_set1(0.0f), vf_set1(0.0f)};
    half_block_store_part(t, y + j,
                          half_norm(half_block_load_part(t, x + j, k), has_g ? half_block_load_part(t, g + j, k) : none,
                                    has_b ? half_block_load_part(t, b + j, k) : none, c, has_g, has_b, epi),
                          k);
}

/* The full block of outputs at element i. */
LN_INLINE void half_norm_block(ln_dtype t, const uint16_t *x, uint16_t *y, const uint16_t *g, const uint16_t *b,
                               size_t i, hconst c, int has_g, int has_b, int epi, int stream)
{
#if LN_VEC_F16_ARITH
    if (epi == HALF_EPI_F16) {
        const hwords z = hwords_zero();
        hwords_store(y + i,
                     half_norm_f16(hwords_load(x + i), has_g ? hwords_load(g + i) : z, has_b ? hwords_load(b + i) : z,
                                   c, has_g, has_b),
                     stream);
        return;
    }
#endif
    const vf_pair none = {vf_set1(0.0f), vf_set1(0.0f)};
    half_block_store(t, y + i,
                     half_norm(half_block_load(t, x + i), has_g ? half_block_load(t, g + i) : none,
                               has_b ? half_block_load(t, b + i) : none, c, has_g, has_b, epi),
                     stream);
}

/* gamma and beta widened once per call into fp32 (the two vectors of each block one after the
 * other, as half_block_load gives them; NULL where absent), for the fp32 epilogue of rows that
 * stay in cache: its block then loads them instead of converting them for every row. */
typedef struct {
    const float *g, *b;
} hwide;

/* The first n - n % HB elements of v widened into w, block by block as half_block_load gives them. */
LN_INLINE void half_widen(ln_dtype t, const uint16_t *v, size_t n, float *w)
{
    for (size_t i = 0; i + HB <= n; i += HB) {
        vf_pair p = half_block_load(t, v + i);
        vf_store(w + i, p.a), vf_store(w + i + VF_W, p.b);
    }
}

/* gamma and beta (those present) widened into gw and bw. */
LN_INLINE hwide half_widen_gb(ln_dtype t, const uint16_t *g, const uint16_t *b, size_t n, float *gw, float *bw)
{
    if (g) half_widen(t, g, n, gw);
    if (b) half_widen(t, b, n, bw);
    return (hwide){g ? gw : NULL, b ? bw : NULL};
}

/* half_norm_block's fp32 epilogue with gamma and beta already widened (same bits). */
LN_INLINE void half_norm_block_wide(ln_dtype t, const uint16_t *x, uint16_t *y, hwide w, size_t i, hconst c, int has_g,
                                    int has_b, int stream)
{
    const vf_pair none = {vf_set1(0.0f), vf_set1(0.0f)};
    const vf_pair gv = has_g ? (vf_pair){vf_load(w.g + i), vf_load(w.g + i + VF_W)} : none;
    const vf_pair bv = has_b ? (vf_pair){vf_load(w.b + i), vf_load(w.b + i + VF_W)} : none;
    half_block_store(t, y + i, half_norm(half_block_load(t, x + i), gv, bv, c, has_g, has_b, HALF_EPI_F32), stream);
}

/* half_block_store's stream argument for the block at element i of a row whose whole lines are l
 * (vec_stream_lines): stream on them, ordinary stores elsewhere. */
LN_INLINE int half_stream_at(vec_lines l, size_t i, int stream)
{
    return stream && vec_on_lines(l, i, HB) ? stream : 0;
}

/* Outputs i..n-1 (with stream, y + i must be vector-aligned; whole lines stream): the rest of a
 * row whose bulk a row pipeline normalized, or all of it. */
LN_INLINE void half_normalize_from(ln_dtype t, const uint16_t *x, uint16_t *y, const uint16_t *g, const uint16_t *b,
                                   size_t i, size_t n, hconst c, int has_g, int has_b, int epi, int stream)
{
    const vec_lines l = vec_stream_lines(y, n, sizeof *y);
    for (; i + HB <= n; i += HB) half_norm_block(t, x, y, g, b, i, c, has_g, has_b, epi, half_stream_at(l, i, stream));
    if (i < n) half_norm_part(t, x, y, g, b, i, n - i, c, has_g, has_b, epi);
}

/* Elements before the first vector-aligned y when streaming (written with ordinary stores by
 * half_norm_part), else 0. */
LN_INLINE size_t half_stream_lead(const uint16_t *y, size_t n, int stream)
{
    return stream ? vec_stream_lead(y, n, sizeof *y) : 0;
}

/* stream: non-temporal stores from the first vector-aligned y on. */
LN_INLINE void half_normalize_body(ln_dtype t, const uint16_t *x, uint16_t *y, const uint16_t *g, const uint16_t *b,
                                   size_t n, float mean, float rstd, int has_g, int has_b, int epi, int stream)
{
    const hconst c = half_consts(mean, rstd, epi);
    size_t i = half_stream_lead(y, n, stream);
    if (i) half_norm_part(t, x, y, g, b, 0, i, c, has_g, has_b, epi);
    half_normalize_from(t, x, y, g, b, i, n, c, has_g, has_b, epi, stream);
}

LN_INLINE void half_normalize(ln_dtype t, const uint16_t *x, uint16_t *y, const uint16_t *g, const uint16_t *b,
                              size_t n, float mean, float rstd, int epi, int stream)
{
#define CASE(G, B)                                                            \
    (stream ? half_normalize_body(t, x, y, g, b, n, mean, rstd, G, B, epi, 1) \
            : half_normalize_body(t, x, y, g, b, n, mean, rstd, G, B, epi, 0))
    LN_SPECIALIZE_GB(g, b, CASE);
#undef CASE
}

/* The fp32 statistics of a row from its sums (sum, ss about the fp32 mean), and whether they can
 * be used (ln_half_stats_ok: else the row goes to the double path). */
LN_INLINE int half_stats(double sum, double ss, size_t n, double eps, float *mean, float *rstd)
{
    const double radicand = ss / (double)n + eps;
    *mean = (float)(sum / (double)n);
    *rstd = (float)(1.0 / sqrt(radicand));
    return ln_half_stats_ok(sum, ss, radicand);
}

LN_INLINE float half_mean(double sum, size_t n) { return (float)(sum / (double)n); }

/* Row r of a call from sums taken elsewhere (sum, ss about the fp32 mean: half_stats): the
 * normalization (epi), or the double path; the statistics used to a->mean and a->rstd. */
static inline void half_row_from_sums(const ln_args *a, ln_dtype t, size_t r, double sum, double ss, int epi,
                                      int stream)
{
    const size_t n = a->D;
    const uint16_t *x = (const uint16_t *)a->x + r * n;
    uint16_t *y = (uint16_t *)a->y + r * n;
    float mean, rstd;
    double mean_out, rstd_out;
    if (half_stats(sum, ss, n, a->eps, &mean, &rstd)) {
        half_normalize(t, x, y, a->gamma, a->beta, n, mean, rstd, epi, stream);
        mean_out = mean, rstd_out = rstd;
    } else {
        ln_half_row_f64(t, x, y, a->gamma, a->beta, n, a->eps, &mean_out, &rstd_out);
    }
    if (a->mean) a->mean[r] = mean_out;
    if (a->rstd) a->rstd[r] = rstd_out;
}

/* One row as the two-pass computes it: the sum, the squared deviations about the fp32 mean
 * (prefetching the row pf, or none: NULL), the epilogue, or the double path. The statistics
 * used go to *mean_out and *rstd_out. */
static inline void half_row_twopass(ln_dtype t, const uint16_t *x, uint16_t *y, const uint16_t *g, const uint16_t *b,
                                    size_t n, double eps, const uint16_t *pf, int epi, int stream, double *mean_out,
                                    double *rstd_out)
{
    double sum = half_row_sum(t, x, n);
    float mean = half_mean(sum, n), rstd;
    double ss = half_row_sq_dev(t, x, n, mean, pf);
    if (half_stats(sum, ss, n, eps, &mean, &rstd)) {
        half_normalize(t, x, y, g, b, n, mean, rstd, epi, stream);
        *mean_out = mean, *rstd_out = rstd;
    } else {
        ln_half_row_f64(t, x, y, g, b, n, eps, mean_out, rstd_out);
    }
}

/* One loop for three rows: normalizes x0 into y (mean, rstd), sums (x - mean1)^2 of x1 and x of
 * x2, each grouped as half_row_sq_dev and half_row_sum; prefetches the row pf (or none: NULL). */
LN_INLINE void half_pipeline3_body(ln_dtype t, const uint16_t *x0, uint16_t *y, const uint16_t *g, const uint16_t *b,
                                   float mean, float rstd, const uint16_t *x1, float mean1, const uint16_t *x2,
                                   const uint16_t *pf, size_t n, double *ss1, double *sum2, int has_g, int has_b,
                                   int epi, int stream)
{
    const hconst c = half_consts(mean, rstd, epi);
    const vf m1 = vf_set1(mean1);
    four_sums q = four_sums_zero(), s = four_sums_zero();
    size_t i = half_stream_lead(y, n, stream), j = 0; /* i walks x0 and y, j walks x1 and x2 */
    const vec_lines l = vec_stream_lines(y, n, sizeof *y);
    if (i) half_norm_part(t, x0, y, g, b, 0, i, c, has_g, has_b, epi);
    for (; i + 2 * HB <= n; i += 2 * HB, j += 2 * HB) {
        if (pf) HB_PREFETCH2(pf + j);
        half_norm_block(t, x0, y, g, b, i, c, has_g, has_b, epi, half_stream_at(l, i, stream));
        half_norm_block(t, x0, y, g, b, i + HB, c, has_g, has_b, epi, half_stream_at(l, i + HB, stream));
        sq_step(&q, half_block_load(t, x1 + j), half_block_load(t, x1 + j + HB), m1);
        sum_step(&s, half_block_load(t, x2 + j), half_block_load(t, x2 + j + HB));
    }
    half_normalize_from(t, x0, y, g, b, i, n, c, has_g, has_b, epi, stream);
    *ss1 = half_row_sq_dev_from(t, x1, n, j, mean1, q, NULL);
    *sum2 = half_row_sum_from(t, x2, n, j, s);
}

/* The three-row pipeline over all rows; sum[], ss[] hold rows r, r+1, r+2 (index mod 3). */
static inline void half_twopass_rows3(const ln_args *a, ln_dtype t, int epi, int stream)
{
    const size_t n = a->D, rows = a->rows;
    const uint16_t *X = a->x, *g = a->gamma, *b = a->beta;
    uint16_t *Y = a->y;
    double sum[3], ss[3];
    sum[0] = half_row_sum(t, X, n);
    ss[0] = half_row_sq_dev(t, X, n, half_mean(sum[0], n), NULL);
    if (rows > 1) sum[1] = half_row_sum(t, X + n, n);
    for (size_t r = 0; r < rows; r++) {
        const size_t k0 = r % 3, k1 = (r + 1) % 3, k2 = (r + 2) % 3;
        const uint16_t *x0 = X + r * n, *x1 = x0 + n, *x2 = x1 + n;
        uint16_t *y = Y + r * n;
        float mean, rstd;
        double mean_out, rstd_out;
        const int ok = half_stats(sum[k0], ss[k0], n, a->eps, &mean, &rstd);
        if (ok) mean_out = mean, rstd_out = rstd;
        else ln_half_row_f64(t, x0, y, g, b, n, a->eps, &mean_out, &rstd_out);
        if (r + 2 < rows && ok) { /* the pipeline, specialized on gamma, beta and stream */
            const float mean1 = half_mean(sum[k1], n);
            const uint16_t *pf = r + 3 < rows ? x2 + n : NULL;
#define CASE(G, B)                                                                                                   \
    (stream ? half_pipeline3_body(t, x0, y, g, b, mean, rstd, x1, mean1, x2, pf, n, &ss[k1], &sum[k2], G, B, epi, 1) \
            : half_pipeline3_body(t, x0, y, g, b, mean, rstd, x1, mean1, x2, pf, n, &ss[k1], &sum[k2], G, B, epi, 0))
            LN_SPECIALIZE_GB(g, b, CASE);
#undef CASE
        } else {
            /* the last two rows, or after the double path: the stages one by one */
            if (ok) half_normalize(t, x0, y, g, b, n, mean, rstd, epi, stream);
            if (r + 1 < rows) ss[k1] = half_row_sq_dev(t, x1, n, half_mean(sum[k1], n), NULL);
            if (r + 2 < rows) sum[k2] = half_row_sum(t, x2, n);
        }
        if (a->mean) a->mean[r] = mean_out;
        if (a->rstd) a->rstd[r] = rstd_out;
    }
}

/* Outputs far larger than the caches go out with non-temporal stores (no read-for-ownership of
 * y); pipeline: the rows through the three-row pipeline, else row by row; epi: the
 * epilogue form (HALF_EPI_F32 or HALF_EPI_MULBIAS). pipeline and epi are compile-time constants. */
enum { T_STREAM_MIN_BYTES }; /* the tunables (kernel.h), in the order of half_twopass_tunables */
static const ln_tunable half_twopass_tunables[] = {LN_TUNABLE_STREAM_MIN_BYTES};

LN_INLINE void half_twopass(const ln_args *a, ln_dtype t, int epi, int pipeline)
{
    const size_t n = a->D;
    if (n == 0 || a->rows == 0) return; /* nothing to normalize: no statistics either */
    const int stream =
        ln_tune_streams(a->rows, n, sizeof(uint16_t), ln_param(a, half_twopass_tunables, T_STREAM_MIN_BYTES));
    if (pipeline) {
        half_twopass_rows3(a, t, epi, stream);
    } else {
        for (size_t r = 0; r < a->rows; r++) {
            const uint16_t *x = (const uint16_t *)a->x + r * n;
            double mean_out, rstd_out;
            half_row_twopass(t, x, (uint16_t *)a->y + r * n, a->gamma, a->beta, n, a->eps,
                             r + 1 < a->rows ? x + n : NULL, epi, stream, &mean_out, &rstd_out);
            if (a->mean) a->mean[r] = mean_out;
            if (a->rstd) a->rstd[r] = rstd_out;
        }
    }
    if (stream) vec_stream_fence(); /* order the non-temporal stores before the caller reads y */
}

/* Four W-lane accumulators: <= n/(4 W) + 2 additions per lane and three vector additions (the
 * lanes are then summed in double), three roundings in each squared deviation: at most
 * n/(4 W) + 10 fp32 roundings on any term, the fp32 two-pass bound; us: the format's unit
 * roundoff. */
static inline double half_twopass_bound(size_t n, double kappa, double us)
{
    return ln_half_f32acc_bound(n / (4.0 * VF_W) + 10, kappa, us);
}

#endif
