/* Vector-length-agnostic SVE row passes, for f32 and for f16/bf16 storage widened to fp32: the
 * one header of the *-sve.c kernels. The fixed-width templates (kernels/simd/) cannot take SVE:
 * its vectors are sizeless (no arrays of them, no struct members) and VF_W would be a run-time
 * value, so the simpler algorithms are written again here, once for the three storage formats,
 * with the same grouping as their fixed-width siblings: four vector accumulators (each lane a
 * sequential fp32 sum of about n / (4 W) terms, W = svcntw() floats at run time), the tail in
 * predicated vectors (svwhilelt), the lanes added in double at the end; the normalization
 * (x - mean) * (rstd * gamma) + beta with one fma, one rounding to the storage format.
 *
 * Loads and stores of 16-bit formats use 32-bit containers (LD1H / ST1H zero-extending and
 * truncating): f16 converted by FCVT (nearest even), bf16 widened by a shift and rounded with
 * integers (nearest even, NaN made quiet), as the NEON and AVX2 layers do. Non-temporal stores
 * (STNT1) for outputs far larger than the caches. */
#ifndef LN_ARM_SVE_H
#define LN_ARM_SVE_H

#include <arm_sve.h>
#include <math.h>
#include <stdint.h>

#include "bounds.h"
#include "cpu.h"
#include "f32-fallback.h"
#include "half.h"
#include "kernel.h"

#define SVE_INLINE static inline __attribute__((always_inline))

/* Outputs of at least this many bytes go out with non-temporal stores (as LN_STREAM_MIN_BYTES). */
#define SVE_STREAM_MIN_BYTES ((size_t)32 << 20)

/* The floats per SVE vector the error bounds assume: 4, the shortest vector. More lanes mean
 * fewer terms per lane, so that bound (the loosest) holds at every vector length, and a kernel's
 * stated bound (.how, tests/test_claims.c) is one figure wherever it runs. */
static inline double sve_lanes(void) { return 4.0; }

/* Elements of t at p under pg, in fp32 (inactive lanes 0). */
SVE_INLINE svfloat32_t sve_load(ln_dtype t, svbool_t pg, const void *p)
{
    if (t == LN_F32) return svld1_f32(pg, p);
    svuint32_t w = svld1uh_u32(pg, p);
    if (t == LN_BF16) return svreinterpret_f32_u32(svlsl_n_u32_x(pg, w, 16));
    return svcvt_f32_f16_z(pg, svreinterpret_f16_u32(w));
}

/* v rounded to t and stored at p under pg; stream: non-temporal. */
SVE_INLINE void sve_store(ln_dtype t, svbool_t pg, void *p, svfloat32_t v, int stream)
{
    if (t == LN_F32) {
        if (stream) svstnt1_f32(pg, p, v);
        else svst1_f32(pg, p, v);
        return;
    }
    svuint32_t w;
    if (t == LN_F16) {
        w = svreinterpret_u32_f16(svcvt_f16_f32_x(pg, v));
    } else { /* x + 0x7fff + lsb, top half; NaN lanes made quiet instead */
        svuint32_t x = svreinterpret_u32_f32(v);
        svuint32_t r = svadd_u32_x(pg, x, svadd_n_u32_x(pg, svand_n_u32_x(pg, svlsr_n_u32_x(pg, x, 16), 1), 0x7fff));
        r = svsel_u32(svcmpuo_f32(pg, v, v), svorr_n_u32_x(pg, x, 0x400000), r);
        w = svlsr_n_u32_x(pg, r, 16);
    }
    svst1h_u32(pg, p, w); /* no 16-bit non-temporal store from 32-bit containers */
}

/* Element i of a row of t. */
SVE_INLINE const void *sve_at(ln_dtype t, const void *p, size_t i) { return (const char *)p + i * ln_fmt(t)->size; }

/* The lanes of v summed in double: even and odd lanes widened (exact), then FADDV's tree. */
SVE_INLINE double sve_sum(svfloat32_t v)
{
    const svbool_t all = svptrue_b64();
    svfloat64_t e = svcvt_f64_f32_x(all, v), o = svcvt_f64_f32_x(all, svtrn2_f32(v, v));
    return svaddv_f64(all, svadd_f64_x(all, e, o));
}

