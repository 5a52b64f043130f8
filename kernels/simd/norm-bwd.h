/* LayerNorm and RMSNorm backward at the forward's speed, written once over vec.h (AVX2, AVX-512,
 * NEON) and an element layer (below): fp32 rows a vector of W elements at a time, or 16-bit rows
 * (f16, bf16) a block of 2 W at a time through the 16-bit block layer (half-vec.h), each element
 * widened exactly to fp32 and each output rounded once to 16 bits. The arithmetic is fp32 in
 * either case, so a 16-bit kernel computes what the fp32 kernel computes on the widened rows,
 * sum for sum (f16; bf16's block layout puts its elements in other lanes of the sums: the same
 * count of terms per lane, another order). The including file defines NORM_KIND (NORM_LNBWD or
 * NORM_RMSBWD, norm-ops-common.h) and, for 16-bit rows, NORM_HALF_DTYPE (LN_F16 or LN_BF16).
 * Per row, from the saved mean and rstd: one pass for sum g and sum g xhat (g = gamma dy, xhat =
 * (x - mean) rstd; one vector accumulator each, lanes added in double), then dx = rstd ((g -
 * mean g) - xhat mean(g xhat)) with dy xhat, dy added to fp32 dgamma, dbeta sums. What
 * f32-norm-ops-vec.h does in 14 vector operations per element vector takes 10 here (bwd_coef),
 * which is what limited it (Zen 5: the loop ran at half the memory's rate).
 *
 * Schedule: a pipeline of row groups (group_rows rows): one loop writes dx of group G (x, dy in
 * cache) and sums the rows of group G+1 (from memory), so the reductions overlap the next rows'
 * loads, and each vector of the dgamma, dbeta sums is loaded and stored once per group instead of
 * once per row; streaming, it also prefetches the group after into L2. Each row is summed and
 * each output computed the same way in any group, and dgamma, dbeta take the rows in order, so
 * the bits do not depend on the tunables (tests/test_tunables.c).
 * dx far larger than the caches goes out with non-temporal stores (no read-for-ownership). Where
 * the next group's loads would fall at the page offsets of the stores to dx (rows a multiple of
 * 4 KiB apart), dx's columns start a lag into the row (bwd_place: 4K aliasing); whether such
 * calls stream at all is the machine's choice (stream_aliased).
 *
 * Rows whose fp32 quantities cannot be used (ln_bwd_f32_usable: a saved statistic beyond fp32,
 * an x - mean that overflowed) go to the double row ln_bwd_row_f64 at their turn, so dgamma and
 * dbeta still take the rows in order. Included by {f32,f16,bf16}-{lnbwd,rmsbwd}-*-<isa>.c. */
#include <stdlib.h>
#include <string.h>

#include "bounds-ops.h"
#include "norm-ops-common.h"

#define CENTRED (NORM_KIND == NORM_LNBWD)

/* The element layer: bw_t the stored element, BW_E elements a step, bv a step's elements in fp32
 * and its lane-wise arithmetic; bw_ld / bw_st the first m <= BW_E elements at p + i widened /
 * rounded (m == BW_E a whole step, constant after inlining; part steps read 0 past m and touch
 * nothing past it); bv_sum_into / bv_fma_into add a step into one fp32 vector accumulator, its
 * vectors in order; bw_acc_* the fp32 dgamma, dbeta sums, kept in the step's lane layout. */
#ifndef NORM_HALF_DTYPE /* an enumerator: the preprocessor cannot compare it */
#define NORM_DTYPE LN_F32
#include "f32-passes.h"

