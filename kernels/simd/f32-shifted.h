/* Shifted-data fp32 LayerNorm: one pass over x for the statistics instead of two. Per row a
 * shift K (the mean of the row's first W elements, rounded to float) and, with four vector
 * accumulators each, S1 = sum (x - K) and S2 = sum (x - K)^2 (fma); lanes added in double;
 * mean = K + S1/n, var = S2/n - (S1/n)^2 (Chan, Golub & LeVeque 1983, the shifted-data
 * algorithm: relative error ~ n u (1 + ((mean - K)/sigma)^2)). Then y = fma(x - mean,
 * rstd * gamma, beta). Short rows go through a two-stage pipeline: one loop normalizes row r
 * (in cache) and takes the sums of row r+1 (from memory); streaming, it also prefetches row r+2
 * into L2. Long rows in cache go in groups that share each block of gamma/beta
 * (forward_grouped), long rows streaming from memory row by row (forward_rowwise) or, from
 * D 16384 (AVX2 8192), with the sums of row r+1 and the normalization of row r in alternating
 * chunks (chunked_row). So x is read twice instead of three times, and from memory once.
 *
 * A sample shift guarantees nothing for an adversarial row (|mean - K| <= sqrt(n/W) sigma by
 * Cauchy-Schwarz: a factor n/W on the error), so the kernel checks the shift it got: a row
 * with (S1/n)^2 > var (|mean - K| beyond about one sigma), or whose sums are not finite, is
 * redone by f32-twopass's row code (its double fallback included). The bound is the larger of
 * the accepted rows' (with |mean - K|^2 <= 2 sigma^2, the check's own rounding included) and
 * f32-twopass's. Included by f32-shifted-avx2.c and f32-shifted-avx512.c. */
#include <stdlib.h>

#include "f32-passes.h"

/* The shift: the mean of the first min(n, W) elements, in float. */
LN_INLINE float shift_of(const float *x, size_t n)
{
    size_t m = n < VF_W ? n : VF_W;
    return (float)(vf_sum(vf_load_part(x, m)) / (double)m);
}

/* sum (x - K) and sum (x - K)^2 over x[j..n) into the partial sums s, q (which the caller may
 * have started on x[0..j), j a multiple of 4 W), returned in double: grouped the same wherever
 * the loop was entered, so the pipelined and the plain row agree bit for bit. */
LN_INLINE void shifted_sums_from(const float *x, size_t n, size_t j, float K, vf s[4], vf q[4], double *s1, double *s2)
{
    const vf k = vf_set1(K);
    vf s0 = s[0], sa = s[1], sb = s[2], sc = s[3], q0 = q[0], qa = q[1], qb = q[2], qc = q[3];
    for (; j + 4 * VF_W <= n; j += 4 * VF_W) {
        vf d0 = vf_sub(vf_load(x + j), k), d1 = vf_sub(vf_load(x + j + VF_W), k);
        vf d2 = vf_sub(vf_load(x + j + 2 * VF_W), k), d3 = vf_sub(vf_load(x + j + 3 * VF_W), k);
        s0 = vf_add(s0, d0), q0 = vf_fma(d0, d0, q0);
        sa = vf_add(sa, d1), qa = vf_fma(d1, d1, qa);
        sb = vf_add(sb, d2), qb = vf_fma(d2, d2, qb);
        sc = vf_add(sc, d3), qc = vf_fma(d3, d3, qc);
    }
    for (; j + VF_W <= n; j += VF_W) {
        vf d = vf_sub(vf_load(x + j), k);
        s0 = vf_add(s0, d), q0 = vf_fma(d, d, q0);
    }
    if (j < n) {
        vf d = vf_keep(vf_sub(vf_load_part(x + j, n - j), k), n - j);
        sa = vf_add(sa, d), qa = vf_fma(d, d, qa);
    }
    *s1 = vf_sum(vf_add(vf_add(s0, sa), vf_add(sb, sc)));
    *s2 = vf_sum(vf_add(vf_add(q0, qa), vf_add(qb, qc)));
}

static void shifted_sums(const float *x, size_t n, float K, double *s1, double *s2)
{
    vf z[4] = {vf_set1(0.0f), vf_set1(0.0f), vf_set1(0.0f), vf_set1(0.0f)}, w[4] = {z[0], z[1], z[2], z[3]};
    shifted_sums_from(x, n, 0, K, z, w, s1, s2);
}

