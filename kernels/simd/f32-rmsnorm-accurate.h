/* Near-correctly-rounded fp32 RMSNorm, written once over vec.h (AVX2, AVX-512, NEON): fp32
 * storage, double arithmetic, one rounding per output, as f32-accurate is to LayerNorm. Each x
 * is widened exactly and squared exactly in double (24-bit significands: 48-bit products), the
 * squares summed by fma in four double vectors of VD_W lanes, lanes added in double: the sum's
 * relative error is below (n/(4 VD_W) + 6) 2^-53, and no fp32 row can overflow or underflow it,
 * so no row needs a fallback. rstd = 1 / sqrt(ss / n + eps) in double; each output is
 * fma(x rstd, gamma, beta) in double, rounded once to float: its error before that rounding is
 * ~1e-15 relative, so nearly every output is the correctly rounded one.
 * A two-row pipeline, one loop writing row r's outputs and summing row r+1's squares, at every D
 * by default; streaming, it also prefetches row r+2 into L2, without which its loads of row r+1
 * found memory idle behind the double arithmetic (Zen 5, 64 MiB: 16 -> 22-26 GB/s at D 4096-16384,
 * docs/simd.md). Row by row instead (the tunables rowwise_min_d from memory, cache_rowwise_min_d in
 * cache): the sums (from L2 where the previous row prefetched it), then the outputs from L1/L2,
 * prefetching the next row. Outputs of 32 MiB and more with non-temporal stores. The sums are
 * grouped the same in either form, so the bits do not depend on the tunables. Included by
 * f32-rmsnorm-accurate-<isa>.c. */
#include <stdlib.h>

#include "f32-passes.h"
#include "bounds-ops.h"

/* sum x^2 of x[j..n) in double added to the four partial sums a0..a3 (which the caller may have
 * started on x[0..j), j a multiple of 4 VD_W), grouped as described above wherever the loop was
 * entered, so the pipelined and the plain row agree bit for bit. */
LN_INLINE double racc_sq_from(const float *x, size_t n, size_t j, vd a0, vd a1, vd a2, vd a3)
{
    for (; j + 4 * VD_W <= n; j += 4 * VD_W) {
        vd v0 = vd_load_f32(x + j), v1 = vd_load_f32(x + j + VD_W), v2 = vd_load_f32(x + j + 2 * VD_W);
        vd v3 = vd_load_f32(x + j + 3 * VD_W);
        a0 = vd_fma(v0, v0, a0), a1 = vd_fma(v1, v1, a1), a2 = vd_fma(v2, v2, a2), a3 = vd_fma(v3, v3, a3);
    }
    for (; j + VD_W <= n; j += VD_W) {
        vd v = vd_load_f32(x + j);
        a0 = vd_fma(v, v, a0);
    }
    if (j < n) {
        vd v = vd_load_f32_part(x + j, n - j);
        a1 = vd_fma(v, v, a1);
    }
    return vd_sum(vd_add(vd_add(a0, a1), vd_add(a2, a3)));
}

LN_INLINE double racc_sq(const float *x, size_t n)
{
    const vd z = vd_set1(0.0);
    return racc_sq_from(x, n, 0, z, z, z, z);
}

/* VD_W outputs at element i (part: the first m < VD_W). */
LN_INLINE vd racc_vec(const float *x, const float *g, const float *b, size_t i, vd vr, int has_g, int has_b)
{
    vd v = vd_mul(vd_load_f32(x + i), vr);
    const vd bv = has_b ? vd_load_f32(b + i) : vd_set1(0.0);
    return has_g ? vd_fma(v, vd_load_f32(g + i), bv) : has_b ? vd_add(v, bv) : v;
}
LN_INLINE vd racc_part(const float *x, const float *g, const float *b, size_t i, size_t m, vd vr, int has_g, int has_b)
{
    vd v = vd_mul(vd_load_f32_part(x + i, m), vr);
    const vd bv = has_b ? vd_load_f32_part(b + i, m) : vd_set1(0.0);
    return has_g ? vd_fma(v, vd_load_f32_part(g + i, m), bv) : has_b ? vd_add(v, bv) : v;
}