typedef float bw_t;
#define BW_E VF_W
typedef vf bv;
LN_INLINE bv bv_set1(float a) { return vf_set1(a); }
LN_INLINE bv bv_add(bv a, bv b) { return vf_add(a, b); }
LN_INLINE bv bv_mul(bv a, bv b) { return vf_mul(a, b); }
LN_INLINE bv bv_fma(bv a, bv b, bv c) { return vf_fma(a, b, c); }
LN_INLINE vf bv_sum_into(vf s, bv v) { return vf_add(s, v); }
LN_INLINE vf bv_fma_into(bv a, bv b, vf s) { return vf_fma(a, b, s); }
LN_INLINE bv bw_keep(bv v, size_t m) { return vf_keep(v, m); }
LN_INLINE bv bw_ld(const float *p, size_t i, size_t m) { return m == VF_W ? vf_load(p + i) : vf_load_part(p + i, m); }
LN_INLINE void bw_st(float *p, size_t i, size_t m, bv v, int stream)
{
    if (m != VF_W) vf_store_part(p + i, v, m);
    else if (stream) vf_stream(p + i, v);
    else vf_store(p + i, v);
}
/* the sums in memory order */
LN_INLINE bv bw_acc_ld(const float *p, size_t i, size_t m) { return bw_ld(p, i, m); }
LN_INLINE void bw_acc_st(float *p, size_t i, size_t m, bv v) { bw_st(p, i, m, v, 0); }
/* ordinary stores before the first dx on a 64-byte line (whole lines stream: bwd_col); streaming
 * needs rows of whole vectors (the rows of a group then share one lead) */
LN_INLINE size_t bw_stream_lead(const float *dx, size_t n) { return vec_stream_lines(dx, n, sizeof(float)).lo; }
LN_INLINE int bw_can_stream(const float *dx, size_t n) { return (void)dx, n % VF_W == 0; }

/* A row in double, dy xhat and dy added to the sums at their turn. */
LN_INLINE void bw_row_f64(const ln_args *a, size_t r, float *dga, float *dba)
{
    ln_bwd_row_f64(LN_F32, a, r, CENTRED, dga, dba);
}

LN_INLINE void bw_sums_out(void *out, const float *acc, size_t n)
{
    if (out) memcpy(out, acc, n * sizeof *acc);
}

#else
#define NORM_DTYPE NORM_HALF_DTYPE
#include "half-vec.h"
#include "tunables.h"

typedef uint16_t bw_t;
#define BW_E HB
typedef vf_pair bv;
LN_INLINE bv bv_set1(float a) { return (bv){vf_set1(a), vf_set1(a)}; }
LN_INLINE bv bv_add(bv a, bv b) { return (bv){vf_add(a.a, b.a), vf_add(a.b, b.b)}; }
LN_INLINE bv bv_mul(bv a, bv b) { return (bv){vf_mul(a.a, b.a), vf_mul(a.b, b.b)}; }
LN_INLINE bv bv_fma(bv a, bv b, bv c) { return (bv){vf_fma(a.a, b.a, c.a), vf_fma(a.b, b.b, c.b)}; }
/* a block into one accumulator, its first vector then its second: for f16 (elements 0..W-1, then
 * W..2W-1) the terms and the order of the fp32 kernel's accumulator on the widened row */
LN_INLINE vf bv_sum_into(vf s, bv v) { return vf_add(vf_add(s, v.a), v.b); }
LN_INLINE vf bv_fma_into(bv a, bv b, vf s) { return vf_fma(a.b, b.b, vf_fma(a.a, b.a, s)); }
LN_INLINE bv bw_keep(bv v, size_t m) { return half_block_keep(NORM_DTYPE, v, m); }
LN_INLINE bv bw_ld(const uint16_t *p, size_t i, size_t m)
{
    return m == HB ? half_block_load(NORM_DTYPE, p + i) : half_block_load_part(NORM_DTYPE, p + i, m);
}
LN_INLINE void bw_st(uint16_t *p, size_t i, size_t m, bv v, int stream)
{
    if (m != HB) half_block_store_part(NORM_DTYPE, p + i, v, m);
    else half_block_store(NORM_DTYPE, p + i, v, stream ? HALF_STREAM : 0);
}
/* The sums in the blocks' lane layout (bf16: the even elements of a block, then the odd ones),
 * whole blocks (the buffer holds whole blocks; the lanes past n add 0 dy and stay 0): no
 * shuffle per group, one per block when they are rounded out (bw_sums_out). */
LN_INLINE bv bw_acc_ld(const float *p, size_t i, size_t m)
{
    return (void)m, (bv){vf_load(p + i), vf_load(p + i + VF_W)};
}
LN_INLINE void bw_acc_st(float *p, size_t i, size_t m, bv v)
{
    (void)m, vf_store(p + i, v.a), vf_store(p + i + VF_W, v.b);
}
/* where element i's lane lies in the sums: as half_block_load lays out a block (half-vec-tail.h) */
LN_INLINE size_t bw_acc_pos(size_t i)
{
    const size_t k = i % HB;
    return NORM_DTYPE == LN_F16 ? i : i - k + (k % 2) * VF_W + k / 2;
}
/* Streaming only where every block of every row is vector-aligned (dx aligned, rows of whole
 * blocks): a stream lead would move the blocks, and with them the lanes of the sums. */
