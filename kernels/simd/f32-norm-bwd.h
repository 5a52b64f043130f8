/* fp32 LayerNorm and RMSNorm backward at the forward's speed, written once over vec.h (AVX2,
 * AVX-512, NEON). The including file defines NORM_KIND (NORM_LNBWD or NORM_RMSBWD,
 * norm-ops-common.h). Per row, from the saved mean and rstd: one pass for sum g and sum g xhat
 * (g = gamma dy, xhat = (x - mean) rstd; one vector accumulator each, lanes added in double),
 * then dx = rstd ((g - mean g) - xhat mean(g xhat)) with dy xhat, dy added to fp32 dgamma, dbeta
 * sums. What f32-norm-ops-vec.h does in 14 vector operations per element vector takes 10 here
 * (bwd_coef), which is what limited it (Zen 5: the loop ran at half the memory's rate).
 *
 * Schedule: a pipeline of row groups (group_rows rows): one loop writes dx of group G (x, dy in
 * cache) and sums the rows of group G+1 (from memory), so the reductions overlap the next rows'
 * loads, and each vector of the dgamma, dbeta sums is loaded and stored once per group instead of
 * once per row; streaming, it also prefetches the group after into L2. Each row is summed and
 * each output computed the same way in any group, and dgamma, dbeta take the rows in order, so
 * the bits do not depend on the tunables (tests/test_tunables.c).
 * dx far larger than the caches goes out with non-temporal stores (no read-for-ownership).
 *
 * Rows whose fp32 quantities cannot be used (ln_bwd_f32_usable: a saved statistic beyond fp32,
 * an x - mean that overflowed) go to the double row ln_bwd_row_f64 at their turn, so dgamma and
 * dbeta still take the rows in order. Included by f32-{lnbwd,rmsbwd}-pipelined-<isa>.c. */
#include <stdlib.h>
#include <string.h>

#include "f32-passes.h"
#include "bounds-ops.h"
#include "norm-ops-common.h"

#define CENTRED (NORM_KIND == NORM_LNBWD)
/* Rows per group at most (group_rows): each summed row keeps two accumulators and two
 * coefficients in registers, so 4 with AVX-512's 32 registers, 2 with AVX2's 16 (NEON alike). */
#if VF_W >= 16
#define GMAX 4
#define BWD_ROWS(X) X(0) X(1) X(2) X(3)
#else
#define GMAX 2
#define BWD_ROWS(X) X(0) X(1)
#endif

/* m elements at p + i: m == VF_W a whole vector (constant after inlining), else the first m. */
LN_INLINE vf bwd_ld(const float *p, size_t i, size_t m) { return m == VF_W ? vf_load(p + i) : vf_load_part(p + i, m); }
LN_INLINE void bwd_st(float *p, size_t i, size_t m, vf v, int stream)
{
    if (m != VF_W) vf_store_part(p + i, v, m);
    else if (stream) vf_stream(p + i, v);
    else vf_store(p + i, v);
}

/* A row's coefficients, each formed in double and rounded once: xhat = fma(x, rstd, nmr) with
 * nmr = -mean rstd (one fma instead of a subtraction and a product), and after the first pass
 * dx = fma(g, rstd, fma(xhat, ca, cb)) with ca = -rstd mean(g xhat), cb = -rstd mean(g): three
 * operations where rstd ((g - mean g) - xhat mean(g xhat)) takes five. Each of these roundings
 * costs at most u (|xhat| + kappa_f) rstd T, inside the budget of the bound below. */
typedef struct {
    vf rstd, nmr, ca, cb;
} bwd_coef;

LN_INLINE vf bwd_xhat(vf x, vf rstd, vf nmr) { return CENTRED ? vf_fma(x, rstd, nmr) : vf_mul(x, rstd); }

/* sum g and sum g xhat of m elements at j (gm: gamma there), into *sg, *sgx; padding lanes give
 * xhat 0, so a padding lane's -mean rstd never reaches a sum. */
LN_INLINE void bwd_sum_vec(const float *x, const float *dy, vf gm, size_t j, size_t m, vf nmr, vf rstd, vf *sg, vf *sgx,
                           int has_g)
{
    vf d = bwd_ld(dy, j, m), xh = bwd_xhat(bwd_ld(x, j, m), rstd, nmr);
    if (m != VF_W) xh = vf_keep(xh, m);
    vf g = has_g ? vf_mul(d, gm) : d;
    *sg = vf_add(*sg, g);
    *sgx = vf_fma(g, xh, *sgx);
}

