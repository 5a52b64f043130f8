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
 * A pipeline of row groups (group_rows: 1 or 2 rows), as norm-bwd.h's: one loop writes dx of
 * group G (x, dy in cache) and sums the rows of group G+1 (from memory), so x and dy are read from
 * memory once and the loads overlap the arithmetic, and each vector of the double dgamma, dbeta
 * sums is loaded and stored once per group; streaming, it prefetches the group after into L2.
 * dx far larger than the caches goes out with non-temporal stores, W floats (a whole line with
 * AVX-512) at a time.
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

/* Rows per group at most (group_rows): a group's rows share each load and store of the double
 * dgamma, dbeta sums, which a row by itself loads and stores for every W elements. */
#define BA_GMAX 2

/* dx of m <= VD_W elements at i of the cnt (1 or 2) rows at x, dy (rows n apart), into *o0, *o1,
 * with their dy xhat and dy added to the dgamma, dbeta sums there, row 0 then row 1 (the bits of
 * one row at a time). mq, rq, caq, cbq: row q's coefficients (bacc_coef) as vectors. */
LN_INLINE void bacc_dx_half(const float *x, const float *dy, const float *gam, double *dga, double *dba, size_t n,
                            size_t i, size_t m, size_t cnt, vd m0, vd r0, vd ca0, vd cb0, vd m1, vd r1, vd ca1, vd cb1,
                            vd *o0, vd *o1, int has_g)
{
    vd ga = m == VD_W ? vd_load(dga + i) : vd_load_part(dga + i, m);
    vd ba = m == VD_W ? vd_load(dba + i) : vd_load_part(dba + i, m);
    vd d, g, xh;
    bacc_in(x, dy, gam, i, m, m0, r0, &d, &g, &xh, has_g);
    ga = vd_fma(d, xh, ga), ba = vd_add(d, ba);
    *o0 = vd_fma(g, r0, CENTRED ? vd_fma(xh, ca0, cb0) : vd_mul(xh, ca0));
    if (cnt > 1) {
        bacc_in(x + n, dy + n, gam, i, m, m1, r1, &d, &g, &xh, has_g);
        ga = vd_fma(d, xh, ga), ba = vd_add(d, ba);
        *o1 = vd_fma(g, r1, CENTRED ? vd_fma(xh, ca1, cb1) : vd_mul(xh, ca1));
    }
    if (m == VD_W) vd_store(dga + i, ga), vd_store(dba + i, ba);
    else vd_store_part(dga + i, ga, m), vd_store_part(dba + i, ba, m);
}

/* dx of elements [i, end) of the cnt rows (end - i < W, or any length with ordinary stores of
 * VD_W at a time). */
LN_INLINE void bacc_dx_part(const float *x, const float *dy, float *dx, const float *gam, double *dga, double *dba,
                            size_t n, size_t i, size_t end, size_t cnt, vd m0, vd r0, vd ca0, vd cb0, vd m1, vd r1,
                            vd ca1, vd cb1, int has_g)
{
    vd o0, o1 = vd_set1(0.0); /* o1 set only for a second row */
    for (; i < end; i += VD_W) {
        const size_t m = end - i < VD_W ? end - i : VD_W;
        bacc_dx_half(x, dy, gam, dga, dba, n, i, m, cnt, m0, r0, ca0, cb0, m1, r1, ca1, cb1, &o0, &o1, has_g);
        if (m == VD_W) {
            vd_store_f32(dx + i, o0);
            if (cnt > 1) vd_store_f32(dx + n + i, o1);
        } else {
            vd_store_f32_part(dx + i, o0, m);
            if (cnt > 1) vd_store_f32_part(dx + n + i, o1, m);
        }
    }
}

/* One step of the pipeline: dx of the group of cnt rows at x, dy (coefficients c[0..cnt)) and its
 * dgamma, dbeta terms, and in the same loop the sums of the next group, the cnt2 rows at xn, dyn
 * (coefficients cn) into s1[q], s2[q], so the next rows' loads from memory overlap this group's
 * arithmetic; prefetches the pf rows after, at px, pdy, into L2, a line of each per 64 bytes.
 * stream: non-temporal stores of W floats on dx's whole lines (the rows of a group then share
 * their lead and lines: bacc_group). */