/* Outputs i..n-1 of a row, prefetching pf (or nothing: NULL) into L2, one line per 64 bytes of
 * x; stream: non-temporal stores (y + i then vector-aligned) on y's whole lines. */
LN_INLINE void racc_normalize_from(const float *x, float *y, const float *g, const float *b, size_t i, size_t n, vd vr,
                                   const float *pf, int has_g, int has_b, int stream)
{
    /* streamed: from i (a whole line's start, or past it by whole vectors, as the callers give
     * it) up to the last whole line; nothing when i is before the first (the fused lead) */
    const vec_lines l = vec_stream_lines(y, n, sizeof *y);
    const size_t e = stream && i >= l.lo ? l.hi : 0;
    for (; i + VD_W <= n; i += VD_W) {
        if (pf && i % (64 / sizeof(float)) < VD_W) vec_prefetch_l2(pf + i);
        const vd v = racc_vec(x, g, b, i, vr, has_g, has_b);
        if (i + VD_W <= e) vd_stream_f32(y + i, v);
        else vd_store_f32(y + i, v);
    }
    if (i < n) vd_store_f32_part(y + i, racc_part(x, g, b, i, n - i, vr, has_g, has_b), n - i);
}

/* The outputs before y's first whole line (streaming only), with plain stores; returns their
 * count. */
LN_INLINE size_t racc_lead(const float *x, float *y, const float *g, const float *b, size_t n, vd vr, int has_g,
                           int has_b, int stream)
{
    const size_t lead = stream ? vec_stream_lines(y, n, sizeof *y).lo : 0;
    size_t i = 0;
    for (; i + VD_W <= lead; i += VD_W) vd_store_f32(y + i, racc_vec(x, g, b, i, vr, has_g, has_b));
    if (i < lead) vd_store_f32_part(y + i, racc_part(x, g, b, i, lead - i, vr, has_g, has_b), lead - i);
    return lead;
}

/* Row by row: a row's outputs (its sums taken before), prefetching pf. */
LN_INLINE void racc_normalize_body(const float *x, float *y, const float *g, const float *b, size_t n, double rstd,
                                   const float *pf, int has_g, int has_b, int stream)
{
    const vd vr = vd_set1(rstd);
    const size_t i = racc_lead(x, y, g, b, n, vr, has_g, has_b, stream);
    racc_normalize_from(x, y, g, b, i, n, vr, pf, has_g, has_b, stream);
}

/* The two-row pipeline: one loop writes the outputs of row x0 (from cache) and sums the squares
 * of row x1 (from memory) into *ss, so the double conversions and products of one row overlap
 * the other's loads, as f32-rmsnorm-pipelined does in fp32; prefetches the row pf (or none:
 * NULL) into L2, one line per 64 bytes of x1. */
LN_INLINE void racc_pipeline_body(const float *x0, float *y, const float *g, const float *b, size_t n, double rstd,
                                  const float *x1, const float *pf, double *ss, int has_g, int has_b, int stream)
{
    const vd vr = vd_set1(rstd), z = vd_set1(0.0);
    vd a0 = z, a1 = z, a2 = z, a3 = z;
    size_t i = racc_lead(x0, y, g, b, n, vr, has_g, has_b, stream), j = 0; /* i walks x0 and y, j x1 */
    const size_t e = stream ? vec_stream_lines(y, n, sizeof *y).hi : n;    /* rows end in racc_normalize_from */
    for (; i + 4 * VD_W <= e; i += 4 * VD_W, j += 4 * VD_W) {
        if (pf && j % (64 / sizeof(float)) < 4 * VD_W) vec_prefetch_l2_span(pf + j, 4 * VD_W * sizeof(float));
        for (size_t c = 0; c < 4 * VD_W; c += VD_W) {
            vd v = racc_vec(x0, g, b, i + c, vr, has_g, has_b);
            if (stream) vd_stream_f32(y + i + c, v);
            else vd_store_f32(y + i + c, v);
        }
        vd v0 = vd_load_f32(x1 + j), v1 = vd_load_f32(x1 + j + VD_W), v2 = vd_load_f32(x1 + j + 2 * VD_W);
        vd v3 = vd_load_f32(x1 + j + 3 * VD_W);
        a0 = vd_fma(v0, v0, a0), a1 = vd_fma(v1, v1, a1), a2 = vd_fma(v2, v2, a2), a3 = vd_fma(v3, v3, a3);
    }
    racc_normalize_from(x0, y, g, b, i, n, vr, NULL, has_g, has_b, stream);
    *ss = racc_sq_from(x1, n, j, a0, a1, a2, a3);
}