/* The sums of one row over vectors j, j + W, ... into the accumulators *s, *sx (one per sum, which
 * the caller may have started on [0, j)), returned in double. Every schedule sums a row this
 * way, so the bits do not depend on where the loop was entered. */
LN_INLINE void bwd_sums_from(const float *x, const float *dy, const float *gam, size_t n, size_t j, vf nmr, vf rstd,
                             vf s, vf sx, double *s1, double *s2, int has_g)
{
    const vf one = vf_set1(1.0f);
    for (; j + VF_W <= n; j += VF_W)
        bwd_sum_vec(x, dy, has_g ? vf_load(gam + j) : one, j, VF_W, nmr, rstd, &s, &sx, has_g);
    if (j < n) bwd_sum_vec(x, dy, has_g ? vf_load_part(gam + j, n - j) : one, j, n - j, nmr, rstd, &s, &sx, has_g);
    *s1 = vf_sum(s);
    *s2 = vf_sum(sx);
}

/* dx of m elements at i (gm: gamma there), dy xhat and dy added to the column sums *ga, *gb. */
LN_INLINE void bwd_dx_vec(const float *x, const float *dy, float *dx, vf gm, size_t i, size_t m, const bwd_coef *c,
                          vf *ga, vf *ba, int has_g, int stream)
{
    vf d = bwd_ld(dy, i, m), xh = bwd_xhat(bwd_ld(x, i, m), c->rstd, c->nmr);
    *ga = vf_fma(d, xh, *ga);
    *ba = vf_add(*ba, d);
    vf g = has_g ? vf_mul(d, gm) : d, t = CENTRED ? vf_fma(xh, c->ca, c->cb) : vf_mul(xh, c->ca);
    bwd_st(dx, i, m, vf_fma(g, c->rstd, t), stream);
}

/* The work of one call: the tensors, the dgamma/dbeta sums. */
typedef struct {
    const ln_args *a;
    const float *X, *DY, *gam;
    float *DX, *dga, *dba;
    size_t n;
} bwd_call;

/* dx of the cnt rows (cnt <= GMAX, coefficients c) at x, dy, dx (rows n apart) at m elements of
 * column i: each vector of the dgamma, dbeta sums loaded and stored once for the group, taking
 * its rows in order (the bits of row by row). Pointers in locals: stores to dx cannot move them. */
LN_INLINE void bwd_col(const float *x, const float *dy, float *dx, const float *gam, float *dga, float *dba, size_t n,
                       size_t cnt, const bwd_coef *c, size_t i, size_t m, int has_g, int stream)
{
    vf ga = bwd_ld(dga, i, m), ba = bwd_ld(dba, i, m), gm = has_g ? bwd_ld(gam, i, m) : ga;
#define COL(q) \
    if (q < cnt) bwd_dx_vec(x + q * n, dy + q * n, dx + q * n, gm, i, m, &c[q], &ga, &ba, has_g, stream);
    BWD_ROWS(COL)
#undef COL
    bwd_st(dga, i, m, ga, 0), bwd_st(dba, i, m, ba, 0);
}

/* Columns [i, end) of the group of cnt rows at row r. */
LN_INLINE void bwd_cols(const bwd_call *k, size_t r, size_t cnt, const bwd_coef *c, size_t i, size_t end, int has_g,
                        int stream)
{
    const size_t n = k->n;
    const float *x = k->X + r * n, *dy = k->DY + r * n, *gam = k->gam;
    float *dx = k->DX + r * n, *dga = k->dga, *dba = k->dba;
    for (; i + VF_W <= end; i += VF_W) bwd_col(x, dy, dx, gam, dga, dba, n, cnt, c, i, VF_W, has_g, stream);
    if (i < end) bwd_col(x, dy, dx, gam, dga, dba, n, cnt, c, i, end - i, has_g, 0);
}

LN_INLINE vf bwd_nmr(const bwd_call *k, size_t r)
{
    return vf_set1(CENTRED ? (float)(-k->a->mean[r] * k->a->rstd[r]) : 0.0f);
}

static void bwd_row_sums(const bwd_call *k, size_t r, double *s1, double *s2)
{
    const vf z = vf_set1(0.0f);
    const size_t o = r * k->n;
    const vf nmr = bwd_nmr(k, r), rstd = vf_set1((float)k->a->rstd[r]);
    if (k->gam) bwd_sums_from(k->X + o, k->DY + o, k->gam, k->n, 0, nmr, rstd, z, z, s1, s2, 1);
    else bwd_sums_from(k->X + o, k->DY + o, k->gam, k->n, 0, nmr, rstd, z, z, s1, s2, 0);
}