LN_INLINE void bacc_step(const float *x, const float *dy, float *dx, const float *gam, double *dga, double *dba,
                         size_t n, size_t cnt, const bacc_coef *c, const float *xn, const float *dyn, size_t cnt2,
                         const bacc_coef *cn, double *s1, double *s2, const float *px, const float *pdy, size_t pf,
                         int has_g, int stream)
{
    const vd z = vd_set1(0.0);
    /* per row q of the group its coefficients, per next row its statistics and its sums (the low
     * and high VD_W of each W floats), named: kept in registers */
#define DECL(q)                                                                                                        \
    const bacc_coef c##q = q < cnt ? c[q] : c[0], cn##q = q < cnt2 ? cn[q] : c[0];                                     \
    const vd m##q = vd_set1(c##q.mean), r##q = vd_set1(c##q.rstd), ca##q = vd_set1(c##q.ca), cb##q = vd_set1(c##q.cb); \
    const vd mn##q = vd_set1(cn##q.mean), rn##q = vd_set1(cn##q.rstd);                                                 \
    vd sg0##q = z, sx0##q = z, sg1##q = z, sx1##q = z;
    DECL(0)
    DECL(1)
#undef DECL
    size_t i = stream ? vec_stream_lead(dx, n, sizeof *dx) : 0, j = 0; /* i walks this group, j the next */
    const vec_lines l = vec_stream_lines(dx, n, sizeof *dx);
    if (i) bacc_dx_part(x, dy, dx, gam, dga, dba, n, 0, i, cnt, m0, r0, ca0, cb0, m1, r1, ca1, cb1, has_g);
#define SUM(q)                                                                                              \
    if (q < cnt2) {                                                                                         \
        bacc_sum_half(xn + q * n, dyn + q * n, gam, j, VD_W, mn##q, rn##q, &sg0##q, &sx0##q, has_g);        \
        bacc_sum_half(xn + q * n, dyn + q * n, gam, j + VD_W, VD_W, mn##q, rn##q, &sg1##q, &sx1##q, has_g); \
    }
    for (; i + VF_W <= n; i += VF_W, j += VF_W) {
        if (j % (64 / sizeof(float)) < VF_W)
            for (size_t q = 0; q < pf; q++) vec_prefetch_l2(px + q * n + j), vec_prefetch_l2(pdy + q * n + j);
        SUM(0)
        SUM(1)
        vd lo0, hi0, lo1 = z, hi1 = z; /* lo1, hi1 set only for a second row */
        bacc_dx_half(x, dy, gam, dga, dba, n, i, VD_W, cnt, m0, r0, ca0, cb0, m1, r1, ca1, cb1, &lo0, &lo1, has_g);
        bacc_dx_half(x, dy, gam, dga, dba, n, i + VD_W, VD_W, cnt, m0, r0, ca0, cb0, m1, r1, ca1, cb1, &hi0, &hi1,
                     has_g);
        vf_put(dx, i, vf_from_vd(lo0, hi0), l, stream);
        if (cnt > 1) vf_put(dx + n, i, vf_from_vd(lo1, hi1), l, stream);
    }
#undef SUM
    bacc_dx_part(x, dy, dx, gam, dga, dba, n, i, n, cnt, m0, r0, ca0, cb0, m1, r1, ca1, cb1, has_g);
#define REST(q)                                                                                                  \
    if (q < cnt2)                                                                                                \
        bacc_sums_from(xn + q * n, dyn + q * n, gam, n, j, mn##q, rn##q, sg0##q, sx0##q, sg1##q, sx1##q, &s1[q], \
                       &s2[q], has_g);
    REST(0)
    REST(1)
#undef REST
}

/* Row r's saved statistics as coefficients (ca, cb set once its sums are known). */
static bacc_coef bacc_stats(const ln_args *a, size_t r)
{
    const bacc_coef c = {CENTRED ? a->mean[r] : 0.0, a->rstd[r], 0.0, 0.0};
    return c;
}

/* The sums of row r, before the pipeline takes them over. */
static void bacc_row_sums(const ln_args *a, size_t r, double *s1, double *s2)
{
    const vd z = vd_set1(0.0), m = vd_set1(CENTRED ? a->mean[r] : 0.0), rs = vd_set1(a->rstd[r]);
    const float *x = (const float *)a->x + r * a->D, *dy = (const float *)a->dy + r * a->D;
    if (a->gamma) bacc_sums_from(x, dy, a->gamma, a->D, 0, m, rs, z, z, z, z, s1, s2, 1);
    else bacc_sums_from(x, dy, a->gamma, a->D, 0, m, rs, z, z, z, z, s1, s2, 0);
}

/* group_rows's default: 2 with 32 vector registers, where a pair of rows keeps its coefficients
 * and sums in registers and ran 1.04-1.13x one row at a time from memory at D 768-8192 (Zen 5,
 * AVX-512; docs/simd.md); 1 with AVX2's 16, where the pair spills (0.90-0.98x for LayerNorm's). */
#if VEC_REGS >= 32
#define BA_GROUP_DEFAULT 2
#else
#define BA_GROUP_DEFAULT 1
#endif

/* The tunables (kernel.h), in the order of f32_bwd_accurate_tunables. */
enum { BA_STREAM_MIN_BYTES, BA_GROUP_ROWS };
static const int bacc_group_values[] = {1, 2};
static const ln_tunable f32_bwd_accurate_tunables[] = {
    LN_TUNABLE_STREAM_MIN_BYTES,
    {"group_rows",
     "rows whose dx one loop writes (sharing the double dgamma, dbeta loads and stores) while it sums as "
     "many more",
     BA_GROUP_DEFAULT, bacc_group_values, 2},
};

/* Rows per group: group_rows, where a group's rows share their stream lead and lines (rows of
 * whole 64-byte lines and whole vectors, or no streaming); else one. */
static size_t bacc_group(const ln_args *a, int stream)
{
    const size_t g = (size_t)ln_param(a, f32_bwd_accurate_tunables, BA_GROUP_ROWS), line = 64 / sizeof(float);
    return !stream || a->D % (VF_W > line ? VF_W : line) == 0 ? g : 1;
}

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
    const size_t g = bacc_group(a, stream);
    const float *gam = a->gamma, *X = a->x, *DY = a->dy;
    double s1[BA_GMAX], s2[BA_GMAX]; /* the sums of the group at r, taken in the step before */
    for (size_t q = 0; q < g && q < rows; q++) bacc_row_sums(a, q, &s1[q], &s2[q]);
    for (size_t r = 0, cnt; r < rows; r += cnt) {
        cnt = rows - r < g ? rows - r : g;
        const size_t r2 = r + cnt, cnt2 = rows - r2 < g ? rows - r2 : g, r3 = r2 + cnt2;
        const size_t pf = stream ? (rows - r3 < g ? rows - r3 : g) : 0;
        bacc_coef c[BA_GMAX], cn[BA_GMAX];
        for (size_t q = 0; q < cnt; q++) {
            const double rstd = a->rstd[r + q];
            c[q] = bacc_stats(a, r + q);
            c[q].ca = -rstd * (s2[q] / (double)n);
            c[q].cb = CENTRED ? -rstd * (s1[q] / (double)n) : 0.0;
        }
        for (size_t q = 0; q < cnt2; q++) cn[q] = bacc_stats(a, r2 + q);
        const size_t o = r * n;
        /* whole groups with constant counts (the compiler then keeps only those rows' registers) */
#define STEP(G, S, C, C2)                                                                                            \
    bacc_step(X + o, DY + o, (float *)a->dx + o, gam, acc, acc + cols, n, C, c, X + r2 * n, DY + r2 * n, C2, cn, s1, \
              s2, X + r3 * n, DY + r3 * n, pf, G, S)
#define CASE(G, S) \
    (cnt == 2 && cnt2 == 2 ? STEP(G, S, 2, 2) : cnt == 1 && cnt2 == 1 ? STEP(G, S, 1, 1) : STEP(G, S, cnt, cnt2))
        if (gam) stream ? CASE(1, 1) : CASE(1, 0);
        else stream ? CASE(0, 1) : CASE(0, 0);
#undef CASE
#undef STEP
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

#define F32_BWD_ACCURATE_HOW                                                                                   \
    "fp32 storage, x, dy, gamma widened exactly; sum g, sum g xhat in 2 double vectors (lanes added in "       \
    "double), dx = fma(g, rstd, fma(xhat, ca, cb)) in double rounded once, dgamma, dbeta summed over rows in " \
    "double; pipeline of row groups (dx of one group, sums of the next), non-temporal stores past "            \
    "stream_min_bytes: 1 + 2 (n/(2 VD_W) + 2 VD_W + 10) kappa 2^-29 u"