LN_INLINE size_t bw_stream_lead(const uint16_t *dx, size_t n) { return (void)dx, (void)n, 0; }
LN_INLINE int bw_can_stream(const uint16_t *dx, size_t n) { return n % HB == 0 && (uintptr_t)dx % 64 == 0; }

/* A row in double (rare: its dy xhat, dy rounded to fp32 as ln_bwd_row_f64 does, then added to
 * the sums at their lanes, the same bits as added in place). */
static void bw_row_f64(const ln_args *a, size_t r, float *dga, float *dba)
{
    const size_t n = a->D;
    float *t = calloc(2 * n, sizeof *t);
    if (!t) abort();
    ln_bwd_row_f64(NORM_DTYPE, a, r, CENTRED, t, t + n);
    for (size_t i = 0; i < n; i++) dga[bw_acc_pos(i)] += t[i], dba[bw_acc_pos(i)] += t[n + i];
    free(t);
}

/* The sums rounded once to 16 bits, back in memory order. */
LN_INLINE void bw_sums_out(void *out, const float *acc, size_t n)
{
    if (!out) return;
    size_t i = 0;
    for (; i + HB <= n; i += HB) bw_st(out, i, HB, bw_acc_ld(acc, i, HB), 0);
    if (i < n) bw_st(out, i, n - i, bw_acc_ld(acc, i, n - i), 0);
}
#endif

/* Rows per group at most (group_rows): each summed row keeps two accumulators and two
 * coefficients in registers, so 4 with AVX-512's 32 registers, 2 with AVX2's 16 (NEON alike).
 * Here, after the element layer has brought in the vector layer: before it VEC_REGS is not yet
 * defined, and the preprocessor would read it as 0. */
#if VEC_REGS >= 32
#define GMAX 4
#define BWD_ROWS(X) X(0) X(1) X(2) X(3)
#else
#define GMAX 2
#define BWD_ROWS(X) X(0) X(1)
#endif

/* A row's coefficients, each formed in double and rounded once: xhat = fma(x, rstd, nmr) with
 * nmr = -mean rstd (one fma instead of a subtraction and a product), and after the first pass
 * dx = fma(g, rstd, fma(xhat, ca, cb)) with ca = -rstd mean(g xhat), cb = -rstd mean(g): three
 * operations where rstd ((g - mean g) - xhat mean(g xhat)) takes five. Each of these roundings
 * costs at most u (|xhat| + kappa_f) rstd T, inside the budget of the bound below. */
typedef struct {
    bv rstd, nmr, ca, cb;
} bwd_coef;

LN_INLINE bv bwd_xhat(bv x, bv rstd, bv nmr) { return CENTRED ? bv_fma(x, rstd, nmr) : bv_mul(x, rstd); }

/* sum g and sum g xhat of m elements at j (gm: gamma there), into *sg, *sgx; padding lanes give
 * xhat 0, so a padding lane's -mean rstd never reaches a sum. */
LN_INLINE void bwd_sum_vec(const bw_t *x, const bw_t *dy, bv gm, size_t j, size_t m, bv nmr, bv rstd, vf *sg, vf *sgx,
                           int has_g)
{
    bv d = bw_ld(dy, j, m), xh = bwd_xhat(bw_ld(x, j, m), rstd, nmr);
    if (m != BW_E) xh = bw_keep(xh, m);
    bv g = has_g ? bv_mul(d, gm) : d;
    *sg = bv_sum_into(*sg, g);
    *sgx = bv_fma_into(g, xh, *sgx);
}

/* The sums of one row over steps j, j + BW_E, ... into the accumulators *s, *sx (one per sum,
 * which the caller may have started on [0, j)), returned in double. Every schedule sums a row
 * this way, so the bits do not depend on where the loop was entered. */
