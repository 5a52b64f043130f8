/* Near-correctly-rounded fp32 LayerNorm and RMSNorm backward, written once over vec.h (AVX2,
 * AVX-512, NEON, SVE at any vector length): fp32 storage, double arithmetic, one rounding per output, as
 * f32-lnbwd-accurate-scalar and f32-rmsbwd-accurate-scalar compute it. The including file defines
 * NORM_KIND (NORM_LNBWD or NORM_RMSBWD, norm-ops-common.h).
 * Per row, from the saved mean and rstd (doubles, used as given): x, dy and gamma widened exactly
 * to double, xhat = (x - mean) rstd (x - mean exact for any fp32 x within 2^29 of the mean: the
 * offset rows lose nothing there), g = gamma dy exact (two 24-bit significands); one pass sums g and
 * g xhat in two double vectors each (the low and high VD_W of every W floats), lanes added in
 * double; then dx = fma(g, rstd, fma(xhat, ca, cb)) with ca = -rstd mean(g xhat), cb = -rstd mean(g)
 * (two fmas where rstd ((g - mean g) - xhat mean(g xhat)) takes three operations) rounded once to
 * fp32, and dy xhat, dy added by fma and add to the call's dgamma, dbeta sums, which are double
 * (2 D doubles) and rounded once at the end. Every rounding before the last is a few 2^-53 of the
 * row's largest term, so an output is the correctly rounded one unless it lies within ~2^-26 ulp
 * of a rounding boundary or cancels by 2^20 or more. No fp32 quantity can overflow here: every
 * row takes this path (no fallback), and non-finite outputs agree with the reference.
 * A two-row pipeline, as f32-accurate's: one loop writes dx of row r (x, dy in cache) and sums row
 * r+1 (from memory), so x and dy are read from memory once and the loads overlap the arithmetic;
 * streaming, it prefetches row r+2 into L2. dx far larger than the caches goes out with
 * non-temporal stores, W floats (a whole line with AVX-512) at a time.
 * Included by f32-{lnbwd,rmsbwd}-accurate-<isa>.c. */
#include <stdlib.h>
#include <string.h>

#include "bounds-ops.h"
#include "norm-ops-common.h"
#include "tunables.h"
#include "vec.h"

#define CENTRED (NORM_KIND == NORM_LNBWD)

/* The per-row constants, in double: scalars (an SVE vector cannot be a struct member), broadcast
 * into named vectors before each loop (bacc_step) and passed down as arguments. */
typedef struct {
    double mean, rstd, ca, cb;
} bacc_coef;

/* VD_W elements of p at i (m < VD_W: the first m, the rest 0), widened exactly. */
LN_INLINE vd bacc_ld(const float *p, size_t i, size_t m)
{
    return m == VD_W ? vd_load_f32(p + i) : vd_load_f32_part(p + i, m);
}

LN_INLINE vd bacc_xhat(vd x, vd mean, vd rstd) { return vd_mul(CENTRED ? vd_sub(x, mean) : x, rstd); }

/* g = gamma dy and xhat of m <= VD_W elements at i; padding lanes have dy = 0, so g = 0 there and
 * their (finite) xhat adds nothing to the sums. */
LN_INLINE void bacc_in(const float *x, const float *dy, const float *gam, size_t i, size_t m, vd mean, vd rstd, vd *d,
                       vd *g, vd *xh, int has_g)
{
    *d = bacc_ld(dy, i, m);
    *g = has_g ? vd_mul(*d, bacc_ld(gam, i, m)) : *d;
    *xh = bacc_xhat(bacc_ld(x, i, m), mean, rstd);
}

LN_INLINE void bacc_sum_half(const float *x, const float *dy, const float *gam, size_t i, size_t m, vd mean, vd rstd,
                             vd *sg, vd *sgx, int has_g)
{
    vd d, g, xh;
    bacc_in(x, dy, gam, i, m, mean, rstd, &d, &g, &xh, has_g);
    *sg = vd_add(*sg, g);
    *sgx = vd_fma(g, xh, *sgx);
}

/* sum g and sum g xhat of a row over x[j..n), in double, added to the partial sums the caller
 * started on x[0..j) (j a multiple of W): the low VD_W of each W floats go to sg0, sx0, the high
 * VD_W to sg1, sx1, the tail's first VD_W low and the rest high, wherever the loop was entered,
 * so a row summed inside the pipeline has the bits of the same row summed alone. */
