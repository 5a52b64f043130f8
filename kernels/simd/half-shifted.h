/* Shifted-data fp32 LayerNorm on 16-bit storage, as f32-shifted does it in fp32, written once
 * over the 16-bit block layer (half-vec.h) for AVX2 and AVX-512: one pass over x for the
 * statistics instead of two. Per row a shift K (the mean of the row's first HB = 2 W elements,
 * rounded to float) and, in four accumulators each, S1 = sum (x - K) and
 * S2 = sum (x - K)^2 (fma); lanes added in double; mean = K + S1/n, var = S2/n - (S1/n)^2 (Chan,
 * Golub & LeVeque's shifted-data algorithm). The rows go through a two-row pipeline: one loop
 * normalizes row r (from L1/L2) and takes the sums of row r+1 (from memory), so the memory
 * stream overlaps the epilogue, whose conversions are what these kernels spend their time on;
 * streaming, row r+2 is prefetched into L2 meanwhile. On AVX-512, long rows go two by two
 * (rows r and r+1 normalized while the sums of r+2 and r+3 are taken: half_shifted_pairs), each
 * row grouped as in the single-row loop, so its bits do not depend on the schedule.
 *
 * As in f32-shifted, a row whose shift is too far from its mean ((S1/n)^2 > var: |mean - K|
 * beyond about one sigma) or whose statistics ln_half_stats_ok rejects is redone by the two-pass
 * row code (half-twopass.h, its double path included), so the bound is the larger of the
 * accepted rows' and the two-pass one. Included by the *-f32acc-shifted-<isa>.c files. */
#ifndef LN_SIMD_HALF_SHIFTED_H
#define LN_SIMD_HALF_SHIFTED_H

#include "half-twopass.h"

/* The specializations of a row loop, for LN_SPECIALIZE_GB: BODY(G, B, E, S) with compile-time
 * has_g, has_b, epilogue form E and stream S, from the epi and stream in scope (epi: HALF_EPI_F32,
 * or HALF_EPI_F16 in files built with AVX512-FP16). */
#if LN_VEC_F16_ARITH
#define HALF_EPI_CASE(G, B, S) (epi == HALF_EPI_F16 ? BODY(G, B, HALF_EPI_F16, S) : BODY(G, B, HALF_EPI_F32, S))
#else
#define HALF_EPI_CASE(G, B, S) ((void)epi, BODY(G, B, HALF_EPI_F32, S))
#endif
#define HALF_CASE(G, B) (stream ? HALF_EPI_CASE(G, B, HALF_STREAM) : HALF_EPI_CASE(G, B, 0))

/* The shift: the mean of the first min(n, HB) elements, in float. */
LN_INLINE float half_shift_of(ln_dtype t, const uint16_t *x, size_t n)
{
    size_t m = n < HB ? n : HB;
    /* the buffered partial load only for short rows: its stored-then-loaded block stalls
     * (store-to-load forwarding), and a stall per row cost 15% at D 768 */
    vf_pair v = m == HB ? half_block_load(t, x) : half_block_load_part(t, x, m);
    return (float)(vf_sum(vf_add(v.a, v.b)) / (double)m);
}

LN_INLINE void shifted_step(four_sums *s, four_sums *q, vf_pair v, vf_pair w, vf k)
{
    vf_pair dv = {vf_sub(v.a, k), vf_sub(v.b, k)}, dw = {vf_sub(w.a, k), vf_sub(w.b, k)};
    sum_step(s, dv, dw);
    q->a0 = vf_fma(dv.a, dv.a, q->a0), q->b0 = vf_fma(dv.b, dv.b, q->b0);
    q->a1 = vf_fma(dw.a, dw.a, q->a1), q->b1 = vf_fma(dw.b, dw.b, q->b1);
}

/* sum (x - K) and sum (x - K)^2 over x[j..n) into s and q (which the caller may have started on
 * x[0..j), j a multiple of 2 HB), returned in double: grouped the same wherever the loop was
 * entered, so a row's statistics do not depend on whether the pipeline took them. */