/* The tunables (kernel.h), in the order of f32_rmsnorm_accurate_tunables. */
enum { RA_STREAM_MIN_BYTES, RA_ROWWISE_MIN_D, RA_CACHE_ROWWISE_MIN_D };
static const int racc_rowwise_min_d_values[] = {512, 1024, 2048, 4096, 8192, 16384, LN_TUNE_OFF};
static const ln_tunable f32_rmsnorm_accurate_tunables[] = {
    LN_TUNABLE_STREAM_MIN_BYTES,
    {"rowwise_min_d", "D from which streaming calls go row by row instead of the two-row pipeline", LN_TUNE_OFF,
     racc_rowwise_min_d_values, 7},
    {"cache_rowwise_min_d", "D from which calls in cache go row by row instead of the two-row pipeline", LN_TUNE_OFF,
     racc_rowwise_min_d_values, 7},
};

static void f32_rmsnorm_accurate_forward(const ln_args *a)
{
    const size_t n = a->D, rows = a->rows;
    if (n == 0 || rows == 0) return;
    const ln_tunable *t = f32_rmsnorm_accurate_tunables;
    const int stream = ln_tune_streams(rows, n, sizeof(float), ln_param(a, t, RA_STREAM_MIN_BYTES));
    const int piped = n < (size_t)ln_param(a, t, stream ? RA_ROWWISE_MIN_D : RA_CACHE_ROWWISE_MIN_D);
    const float *g = a->gamma, *b = a->beta;
    double ss = racc_sq(a->x, n);
    for (size_t r = 0; r < rows; r++) {
        const float *x = (const float *)a->x + r * n, *pf = r + 1 < rows ? x + n : NULL;
        float *y = (float *)a->y + r * n;
        const double rstd = 1.0 / sqrt(ss / (double)n + a->eps);
        const float *pf2 = stream && r + 2 < rows ? x + 2 * n : NULL; /* the pipeline's prefetch */
        if (piped && pf) {
#define CASE(G, B)                                                              \
    (stream ? racc_pipeline_body(x, y, g, b, n, rstd, x + n, pf2, &ss, G, B, 1) \
            : racc_pipeline_body(x, y, g, b, n, rstd, x + n, pf2, &ss, G, B, 0))
            LN_SPECIALIZE_GB(g, b, CASE);
#undef CASE
        } else {
#define CASE(G, B)                                                  \
    (stream ? racc_normalize_body(x, y, g, b, n, rstd, pf, G, B, 1) \
            : racc_normalize_body(x, y, g, b, n, rstd, pf, G, B, 0))
            LN_SPECIALIZE_GB(g, b, CASE);
#undef CASE
            if (pf) ss = racc_sq(pf, n);
        }
        if (a->mean) a->mean[r] = 0;
        if (a->rstd) a->rstd[r] = rstd;
    }
    if (stream) vec_stream_fence(); /* order the non-temporal stores before the caller reads y */
}

/* The sum's relative error (n/(4 VD_W) + 6) 2^-53 (bounds-ops.h, in double), then one rounding;
 * at the narrowest VD_W (SVE: 2), where the count is largest. */
static double f32_rmsnorm_accurate_bound(size_t n, double kappa)
{
    (void)kappa;
    return ln_bound_rmsnorm((double)n / (4.0 * VD_W_MIN) + 6.0, 0x1p-53, 0x1p-24);
}

#define F32_RMSNORM_ACCURATE_HOW                                                                             \
    "fp32 storage, x^2 exact in double, summed by fma in 4 double vectors (lanes added in double), y = "     \
    "fma(x rstd, gamma, beta) in double rounded once to fp32: correctly rounded on almost every element; "   \
    "2-row pipeline (outputs of r, sums of r+1; streaming, r+2 prefetched), row by row from rowwise_min_d, " \
    "non-temporal stores past stream_min_bytes"