LN_INLINE void bacc_sums_from(const float *x, const float *dy, const float *gam, size_t n, size_t j, vd mean, vd rstd,
                              vd sg0, vd sx0, vd sg1, vd sx1, double *s1, double *s2, int has_g)
{
    for (; j + VF_W <= n; j += VF_W) {
        bacc_sum_half(x, dy, gam, j, VD_W, mean, rstd, &sg0, &sx0, has_g);
        bacc_sum_half(x, dy, gam, j + VD_W, VD_W, mean, rstd, &sg1, &sx1, has_g);
    }
    if (j < n) {
        const size_t m = n - j, m0 = m < VD_W ? m : VD_W;
        bacc_sum_half(x, dy, gam, j, m0, mean, rstd, &sg0, &sx0, has_g);
        if (m > m0) bacc_sum_half(x, dy, gam, j + VD_W, m - m0, mean, rstd, &sg1, &sx1, has_g);
    }
    *s1 = vd_sum(vd_add(sg0, sg1));
    *s2 = vd_sum(vd_add(sx0, sx1));
}

/* dx of m <= VD_W elements at i, returned; dy xhat and dy added to the dgamma, dbeta sums there.
 * mean, rstd, ca, cb: the row's coefficients (bacc_coef) as vectors. */
LN_INLINE vd bacc_dx_half(const float *x, const float *dy, const float *gam, double *dga, double *dba, size_t i,
                          size_t m, vd mean, vd rstd, vd ca, vd cb, int has_g)
{
    vd d, g, xh;
    bacc_in(x, dy, gam, i, m, mean, rstd, &d, &g, &xh, has_g);
    if (m == VD_W) {
        vd_store(dga + i, vd_fma(d, xh, vd_load(dga + i)));
        vd_store(dba + i, vd_add(d, vd_load(dba + i)));
    } else {
        vd_store_part(dga + i, vd_fma(d, xh, vd_load_part(dga + i, m)), m);
        vd_store_part(dba + i, vd_add(d, vd_load_part(dba + i, m)), m);
    }
    return vd_fma(g, rstd, CENTRED ? vd_fma(xh, ca, cb) : vd_mul(xh, ca));
}

/* dx of elements [i, end) (end - i < W, or any length with ordinary stores of VD_W at a time). */
LN_INLINE void bacc_dx_part(const float *x, const float *dy, float *dx, const float *gam, double *dga, double *dba,
                            size_t i, size_t end, vd mean, vd rstd, vd ca, vd cb, int has_g)
{
    for (; i + VD_W <= end; i += VD_W)
        vd_store_f32(dx + i, bacc_dx_half(x, dy, gam, dga, dba, i, VD_W, mean, rstd, ca, cb, has_g));
    if (i < end)
        vd_store_f32_part(dx + i, bacc_dx_half(x, dy, gam, dga, dba, i, end - i, mean, rstd, ca, cb, has_g), end - i);
}

/* One step of the two-row pipeline: dx of row x, dy (coefficients c) and its dgamma, dbeta terms,
 * and in the same loop the sums of the next row xn, dyn (coefficients cn; none when xn is NULL)
 * into *s1, *s2, so the next row's loads from memory overlap this row's arithmetic; prefetches
 * the row after, pf and pf2 (or nothing: NULL), into L2, a line of each per 64 bytes. stream:
 * non-temporal stores of W floats on dx's whole lines. */
LN_INLINE void bacc_step(const float *x, const float *dy, float *dx, const float *gam, double *dga, double *dba,
                         size_t n, bacc_coef c, const float *xn, const float *dyn, bacc_coef cn, double *s1, double *s2,
                         const float *pf, const float *pf2, int has_g, int stream)
{
    const vd z = vd_set1(0.0);
    vd sg0 = z, sx0 = z, sg1 = z, sx1 = z; /* the next row's sums, named: kept in registers */
    const vd m = vd_set1(c.mean), r = vd_set1(c.rstd), ca = vd_set1(c.ca), cb = vd_set1(c.cb);
    const vd mn = vd_set1(cn.mean), rn = vd_set1(cn.rstd);
    size_t i = stream ? vec_stream_lead(dx, n, sizeof *dx) : 0, j = 0; /* i walks this row, j the next */
    const vec_lines l = vec_stream_lines(dx, n, sizeof *dx);
    if (i) bacc_dx_part(x, dy, dx, gam, dga, dba, 0, i, m, r, ca, cb, has_g);
    for (; i + VF_W <= n; i += VF_W, j += VF_W) {
        if (pf && j % (64 / sizeof(float)) < VF_W) vec_prefetch_l2(pf + j), vec_prefetch_l2(pf2 + j);
        if (xn) {
            bacc_sum_half(xn, dyn, gam, j, VD_W, mn, rn, &sg0, &sx0, has_g);
            bacc_sum_half(xn, dyn, gam, j + VD_W, VD_W, mn, rn, &sg1, &sx1, has_g);
        }
        vd lo = bacc_dx_half(x, dy, gam, dga, dba, i, VD_W, m, r, ca, cb, has_g);
        vd hi = bacc_dx_half(x, dy, gam, dga, dba, i + VD_W, VD_W, m, r, ca, cb, has_g);
        vf_put(dx, i, vf_from_vd(lo, hi), l, stream);
    }
    bacc_dx_part(x, dy, dx, gam, dga, dba, i, n, m, r, ca, cb, has_g);
    if (xn) bacc_sums_from(xn, dyn, gam, n, j, mn, rn, sg0, sx0, sg1, sx1, s1, s2, has_g);
}