LN_INLINE void half_shifted_sums_from(ln_dtype t, const uint16_t *x, size_t n, size_t j, float K, four_sums s,
                                      four_sums q, double *s1, double *s2)
{
    const vf k = vf_set1(K);
    for (; j + 2 * HB <= n; j += 2 * HB)
        shifted_step(&s, &q, half_block_load(t, x + j), half_block_load(t, x + j + HB), k);
    if (j + HB <= n) {
        vf_pair v = half_block_load(t, x + j);
        vf da = vf_sub(v.a, k), db = vf_sub(v.b, k);
        s.a0 = vf_add(s.a0, da), s.b0 = vf_add(s.b0, db);
        q.a0 = vf_fma(da, da, q.a0), q.b0 = vf_fma(db, db, q.b0);
        j += HB;
    }
    if (j < n) { /* the lanes past n hold 0 - K: zeroed */
        vf_pair v = half_block_load_part(t, x + j, n - j);
        vf_pair d = half_block_keep(t, (vf_pair){vf_sub(v.a, k), vf_sub(v.b, k)}, n - j);
        s.a1 = vf_add(s.a1, d.a), s.b1 = vf_add(s.b1, d.b);
        q.a1 = vf_fma(d.a, d.a, q.a1), q.b1 = vf_fma(d.b, d.b, q.b1);
    }
    *s1 = acc4_sum(s);
    *s2 = acc4_sum(q);
}

/* A row's shift *K and its shifted sums, on their own (not in a pipeline). */
LN_INLINE void half_shifted_row_sums(ln_dtype t, const uint16_t *x, size_t n, float *K, double *s1, double *s2)
{
    *K = half_shift_of(t, x, n);
    half_shifted_sums_from(t, x, n, 0, *K, four_sums_zero(), four_sums_zero(), s1, s2);
}

/* Normalizes x0 into y (mean, rstd) and takes the shifted sums of x1 about K1; prefetches the
 * row pf (or none: NULL) into L2. wide (fp32 epilogue only): gamma and beta from w (half_widen_gb). */
LN_INLINE void half_shifted_pipeline_body(ln_dtype t, const uint16_t *x0, uint16_t *y, const uint16_t *g,
                                          const uint16_t *b, hwide w, float mean, float rstd, const uint16_t *x1,
                                          float K1, const uint16_t *pf, size_t n, double *s1, double *s2, int has_g,
                                          int has_b, int epi, int stream, int wide)
{
    const hconst c = half_consts(mean, rstd, epi);
    const vf k = vf_set1(K1);
    four_sums s = four_sums_zero(), q = four_sums_zero();
    size_t i = half_stream_lead(y, n, stream), j = 0; /* i walks x0 and y, j walks x1 */
    const vec_lines l = vec_stream_lines(y, n, sizeof *y);
    if (i) half_norm_part(t, x0, y, g, b, 0, i, c, has_g, has_b, epi);
    for (; i + 2 * HB <= n; i += 2 * HB, j += 2 * HB) {
        if (pf) HB_PREFETCH2(pf + j);
        /* in cache x1 is loaded before the stores to y: x and y are allocated alike, so at n a
         * multiple of 2048 y + i and x1 + i share their low 12 bits, and a load issued after a
         * store with the same low 12 bits waits for it (4K aliasing); +3-8% in cache at D
         * 1024-2048 (docs/lowp.md) */
        vf_pair v1, w1;
        if (!stream) v1 = half_block_load(t, x1 + j), w1 = half_block_load(t, x1 + j + HB);
        const int st0 = half_stream_at(l, i, stream), st1 = half_stream_at(l, i + HB, stream);
        if (wide) {
            half_norm_block_wide(t, x0, y, w, i, c, has_g, has_b, st0);
            half_norm_block_wide(t, x0, y, w, i + HB, c, has_g, has_b, st1);
        } else {
            half_norm_block(t, x0, y, g, b, i, c, has_g, has_b, epi, st0);
            half_norm_block(t, x0, y, g, b, i + HB, c, has_g, has_b, epi, st1);
        }
        if (stream) v1 = half_block_load(t, x1 + j), w1 = half_block_load(t, x1 + j + HB);
        shifted_step(&s, &q, v1, w1, k);
    }
    half_normalize_from(t, x0, y, g, b, i, n, c, has_g, has_b, epi, stream);
    half_shifted_sums_from(t, x1, n, j, K1, s, q, s1, s2);
}