LN_INLINE void bwd_sums_from(const bw_t *x, const bw_t *dy, const bw_t *gam, size_t n, size_t j, bv nmr, bv rstd, vf s,
                             vf sx, double *s1, double *s2, int has_g)
{
    const bv one = bv_set1(1.0f);
    for (; j + BW_E <= n; j += BW_E)
        bwd_sum_vec(x, dy, has_g ? bw_ld(gam, j, BW_E) : one, j, BW_E, nmr, rstd, &s, &sx, has_g);
    if (j < n) bwd_sum_vec(x, dy, has_g ? bw_ld(gam, j, n - j) : one, j, n - j, nmr, rstd, &s, &sx, has_g);
    *s1 = vf_sum(s);
    *s2 = vf_sum(sx);
}

/* dx of m elements at i (gm: gamma there), dy xhat and dy added to the column sums *ga, *gb. */
LN_INLINE void bwd_dx_vec(const bw_t *x, const bw_t *dy, bw_t *dx, bv gm, size_t i, size_t m, const bwd_coef *c, bv *ga,
                          bv *ba, int has_g, int stream)
{
    bv d = bw_ld(dy, i, m), xh = bwd_xhat(bw_ld(x, i, m), c->rstd, c->nmr);
    *ga = bv_fma(d, xh, *ga);
    *ba = bv_add(*ba, d);
    bv g = has_g ? bv_mul(d, gm) : d, t = CENTRED ? bv_fma(xh, c->ca, c->cb) : bv_mul(xh, c->ca);
    bw_st(dx, i, m, bv_fma(g, c->rstd, t), stream);
}

/* The work of one call: the tensors, the dgamma/dbeta sums. */
typedef struct {
    const ln_args *a;
    const bw_t *X, *DY, *gam;
    bw_t *DX;
    float *dga, *dba;
    size_t n;
    size_t lag; /* bwd_step's lag of dx's columns over the summed rows' (bwd_place) */
    int lines;  /* whether bwd_step, streaming, stores dx a whole line at a time (bwd_place) */
} bwd_call;

/* The steps of one 64-byte line of dx (bwd_col). */
#define BWD_LINE_STEPS (BW_E * sizeof(bw_t) >= VEC_LINE_BYTES ? 1 : VEC_LINE_BYTES / (BW_E * sizeof(bw_t)))
#define BWD_LINE_E (BWD_LINE_STEPS * BW_E)

/* dx of the cnt rows (cnt <= GMAX, coefficients c) at x, dy, dx (rows n apart) at steps (1 or
 * BWD_LINE_STEPS) steps of m elements from column i: each vector of the dgamma, dbeta sums loaded
 * and stored once for the group, each column taking its rows in order (the bits of row by row),
 * the rows one after the other, so that with BWD_LINE_STEPS each row's 64-byte line of dx is
 * stored whole before the next row's (non-temporal stores alternating between rows' part-lines
 * keep several write-combining buffers part-filled; bwd_place says where that costs). Pointers
 * in locals: stores to dx cannot move them. */
LN_INLINE void bwd_col(const bw_t *x, const bw_t *dy, bw_t *dx, const bw_t *gam, float *dga, float *dba, size_t n,
                       size_t cnt, const bwd_coef *c, size_t i, size_t m, size_t steps, int has_g, int stream)
{
    bv ga[BWD_LINE_STEPS], ba[BWD_LINE_STEPS], gm[BWD_LINE_STEPS];
    for (size_t s = 0; s < steps; s++) {
        ga[s] = bw_acc_ld(dga, i + s * m, m), ba[s] = bw_acc_ld(dba, i + s * m, m);
        gm[s] = has_g ? bw_ld(gam, i + s * m, m) : ga[s];
    }
#define COL(q)                             \
    if (q < cnt)                           \
        for (size_t s = 0; s < steps; s++) \
            bwd_dx_vec(x + q * n, dy + q * n, dx + q * n, gm[s], i + s * m, m, &c[q], &ga[s], &ba[s], has_g, stream);
    BWD_ROWS(COL)
#undef COL
    for (size_t s = 0; s < steps; s++) bw_acc_st(dga, i + s * m, m, ga[s]), bw_acc_st(dba, i + s * m, m, ba[s]);
}

