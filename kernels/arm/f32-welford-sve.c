/* fp32 Welford LayerNorm for SVE, vector-length agnostic: kernels/simd/f32-welford.h's algorithm
 * with W = svcntw() lanes at run time. Every lane of four vector sets runs its own Welford
 * recurrence (mean += d / k, M2 += d (x - mean)) over every 4W-th element, all lanes of the main
 * loop sharing the count k (1/k one scalar per step); the rest of the row, under 4 W elements, goes
 * a vector (the last predicated) into each set in turn, so lane counts differ by at most one. The
 * sets are merged by Chan's formula in vectors, then the W lanes in float through memory (SVE
 * has no fixed-width rotation), in a balanced tree for any W. */
#include "sve.h"

/* One more element v per active lane of the set (c, m, q): count, mean, M2. */
SVE_INLINE void wf_add(svbool_t pg, svfloat32_t v, svfloat32_t *c, svfloat32_t *m, svfloat32_t *q)
{
    *c = svadd_n_f32_m(pg, *c, 1.0f);
    svfloat32_t d = svsub_f32_x(pg, v, *m);
    *m = svmla_f32_m(pg, *m, d, svdivr_n_f32_x(pg, svmax_n_f32_x(pg, *c, 1.0f), 1.0f));
    *q = svmla_f32_m(pg, *q, d, svsub_f32_x(pg, v, *m));
}

/* Chan, Golub & LeVeque: the set (c, m, q) becomes its union with (cb, mb, qb), lane by lane. */
SVE_INLINE void wf_merge(svfloat32_t *c, svfloat32_t *m, svfloat32_t *q, svfloat32_t cb, svfloat32_t mb, svfloat32_t qb)
{
    const svbool_t all = svptrue_b32();
    svfloat32_t ca = *c, n = svadd_f32_x(all, ca, cb), d = svsub_f32_x(all, mb, *m);
    svfloat32_t wb = svdiv_f32_x(all, cb, svmax_n_f32_x(all, n, 1.0f)); /* 0 when both sets are empty */
    *c = n;
    *m = svmla_f32_x(all, *m, d, wb);
    *q = svmla_f32_x(all, svadd_f32_x(all, *q, qb), svmul_f32_x(all, d, d), svmul_f32_x(all, ca, wb));
}

/* The same merge on one lane's floats: a += b. */
static inline void wf_merge1(float *ca, float *ma, float *qa, float cb, float mb, float qb)
{
    float n = *ca + cb, d = mb - *ma, wb = cb / fmaxf(n, 1.0f);
    *ma = fmaf(d, wb, *ma);
    *qa = fmaf(d * d, *ca * wb, *qa + qb);
    *ca = n;
}

#define SVE_MAX_LANES 64 /* 2048-bit vectors */

static void row_stats(const float *x, size_t n, float *mean, double *m2)
{
    const uint64_t w = svcntw();
    const svbool_t all = svptrue_b32();
    svfloat32_t z = svdup_n_f32(0), c0 = z, c1 = z, c2 = z, c3 = z, m0 = z, m1 = z, m2a = z, m3 = z;
    svfloat32_t q0 = z, q1 = z, q2 = z, q3 = z;
    size_t i = 0;
    float k = 0.0f;
#define STEP(m, q, j)                                                           \
    do {                                                                        \
        svfloat32_t v_ = svld1_f32(all, x + (j)), d_ = svsub_f32_x(all, v_, m); \
        m = svmla_f32_x(all, m, d_, rk);                                        \
        q = svmla_f32_x(all, q, d_, svsub_f32_x(all, v_, m));                   \
    } while (0)
    for (; i + 4 * w <= n; i += 4 * w) {
        k += 1.0f;
        const svfloat32_t rk = svdup_n_f32(1.0f / k);
        STEP(m0, q0, i);
        STEP(m1, q1, i + w);
        STEP(m2a, q2, i + 2 * w);
        STEP(m3, q3, i + 3 * w);
    }
#undef STEP
    c0 = c1 = c2 = c3 = svdup_n_f32(k);
#define TAIL(c, m, q)                                   \
    if (i < n) {                                        \
        svbool_t pg_ = svwhilelt_b32_u64(i, n);         \
        wf_add(pg_, svld1_f32(pg_, x + i), &c, &m, &q); \
        i += w;                                         \
    }
    TAIL(c0, m0, q0)
    TAIL(c1, m1, q1)
    TAIL(c2, m2a, q2)
    TAIL(c3, m3, q3)
#undef TAIL
    wf_merge(&c0, &m0, &q0, c1, m1, q1);
    wf_merge(&c2, &m2a, &q2, c3, m3, q3);
    wf_merge(&c0, &m0, &q0, c2, m2a, q2);
    float c[SVE_MAX_LANES], m[SVE_MAX_LANES], q[SVE_MAX_LANES];
    svst1_f32(all, c, c0), svst1_f32(all, m, m0), svst1_f32(all, q, q0);
    /* lanes h - half.. into 0.., half = ceil(h / 2): a part never merges into a smaller one,
     * height ceil(log2 W) */
    for (size_t h = w; h > 1;) {
        const size_t half = (h + 1) / 2;
        for (size_t j = 0; j + half < h; j++) wf_merge1(&c[j], &m[j], &q[j], c[j + half], m[j + half], q[j + half]);
        h = half;
    }
    *mean = m[0];
    *m2 = q[0];
}

static void forward(const ln_args *a)
{
    const size_t n = a->D;
    const int stream = sve_streams(a, LN_F32);
    for (size_t r = 0; r < a->rows && n > 0; r++) {
        float mean;
        double m2;
        row_stats((const float *)a->x + r * n, n, &mean, &m2);
        sve_row_finish(a, LN_F32, r, ln_f32_stats_usable(mean, m2 / (double)n, a->eps), mean,
                       (float)(1.0 / sqrt(m2 / (double)n + a->eps)), stream);
    }
    sve_stream_fence(stream);
}

/* f32-welford's cascade bound (bounds.h) at each SVE width W (4 to 64 floats): chunks of
 * ceil(n / 4W) per lane, 2 set merges and ceil(log2 W) lane merges above them, parts whose counts
 * differ by at most one element per lane (rows under 4 W: lanes of 0 or 1, ratio 4 W). The
 * largest is the bound, so it holds whatever W the CPU has. */
static double bound(size_t n, double kappa)
{
    double worst = 0;
    for (double w = 4; w <= SVE_MAX_LANES; w += 4) {
        double m = ceil((double)n / (4 * w));
        worst =
            fmax(worst, ln_bound_cascade(m, 2 + ceil(log2(w)), (double)n < 4 * w ? 4 * w : 2, kappa, 0x1p-24, 0x1p-24));
    }
    return worst;
}

#define HOW                                                                                                          \
    "fp32 Welford per lane, vector-length agnostic (4 vector sets of W = svcntw() lanes, shared 1/k, predicated "    \
    "tail), sets then lanes merged by Chan's formula; mean error ~(n/(8W) + log2(4W)) kappa u sigma, M2 rel. error " \
    "~(n/(2W sqrt 3) + 2 log2(4W)) kappa u; overflow or underflow rows redone in double; bound the largest over W "  \
    "= 4..64 (it holds at every W)"

LN_KERNEL_DEFINE(ln_f32_welford_sve, "f32-welford-sve", LN_F32, LN_SVE_ISA, LN_OP_LAYERNORM, forward, bound,
                 ln_domain_any_row, 0, LN_NO_TUNABLES, HOW "; bound(768, 1) = 591, bound(4096, 1e3) = 1.1e+06");
