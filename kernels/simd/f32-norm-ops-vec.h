/* RMSNorm forward and the backward ops in fp32 for AVX2 and AVX-512, written once over vec.h
 * (docs/ops.md). The including file defines NORM_KIND (NORM_RMSNORM, NORM_LNBWD or NORM_RMSBWD,
 * norm-ops-common.h), includes this header and defines its ln_kernel with LN_SIMD_KERNEL over
 * norm_vec_forward, norm_vec_bound and NORM_VEC_HOW.
 *
 * Sums run in 4 vector accumulators of W lanes with fused multiply-adds, the lanes summed in
 * double at the end: each lane adds about n / (4W) terms, so the sums' relative error is
 * (n / (4W) + 1) u instead of the sequential n u. Backward: ONE pass over dy and x gives
 * sum g and sum g xhat; a second pass (from cache for rows that fit) writes dx and adds dy xhat,
 * dy into fp32 dgamma, dbeta accumulators; rows whose fp32 quantities cannot be used
 * (ln_bwd_f32_usable) go to the double path. */
#include <math.h>
#include <stdlib.h>

#include "bounds-ops.h"
#include "norm-ops-common.h"
#include "vec.h"

#define CENTRED (NORM_KIND == NORM_LNBWD)

/* Elements i .. i + W (or the n - i < W left) of p, lanes past the row end read as 0. */
LN_INLINE vf load_at(const float *p, size_t i, size_t n)
{
    return i + VF_W <= n ? vf_load(p + i) : vf_load_part(p + i, n - i);
}
LN_INLINE void store_at(float *p, size_t i, size_t n, vf v)
{
    if (i + VF_W <= n) vf_store(p + i, v);
    else vf_store_part(p + i, v, n - i);
}

/* The next row into L2 while this one is worked on from cache: the memory stream does not
 * wait for the in-cache pass (one prefetch per 64-byte line). */
LN_INLINE void prefetch_row(const float *p, size_t i)
{
    if (p && i % (64 / sizeof(float)) == 0) vec_prefetch_l2(p + i);
}

/* The number of terms of each lane's sequential sum, plus the double combination. */
static double lane_terms(size_t n) { return ceil((double)n / (4.0 * VF_W)) + 1.0; }

#if NORM_KIND == NORM_RMSNORM

static void norm_vec_forward(const ln_args *a)
{
    const size_t n = a->D;
    const float *g = a->gamma, *b = a->beta;
    for (size_t r = 0; r < a->rows && n; r++) {
        const float *x = (const float *)a->x + r * n;
        float *y = (float *)a->y + r * n;
        vf s[4] = {vf_set1(0), vf_set1(0), vf_set1(0), vf_set1(0)};
        for (size_t i = 0; i < n; i += VF_W) {
            vf v = load_at(x, i, n);
            s[(i / VF_W) % 4] = vf_fma(v, v, s[(i / VF_W) % 4]);
        }
        double ss = vf_sum(s[0]) + vf_sum(s[1]) + vf_sum(s[2]) + vf_sum(s[3]);
        double radicand = ss / (double)n + a->eps;
        if (!ln_rms_radicand_ok(radicand)) { /* a lane overflowed or the squares underflowed */
            double rstd = ln_rms_row_f64(LN_F32, a, r);
            if (a->mean) a->mean[r] = 0;
            if (a->rstd) a->rstd[r] = rstd;
            continue;
        }
        float rstd = (float)(1.0 / sqrt(radicand));
        const vf vr = vf_set1(rstd);
        const float *next = r + 1 < a->rows ? x + n : NULL;
        for (size_t i = 0; i < n; i += VF_W) {
            prefetch_row(next, i);
            vf v = vf_mul(load_at(x, i, n), vr);
            if (g) v = vf_mul(v, load_at(g, i, n));
            if (b) v = vf_add(v, load_at(b, i, n));
            store_at(y, i, n, v);
        }
        if (a->mean) a->mean[r] = 0;
        if (a->rstd) a->rstd[r] = rstd;
    }
}