/* Streaming, the single-row pipeline (the short rows: on AVX-512 longer ones go in pairs, which
 * keep HALF_STREAM) stores f16 outputs as whole lines (HALF_STREAM_LINE). From memory on Sapphire
 * Rapids, f16-f32acc-shifted-avx512 +7% at D 1024, level at 768 and 2048 (docs/lowp.md); the
 * two-pass long rows were 13% slower with them. A third specialization chosen per call by D
 * instead made f16-f32acc-f16epi-avx512fp16 5-10% slower at D 768-1024, as run-time choices in
 * this wrapper did before. */
static inline void half_shifted_pipeline(ln_dtype t, const uint16_t *x0, uint16_t *y, const uint16_t *g,
                                         const uint16_t *b, hwide w, float mean, float rstd, const uint16_t *x1,
                                         float K1, const uint16_t *pf, size_t n, double *s1, double *s2, int epi,
                                         int stream, int wide)
{
#define BODY(G, B, E, S) half_shifted_pipeline_body(t, x0, y, g, b, w, mean, rstd, x1, K1, pf, n, s1, s2, G, B, E, S, 0)
#define WIDE(G, B) \
    half_shifted_pipeline_body(t, x0, y, g, b, w, mean, rstd, x1, K1, pf, n, s1, s2, G, B, HALF_EPI_F32, 0, 1)
#define LINE_CASE(G, B) (stream ? HALF_EPI_CASE(G, B, HALF_STREAM_LINE) : HALF_EPI_CASE(G, B, 0))
    if (wide) LN_SPECIALIZE_GB(g, b, WIDE);
    else LN_SPECIALIZE_GB(g, b, LINE_CASE);
#undef LINE_CASE
#undef WIDE
#undef BODY
}

/* The epilogue form for a row: epi, except that the f16 one (HALF_EPI_F16) takes rows with rstd
 * in [2^-12, 2^10] only, so that f16(rstd) and rstd * gamma are normal f16 and the f16
 * subnormal roundings of x - mh and of ml (2^-25 absolute) stay below 2^-15 sigma; the other
 * rows get the fp32 epilogue. */
LN_INLINE int half_epi_for(int epi, float rstd)
{
    return epi == HALF_EPI_F16 && !(rstd >= 0x1p-12f && rstd <= 0x1p10f) ? HALF_EPI_F32 : epi;
}

/* mean and rstd from the shifted sums; 0 when the shift is too far from the mean for the
 * claimed bound ((S1/n)^2 > var, NaN included) or ln_half_stats_ok rejects the sums. */
static inline int half_shifted_stats(double s1, double s2, float K, size_t n, double eps, float *mean, float *rstd)
{
    double d = s1 / (double)n, var = s2 / (double)n - d * d;
    if (!ln_half_stats_ok(s1, s2, var + eps) || !(d * d <= var)) return 0;
    *mean = (float)(K + d);
    *rstd = (float)(1.0 / sqrt(var + eps));
    return 1;
}

/* Rows two by two (AVX-512): one loop normalizes rows r and r+1, each block of gamma and beta
 * loaded (and, for the fp32 epilogue, widened) once for both, and takes the shifted sums of rows
 * r+2 and r+3. Long rows no longer keep x, y, gamma and beta in L1, and with the pairs gamma and
 * beta come from L2 half as often (with them widened once for all rows, bf16 ran 1.2x faster in
 * cache at D 4096-16384). Measured on Sapphire Rapids (docs/lowp.md, two alternated pairs):
 * from memory +10-25% at D 4096-16384; in cache +5-20% at D 8192-16384, 2-3% slower at 4096
 * (where the single-row pipeline still fits L1) and at D 1024 from memory. */