/* Columns [i, end) of the group of cnt rows at row r. */
LN_INLINE void bwd_cols(const bwd_call *k, size_t r, size_t cnt, const bwd_coef *c, size_t i, size_t end, int has_g,
                        int stream)
{
    const size_t n = k->n;
    const bw_t *x = k->X + r * n, *dy = k->DY + r * n, *gam = k->gam;
    bw_t *dx = k->DX + r * n;
    float *dga = k->dga, *dba = k->dba;
    for (; i + BW_E <= end; i += BW_E) bwd_col(x, dy, dx, gam, dga, dba, n, cnt, c, i, BW_E, 1, has_g, stream);
    if (i < end) bwd_col(x, dy, dx, gam, dga, dba, n, cnt, c, i, end - i, 1, has_g, 0);
}

LN_INLINE bv bwd_nmr(const bwd_call *k, size_t r)
{
    return bv_set1(CENTRED ? (float)(-k->a->mean[r] * k->a->rstd[r]) : 0.0f);
}

static void bwd_row_sums(const bwd_call *k, size_t r, double *s1, double *s2)
{
    const vf z = vf_set1(0.0f);
    const size_t o = r * k->n;
    const bv nmr = bwd_nmr(k, r), rstd = bv_set1((float)k->a->rstd[r]);
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
    c->rstd = bv_set1((float)rstd), c->nmr = bwd_nmr(k, r), c->ca = bv_set1(ca), c->cb = bv_set1(cb);
    return 1;
}

/* One step of the pipeline: dx of the group at r (cnt rows, coefficients c; the lead before the
 * first vector-aligned dx with ordinary stores) and, in the same loop, the sums of the cnt2 rows
 * at r2 into s1, s2; prefetches the pf rows at r3 into L2 (streaming: the group after next). */
