/* Near-correctly-rounded fp32 LayerNorm: fp32 storage, double arithmetic, one pass over memory.
 * Each row's statistics come from one pass about a shift K (0 when its first W elements look
 * centred, else their mean, in double: acc_shift): S1 = sum (x - K), S2 = sum (x - K)^2 in double
 * (the shifted-data algorithm of Chan, Golub & LeVeque: relative error ~ n u_d (1 + t^2), t =
 * |mean - K| / sigma, with u_d = 2^-53), so mean = K + S1/n is kept as that pair (its float
 * rounding is never taken) and var = S2/n - (S1/n)^2. A row whose shift is more than about one
 * sigma off ((S1/n)^2 > var) is summed once more about K + S1/n, which is then within ~n u_d sigma
 * of the mean. Each output is fma(fma(x - K, rstd, -(S1/n) rstd), gamma, beta) in double, rounded
 * once to float: its error before that rounding is ~1e-15 of max|y|, so nearly every output is the
 * correctly rounded one, at any offset, and exactly beta on constant rows.
 * Rows go through a two-row pipeline (one loop normalizes row r from cache and sums row r+1
 * from memory; streaming, it prefetches row r+2 into L2 and writes y with non-temporal
 * stores), so x is read from memory once. Floats are widened VD_W at a time by conversions
 * that take their operand from memory and rounded back VD_W at a time (packed W at a time
 * for the non-temporal stores, whole lines with AVX-512);
 * gamma and beta are widened once per call for short rows (beta 1 KiB off gamma modulo 4 KiB:
 * beta_at), converted VD_W at a time for long ones, which with AVX-512 and in cache go two
 * rows at a time (normalize r and r+1, sum r+2 and r+3) so that each conversion of gamma and
 * beta serves two rows. The conversions and the
 * double arithmetic (10 uops per W inputs for the sums, 14 for the outputs, 8 more for gamma
 * and beta of long rows, 4 in pairs; 2 fewer each in the sums and outputs with K = 0) are this
 * kernel's cost. A float-float epilogue (y from float pairs, 16 lanes,
 * no conversion) needs two exact products and two two-sums per output: 21-23 fp32 operations
 * per W against 14 uops here, measured no faster (docs/simd.md). Nor did keeping x - K in
 * double between the sums and the outputs (two rows of doubles in L1: no conversion in the
 * epilogue, but two more stores per W): -5 to +1% in cache at D 768-1024, slower from memory.
 * Included by f32-accurate-avx2.c and f32-accurate-avx512.c. */
#include <stdio.h>
#include <stdlib.h>

#include "f32-passes.h"

/* The shift: 0 if the row's first m = min(n, W) elements look centred (their mean mu_m has
 * mu_m^2 <= v_m, their variance about it), else their mean, in double. A zero shift saves the
 * subtraction x - K in the sums and the outputs (the loops have a variant without it: the same
 * bits as subtracting 0). Either way |mean - K| <= sqrt(2 n/W) sigma: m (mu_m - mean)^2 + m v_m
 * <= n sigma^2, and |mean| <= |mu_m - mean| + sqrt(v_m) <= sqrt(2 ((mu_m - mean)^2 + v_m)). */
LN_INLINE double acc_shift_of(vf v, size_t m) /* v: those m elements, the lanes past them 0 */
{
    const size_t m0 = m < VD_W ? m : VD_W;
    const double mu = vf_sum(v) / (double)m;
    const vd k = vd_set1(mu), lo = vd_keep(vd_sub(vd_from_lo(v), k), m0),
             hi = vd_keep(vd_sub(vd_from_hi(v), k), m - m0);
    const double var = vd_sum(vd_fma(lo, lo, vd_mul(hi, hi))) / (double)m;
    return mu * mu <= var ? 0.0 : mu;
}

LN_INLINE double acc_shift(const float *x, size_t n)
{
    const size_t m = n < VF_W ? n : VF_W;
    return acc_shift_of(vf_load_part(x, m), m);
}

/* Whether the loops may drop the subtraction of this shift: it is +0 (x - 0 = x, -0 included). */
static inline int acc_zero(double K) { return K == 0.0 && !signbit(K); }

/* d = x - K (x itself when zk: K is +0) into the sums s += d and q += d^2. */
LN_INLINE void dev_add(vd xd, vd k, int zk, vd *s, vd *q)
{
    vd d = zk ? xd : vd_sub(xd, k);
    *s = vd_add(*s, d);
    *q = vd_fma(d, d, *q);
}