/* (Tunables pair_min_d, in cache, and pair_min_d_stream, streaming from memory.) */

/* Streaming rows shorter than pair_near_min_d prefetch the rows two ahead shifted by
 * pair_ahead elements (4 KiB), so that memory keeps reading while a pair's last blocks and the
 * next pair's start run from cache: +5-8% at D 4096 (four runs, docs/lowp.md). Longer rows
 * prefetch the rows being summed, pair_near elements (512 B) ahead of the sums (their last lines
 * reach into the next pair): on Sapphire Rapids +6-10% at D 8192 and +12-17% at 16384 against
 * prefetching the next pair, 1-2% slower at 4096 (docs/simd.md, eighth round). */

/* AVX-512, in cache, fp32 epilogue: rows up to wide_max_d long take gamma and beta widened once
 * per call (half_widen_gb), which their fp32 copies (8 bytes an element) and the rows x, x + 1
 * and y still leave in L1. Measured on Sapphire Rapids (docs/lowp.md): f16-f32acc-shifted-avx512
 * +20-27% at D 768-4096, bf16-f32acc-shifted-avx512bf16 +10-13% at D 768-2048, level at 4096.
 * The copies live on the stack: HALF_WIDE_BUF, the largest allowed value. */
#define HALF_WIDE_BUF 4096

/* The tunables (kernel.h), in the order of half_shifted_tunables; the pair and wide forms exist
 * on AVX-512 only (AVX2's 16 registers would not hold the two rows' sums). */
enum {
    HS_STREAM_MIN_BYTES,
    HS_PAIR_MIN_D,
    HS_PAIR_MIN_D_STREAM,
    HS_PAIR_AHEAD,
    HS_PAIR_NEAR,
    HS_PAIR_NEAR_MIN_D,
    HS_WIDE_MAX_D
};
#if VF_W == 16
static const int pair_min_d_values[] = {2048, 4096, 8192, 16384, LN_TUNE_OFF};
static const int pair_ahead_values[] = {0, 1024, 2048, 4096};
static const int pair_near_values[] = {0, 128, 256, 512, 1024};
static const int pair_near_min_d_values[] = {4096, 8192, 16384, LN_TUNE_OFF};
static const int wide_max_d_values[] = {0, 1024, 2048, HALF_WIDE_BUF};
#endif
static const ln_tunable half_shifted_tunables[] = {
    LN_TUNABLE_STREAM_MIN_BYTES,
#if VF_W == 16
    {"pair_min_d", "D from which cache-resident rows go two by two", 8192, pair_min_d_values, 5},
    {"pair_min_d_stream", "D from which streaming rows go two by two (D a multiple of 2 W)", 4096, pair_min_d_values,
     5},
    {"pair_ahead", "elements past the pair after next that streaming pairs prefetch", 2048, pair_ahead_values, 4},
    {"pair_near", "elements ahead of the sums that long streaming pairs prefetch", 256, pair_near_values, 5},
    {"pair_near_min_d", "D from which streaming pairs prefetch the rows being summed", 8192, pair_near_min_d_values, 4},
    {"wide_max_d", "D up to which cache-resident rows widen gamma and beta once per call (0: never)", HALF_WIDE_BUF,
     wide_max_d_values, 4},
#endif
};

/* The block of outputs at element i of rows x0 and x1 (constants c0, c1), each row's stores as
 * half_stream_at gives them for its whole lines l0, l1. */