LN_INLINE void bwd_step(const bwd_call *k, size_t r, size_t cnt, const bwd_coef *c, size_t r2, size_t cnt2, double *s1,
                        double *s2, size_t r3, size_t pf, int has_g, int stream)
{
    const size_t n = k->n;
    const bw_t *gam = k->gam, *x = k->X + r * n, *dy = k->DY + r * n;
    const bw_t *x2 = k->X + r2 * n, *dy2 = k->DY + r2 * n, *x3 = k->X + r3 * n, *dy3 = k->DY + r3 * n;
    bw_t *dx = k->DX + r * n;
    float *dga = k->dga, *dba = k->dba;
    const vf z = vf_set1(0.0f);
    const bv zb = bv_set1(0.0f), one = bv_set1(1.0f);
    /* per summed row q its sums of g and g xhat, named so that they stay in registers */
#define DECL(q)              \
    vf sg##q = z, sx##q = z; \
    const bv nmr##q = q < cnt2 ? bwd_nmr(k, r2 + q) : zb, rs##q = bv_set1(q < cnt2 ? (float)k->a->rstd[r2 + q] : 0.0f);
    BWD_ROWS(DECL)
#undef DECL
    const size_t lead = stream ? bw_stream_lead(dx, n) : 0;
    if (lead) bwd_cols(k, r, cnt, c, 0, lead, has_g, 0);
    size_t i = lead, j = 0; /* i: the dx group's columns, j: the summed rows' */
    /* one step of the next group's sums at j, prefetching the group after at each line */
#define SUM(q) \
    if (q < cnt2) bwd_sum_vec(x2 + q * n, dy2 + q * n, g0, j, BW_E, nmr##q, rs##q, &sg##q, &sx##q, has_g);
#define SUMS_STEP()                                                                                            \
    do {                                                                                                       \
        if (j % (64 / sizeof(bw_t)) == 0)                                                                      \
            for (size_t q = 0; q < pf; q++) vec_prefetch_l2(x3 + q * n + j), vec_prefetch_l2(dy3 + q * n + j); \
        const bv g0 = has_g ? bw_ld(gam, j, BW_E) : one;                                                       \
        BWD_ROWS(SUM)                                                                                          \
    } while (0)
    /* Steps of whole lines of dx (bwd_col; streaming, where k->lines), then single steps; the
     * steps start k->lag into the row and wrap around (bwd_place). The step a constant in each
     * loop, so that bwd_col's vectors stay in registers. */
    const size_t start = i;
#define STEPS(steps)                                                                      \
    do {                                                                                  \
        const size_t unit = (steps)*BW_E, lines = (n - i) / unit, end = i + lines * unit; \
        size_t il = lines ? start + k->lag / unit % lines * unit : i;                     \
        for (size_t l = 0; l < lines; l++) {                                              \
            bwd_col(x, dy, dx, gam, dga, dba, n, cnt, c, il, BW_E, steps, has_g, stream); \
            for (size_t s = 0; s < (steps); s++, j += BW_E) SUMS_STEP();                  \
            if ((il += unit) == end) il = start;                                          \
        }                                                                                 \
        i = end;                                                                          \
    } while (0)
    if (stream && k->lines) STEPS(BWD_LINE_STEPS);
    else STEPS(1);
#undef STEPS
    for (; i + BW_E <= n; i += BW_E, j += BW_E) {
        bwd_col(x, dy, dx, gam, dga, dba, n, cnt, c, i, BW_E, 1, has_g, stream);
        SUMS_STEP();
    }
#undef SUMS_STEP
#undef SUM
    bwd_cols(k, r, cnt, c, i, n, has_g, stream);
#define REST(q) \
    if (q < cnt2) bwd_sums_from(x2 + q * n, dy2 + q * n, gam, n, j, nmr##q, rs##q, sg##q, sx##q, &s1[q], &s2[q], has_g);
    BWD_ROWS(REST)
#undef REST
}

/* The groups one after the other, each summed and then written (serial): at short rows from
 * memory the pipeline's four row streams cost more than the overlap gives; the next group is
 * prefetched into L2 while this one is written. */
static void bwd_serial(const bwd_call *k, size_t g, int stream)
{
    const size_t rows = k->a->rows;
    double s1[GMAX], s2[GMAX];
    for (size_t r = 0, cnt; r < rows; r += cnt) {
        cnt = rows - r < g ? rows - r : g;
        const size_t r2 = r + cnt, pf = stream ? (rows - r2 < g ? rows - r2 : g) : 0;
        bwd_coef c[GMAX];
        int ok = 1;
        for (size_t q = 0; q < cnt; q++) bwd_row_sums(k, r + q, &s1[q], &s2[q]);
        for (size_t q = 0; q < cnt; q++) ok &= bwd_coefs(k, r + q, s1[q], s2[q], &c[q]);
        if (ok) {
#define CASE(G, S) bwd_step(k, r, cnt, c, r2, 0, s1, s2, r2, pf, G, S)
            if (k->gam) stream ? CASE(1, 1) : CASE(1, 0);
            else stream ? CASE(0, 1) : CASE(0, 0);
#undef CASE
            continue;
        }
        for (size_t q = 0; q < cnt; q++) { /* a rare group: its rows one at a time */
            if (!bwd_coefs(k, r + q, s1[q], s2[q], &c[0])) bw_row_f64(k->a, r + q, k->dga, k->dba);
            else if (k->gam) bwd_step(k, r + q, 1, c, 0, 0, s1, s2, 0, 0, 1, 0);
            else bwd_step(k, r + q, 1, c, 0, 0, s1, s2, 0, 0, 0, 0);
        }
    }
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
            /* groups of two rows (the default) or of GMAX with constant counts: the compiler then
             * keeps the registers of those rows, not of GMAX (AVX-512: 4) for every group */
#define CASE(G, S)                                                                           \
    (cnt == 2 && cnt2 == 2         ? bwd_step(k, r, 2, c, r2, 2, s1, s2, r3, pf, G, S)       \
     : cnt == GMAX && cnt2 == GMAX ? bwd_step(k, r, GMAX, c, r2, GMAX, s1, s2, r3, pf, G, S) \
                                   : bwd_step(k, r, cnt, c, r2, cnt2, s1, s2, r3, pf, G, S))
            if (k->gam) stream ? CASE(1, 1) : CASE(1, 0);
            else stream ? CASE(0, 1) : CASE(0, 0);
#undef CASE
            continue;
        }
        for (size_t q = 0; q < cnt; q++) { /* a rare group: its rows one at a time */
            bwd_row_sums(k, r + q, &s1[0], &s2[0]);
            if (!bwd_coefs(k, r + q, s1[0], s2[0], &c[0])) bw_row_f64(k->a, r + q, k->dga, k->dba);
            else if (k->gam) bwd_step(k, r + q, 1, c, 0, 0, s1, s2, 0, 0, 1, 0);
            else bwd_step(k, r + q, 1, c, 0, 0, s1, s2, 0, 0, 0, 0);
        }
        for (size_t q = 0; q < cnt2; q++) bwd_row_sums(k, r2 + q, &s1[q], &s2[q]);
    }
}