/* W elements at x into the sums: the low half into s0, q0, the high half into sh, qh. */
LN_INLINE void dev_add_w(const float *x, vd k, int zk, vd *s0, vd *q0, vd *sh, vd *qh)
{
    dev_add(vd_load_f32(x), k, zk, s0, q0);
    dev_add(vd_load_f32(x + VD_W), k, zk, sh, qh);
}

/* sum (x - K) and sum (x - K)^2 over x[j..n) in double, added to the partial sums the caller
 * started on x[0..j) (j a multiple of W): the low half of each W-block goes to s[0], q[0] and
 * the high half to s[1], q[1], wherever the loop was entered, so a row summed inside the
 * pipeline has the bits of the same row summed alone. */
LN_INLINE void dev_from(const float *x, size_t n, size_t j, double K, vd s[2], vd q[2], double *s1, double *s2)
{
    const vd k = vd_set1(K);
    vd s0 = s[0], sh = s[1], q0 = q[0], qh = q[1]; /* named: kept in registers */
    for (; j + VF_W <= n; j += VF_W) dev_add_w(x + j, k, 0, &s0, &q0, &sh, &qh);
    if (j < n) {
        /* lanes past the end load 0, so their d is -K: zeroed before accumulating */
        size_t m = n - j, m0 = m < VD_W ? m : VD_W, m1 = m - m0;
        vd d0 = vd_keep(vd_sub(vd_load_f32_part(x + j, m0), k), m0);
        s0 = vd_add(s0, d0), q0 = vd_fma(d0, d0, q0);
        if (m1) {
            vd d1 = vd_keep(vd_sub(vd_load_f32_part(x + j + VD_W, m1), k), m1);
            sh = vd_add(sh, d1), qh = vd_fma(d1, d1, qh);
        }
    }
    *s1 = vd_sum(vd_add(s0, sh));
    *s2 = vd_sum(vd_add(q0, qh));
}

static void dev_row(const float *x, size_t n, double K, double *s1, double *s2)
{
    vd s[2] = {vd_set1(0.0), vd_set1(0.0)}, q[2] = {s[0], s[0]};
    dev_from(x, n, 0, K, s, q, s1, s2);
}

/* d = S1/n (the mean is K + d) and rstd from the shifted sums; 0 if the shift is more than
 * about one sigma off (d^2 > var; NaN sums included), unless `any` accepts every shift. */
static int dev_stats(double s1, double s2, size_t n, double eps, int any, double *d, double *rstd)
{
    double m = s1 / (double)n, var = s2 / (double)n - m * m;
    if (!any && !(m * m <= var)) return 0;
    *d = m;
    *rstd = 1.0 / sqrt((var > 0.0 ? var : 0.0) + eps);
    return 1;
}

/* VD_W elements (or the first m) of gamma or beta at i, in double: from the copy widened once
 * per call (wide: p points to doubles) or converted from the caller's floats (p points to
 * floats). The conversion costs two uops per VD_W, the copy twice the bytes: see the tunable gb_float_min_d. */
LN_INLINE vd gb_load(const void *p, size_t i, size_t m, int wide)
{
    if (wide) return m == VD_W ? vd_load((const double *)p + i) : vd_load_part((const double *)p + i, m);
    return m == VD_W ? vd_load_f32((const float *)p + i) : vd_load_f32_part((const float *)p + i, m);
}

/* (x - K) rstd + c, times gamma plus beta (gv, bv: unused when has_g, has_b say there are none;
 * zk: K is +0, not subtracted). */
LN_INLINE vd out_vec(vd xd, vd gv, vd bv, vd k, vd rstd, vd c, int has_g, int has_b, int zk)
{
    vd t = vd_fma(zk ? xd : vd_sub(xd, k), rstd, c);
    if (has_g) return vd_fma(t, gv, has_b ? bv : vd_set1(0.0));
    return has_b ? vd_add(t, bv) : t;
}

/* VD_W outputs (or the first m) at element i of the row, g and b as gb_load reads them (NULL
 * when has_g, has_b say so). */