LN_INLINE void half_norm_pair_block(ln_dtype t, const uint16_t *x0, const uint16_t *x1, uint16_t *y0, uint16_t *y1,
                                    const uint16_t *g, const uint16_t *b, size_t i, hconst c0, hconst c1, int has_g,
                                    int has_b, int epi, vec_lines l0, vec_lines l1, int stream)
{
    const int st0 = half_stream_at(l0, i, stream), st1 = half_stream_at(l1, i, stream);
    if (epi != HALF_EPI_F32) { /* the f16 epilogue does not widen gamma and beta */
        half_norm_block(t, x0, y0, g, b, i, c0, has_g, has_b, epi, st0);
        half_norm_block(t, x1, y1, g, b, i, c1, has_g, has_b, epi, st1);
        return;
    }
    const vf_pair none = {vf_set1(0.0f), vf_set1(0.0f)};
    const vf_pair gv = has_g ? half_block_load(t, g + i) : none, bv = has_b ? half_block_load(t, b + i) : none;
    half_block_store(t, y0 + i, half_norm(half_block_load(t, x0 + i), gv, bv, c0, has_g, has_b, epi), st0);
    half_block_store(t, y1 + i, half_norm(half_block_load(t, x1 + i), gv, bv, c1, has_g, has_b, epi), st1);
}

/* Normalizes rows x0 and x1 = x0 + n into y0 and y0 + n and takes the shifted sums of x2 and
 * x3 = x2 + n about K2 and K3 (into s1[0..1], s2[0..1]); prefetches the two rows at pf (or none:
 * NULL). With stream, both rows of y must have the same lead (n a multiple of HB). */
LN_INLINE void half_shifted_pair_body(ln_dtype t, const uint16_t *x0, uint16_t *y0, float mean0, float rstd0,
                                      float mean1, float rstd1, const uint16_t *g, const uint16_t *b,
                                      const uint16_t *x2, float K2, float K3, const uint16_t *pf, size_t n,
                                      double s1[2], double s2[2], int has_g, int has_b, int epi, int stream)
{
    const uint16_t *x1 = x0 + n, *x3 = x2 + n;
    uint16_t *y1 = y0 + n;
    const hconst c0 = half_consts(mean0, rstd0, epi), c1 = half_consts(mean1, rstd1, epi);
    const vf k2 = vf_set1(K2), k3 = vf_set1(K3);
    four_sums sa = four_sums_zero(), qa = four_sums_zero(), sb = four_sums_zero(), qb = four_sums_zero();
    size_t i = half_stream_lead(y0, n, stream), j = 0; /* i walks x0, x1, y0, y1; j walks x2, x3 */
    const vec_lines l0 = vec_stream_lines(y0, n, sizeof *y0), l1 = vec_stream_lines(y1, n, sizeof *y1);
    if (i) {
        half_norm_part(t, x0, y0, g, b, 0, i, c0, has_g, has_b, epi);
        half_norm_part(t, x1, y1, g, b, 0, i, c1, has_g, has_b, epi);
    }
    for (; i + 2 * HB <= n; i += 2 * HB, j += 2 * HB) {
        if (pf) {
            HB_PREFETCH2(pf + j);
            HB_PREFETCH2(pf + n + j);
        }
        half_norm_pair_block(t, x0, x1, y0, y1, g, b, i, c0, c1, has_g, has_b, epi, l0, l1, stream);
        half_norm_pair_block(t, x0, x1, y0, y1, g, b, i + HB, c0, c1, has_g, has_b, epi, l0, l1, stream);
        shifted_step(&sa, &qa, half_block_load(t, x2 + j), half_block_load(t, x2 + j + HB), k2);
        shifted_step(&sb, &qb, half_block_load(t, x3 + j), half_block_load(t, x3 + j + HB), k3);
    }
    half_normalize_from(t, x0, y0, g, b, i, n, c0, has_g, has_b, epi, stream);
    half_normalize_from(t, x1, y1, g, b, i, n, c1, has_g, has_b, epi, stream);
    half_shifted_sums_from(t, x2, n, j, K2, sa, qa, &s1[0], &s2[0]);
    half_shifted_sums_from(t, x3, n, j, K3, sb, qb, &s1[1], &s2[1]);
}

static inline void half_shifted_pair(ln_dtype t, const uint16_t *x0, uint16_t *y0, float mean0, float rstd0,
                                     float mean1, float rstd1, const uint16_t *g, const uint16_t *b, const uint16_t *x2,
                                     float K2, float K3, const uint16_t *pf, size_t n, double s1[2], double s2[2],
                                     int epi, int stream)
{
#define BODY(G, B, E, S) \
    half_shifted_pair_body(t, x0, y0, mean0, rstd0, mean1, rstd1, g, b, x2, K2, K3, pf, n, s1, s2, G, B, E, S)
    LN_SPECIALIZE_GB(g, b, HALF_CASE);
#undef BODY
}