/* One vector of the row x at element j (active lanes pg) into the partial sums a += x - K
 * (want_s1) and q += (x - K)^2 (want_s2, fma), x itself when !sub (K = 0 not subtracted). */
SVE_INLINE void sve_sums_step(ln_dtype t, svbool_t pg, const void *x, size_t j, svfloat32_t k, int sub, int want_s1,
                              int want_s2, svfloat32_t *a, svfloat32_t *q)
{
    svfloat32_t v = sve_load(t, pg, sve_at(t, x, j));
    if (sub) v = svsub_f32_z(pg, v, k);
    if (want_s1) *a = svadd_f32_m(pg, *a, v);
    if (want_s2) *q = svmla_f32_m(pg, *q, v, v);
}

/* Over x[i..n) of a row of n, added to the four partial sums of each kind the caller started on
 * x[0..i) (i a multiple of 4 W): sum (x - K) into *s1 (want_s1) and sum (x - K)^2 into *s2
 * (want_s2), as sve_sums_step; whole groups of 4 W, the rest W at a time (predicated) into the
 * first; the lanes added in double. So a row's sums have one grouping wherever the loop began. */
SVE_INLINE void sve_sums_from(ln_dtype t, const void *x, size_t n, size_t i, float K, int sub, int want_s1, int want_s2,
                              svfloat32_t a0, svfloat32_t a1, svfloat32_t a2, svfloat32_t a3, svfloat32_t q0,
                              svfloat32_t q1, svfloat32_t q2, svfloat32_t q3, double *s1, double *s2)
{
    const uint64_t w = svcntw();
    const svbool_t all = svptrue_b32();
    const svfloat32_t k = svdup_n_f32(K);
    for (; i + 4 * w <= n; i += 4 * w) {
        sve_sums_step(t, all, x, i, k, sub, want_s1, want_s2, &a0, &q0);
        sve_sums_step(t, all, x, i + w, k, sub, want_s1, want_s2, &a1, &q1);
        sve_sums_step(t, all, x, i + 2 * w, k, sub, want_s1, want_s2, &a2, &q2);
        sve_sums_step(t, all, x, i + 3 * w, k, sub, want_s1, want_s2, &a3, &q3);
    }
    for (; i < n; i += w) sve_sums_step(t, svwhilelt_b32_u64(i, n), x, i, k, sub, want_s1, want_s2, &a0, &q0);
    if (want_s1) *s1 = sve_sum(svadd_f32_x(all, svadd_f32_x(all, a0, a1), svadd_f32_x(all, a2, a3)));
    if (want_s2) *s2 = sve_sum(svadd_f32_x(all, svadd_f32_x(all, q0, q1), svadd_f32_x(all, q2, q3)));
}

/* The sums of sve_sums_from over a whole row. */
SVE_INLINE void sve_row_sums(ln_dtype t, const void *x, size_t n, float K, int sub, int want_s1, int want_s2,
                             double *s1, double *s2)
{
    const svfloat32_t z = svdup_n_f32(0);
    sve_sums_from(t, x, n, 0, K, sub, want_s1, want_s2, z, z, z, z, z, z, z, z, s1, s2);
}

/* sum of x (sq = 0), or of (x - mean)^2 (sq = 1), over a row of n (sve_row_sums). */
SVE_INLINE double sve_row_reduce(ln_dtype t, const void *x, size_t n, float mean, int sq)
{
    double s = 0;
    sve_row_sums(t, x, n, mean, sq, !sq, sq, &s, &s);
    return s;
}

/* Outputs i.. of a row under pg: y = (x - mean) * (rstd * g) + b, one fma (g, b: NULL for 1
 * and 0; m, r: mean and rstd). */
SVE_INLINE void sve_norm_step(ln_dtype t, svbool_t pg, const void *x, void *y, const void *g, const void *b, size_t i,
                              svfloat32_t m, svfloat32_t r, int stream)
{
    svfloat32_t s = g ? svmul_f32_x(pg, r, sve_load(t, pg, sve_at(t, g, i))) : r;
    svfloat32_t bb = b ? sve_load(t, pg, sve_at(t, b, i)) : svdup_n_f32(0);
    svfloat32_t v = svmla_f32_x(pg, bb, svsub_f32_x(pg, sve_load(t, pg, sve_at(t, x, i)), m), s);
    sve_store(t, pg, (char *)y + i * ln_fmt(t)->size, v, stream);
}