LN_INLINE vd out_half(vd xd, const void *g, const void *b, size_t i, size_t m, vd k, vd rstd, vd c, int has_g,
                      int has_b, int wide, int zk)
{
    vd gv = has_g ? gb_load(g, i, m, wide) : vd_set1(0.0), bv = has_b ? gb_load(b, i, m, wide) : vd_set1(0.0);
    return out_vec(xd, gv, bv, k, rstd, c, has_g, has_b, zk);
}

/* Outputs i..i+m of the row (m <= W), ordinary masked stores: heads and tails. */
LN_INLINE void out_part(const float *x, float *y, const void *g, const void *b, size_t i, size_t m, vd k, vd rstd, vd c,
                        int has_g, int has_b, int wide)
{
    size_t m0 = m < VD_W ? m : VD_W, m1 = m - m0;
    vd_store_f32_part(y + i, out_half(vd_load_f32_part(x + i, m0), g, b, i, m0, k, rstd, c, has_g, has_b, wide, 0), m0);
    if (m1)
        vd_store_f32_part(
            y + i + VD_W,
            out_half(vd_load_f32_part(x + i + VD_W, m1), g, b, i + VD_W, m1, k, rstd, c, has_g, has_b, wide, 0), m1);
}

/* Normalizes x into y (shift K, d = S1/n, rstd) and, if has_next, takes the shifted sums of
 * the next row xn about Kn; prefetches the row pf (or none: NULL) into L2 meanwhile.
 * stream: non-temporal stores from the first vector-aligned y on, a whole W floats each (with
 * AVX-512 a whole line: two 32-byte halves measured 5% slower from memory, docs/simd.md).
 * zk: K and Kn are +0 (the loop subtracts neither).
 * Each step loads the next row's W floats before it stores y's: when 4 n is a multiple of
 * 4 KiB, y + i and xn + i (x and y allocated alike) share their low 12 bits, and a load after a
 * store to such an address waits for it (4K aliasing). Loads first measured +3-6% from memory
 * at D 1024 and 4096, -2 to +4% in cache (docs/simd.md, eighth round). */
LN_INLINE void pipeline_body(const float *x, float *y, const void *g, const void *b, double K, double d, double rstd_d,
                             const float *xn, double Kn, const float *pf, size_t n, double *s1, double *s2, int has_g,
                             int has_b, int has_next, int stream, int wide, int zk)
{
    const vd k = vd_set1(K), rstd = vd_set1(rstd_d), c = vd_set1(-d * rstd_d), kn = vd_set1(Kn);
    vd s[2] = {vd_set1(0.0), vd_set1(0.0)}, q[2] = {s[0], s[0]};
    vd s0 = s[0], sh = s[0], q0 = s[0], qh = s[0];
    size_t i = stream ? f32_stream_lead(y, n) : 0, j = 0; /* i walks x and y, j walks xn */
    const vec_lines l = vec_stream_lines(y, n, sizeof *y);
    if (i) out_part(x, y, g, b, 0, i, k, rstd, c, has_g, has_b, wide);
    for (; i + VF_W <= n; i += VF_W, j += VF_W) {
        if (pf) vec_prefetch_l2(pf + j); /* W floats: one line or half of one */
        if (has_next) dev_add_w(xn + j, kn, zk, &s0, &q0, &sh, &qh);
        vd lo = out_half(vd_load_f32(x + i), g, b, i, VD_W, k, rstd, c, has_g, has_b, wide, zk);
        vd hi = out_half(vd_load_f32(x + i + VD_W), g, b, i + VD_W, VD_W, k, rstd, c, has_g, has_b, wide, zk);
        if (stream) vf_put(y, i, vf_from_vd(lo, hi), l, 1);
        else vd_store_f32(y + i, lo), vd_store_f32(y + i + VD_W, hi);
    }
    if (i < n) out_part(x, y, g, b, i, n - i, k, rstd, c, has_g, has_b, wide);
    if (has_next) {
        s[0] = s0, s[1] = sh, q[0] = q0, q[1] = qh;
        dev_from(xn, n, j, Kn, s, q, s1, s2);
    }
}