/* The rows two by two: rows r and r+1 normalized while the sums of r+2 and r+3 are taken; a pair
 * with a rejected row, whose rows differ in epilogue form, or the last rows go stage by stage. */
static inline void half_shifted_pairs(const ln_args *a, ln_dtype t, int epi, int stream)
{
    const size_t n = a->D, rows = a->rows;
    const uint16_t *X = a->x, *g = a->gamma, *b = a->beta;
    uint16_t *Y = a->y;
    const size_t near_min_d = (size_t)ln_param(a, half_shifted_tunables, HS_PAIR_NEAR_MIN_D),
                 near = (size_t)ln_param(a, half_shifted_tunables, HS_PAIR_NEAR),
                 ahead = (size_t)ln_param(a, half_shifted_tunables, HS_PAIR_AHEAD);
    float K[2];
    double s1[2], s2[2];
    for (size_t k = 0; k < 2 && k < rows; k++) half_shifted_row_sums(t, X + k * n, n, &K[k], &s1[k], &s2[k]);
    for (size_t r = 0; r < rows; r += 2) {
        const size_t cnt = rows - r < 2 ? 1 : 2, cnt2 = r + 2 >= rows ? 0 : rows - r - 2 < 2 ? 1 : 2;
        float mean[2], rstd[2];
        double mean_out[2], rstd_out[2];
        int ok[2] = {0, 0}, e[2] = {epi, epi};
        for (size_t k = 0; k < cnt; k++) {
            ok[k] = half_shifted_stats(s1[k], s2[k], K[k], n, a->eps, &mean[k], &rstd[k]);
            if (ok[k]) e[k] = half_epi_for(epi, rstd[k]);
        }
        const uint16_t *x0 = X + r * n, *x2 = x0 + 2 * n;
        uint16_t *y0 = Y + r * n;
        if (cnt == 2 && cnt2 == 2 && ok[0] && ok[1] && e[0] == e[1]) {
            K[0] = half_shift_of(t, x2, n), K[1] = half_shift_of(t, x2 + n, n);
            const uint16_t *pf = NULL; /* rows r+2 and r+3 just ahead of their sums, or r+4 and r+5 */
            if (stream && n >= near_min_d) pf = r + 5 <= rows ? x2 + near : NULL;
            else if (stream && r + 6 <= rows) pf = x2 + 2 * n + (r + 7 <= rows ? ahead : 0);
            half_shifted_pair(t, x0, y0, mean[0], rstd[0], mean[1], rstd[1], g, b, x2, K[0], K[1], pf, n, s1, s2, e[0],
                              stream);
        } else {
            for (size_t k = 0; k < cnt; k++) {
                if (ok[k]) half_normalize(t, x0 + k * n, y0 + k * n, g, b, n, mean[k], rstd[k], e[k], stream);
                else
                    half_row_twopass(t, x0 + k * n, y0 + k * n, g, b, n, a->eps, NULL, HALF_EPI_F32, stream,
                                     &mean_out[k], &rstd_out[k]);
            }
            for (size_t k = 0; k < cnt2; k++) half_shifted_row_sums(t, x2 + k * n, n, &K[k], &s1[k], &s2[k]);
        }
        for (size_t k = 0; k < cnt; k++) {
            if (ok[k]) mean_out[k] = mean[k], rstd_out[k] = rstd[k];
            if (a->mean) a->mean[r + k] = mean_out[k];
            if (a->rstd) a->rstd[r + k] = rstd_out[k];
        }
    }
}

/* The rows through the two-row pipeline; wide (a constant): the fp32 epilogue with gamma and beta
 * widened in w. */