static double norm_vec_bound(size_t n, double kappa)
{
    (void)kappa;
    return ln_bound_rmsnorm(lane_terms(n), 0x1p-24, 0x1p-24);
}

#define NORM_VEC_HOW                                                                         \
    "fp32 FMA sum of squares in 4W lanes (summed in double), then y = x rstd gamma + beta; " \
    "rel. error of mean(x^2) + eps (n/(4W) + 4) u; rows whose sums overflow or squares underflow redone in double"

#else

static void norm_vec_forward(const ln_args *a)
{
    const size_t n = a->D;
    const float *gam = a->gamma;
    float *acc = calloc(2 * n + 2 * VF_W, sizeof *acc); /* dgamma, dbeta sums in fp32 */
    if (!acc) abort();
    float *dga = acc, *dba = acc + n;
    for (size_t r = 0; r < a->rows && n; r++) {
        const float *x = (const float *)a->x + r * n, *dy = (const float *)a->dy + r * n;
        float *dx = (float *)a->dx + r * n;
        const vf vmean = vf_set1(CENTRED ? (float)a->mean[r] : 0.0f), vrstd = vf_set1((float)a->rstd[r]);
        vf sg[4] = {vf_set1(0), vf_set1(0), vf_set1(0), vf_set1(0)}, sgx[4] = {sg[0], sg[0], sg[0], sg[0]};
        for (size_t i = 0; i < n; i += VF_W) {
            vf d = load_at(dy, i, n), xh = vf_mul(vf_sub(load_at(x, i, n), vmean), vrstd);
            vf g = gam ? vf_mul(d, load_at(gam, i, n)) : d;
            size_t k = (i / VF_W) % 4;
            sg[k] = vf_add(sg[k], g);
            sgx[k] = vf_fma(g, xh, sgx[k]);
        }
        double s1 = vf_sum(sg[0]) + vf_sum(sg[1]) + vf_sum(sg[2]) + vf_sum(sg[3]);
        double s2 = vf_sum(sgx[0]) + vf_sum(sgx[1]) + vf_sum(sgx[2]) + vf_sum(sgx[3]);
        /* rstd beyond fp32, an overflowed x - mean (or a padding lane's -mean rstd times 0: NaN):
         * the row in double, before dx, dgamma or dbeta take anything from it */
        if (!ln_bwd_f32_usable(CENTRED ? a->mean[r] : 0.0, a->rstd[r], s1, s2)) {
            ln_bwd_row_f64(LN_F32, a, r, CENTRED, dga, dba);
            continue;
        }
        const vf mg = vf_set1(CENTRED ? (float)(s1 / (double)n) : 0.0f), mgx = vf_set1((float)(s2 / (double)n));
        const int more = r + 1 < a->rows;
        for (size_t i = 0; i < n; i += VF_W) {
            prefetch_row(more ? x + n : NULL, i), prefetch_row(more ? dy + n : NULL, i);
            vf d = load_at(dy, i, n), xh = vf_mul(vf_sub(load_at(x, i, n), vmean), vrstd);
            vf g = gam ? vf_mul(d, load_at(gam, i, n)) : d;
            store_at(dga, i, n, vf_fma(d, xh, load_at(dga, i, n)));
            store_at(dba, i, n, vf_add(load_at(dba, i, n), d));
            store_at(dx, i, n, vf_mul(vrstd, vf_sub(vf_sub(g, mg), vf_mul(xh, mgx))));
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (a->dgamma) ((float *)a->dgamma)[i] = dga[i];
        if (a->dbeta) ((float *)a->dbeta)[i] = dba[i];
    }
    free(acc);
}

static double norm_vec_bound(size_t n, double kappa)
{
    return ln_bound_norm_bwd(lane_terms(n), kappa, 0x1p-24, 0x1p-24);
}

#define NORM_VEC_HOW                                                                                \
    "fp32: one pass over dy, x for sum g, sum g xhat (4W FMA lanes, summed in double); one for dx " \
    "and the fp32 dgamma, dbeta sums; rows beyond fp32's range in double; dx error 2 (n/(4W) + 9) kappa u"

#endif