static void pipeline(const float *x, float *y, const void *g, const void *b, double K, double d, double rstd,
                     const float *xn, double Kn, const float *pf, size_t n, double *s1, double *s2, int stream,
                     int wide)
{
    const int zk = acc_zero(K) && (!xn || acc_zero(Kn));
#define BODY(G, B, N, S, Z)                                                                \
    (wide ? pipeline_body(x, y, g, b, K, d, rstd, xn, Kn, pf, n, s1, s2, G, B, N, S, 1, Z) \
          : pipeline_body(x, y, g, b, K, d, rstd, xn, Kn, pf, n, s1, s2, G, B, N, S, 0, Z))
#define STREAM(G, B, N, S) (zk ? BODY(G, B, N, S, 1) : BODY(G, B, N, S, 0))
#define ROWS(G, B, N) (stream ? STREAM(G, B, N, 1) : STREAM(G, B, N, 0))
#define CASE(G, B) (xn ? ROWS(G, B, 1) : ROWS(G, B, 0))
    LN_SPECIALIZE_GB(g, b, CASE);
#undef CASE
#undef ROWS
#undef STREAM
#undef BODY
}

/* Two rows normalized while the next two are summed, for cache-resident calls: rows of D >=
 * gb_float_min_d (a tunable), whose gamma and beta are floats converted in registers, convert them once for
 * both rows (4 of the 16 conversion uops per W outputs of a row alone). Each row gets the
 * operations, in the order, of a row alone: the same bits. From memory the single-row pipeline
 * stays (pairs measured no faster there: the stream, not the uops, sets the pace). The loop
 * keeps 16 vectors live (8 partial sums, 8 row constants): AVX-512's 32 registers hold them;
 * with AVX2's 16 two sums spill to the stack and pairs measured slower than single rows
 * (docs/simd.md), so AVX2 keeps the single-row pipeline. */
#define ACC_PAIRS (VEC_REGS >= 32)

typedef struct {
    const float *x[2];
    float *y[2];
    double K[2], d[2], rstd[2]; /* the pair normalized: shift, mean - shift, rstd */
    const float *xn[2];         /* the pair summed (NULL: none) about Kn, into s1, s2 */
    double Kn[2], s1[2], s2[2];
} acc_pair;

/* Outputs i..i+VD_W of one row from gamma and beta already converted. */
LN_INLINE void out_store(const float *x, float *y, size_t i, vd gv, vd bv, vd k, vd rstd, vd c, int has_g, int has_b,
                         int zk)
{
    vd_store_f32(y + i, out_vec(vd_load_f32(x + i), gv, bv, k, rstd, c, has_g, has_b, zk));
}

/* zk: the four shifts are +0 (the loop subtracts none). */
LN_INLINE void pair_body(acc_pair *p, const float *g, const float *b, size_t n, int has_g, int has_b, int has_next,
                         int zk)
{
    const float *x0 = p->x[0], *x1 = p->x[1], *xn0 = p->xn[0], *xn1 = p->xn[1];
    float *y0 = p->y[0], *y1 = p->y[1];
    const vd k0 = vd_set1(p->K[0]), rstd0 = vd_set1(p->rstd[0]), c0 = vd_set1(-p->d[0] * p->rstd[0]);
    const vd k1 = vd_set1(p->K[1]), rstd1 = vd_set1(p->rstd[1]), c1 = vd_set1(-p->d[1] * p->rstd[1]);
    const vd kn0 = vd_set1(p->Kn[0]), kn1 = vd_set1(p->Kn[1]), z = vd_set1(0.0);
    vd s0 = z, sh = z, q0 = z, qh = z, t0 = z, th = z, u0 = z, uh = z; /* sums of xn0 (s, q) and xn1 (t, u) */
    size_t i = 0;
    for (; i + VF_W <= n; i += VF_W) {
        vd gv = has_g ? vd_load_f32(g + i) : z, bv = has_b ? vd_load_f32(b + i) : z;
        out_store(x0, y0, i, gv, bv, k0, rstd0, c0, has_g, has_b, zk);
        out_store(x1, y1, i, gv, bv, k1, rstd1, c1, has_g, has_b, zk);
        gv = has_g ? vd_load_f32(g + i + VD_W) : z, bv = has_b ? vd_load_f32(b + i + VD_W) : z;
        out_store(x0, y0, i + VD_W, gv, bv, k0, rstd0, c0, has_g, has_b, zk);
        out_store(x1, y1, i + VD_W, gv, bv, k1, rstd1, c1, has_g, has_b, zk);
        if (has_next) {
            dev_add_w(xn0 + i, kn0, zk, &s0, &q0, &sh, &qh);
            dev_add_w(xn1 + i, kn1, zk, &t0, &u0, &th, &uh);
        }
    }
    if (i < n) {
        out_part(x0, y0, g, b, i, n - i, k0, rstd0, c0, has_g, has_b, 0);
        out_part(x1, y1, g, b, i, n - i, k1, rstd1, c1, has_g, has_b, 0);
    }
    if (has_next) {
        vd s[2] = {s0, sh}, q[2] = {q0, qh}, t[2] = {t0, th}, u[2] = {u0, uh};
        dev_from(xn0, n, i, p->Kn[0], s, q, &p->s1[0], &p->s2[0]);
        dev_from(xn1, n, i, p->Kn[1], t, u, &p->s1[1], &p->s2[1]);
    }
}