/* Outputs i..n of a row (sve_norm_step), W at a time. */
SVE_INLINE void sve_normalize_from(ln_dtype t, const void *x, void *y, const void *g, const void *b, size_t i, size_t n,
                                   float mean, float rstd, int stream)
{
    const svfloat32_t m = svdup_n_f32(mean), r = svdup_n_f32(rstd);
    for (; i < n; i += svcntw()) sve_norm_step(t, svwhilelt_b32_u64(i, n), x, y, g, b, i, m, r, stream);
}

/* y = (x - mean) * (rstd * g) + b over a row of n. */
SVE_INLINE void sve_normalize(ln_dtype t, const void *x, void *y, const void *g, const void *b, size_t n, float mean,
                              float rstd, int stream)
{
    sve_normalize_from(t, x, y, g, b, 0, n, mean, rstd, stream);
}

/* Row r of a call from its fp32 statistics: the normalization when ok, else the whole row in
 * double (ln_f32_row_f64, ln_half_row_f64); the statistics used to a->mean and a->rstd. */
static inline void sve_row_finish(const ln_args *a, ln_dtype t, size_t r, int ok, float mean, float rstd, int stream)
{
    const size_t n = a->D, size = ln_fmt(t)->size;
    const void *x = (const char *)a->x + r * n * size;
    void *y = (char *)a->y + r * n * size;
    double mean_out = mean, rstd_out = rstd;
    if (ok) sve_normalize(t, x, y, a->gamma, a->beta, n, mean, rstd, stream);
    else if (t == LN_F32) ln_f32_row_f64(x, y, a->gamma, a->beta, n, a->eps, &mean_out, &rstd_out);
    else ln_half_row_f64(t, x, y, a->gamma, a->beta, n, a->eps, &mean_out, &rstd_out);
    if (a->mean) a->mean[r] = mean_out;
    if (a->rstd) a->rstd[r] = rstd_out;
}

/* The two-pass LayerNorm of row r: the fp32 sum, the squared deviations about the fp32 mean,
 * the normalization, or the double row when the fp32 statistics overflowed or underflowed. */
static inline void sve_twopass_row(const ln_args *a, ln_dtype t, size_t r, int stream)
{
    const size_t n = a->D;
    const void *x = (const char *)a->x + r * n * ln_fmt(t)->size;
    double sum = sve_row_reduce(t, x, n, 0, 0);
    float mean = (float)(sum / (double)n);
    double ss = sve_row_reduce(t, x, n, mean, 1), radicand = ss / (double)n + a->eps;
    int ok = t == LN_F32 ? ln_f32_stats_usable(sum, ss / (double)n, a->eps) : ln_half_stats_ok(sum, ss, radicand);
    sve_row_finish(a, t, r, ok, mean, (float)(1.0 / sqrt(radicand)), stream);
}

/* Whether a call's outputs (rows of n elements of t) go out with non-temporal stores. */
static inline int sve_streams(const ln_args *a, ln_dtype t)
{
    return a->rows * a->D * ln_fmt(t)->size >= SVE_STREAM_MIN_BYTES;
}

/* The STNT1 stores before the caller reads y. */
static inline void sve_stream_fence(int stream)
{
    if (stream) __asm__ volatile("dmb ishst" ::: "memory");
}

/* The two-pass LayerNorm of every row (sve_twopass_row). */
static inline void sve_twopass(const ln_args *a, ln_dtype t)
{
    const int stream = sve_streams(a, t);
    for (size_t r = 0; r < a->rows && a->D > 0; r++) sve_twopass_row(a, t, r, stream);
    sve_stream_fence(stream);
}

/* The fp32 roundings in each lane of sve_row_reduce: at most n / (4 W) + 3 terms (the tail's
 * vectors go to the first accumulator), then two levels of vector additions. */
static inline double sve_lane_terms(size_t n) { return ceil((double)n / (4.0 * sve_lanes())) + 5.0; }

/* The isa bits of an SVE file (compiled for SVE with FEAT_FP16, which the sve line of isa.def
 * implies), for its LN_KERNEL_DEFINE: SVE vectors have no fixed width for the templates'
 * LN_SIMD_KERNEL, so these files name their kernels in full. */
#define LN_SVE_ISA (LN_ISA_NEON | LN_ISA_FP16 | LN_ISA_SVE)

#endif