/* Normalizes x0 into y (mean, rstd) and takes the shifted sums of x1 about K1; prefetches the
 * row pf (or none: NULL) into L2. */
LN_INLINE void pipeline_body(const float *x0, float *y, const float *g, const float *b, float mean, float rstd,
                             const float *x1, float K1, const float *pf, size_t n, double *s1, double *s2, int has_g,
                             int has_b, int stream)
{
    const vf vmean = vf_set1(mean), vrstd = vf_set1(rstd), k = vf_set1(K1);
    vf z = vf_set1(0.0f), s[4] = {z, z, z, z}, q[4] = {z, z, z, z};
    size_t i = stream ? f32_stream_lead(y, n) : 0, j = 0; /* i walks x0 and y, j walks x1 */
    const vec_lines l = vec_stream_lines(y, n, sizeof *y);
    if (i) vf_store_part(y, f32_norm_part(x0, g, b, 0, i, vmean, vrstd, has_g, has_b), i);
#define STAGES(c)                                                                \
    do {                                                                         \
        vf v = f32_norm_vec(x0, g, b, i + c * VF_W, vmean, vrstd, has_g, has_b); \
        vf d = vf_sub(vf_load(x1 + j + c * VF_W), k);                            \
        s[c] = vf_add(s[c], d);                                                  \
        q[c] = vf_fma(d, d, q[c]);                                               \
        vf_put(y, i + c * VF_W, v, l, stream);                                   \
    } while (0)
    for (; i + 4 * VF_W <= n; i += 4 * VF_W, j += 4 * VF_W) {
        if (pf) vec_prefetch_l2_span(pf + j, 4 * VF_W * sizeof(float));
        STAGES(0);
        STAGES(1);
        STAGES(2);
        STAGES(3);
    }
#undef STAGES
    f32_normalize_from(x0, y, g, b, i, n, vmean, vrstd, has_g, has_b, stream);
    shifted_sums_from(x1, n, j, K1, s, q, s1, s2);
}

static void pipeline(const float *x0, float *y, const float *g, const float *b, float mean, float rstd, const float *x1,
                     float K1, const float *pf, size_t n, double *s1, double *s2, int stream)
{
#define CASE(G, B)                                                                   \
    (stream ? pipeline_body(x0, y, g, b, mean, rstd, x1, K1, pf, n, s1, s2, G, B, 1) \
            : pipeline_body(x0, y, g, b, mean, rstd, x1, K1, pf, n, s1, s2, G, B, 0))
    LN_SPECIALIZE_GB(g, b, CASE);
#undef CASE
}

/* mean and rstd from the shifted sums; 0 when the shift is too far from the mean for the
 * claimed bound ((S1/n)^2 > var, NaN included), a sum is not finite or var + eps is too small
 * for fp32 squares (the row goes to f32-twopass's row code and its double fallback). */
static int shifted_stats(double s1, double s2, float K, size_t n, double eps, float *mean, float *rstd)
{
    double d = s1 / (double)n, var = s2 / (double)n - d * d;
    if (!(d * d <= var) || !ln_f32_stats_usable(s1, var, eps)) return 0; /* f32-fallback.h */
    *mean = (float)(K + d);
    *rstd = (float)(1.0 / sqrt(var + eps));
    return 1;
}

/* Long rows: gamma and beta (2 n floats) no longer stay in L1 beside x, and the pipeline's
 * five streams (x twice, gamma, beta, y) all come from L2. So rows go in groups of GROUP: the
 * group's rows are normalized block by block of BLOCK floats of gamma/beta (loaded from L2 once
 * per group instead of once per row), while the next group's shifted sums are taken on the
 * same block (and, streaming, the group after that prefetched into L2). */
#define GROUP 4
#define BLOCK 1024 /* a multiple of 4 W */

typedef struct {
    const float *x[GROUP]; /* rows to normalize */
    float *y[GROUP];
    float mean[GROUP], rstd[GROUP];
    size_t count;
    const float *x1[GROUP]; /* rows to sum about K1 */
    float K1[GROUP];
    size_t count1;
    double s1[GROUP], s2[GROUP]; /* their sums, out */
} row_group;