static void pair(acc_pair *p, const float *g, const float *b, size_t n)
{
    const int zk = acc_zero(p->K[0]) && acc_zero(p->K[1]) && (!p->xn[0] || (acc_zero(p->Kn[0]) && acc_zero(p->Kn[1])));
#define ROWS(G, B, N) (zk ? pair_body(p, g, b, n, G, B, N, 1) : pair_body(p, g, b, n, G, B, N, 0))
#define CASE(G, B) (p->xn[0] ? ROWS(G, B, 1) : ROWS(G, B, 0))
    LN_SPECIALIZE_GB(g, b, CASE);
#undef CASE
#undef ROWS
}

/* Rows this long (the tunable gb_float_min_d) read gamma and beta as floats, converted in registers: their double copies
 * (16 n bytes, 64 KiB at D 4096) no longer stay in L1 beside the rows, and reading them from L2
 * costs more than the conversions (Sapphire Rapids, docs/simd.md: +10-18% in cache and +6-7%
 * from memory at D 4096-16384; -10% in cache at D 768-1024, where the copies stay in L1, and no
 * gain at 2048).
 * Outputs are the same bits either way (float to double is exact). */

/* Where the widened beta starts after gamma, in doubles: n rounded up to 4 KiB, plus 1 KiB.
 * Right after gamma (8 n bytes on), rows of D a multiple of 512 put gamma[i] and beta[i] at the
 * same address modulo 4 KiB, and from memory such rows ran 5-10% (D 1024) to 17-23% (D 2048,
 * 3072) slower (docs/simd.md, eighth round). */
static size_t beta_at(size_t n) { return (n + 511) / 512 * 512 + 128; }

/* gamma and beta widened to double once per call (NULL stays NULL), so no row converts them,
 * into a per-thread buffer that only grows: no allocation (and no page faults) per call. The
 * buffer starts on a page, so that where gamma and beta fall modulo 4 KiB is beta_at's choice,
 * not the allocator's (in cache the same code ran up to 10% apart with two heap addresses). */
static void widen(const float *g, const float *b, size_t n, double **gd, double **bd)
{
    static _Thread_local double *buf;
    static _Thread_local size_t cap;
    const size_t at = beta_at(n);
    if (at + n > cap) {
        free(buf);
        cap = (at + n + 511) / 512 * 512; /* whole pages, as aligned_alloc wants a multiple */
        buf = aligned_alloc(4096, cap * sizeof *buf);
        if (!buf) {
            fprintf(stderr, "f32-accurate: out of memory\n");
            exit(1);
        }
    }
    *gd = g ? buf : NULL;
    *bd = b ? buf + at : NULL;
    for (size_t i = 0; g && i < n; i++) buf[i] = g[i];
    for (size_t i = 0; b && i < n; i++) buf[at + i] = b[i];
}

/* d and rstd of the row x from its sums about *K; a row whose shift was off is summed again
 * about K + S1/n (and *K moves there). */
static void row_stats(const float *x, size_t n, double eps, double *K, double s1, double s2, double *d, double *rstd)
{
    if (dev_stats(s1, s2, n, eps, 0, d, rstd)) return;
    *K += s1 / (double)n;
    dev_row(x, n, *K, &s1, &s2);
    dev_stats(s1, s2, n, eps, 1, d, rstd);
}

static void put_stats(const ln_args *a, size_t r, double K, double d, double rstd)
{
    if (a->mean) a->mean[r] = K + d;
    if (a->rstd) a->rstd[r] = rstd;
}