LN_INLINE void half_shifted_rows(const ln_args *a, ln_dtype t, int epi, int stream, hwide w, int wide)
{
    const size_t n = a->D, rows = a->rows;
    const uint16_t *X = a->x, *g = a->gamma, *b = a->beta;
    uint16_t *Y = a->y;
    float K;
    double s1, s2;
    half_shifted_row_sums(t, X, n, &K, &s1, &s2);
    for (size_t r = 0; r < rows; r++) {
        const uint16_t *x0 = X + r * n, *x1 = x0 + n;
        uint16_t *y = Y + r * n;
        float mean, rstd;
        double mean_out, rstd_out;
        const int ok = half_shifted_stats(s1, s2, K, n, a->eps, &mean, &rstd);
        if (ok && r + 1 < rows) {
            K = half_shift_of(t, x1, n);
            half_shifted_pipeline(t, x0, y, g, b, w, mean, rstd, x1, K, stream && r + 2 < rows ? x1 + n : NULL, n, &s1,
                                  &s2, half_epi_for(epi, rstd), stream, wide);
        } else {
            /* the last row, or a row with a bad shift: the stages one by one */
            if (ok) half_normalize(t, x0, y, g, b, n, mean, rstd, half_epi_for(epi, rstd), stream);
            else half_row_twopass(t, x0, y, g, b, n, a->eps, NULL, 0, stream, &mean_out, &rstd_out);
            if (r + 1 < rows) half_shifted_row_sums(t, x1, n, &K, &s1, &s2);
        }
        if (ok) mean_out = mean, rstd_out = rstd;
        if (a->mean) a->mean[r] = mean_out;
        if (a->rstd) a->rstd[r] = rstd_out;
    }
}

#if VF_W == 16
/* half_shifted_rows with gamma and beta widened first (fp32 epilogue, n <= HALF_WIDE_BUF). */
static void half_shifted_rows_wide(const ln_args *a, ln_dtype t)
{
    _Alignas(64) float gw[HALF_WIDE_BUF], bw[HALF_WIDE_BUF];
    half_shifted_rows(a, t, HALF_EPI_F32, 0, half_widen_gb(t, a->gamma, a->beta, a->D, gw, bw), 1);
}
#endif

/* epi: HALF_EPI_F32, or HALF_EPI_F16 (f16 in a file built with AVX512-FP16). */
static inline void half_shifted(const ln_args *a, ln_dtype t, int epi)
{
    const size_t n = a->D, rows = a->rows;
    if (n == 0 || rows == 0) return; /* nothing to normalize: no statistics either */
    const ln_tunable *tu = half_shifted_tunables;
    const int stream = ln_tune_streams(rows, n, sizeof(uint16_t), ln_param(a, tu, HS_STREAM_MIN_BYTES));
#if VF_W == 16 /* AVX2's 16 registers would not hold the two rows' sums */
    if (stream ? n >= (size_t)ln_param(a, tu, HS_PAIR_MIN_D_STREAM) && n % HB == 0
               : n >= (size_t)ln_param(a, tu, HS_PAIR_MIN_D)) {
        half_shifted_pairs(a, t, epi, stream);
        if (stream) vec_stream_fence(); /* order the non-temporal stores before the caller reads y */
        return;
    }
    if (!stream && epi == HALF_EPI_F32 && n <= (size_t)ln_param(a, tu, HS_WIDE_MAX_D) && n <= HALF_WIDE_BUF &&
        rows > 1) {
        half_shifted_rows_wide(a, t);
        return;
    }
#endif
    half_shifted_rows(a, t, epi, stream, (hwide){NULL, NULL}, 0);
    if (stream) vec_stream_fence(); /* order the non-temporal stores before the caller reads y */
}

/* As f32-shifted's bound, in the 16-bit format's units (us): bounds.h's shifted-data bound over
 * four W-lane accumulators for the accepted rows, the two-pass bound for the rejected ones. */
static inline double half_shifted_bound(size_t n, double kappa, double us)
{
    return fmax(ln_bound_shifted(n, kappa, 4 * VF_W, us), half_twopass_bound(n, kappa, us));
}

#endif