/* sum (x - K) and sum (x - K)^2 over xs[0..len) (len a multiple of 4 W) into s, q; with norm,
 * fused with the normalization of another row's block of len (x, y, g, b at the block), which
 * gives the loads of the two blocks one loop to overlap in (in cache at D 4096-16384 AVX2
 * +2-17%, AVX-512 -5% to +9%, mostly within 3%: docs/simd.md). Each output and partial sum is
 * the one the loops apart give. */
LN_INLINE void shifted_block(const float *xs, size_t len, float K, vf s[4], vf q[4], const float *x, float *y,
                             const float *g, const float *b, float mean, float rstd, int has_g, int has_b, int norm)
{
    const vf k = vf_set1(K), vmean = vf_set1(mean), vrstd = vf_set1(rstd);
    vf s0 = s[0], sa = s[1], sb = s[2], sc = s[3], q0 = q[0], qa = q[1], qb = q[2], qc = q[3];
    for (size_t i = 0; i < len; i += 4 * VF_W) {
        vf d0 = vf_sub(vf_load(xs + i), k), d1 = vf_sub(vf_load(xs + i + VF_W), k);
        vf d2 = vf_sub(vf_load(xs + i + 2 * VF_W), k), d3 = vf_sub(vf_load(xs + i + 3 * VF_W), k);
        s0 = vf_add(s0, d0), q0 = vf_fma(d0, d0, q0);
        sa = vf_add(sa, d1), qa = vf_fma(d1, d1, qa);
        sb = vf_add(sb, d2), qb = vf_fma(d2, d2, qb);
        sc = vf_add(sc, d3), qc = vf_fma(d3, d3, qc);
        for (size_t c = 0; norm && c < 4 * VF_W; c += VF_W)
            vf_store(y + i + c, f32_norm_vec(x, g, b, i + c, vmean, vrstd, has_g, has_b));
    }
    s[0] = s0, s[1] = sa, s[2] = sb, s[3] = sc, q[0] = q0, q[1] = qa, q[2] = qb, q[3] = qc;
}

LN_INLINE void group_body(row_group *G, const float *g, const float *b, const float *pf, size_t n, int has_g, int has_b,
                          int stream)
{
    vf s[GROUP][4], q[GROUP][4];
    for (size_t k = 0; k < GROUP; k++)
        for (size_t c = 0; c < 4; c++) s[k][c] = q[k][c] = vf_set1(0.0f);
    const size_t nsum = n / (4 * VF_W) * (4 * VF_W); /* the sums' tails go through shifted_sums_from */
    for (size_t j = 0; j < n; j += BLOCK) {
        const size_t len = n - j < BLOCK ? n - j : BLOCK, send = j + len < nsum ? j + len : nsum;
        /* normalized last block first, last row first: the group's sums ended there in the previous
         * call, so that block is still in L1 (+2-3% at D 4096-16384, docs/simd.md) */
        const size_t jn = (n - 1) / BLOCK * BLOCK - j, nlen = n - jn < BLOCK ? n - jn : BLOCK;
        const float *gn = g ? g + jn : g, *bn = b ? b + jn : b;
        /* the t-th row to normalize with the t-th to sum, in one loop when their blocks match */
        const int fuse = nlen == len && send == j + len;
        for (size_t t = 0; t < G->count || t < G->count1; t++) {
            const size_t kn = G->count - 1 - t; /* last row first */
            if (fuse && t < G->count && t < G->count1) {
                shifted_block(G->x1[t] + j, len, G->K1[t], s[t], q[t], G->x[kn] + jn, G->y[kn] + jn, gn, bn,
                              G->mean[kn], G->rstd[kn], has_g, has_b, 1);
                continue;
            }
            if (t < G->count)
                f32_normalize_body(G->x[kn] + jn, G->y[kn] + jn, gn, bn, nlen, G->mean[kn], G->rstd[kn], has_g, has_b,
                                   stream);
            if (t < G->count1 && j < send)
                shifted_block(G->x1[t] + j, send - j, G->K1[t], s[t], q[t], NULL, NULL, NULL, NULL, 0, 0, 0, 0, 0);
        }
        if (pf)
            for (size_t k = 0; k < GROUP; k++) vec_prefetch_l2_span(pf + k * n + j, len * sizeof(float));
    }
    for (size_t k = 0; k < G->count1; k++)
        shifted_sums_from(G->x1[k], n, nsum, G->K1[k], s[k], q[k], &G->s1[k], &G->s2[k]);
}