/* Rows from 0 two at a time (acc_pair); returns the first row left (its sums not taken). */
static size_t forward_pairs(const ln_args *a, const float *g, const float *b)
{
    const size_t n = a->D, rows = a->rows;
    const float *x = a->x;
    float *y = a->y;
    acc_pair p;
    for (int q = 0; q < 2; q++) p.Kn[q] = acc_shift(x + q * n, n), dev_row(x + q * n, n, p.Kn[q], &p.s1[q], &p.s2[q]);
    size_t r = 0;
    for (; r + 1 < rows; r += 2) {
        const int next = r + 3 < rows;
        for (int q = 0; q < 2; q++) {
            p.x[q] = x + (r + q) * n, p.y[q] = y + (r + q) * n, p.K[q] = p.Kn[q];
            row_stats(p.x[q], n, a->eps, &p.K[q], p.s1[q], p.s2[q], &p.d[q], &p.rstd[q]);
            p.xn[q] = next ? p.x[q] + 2 * n : NULL;
            p.Kn[q] = next ? acc_shift(p.xn[q], n) : 0.0;
        }
        pair(&p, g, b, n);
        for (int q = 0; q < 2; q++) put_stats(a, r + q, p.K[q], p.d[q], p.rstd[q]);
        if (!next) return r + 2;
    }
    return r;
}

/* Rows r.. one at a time through the two-row pipeline. */
static void forward_rows(const ln_args *a, const void *g, const void *b, size_t r, int stream, int wide)
{
    const size_t n = a->D, rows = a->rows;
    double K = acc_shift((const float *)a->x + r * n, n), s1, s2;
    dev_row((const float *)a->x + r * n, n, K, &s1, &s2);
    for (; r < rows; r++) {
        const float *x = (const float *)a->x + r * n, *xn = r + 1 < rows ? x + n : NULL;
        float *y = (float *)a->y + r * n;
        double d, rstd;
        row_stats(x, n, a->eps, &K, s1, s2, &d, &rstd);
        const double Kn = xn ? acc_shift(xn, n) : 0.0;
        pipeline(x, y, g, b, K, d, rstd, xn, Kn, stream && r + 2 < rows ? xn + n : NULL, n, &s1, &s2, stream, wide);
        put_stats(a, r, K, d, rstd);
        K = Kn;
    }
}

/* The tunables (kernel.h), in the order of f32_accurate_tunables. */
enum { T_STREAM_MIN_BYTES, T_GB_FLOAT_MIN_D };
static const int gb_float_min_d_values[] = {0, 1024, 2048, 4096, 8192, 16384, LN_TUNE_OFF};
static const ln_tunable f32_accurate_tunables[] = {
    LN_TUNABLE_STREAM_MIN_BYTES,
    {"gb_float_min_d", "D from which gamma and beta are read as floats, not widened once to double per call", 4096,
     gb_float_min_d_values, 7},
};

static void f32_accurate_forward(const ln_args *a)
{
    const size_t n = a->D, rows = a->rows;
    if (n == 0 || rows == 0) return;
    const ln_tunable *t = f32_accurate_tunables;
    const int stream = ln_tune_streams(rows, n, sizeof(float), ln_param(a, t, T_STREAM_MIN_BYTES));
    const int wide = n < (size_t)ln_param(a, t, T_GB_FLOAT_MIN_D);
    const void *g = a->gamma, *b = a->beta;
    if (wide) {
        double *gd, *bd;
        widen(a->gamma, a->beta, n, &gd, &bd);
        g = gd, b = bd;
    }
    size_t r = ACC_PAIRS && !wide && !stream && rows >= 2 ? forward_pairs(a, g, b) : 0;
    if (r < rows) forward_rows(a, g, b, r, stream, wide);
    if (stream) vec_stream_fence(); /* order the non-temporal stores before the caller reads y */
}

/* bounds.h's ln_bound_f32_accurate, with W floats per vector and lanes of ceil(n/W) + 1 terms
 * (n/W + 1 in sequence, then the halves and log2(VD_W) tree levels). */
static double f32_accurate_bound(size_t n, double kappa)
{
    return ln_bound_f32_accurate(n, kappa, VF_W, ceil((double)n / VF_W) + 2.0 + log2((double)VD_W));
}

#define F32_ACCURATE_HOW                                                                                         \
    "fp32 storage, double arithmetic in one pass: S1 = sum(x-K), S2 = sum(x-K)^2 about K = 0 or "                \
    "the mean of the first W x (rows with (S1/n)^2 > var summed again about K + S1/n); double epilogue rounded " \
    "once; normwise <= 1 u + 25 (n/W + 8) 2^-29 u"