/* Row r's saved statistics as coefficients (ca, cb set once its sums are known). */
static bacc_coef bacc_stats(const ln_args *a, size_t r)
{
    const bacc_coef c = {CENTRED ? a->mean[r] : 0.0, a->rstd[r], 0.0, 0.0};
    return c;
}

enum { BA_STREAM_MIN_BYTES }; /* the tunables (kernel.h), in the order of f32_bwd_accurate_tunables */
static const ln_tunable f32_bwd_accurate_tunables[] = {LN_TUNABLE_STREAM_MIN_BYTES};

static void f32_bwd_accurate_forward(const ln_args *a)
{
    const size_t n = a->D, rows = a->rows;
    if (n == 0) return;
    const size_t cols = (n + 7) / 8 * 8;                     /* each sum 64-byte aligned */
    double *acc = aligned_alloc(64, 2 * cols * sizeof *acc); /* the dgamma, dbeta sums */
    if (!acc) abort();
    memset(acc, 0, 2 * cols * sizeof *acc);
    const int stream =
        ln_tune_streams(rows, n, sizeof(float), ln_param(a, f32_bwd_accurate_tunables, BA_STREAM_MIN_BYTES));
    const float *gam = a->gamma, *X = a->x, *DY = a->dy;
    const vd z = vd_set1(0.0);
    bacc_coef c = bacc_stats(a, 0), cn = c;
    double s1 = 0, s2 = 0; /* the sums of row r, taken in the step before (row 0: here) */
    const vd m0 = vd_set1(c.mean), r0 = vd_set1(c.rstd);
    if (rows && gam) bacc_sums_from(X, DY, gam, n, 0, m0, r0, z, z, z, z, &s1, &s2, 1);
    else if (rows) bacc_sums_from(X, DY, gam, n, 0, m0, r0, z, z, z, z, &s1, &s2, 0);
    for (size_t r = 0; r < rows; r++, c = cn) {
        const size_t o = r * n;
        const float *x = X + o, *dy = DY + o;
        const float *xn = r + 1 < rows ? x + n : NULL, *dyn = dy + n;
        const float *pf = stream && r + 2 < rows ? x + 2 * n : NULL, *pf2 = dy + 2 * n;
        const double rstd = a->rstd[r];
        c.ca = -rstd * (s2 / (double)n);
        c.cb = CENTRED ? -rstd * (s1 / (double)n) : 0.0;
        if (xn) cn = bacc_stats(a, r + 1);
#define CASE(G, S) \
    bacc_step(x, dy, (float *)a->dx + o, gam, acc, acc + cols, n, c, xn, dyn, cn, &s1, &s2, pf, pf2, G, S)
        if (gam) stream ? CASE(1, 1) : CASE(1, 0);
        else stream ? CASE(0, 1) : CASE(0, 0);
#undef CASE
    }
    if (stream) vec_stream_fence(); /* order the non-temporal stores before the caller reads dx */
    float *dg = a->dgamma, *db = a->dbeta;
    for (size_t i = 0; i < n; i++) {
        if (dg) dg[i] = (float)acc[i];
        if (db) db[i] = (float)acc[cols + i];
    }
    free(acc);
}

/* Each lane of the two sums adds at most n/(2 VD_W) + 1 terms, the lanes then added in double:
 * the scalar accurate kernels' bound (bounds-ops.h, in double) with that count. At a run-time
 * width (VD_W_MIN..VD_W_MAX, SVE) the count at the worst width: it is convex in the width, so
 * largest at one end. */
static double bacc_terms(size_t n, double w) { return (double)n / (2.0 * w) + 2.0 + 2.0 * w; }

static double f32_bwd_accurate_bound(size_t n, double kappa)
{
    return ln_bound_norm_bwd(fmax(bacc_terms(n, VD_W_MIN), bacc_terms(n, VD_W_MAX)), kappa, 0x1p-53, 0x1p-24);
}

#define F32_BWD_ACCURATE_HOW                                                                                        \
    "fp32 storage, x, dy, gamma widened exactly; sum g, sum g xhat in 2 double vectors (lanes added in "            \
    "double), dx = fma(g, rstd, fma(xhat, ca, cb)) in double rounded once, dgamma, dbeta summed over rows in "      \
    "double; two-row pipeline (dx of one row, sums of the next), non-temporal stores past stream_min_bytes: 1 + 2 " \
    "(n/(2 VD_W) + "                                                                                                \
    "2 VD_W + 10) kappa 2^-29 u"