static void group(row_group *G, const float *g, const float *b, const float *pf, size_t n, int stream)
{
#define CASE(HG, HB) (stream ? group_body(G, g, b, pf, n, HG, HB, 1) : group_body(G, g, b, pf, n, HG, HB, 0))
    LN_SPECIALIZE_GB(g, b, CASE);
#undef CASE
}

static void forward_grouped(const ln_args *a, int stream)
{
    const size_t n = a->D, rows = a->rows;
    const float *X = a->x;
    float *Y = a->y;
    row_group G = {.count = 0};
    for (size_t k = 0; k < GROUP && k < rows; k++) {
        G.K1[k] = shift_of(X + k * n, n);
        shifted_sums(X + k * n, n, G.K1[k], &G.s1[k], &G.s2[k]);
    }
    for (size_t r = 0; r < rows; r += GROUP) {
        const size_t cnt = rows - r < GROUP ? rows - r : GROUP;
        const size_t r1 = r + GROUP, cnt1 = r1 >= rows ? 0 : rows - r1 < GROUP ? rows - r1 : GROUP;
        G.count = 0;
        for (size_t k = 0; k < cnt; k++) {
            const float *x = X + (r + k) * n;
            float *y = Y + (r + k) * n, mean, rstd;
            double mean_out, rstd_out;
            if (shifted_stats(G.s1[k], G.s2[k], G.K1[k], n, a->eps, &mean, &rstd)) {
                G.x[G.count] = x, G.y[G.count] = y, G.mean[G.count] = mean, G.rstd[G.count] = rstd;
                G.count++;
                mean_out = mean, rstd_out = rstd;
            } else {
                f32_row_twopass(x, y, a->gamma, a->beta, n, a->eps, NULL, stream, &mean_out, &rstd_out);
            }
            if (a->mean) a->mean[r + k] = mean_out;
            if (a->rstd) a->rstd[r + k] = rstd_out;
        }
        G.count1 = cnt1;
        for (size_t k = 0; k < cnt1; k++) {
            G.x1[k] = X + (r1 + k) * n;
            G.K1[k] = shift_of(G.x1[k], n);
        }
        group(&G, a->gamma, a->beta, stream && r1 + 2 * GROUP <= rows ? X + (r1 + GROUP) * n : NULL, n, stream);
    }
}

/* Long rows streaming from memory, gamma and beta interleaved: the sums of row r+1 and the
 * normalization of row r (x from L2) alternate chunk by chunk of CHUNK floats, and both halves
 * of each chunk prefetch into L2 at the same pace (one line for every two lines either reads),
 * chunk_ahead floats (a tunable) past the sums, so the memory stream does not pause while the row form's
 * sums run alone from L2 (without the sums pass the row form reaches 0.93-1.04 of probe-stream).
 * The sums keep their grouping (shifted_block, then shifted_sums_from): the same bits as the row
 * form. Measured on Sapphire Rapids (docs/simd.md, eighth round), against the row form: AVX-512
 * +2-4% at D 16384, 1-2% slower at 8192, 8-10% at 4096; AVX2 +14% at 16384, +8-10% at 8192, 2%
 * slower at 4096 (its row form is slower). Chunks of 256 or 4096 floats, or all the prefetches
 * in the normalization, were 5-15% slower. */
#define CHUNK 512 /* a multiple of 4 W and of 32 */

/* One output vector at element i with gamma and beta from gb at k (interleave_gamma_beta): the
 * same operations as f32_norm_vec. */
LN_INLINE vf norm_pair_vec(const float *x, const float *gb, size_t i, size_t k, vf vmean, vf vrstd)
{
    return vf_fma(vf_sub(vf_load(x + i), vmean), vf_mul(vrstd, vf_load(gb + k)), vf_load(gb + k + VF_W));
}

/* Normalizes row x into y (mean, rstd; gamma/beta from gb, lead as y's) and takes the shifted
 * sums of x1 about K1, chunk by chunk, prefetching pf (or nothing: NULL). */