/* Whether row r, with sums s1, s2, takes the fp32 path; if so its coefficients into *c. */
static int bwd_coefs(const bwd_call *k, size_t r, double s1, double s2, bwd_coef *c)
{
    if (!ln_bwd_f32_usable(CENTRED ? k->a->mean[r] : 0.0, k->a->rstd[r], s1, s2)) return 0;
    const double rstd = k->a->rstd[r];
    const float ca = (float)(-rstd * (s2 / (double)k->n)), cb = CENTRED ? (float)(-rstd * (s1 / (double)k->n)) : 0.0f;
    if (!isfinite(ca) || !isfinite(cb)) return 0; /* dx's terms beyond fp32: the double row */
    c->rstd = vf_set1((float)rstd), c->nmr = bwd_nmr(k, r), c->ca = vf_set1(ca), c->cb = vf_set1(cb);
    return 1;
}

/* One step of the pipeline: dx of the group at r (cnt rows, coefficients c; the lead before the
 * first vector-aligned dx with ordinary stores) and, in the same loop, the sums of the cnt2 rows
 * at r2 into s1, s2; prefetches the pf rows at r3 into L2 (streaming: the group after next). */
LN_INLINE void bwd_step(const bwd_call *k, size_t r, size_t cnt, const bwd_coef *c, size_t r2, size_t cnt2, double *s1,
                        double *s2, size_t r3, size_t pf, int has_g, int stream)
{
    const size_t n = k->n;
    const float *gam = k->gam, *x = k->X + r * n, *dy = k->DY + r * n;
    const float *x2 = k->X + r2 * n, *dy2 = k->DY + r2 * n, *x3 = k->X + r3 * n, *dy3 = k->DY + r3 * n;
    float *dx = k->DX + r * n, *dga = k->dga, *dba = k->dba;
    const vf z = vf_set1(0.0f), one = vf_set1(1.0f);
    /* per summed row q its sums of g and g xhat, named so that they stay in registers */
#define DECL(q)              \
    vf sg##q = z, sx##q = z; \
    const vf nmr##q = q < cnt2 ? bwd_nmr(k, r2 + q) : z, rs##q = vf_set1(q < cnt2 ? (float)k->a->rstd[r2 + q] : 0.0f);
    BWD_ROWS(DECL)
#undef DECL
    const size_t lead = stream ? f32_stream_lead(dx, n) : 0;
    if (lead) bwd_cols(k, r, cnt, c, 0, lead, has_g, 0);
    size_t i = lead, j = 0; /* i: the dx group's columns, j: the summed rows' */
    for (; i + VF_W <= n; i += VF_W, j += VF_W) {
        if (j % (64 / sizeof(float)) == 0)
            for (size_t q = 0; q < pf; q++) vec_prefetch_l2(x3 + q * n + j), vec_prefetch_l2(dy3 + q * n + j);
        bwd_col(x, dy, dx, gam, dga, dba, n, cnt, c, i, VF_W, has_g, stream);
        const vf g0 = has_g ? vf_load(gam + j) : one;
#define SUM(q) \
    if (q < cnt2) bwd_sum_vec(x2 + q * n, dy2 + q * n, g0, j, VF_W, nmr##q, rs##q, &sg##q, &sx##q, has_g);
        BWD_ROWS(SUM)
#undef SUM
    }
    bwd_cols(k, r, cnt, c, i, n, has_g, stream);
#define REST(q) \
    if (q < cnt2) bwd_sums_from(x2 + q * n, dy2 + q * n, gam, n, j, nmr##q, rs##q, sg##q, sx##q, &s1[q], &s2[q], has_g);
    BWD_ROWS(REST)
#undef REST
}

/* The pipeline over all rows in groups of g (1 .. GMAX): the sums of the first group, then each
 * step writes one group's dx while summing the next. A group with a row for the double path goes
 * row by row, each row at its turn (dgamma and dbeta take the rows in order). */
static void bwd_pipelined(const bwd_call *k, size_t g, int stream)
{
    const size_t rows = k->a->rows;
    double s1[GMAX], s2[GMAX];
    for (size_t q = 0; q < g && q < rows; q++) bwd_row_sums(k, q, &s1[q], &s2[q]);
    for (size_t r = 0, cnt; r < rows; r += cnt) {
        cnt = rows - r < g ? rows - r : g;
        const size_t r2 = r + cnt, cnt2 = rows - r2 < g ? rows - r2 : g, r3 = r2 + cnt2;
        const size_t pf = stream ? (rows - r3 < g ? rows - r3 : g) : 0;
        bwd_coef c[GMAX];
        int ok = 1;
        for (size_t q = 0; q < cnt; q++) ok &= bwd_coefs(k, r + q, s1[q], s2[q], &c[q]);
        if (ok) {
#define CASE(G, S) bwd_step(k, r, cnt, c, r2, cnt2, s1, s2, r3, pf, G, S)
            if (k->gam) stream ? CASE(1, 1) : CASE(1, 0);
            else stream ? CASE(0, 1) : CASE(0, 0);
#undef CASE
            continue;
        }
        for (size_t q = 0; q < cnt; q++) { /* a rare group: its rows one at a time */
            bwd_row_sums(k, r + q, &s1[0], &s2[0]);
            if (!bwd_coefs(k, r + q, s1[0], s2[0], &c[0])) ln_bwd_row_f64(LN_F32, k->a, r + q, CENTRED, k->dga, k->dba);
            else if (k->gam) bwd_step(k, r + q, 1, c, 0, 0, s1, s2, 0, 0, 1, 0);
            else bwd_step(k, r + q, 1, c, 0, 0, s1, s2, 0, 0, 0, 0);
        }
        for (size_t q = 0; q < cnt2; q++) bwd_row_sums(k, r2 + q, &s1[q], &s2[q]);
    }
}

/* The tunables (kernel.h), in the order of f32_bwd_tunables. */
enum { T_STREAM_MIN_BYTES, T_GROUP_ROWS, T_LONG_MIN_D, T_LONG_GROUP_ROWS };
static const int bwd_group_values[] = {1, 2, 4};
static const int bwd_long_min_d_values[] = {1024, 2048, 4096, 8192, 16384, LN_TUNE_OFF};
static const ln_tunable f32_bwd_tunables[] = {
    LN_TUNABLE_STREAM_MIN_BYTES,
    {"group_rows", "rows whose dx one loop writes (sharing the dgamma, dbeta loads) while it sums as many more", 2,
     bwd_group_values, GMAX == 4 ? 3 : 2},
    {"long_min_d", "D from which long_group_rows applies instead of group_rows", 8192, bwd_long_min_d_values, 6},
    {"long_group_rows", "group_rows for long rows (two groups of rows of x and dy stay in L2)", 2, bwd_group_values,
     GMAX == 4 ? 3 : 2},
};

static void f32_bwd_forward(const ln_args *a)
{
    const size_t n = a->D;
    if (n == 0) return;
    const size_t cols = (n + 15) / 16 * 16; /* each sum 64-byte aligned: no vector access splits a line */
    float *acc = aligned_alloc(64, 2 * cols * sizeof *acc); /* the dgamma, dbeta sums */
    if (!acc) abort();
    memset(acc, 0, 2 * cols * sizeof *acc);
    const bwd_call k = {a, a->x, a->dy, a->gamma, a->dx, acc, acc + cols, n};
    const ln_tunable *t = f32_bwd_tunables;
    /* the rows of a group share one stream lead only when a row is whole vectors */
    const int stream = ln_tune_streams(a->rows, n, sizeof(float), ln_param(a, t, T_STREAM_MIN_BYTES)) && n % VF_W == 0;
    const int g = ln_param(a, t, n >= (size_t)ln_param(a, t, T_LONG_MIN_D) ? T_LONG_GROUP_ROWS : T_GROUP_ROWS);
    if (a->rows) bwd_pipelined(&k, (size_t)g, stream);
    if (stream) vec_stream_fence(); /* order the non-temporal stores before the caller reads dx */
    for (size_t i = 0; i < n; i++) {
        if (a->dgamma) ((float *)a->dgamma)[i] = acc[i];
        if (a->dbeta) ((float *)a->dbeta)[i] = acc[cols + i];
    }
    free(acc);
}

/* Each lane of the two sums adds at most n/W + 1 terms; the lanes in double: f32-norm-ops-vec.h's
 * bound with that count. */
static double f32_bwd_bound(size_t n, double kappa)
{
    return ln_bound_norm_bwd((double)n / VF_W + 2.0, kappa, 0x1p-24, 0x1p-24);
}

#define F32_BWD_HOW                                                                                        \
    "fp32: sum g, sum g xhat in W FMA lanes (summed in double), dx = rstd ((g - mean g) - xhat "           \
    "mean(g xhat)), fp32 dgamma, dbeta sums; pipeline of row groups (dx of one group, sums of the next), " \
    "non-temporal stores past stream_min_bytes; rows beyond fp32's range in double; "                      \
    "dx error 2 (n/W + 10) kappa u"