/* Where bwd_step puts its loads against its stores. A load at the page offset (the address mod
 * 4 KiB) of an earlier store still in flight is taken for a possible dependence and waits for it
 * (4K aliasing); non-temporal stores are long in draining. k->lag, in elements (whole lines): the
 * smallest lag of dx's columns over the summed rows' that puts every load of the next group (x
 * and dy of g rows) at least 512 bytes in page offset from the stores to this group's dx (else
 * the farthest); 0 where nothing aliases, so gamma loads once for both loops. k->lines where at
 * lag 0 every one of those loads aliased (rows a multiple of 4 KiB apart): streaming, bwd_step
 * then stores dx a whole line at a time. Zen 3, D 4096 from memory, before: 2 GB/s; the lag
 * alone, 6; with whole lines, 14. Where only some loads aliased (f16 D 1024), the lag alone
 * serves and lines cost 20%. The offsets repeat from group to group, so one placement serves
 * the call (lead: the columns bwd_step writes before its loop, streaming). */
static void bwd_place(bwd_call *k, size_t g, size_t lead)
{
    const uintptr_t rb = k->n * sizeof(bw_t), page = VEC_PAGE_BYTES, dx = (uintptr_t)(k->DX + lead);
    const uintptr_t src[2] = {(uintptr_t)k->X, (uintptr_t)k->DY};
    size_t best = 0, best_d = 0;
    for (uintptr_t lag = 0; lag < page && best_d < VEC_ALIAS_BYTES; lag += 64) {
        size_t near = page, far = 0; /* the nearest and the farthest load from a store */
        for (size_t s = 0; s < 2; s++)
            for (size_t q = 0; q < g; q++)
                for (size_t q2 = 0; q2 < g; q2++) {
                    const uintptr_t off = (src[s] + (g + q2) * rb - dx - q * rb - lag) % page;
                    const size_t d = off < page - off ? off : page - off;
                    near = d < near ? d : near, far = d > far ? d : far;
                }
        if (!lag) k->lines = far < VEC_ALIAS_BYTES;
        if (near > best_d) best_d = near, best = lag;
    }
    k->lag = best / sizeof(bw_t);
}

/* The tunables (kernel.h), in the order of norm_bwd_tunables. stream_aliased first, so that
 * lnbench tune's coordinate descent tries it before stream_min_bytes: where rows alias, both
 * settings run the same code, and only stream_aliased=0 leaves the D that share a tuning entry
 * but do not alias (D 768 under D 1024's) streaming. */
enum { T_STREAM_ALIASED, T_STREAM_MIN_BYTES, T_GROUP_ROWS, T_LONG_MIN_D, T_LONG_GROUP_ROWS, T_SERIAL_MAX_D };
static const int bwd_stream_aliased_values[] = {0, 1};
/* stream_aliased's default: 0 for 16-bit rows under AVX2 (VF_W 8), which lnbench tune found
 * faster storing dx through the cache where rows alias on both CPUs searched, by 20-45% at D
 * 4096 on Zen 3 and 6-22% at D 4096-16384 on Zen 5 (docs/tune.md); 1 elsewhere, where the two
 * disagree (Zen 3's f32 kernels gained, Zen 5's did not). */
#if defined(NORM_HALF_DTYPE) && VF_W == 8
#define BWD_STREAM_ALIASED_DEFAULT 0
#else
#define BWD_STREAM_ALIASED_DEFAULT 1
#endif
static const int bwd_group_values[] = {1, 2, 4};
static const int bwd_long_min_d_values[] = {1024, 2048, 4096, 8192, 16384, LN_TUNE_OFF};
static const int bwd_serial_max_d_values[] = {1024, 2048, 4096, 8192, 16384, LN_TUNE_OFF};
static const ln_tunable norm_bwd_tunables[] = {
    {"stream_aliased",
     "whether a streaming call streams dx also where rows alias (a multiple of 4 KiB apart: every load of the next "
     "rows at the page offset of a store just made) (1), or stores it through the cache there (0)",
     BWD_STREAM_ALIASED_DEFAULT, bwd_stream_aliased_values, 2},
    LN_TUNABLE_STREAM_MIN_BYTES,
    {"group_rows", "rows whose dx one loop writes (sharing the dgamma, dbeta loads) while it sums as many more", 2,
     bwd_group_values, GMAX == 4 ? 3 : 2},
    {"long_min_d", "D from which long_group_rows applies instead of group_rows", 8192, bwd_long_min_d_values, 6},
    {"long_group_rows", "group_rows for long rows (two groups of rows of x and dy stay in L2)", 2, bwd_group_values,
     GMAX == 4 ? 3 : 2},
    {"serial_max_d", "D up to which each group is summed, then written, instead of the pipeline", LN_TUNE_OFF,
     bwd_serial_max_d_values, 6},
};