static void chunked_row(const float *x, float *y, const float *g, const float *b, const float *gb, size_t n, float mean,
                        float rstd, const float *x1, float K1, const float *pf, double *s1, double *s2)
{
    const vf vmean = vf_set1(mean), vrstd = vf_set1(rstd), z = vf_set1(0.0f);
    vf s[4] = {z, z, z, z}, q[4] = {z, z, z, z};
    const size_t lead = f32_stream_lead(y, n), nsum = n / (4 * VF_W) * (4 * VF_W);
    size_t i = lead, p = 0; /* i walks x and y, p the prefetched row */
    const vec_lines l = vec_stream_lines(y, n, sizeof *y);
    if (i) vf_store_part(y, f32_norm_part(x, g, b, 0, i, vmean, vrstd, 1, 1), i);
    for (size_t j = 0; j < n; j += CHUNK) {
        const size_t je = j + CHUNK < nsum ? j + CHUNK : nsum, ie = j + CHUNK < n ? j + CHUNK : n;
        for (size_t c = j; c < je; c += 4 * VF_W) { /* 4 W floats summed, 2 W prefetched */
            if (pf) vec_prefetch_l2_span(pf + p, 2 * VF_W * sizeof(float));
            p += 2 * VF_W;
            shifted_block(x1 + c, 4 * VF_W, K1, s, q, NULL, NULL, NULL, NULL, 0, 0, 0, 0, 0);
        }
        for (; i + VF_W <= ie; i += VF_W) { /* a line prefetched every 32 floats normalized */
            if (pf && (i - lead) % 32 == 32 - VF_W) vec_prefetch_l2(pf + p), p += 16;
            vf_put(y, i, norm_pair_vec(x, gb, i, 2 * (i - lead), vmean, vrstd), l, 1);
        }
    }
    if (i < n) vf_store_part(y + i, f32_norm_part(x, g, b, i, n - i, vmean, vrstd, 1, 1), n - i);
    shifted_sums_from(x1, n, nsum, K1, s, q, s1, s2);
}

/* The two-row pipeline, rows of n floats; streaming with gb (interleave_gamma_beta), the rows in
 * chunks (chunked_row) instead. */
static void forward_pipelined(const ln_args *a, int stream, const float *gb, size_t chunk_ahead)
{
    const size_t n = a->D, rows = a->rows;
    const float *X = a->x;
    float *Y = a->y;
    float K = shift_of(X, n);
    double s1, s2;
    shifted_sums(X, n, K, &s1, &s2);
    for (size_t r = 0; r < rows; r++) {
        const float *x0 = X + r * n, *x1 = x0 + n;
        float *y = Y + r * n, mean, rstd;
        double mean_out, rstd_out;
        const int ok = shifted_stats(s1, s2, K, n, a->eps, &mean, &rstd);
        if (ok && r + 1 < rows) {
            K = shift_of(x1, n);
            if (gb)
                chunked_row(x0, y, a->gamma, a->beta, gb, n, mean, rstd, x1, K, r + 2 < rows ? x1 + chunk_ahead : NULL,
                            &s1, &s2);
            else
                pipeline(x0, y, a->gamma, a->beta, mean, rstd, x1, K, stream && r + 2 < rows ? x1 + n : NULL, n, &s1,
                         &s2, stream);
        } else {
            if (ok) f32_normalize(x0, y, a->gamma, a->beta, n, mean, rstd, stream);
            else f32_row_twopass(x0, y, a->gamma, a->beta, n, a->eps, NULL, stream, &mean_out, &rstd_out);
            if (r + 1 < rows) {
                K = shift_of(x1, n);
                shifted_sums(x1, n, K, &s1, &s2);
            }
        }
        if (ok) mean_out = mean, rstd_out = rstd;
        if (a->mean) a->mean[r] = mean_out;
        if (a->rstd) a->rstd[r] = rstd_out;
    }
}

/* Long rows streaming from memory: row by row, the sums (x from memory, or from L2 where the
 * previous row prefetched it) and then the normalization (x again, from L1/L2) with
 * non-temporal stores, prefetching the next row into L2 meanwhile. Once x, gamma and beta of a
 * row (3 n floats) outgrow L1, the pipeline reads all three from L2 while the memory stream
 * waits on it; on a Sapphire Rapids VM (256 MiB, docs/simd.md) this form measured 0.82-0.86 of
 * probe-stream at D 4096-16384 against the pipeline's 0.63-0.73, the same form without the
 * prefetch 0.63, row groups 0.62-0.66. At D 2048 the pipeline is still ahead (0.92 against 0.78). */

/* The normalization of row r prefetches row r+1 shifted by prefetch_ahead floats (1 KiB): its
 * last loads reach into row r+2, so memory keeps reading while the sums of row r+1 run from L2
 * (which the prefetch into the row alone left idle). Measured (docs/simd.md): 1 KiB, 0.5 and
 * 2 KiB alike, +5-11% at D 4096-16384; 4 KiB no gain. */

/* gamma and beta interleaved by vectors from column lead on (g[lead..lead+W), b[lead..lead+W),
 * g[lead+W..), ...; whole vectors only): the normalization then reads one array from L2 where
 * it read two (+2-6% at D 4096-16384, docs/simd.md). Allocated per call: streaming calls are
 * >= 32 MiB, the copy is 2 D floats. NULL when there is nothing to pair or no memory (the
 * caller then reads gamma and beta as they are). */
static float *interleave_gamma_beta(const float *g, const float *b, size_t lead, size_t n)
{
    const size_t m = (n - lead) / VF_W;
    float *gb = m ? aligned_alloc(64, m * 2 * VF_W * sizeof(float)) : NULL;
    for (size_t k = 0; gb && k < m; k++) {
        vf_store(gb + 2 * k * VF_W, vf_load(g + lead + k * VF_W));
        vf_store(gb + (2 * k + 1) * VF_W, vf_load(b + lead + k * VF_W));
    }
    return gb;
}

/* The normalization with non-temporal stores, prefetching pf (or nothing: NULL) into L2 as it
 * goes; gamma and beta from gb (interleave_gamma_beta, lead the same as y's) when pairs is set.
 * The same operations as f32_norm_vec either way. */
LN_INLINE void normalize_prefetch_body(const float *x, float *y, const float *g, const float *b, const float *gb,
                                       size_t n, float mean, float rstd, const float *pf, int has_g, int has_b,
                                       int pairs)
{
    const vf vmean = vf_set1(mean), vrstd = vf_set1(rstd);
    size_t i = f32_stream_lead(y, n);
    const vec_lines l = vec_stream_lines(y, n, sizeof *y);
    if (i) vf_store_part(y, f32_norm_part(x, g, b, 0, i, vmean, vrstd, has_g, has_b), i);
    for (size_t k = 0; i + VF_W <= n; i += VF_W, k += 2 * VF_W) {
        if (pf) vec_prefetch_l2(pf + i);
        vf v = pairs ? norm_pair_vec(x, gb, i, k, vmean, vrstd) : f32_norm_vec(x, g, b, i, vmean, vrstd, has_g, has_b);
        vf_put(y, i, v, l, 1);
    }
    if (i < n) vf_store_part(y + i, f32_norm_part(x, g, b, i, n - i, vmean, vrstd, has_g, has_b), n - i);
}

static void forward_rowwise(const ln_args *a, size_t chunked_min_d, size_t prefetch_ahead, size_t chunk_ahead)
{
    const size_t n = a->D;
    /* every row's y has the first row's lead when rows are whole vectors */
    float *gb = a->gamma && a->beta && n % VF_W == 0
                    ? interleave_gamma_beta(a->gamma, a->beta, f32_stream_lead(a->y, n), n)
                    : NULL;
    if (gb && n >= chunked_min_d) {
        forward_pipelined(a, 1, gb, chunk_ahead);
        free(gb);
        return;
    }
    for (size_t r = 0; r < a->rows; r++) {
        const float *x = (const float *)a->x + r * n;
        float *y = (float *)a->y + r * n, mean, rstd;
        double s1, s2, mean_out, rstd_out;
        const float K = shift_of(x, n);
        shifted_sums(x, n, K, &s1, &s2);
        const float *pf = r + 1 >= a->rows ? NULL : r + 2 < a->rows ? x + n + prefetch_ahead : x + n;
        if (shifted_stats(s1, s2, K, n, a->eps, &mean, &rstd)) {
            if (gb) normalize_prefetch_body(x, y, a->gamma, a->beta, gb, n, mean, rstd, pf, 1, 1, 1);
            else {
#define CASE(G, B) normalize_prefetch_body(x, y, a->gamma, a->beta, NULL, n, mean, rstd, pf, G, B, 0)
                LN_SPECIALIZE_GB(a->gamma, a->beta, CASE);
#undef CASE
            }
            mean_out = mean, rstd_out = rstd;
        } else {
            f32_row_twopass(x, y, a->gamma, a->beta, n, a->eps, NULL, 1, &mean_out, &rstd_out);
        }
        if (a->mean) a->mean[r] = mean_out;
        if (a->rstd) a->rstd[r] = rstd_out;
    }
    free(gb);
}