static void norm_bwd_forward(const ln_args *a)
{
    const size_t n = a->D;
    if (n == 0) return;
    /* each sum 64-byte aligned and of whole blocks (32 elements: every ISA's block divides it), so
     * no vector access splits a line */
    const size_t cols = (n + 31) / 32 * 32;
    float *acc = aligned_alloc(64, 2 * cols * sizeof *acc); /* the dgamma, dbeta sums */
    if (!acc) abort();
    memset(acc, 0, 2 * cols * sizeof *acc);
    const ln_tunable *t = norm_bwd_tunables;
    int stream =
        ln_tune_streams(a->rows, n, sizeof(bw_t), ln_param(a, t, T_STREAM_MIN_BYTES)) && bw_can_stream(a->dx, n);
    const int g = ln_param(a, t, n >= (size_t)ln_param(a, t, T_LONG_MIN_D) ? T_LONG_GROUP_ROWS : T_GROUP_ROWS);
    bwd_call k = {a, a->x, a->dy, a->gamma, a->dx, acc, acc + cols, n, 0, 0};
    bwd_place(&k, (size_t)g, stream ? bw_stream_lead(a->dx, n) : 0);
    /* Rows that alias (k.lines): non-temporal stores, long in draining, hold up the loads that
     * wait on them; ordinary ones leave a write-combining buffer at once. Zen 3 from memory, f32
     * LayerNorm: 1.3-1.7x at D 1024, 4096, 8192 through the cache, 0.7-0.9x at D 768 and 2000,
     * which do not alias; Zen 5 streamed faster at D 1024 (docs/simd.md): a tunable. */
    if (stream && k.lines && !ln_param(a, t, T_STREAM_ALIASED)) {
        stream = 0;
        bwd_place(&k, (size_t)g, 0);
    }
    const int serial_max_d = ln_param(a, t, T_SERIAL_MAX_D);
    if (a->rows && serial_max_d != LN_TUNE_OFF && n <= (size_t)serial_max_d) bwd_serial(&k, (size_t)g, stream);
    else if (a->rows) bwd_pipelined(&k, (size_t)g, stream);
    if (stream) vec_stream_fence(); /* order the non-temporal stores before the caller reads dx */
    bw_sums_out(a->dgamma, acc, n);
    bw_sums_out(a->dbeta, acc + cols, n);
    free(acc);
}

/* Each lane of the two sums adds at most n/W + 1 terms (a 16-bit block's two vectors go into one
 * accumulator), the lanes in double: f32-norm-ops-vec.h's bound with that count, us the storage
 * format's unit roundoff (fp32 arithmetic either way). */
static double norm_bwd_bound(size_t n, double kappa)
{
    return ln_bound_norm_bwd((double)n / VF_W + 2.0, kappa, 0x1p-24, ldexp(1.0, -ln_fmt(NORM_DTYPE)->p));
}

#define NORM_BWD_HOW_ALGO                                                                                  \
    "sum g, sum g xhat in W FMA lanes (summed in double), dx = rstd ((g - mean g) - xhat "                 \
    "mean(g xhat)), fp32 dgamma, dbeta sums; pipeline of row groups (dx of one group, sums of the next), " \
    "non-temporal stores past stream_min_bytes; rows beyond fp32's range in double; "
#ifndef NORM_HALF_DTYPE
#define NORM_BWD_HOW "fp32: " NORM_BWD_HOW_ALGO "dx error 2 (n/W + 10) kappa u"
#else
#define NORM_BWD_HOW \
    "16-bit storage widened to fp32, fp32 arithmetic: " NORM_BWD_HOW_ALGO "one rounding per output to 16 bits"
#endif