/* Row groups in cache from D 4096, where the pipeline's 5 n floats (80 KiB) are well past L1;
 * at D 2048 (40 KiB, L1d 48 KiB on Sapphire Rapids) the pipeline measured 1.2-1.3x the groups
 * (docs/simd.md). Streaming from memory groups measured slower than the pipeline (0.52-0.66 of
 * the copy probe against 0.67-0.76 at D 4096-16384, groups of 2 or 4 rows). */

/* The tunables (kernel.h), in the order of f32_shifted_tunables; defaults as measured above. */
enum { T_STREAM_MIN_BYTES, T_ROWWISE_MIN_D, T_GROUP_MIN_D, T_CHUNKED_MIN_D, T_PREFETCH_AHEAD, T_CHUNK_AHEAD };
static const int rowwise_min_d_values[] = {1024, 2048, 4096, 8192, 16384, LN_TUNE_OFF};
static const int group_min_d_values[] = {1024, 2048, 4096, 8192, 16384, LN_TUNE_OFF};
static const int chunked_min_d_values[] = {4096, 8192, 16384, 32768, LN_TUNE_OFF};
static const int prefetch_ahead_values[] = {0, 128, 256, 512, 1024};
static const int chunk_ahead_values[] = {0, 512, 1024, 2048, 4096};
static const ln_tunable f32_shifted_tunables[] = {
    LN_TUNABLE_STREAM_MIN_BYTES,
    {"rowwise_min_d", "D from which streaming calls go row by row (forward_rowwise)", 4096, rowwise_min_d_values, 6},
    {"group_min_d", "D from which cache-resident calls go in row groups (forward_grouped)", 4096, group_min_d_values,
     6},
    {"chunked_min_d", "D from which row-by-row streaming alternates sums and normalization in chunks",
     VF_W == 16 ? 16384 : 8192, chunked_min_d_values, 5},
    {"prefetch_ahead", "floats past the next row's start that row-by-row streaming prefetches", 256,
     prefetch_ahead_values, 5},
    {"chunk_ahead", "floats past the sums that the chunked rows prefetch", 1024, chunk_ahead_values, 5},
};

static void f32_shifted_forward(const ln_args *a)
{
    if (a->D == 0 || a->rows == 0) return;
    const ln_tunable *t = f32_shifted_tunables;
    const int stream = ln_tune_streams(a->rows, a->D, sizeof(float), ln_param(a, t, T_STREAM_MIN_BYTES));
    if (stream && a->D >= (size_t)ln_param(a, t, T_ROWWISE_MIN_D))
        forward_rowwise(a, (size_t)ln_param(a, t, T_CHUNKED_MIN_D), (size_t)ln_param(a, t, T_PREFETCH_AHEAD),
                        (size_t)ln_param(a, t, T_CHUNK_AHEAD));
    else if (a->D >= (size_t)ln_param(a, t, T_GROUP_MIN_D) && !stream) forward_grouped(a, stream);
    else forward_pipelined(a, stream, NULL, 0);
    if (stream) vec_stream_fence(); /* order the non-temporal stores before the caller reads y */
}

/* Accepted rows: bounds.h's shifted-data bound over 4 W lanes; rejected rows: f32-twopass's. */
static double f32_shifted_bound(size_t n, double kappa)
{
    return fmax(ln_bound_shifted(n, kappa, 4 * VF_W, 0x1p-24), ln_bound_f32_lanes(n, kappa, 4 * VF_W, 0.0));
}

#define F32_SHIFTED_HOW                                                                          \
    "fp32 shifted data, one pass: K = mean of the first W x, S1 = sum(x-K), S2 = sum(x-K)^2 in " \
    "4 vector accumulators; var = S2/n - (S1/n)^2; rows with (S1/n)^2 > var redone two-pass; "   \
    "2-row pipeline (normalize r, sums of r+1); var rel. error <= 10 (n/(4W)+3) u; overflow or " \
    "underflow rows redone in double"
