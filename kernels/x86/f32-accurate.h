/* Near-correctly-rounded fp32 LayerNorm: fp32 storage, everything else in double. The sum of
 * the row in double gives mu_hi = sum/n; a second pass accumulates d = x - mu_hi and d^2 in
 * double, so mu_lo = sum(d)/n corrects the mean and var = sum(d^2)/n - mu_lo^2 (the corrected
 * two-pass algorithm of Chan, Golub & LeVeque: relative error n u + n^3 kappa^2 u^3, here with
 * u = 2^-53). Each output is ((x - mu_hi) - mu_lo) * (rstd * gamma) + beta in double, rounded
 * once to float: its error before that rounding is ~1e-15 of max|y|, so nearly every output is
 * the correctly rounded one, at any offset (the fp32 mean's error floor is gone) and exactly
 * beta on constant rows. The next row's double sum rides along this row's normalization loop,
 * the variance pass prefetches the next row, and gamma and beta are widened to double once per
 * call (the conversions, not memory, are this kernel's cost). Ordinary stores: non-temporal
 * ones measured slower here.
 * Included by f32-accurate-avx2.c and f32-accurate-avx512.c. */
#include <stdio.h>
#include <stdlib.h>

#include "f32-rows.h"

/* Sum of x[j..n) in double added to the partial sums acc (started by the caller on x[0..j),
 * j a multiple of 2 W), returned: the same grouping wherever the loop was entered, so the fused
 * next-row sums equal the first row's. */
LN_INLINE void add_vec(vd *a, vd *b, vf v)
{
    *a = vd_add(*a, vd_from_lo(v));
    *b = vd_add(*b, vd_from_hi(v));
}

LN_INLINE double sum_from(const float *x, size_t n, size_t j, vd acc[4])
{
    vd a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3]; /* named: kept in registers */
    for (; j + 2 * VF_W <= n; j += 2 * VF_W) {
        add_vec(&a0, &a1, vf_load(x + j));
        add_vec(&a2, &a3, vf_load(x + j + VF_W));
    }
    if (j + VF_W <= n) add_vec(&a0, &a1, vf_load(x + j)), j += VF_W;
    if (j < n) add_vec(&a2, &a3, vf_load_part(x + j, n - j));
    return vd_sum(vd_add(vd_add(a0, a1), vd_add(a2, a3)));
}

static double row_sum(const float *x, size_t n)
{
    vd acc[4] = {vd_set1(0.0), vd_set1(0.0), vd_set1(0.0), vd_set1(0.0)};
    return sum_from(x, n, 0, acc);
}

/* sum d and sum d^2, d = x - mu in double (lanes past the row's end are zeroed); prefetches
 * the row pf (NULL for none) meanwhile. */
LN_INLINE void dev_vec(vf v, vd mu, vd *s1a, vd *s1b, vd *s2a, vd *s2b)
{
    vd da = vd_sub(vd_from_lo(v), mu), db = vd_sub(vd_from_hi(v), mu);
    *s1a = vd_add(*s1a, da);
    *s1b = vd_add(*s1b, db);
    *s2a = vd_fma(da, da, *s2a);
    *s2b = vd_fma(db, db, *s2b);
}

static void row_dev(const float *x, size_t n, double mu_hi, const float *pf, double *s1, double *s2)
{
    const vd mu = vd_set1(mu_hi);
    vd a0 = vd_set1(0.0), a1 = a0, a2 = a0, a3 = a0, q0 = a0, q1 = a0, q2 = a0, q3 = a0;
    size_t i = 0;
    for (; i + 2 * VF_W <= n; i += 2 * VF_W) {
        if (pf)
            for (size_t k = 0; k < 2 * VF_W; k += 64 / sizeof(float)) _mm_prefetch((const char *)(pf + i + k), _MM_HINT_T1);
        dev_vec(vf_load(x + i), mu, &a0, &a1, &q0, &q1);
        dev_vec(vf_load(x + i + VF_W), mu, &a2, &a3, &q2, &q3);
    }
    if (i + VF_W <= n) dev_vec(vf_load(x + i), mu, &a0, &a1, &q0, &q1), i += VF_W;
    if (i < n) {
        /* lanes past the end hold 0 - mu: their d is zeroed before accumulating */
        size_t m = n - i;
        vf v = vf_load_part(x + i, m);
        vd da = vd_keep(vd_sub(vd_from_lo(v), mu), m), db = vd_keep(vd_sub(vd_from_hi(v), mu), m > VD_W ? m - VD_W : 0);
        a2 = vd_add(a2, da);
        a3 = vd_add(a3, db);
        q2 = vd_fma(da, da, q2);
        q3 = vd_fma(db, db, q3);
    }
    *s1 = vd_sum(vd_add(vd_add(a0, a1), vd_add(a2, a3)));
    *s2 = vd_sum(vd_add(vd_add(q0, q1), vd_add(q2, q3)));
}

/* ((x - mu_hi) - mu_lo) * (rstd * gamma) + beta for the W elements v, rounded once to float;
 * g and b are gamma and beta already widened to double (VF_W of each at g + i, b + i; the first
 * m of them when m < VF_W). g, b may be NULL when has_g, has_b say so: no offset is applied then. */
LN_INLINE vf out_vec(vf v, const double *g, const double *b, size_t i, size_t m, vd hi, vd lo, vd rstd,
                     int has_g, int has_b)
{
    if (has_g) g += i;
    if (has_b) b += i;
    size_t m1 = m < VD_W ? m : VD_W, m2 = m - m1;
    vd ta = vd_sub(vd_sub(vd_from_lo(v), hi), lo), tb = vd_sub(vd_sub(vd_from_hi(v), hi), lo);
    vd sa = rstd, sb = rstd, ba = vd_set1(0.0), bb = ba;
    if (has_g) {
        sa = vd_mul(rstd, m == VF_W ? vd_load(g) : vd_load_part(g, m1));
        sb = vd_mul(rstd, m == VF_W ? vd_load(g + VD_W) : vd_load_part(g + VD_W, m2));
    }
    if (has_b) {
        ba = m == VF_W ? vd_load(b) : vd_load_part(b, m1);
        bb = m == VF_W ? vd_load(b + VD_W) : vd_load_part(b + VD_W, m2);
    }
    return vf_from_vd(vd_fma(ta, sa, ba), vd_fma(tb, sb, bb));
}

/* Normalizes row x into y; if xn is not NULL returns the double sum of that row. */
LN_INLINE double normalize_body(const float *x, float *y, const double *g, const double *b, const float *xn,
                                size_t n, double mu_hi, double mu_lo, double rstd_d, int has_g, int has_b,
                                int has_next)
{
    const vd hi = vd_set1(mu_hi), lo = vd_set1(mu_lo), rstd = vd_set1(rstd_d);
    vd a0 = vd_set1(0.0), a1 = a0, a2 = a0, a3 = a0;
    size_t i = 0;
#define OUT(i) out_vec(vf_load(x + (i)), g, b, (i), VF_W, hi, lo, rstd, has_g, has_b)
    for (; i + 2 * VF_W <= n; i += 2 * VF_W) {
        vf_store(y + i, OUT(i));
        vf_store(y + i + VF_W, OUT(i + VF_W));
        if (has_next) {
            add_vec(&a0, &a1, vf_load(xn + i));
            add_vec(&a2, &a3, vf_load(xn + i + VF_W));
        }
    }
    size_t j = i; /* xn's sum continues from here with sum_from's grouping */
    if (i + VF_W <= n) vf_store(y + i, OUT(i)), i += VF_W;
#undef OUT
    if (i < n) vf_store_part(y + i, out_vec(vf_load_part(x + i, n - i), g, b, i, n - i, hi, lo, rstd, has_g, has_b), n - i);
    vd acc[4] = {a0, a1, a2, a3};
    return has_next ? sum_from(xn, n, j, acc) : 0.0;
}

static double normalize(const float *x, float *y, const double *g, const double *b, const float *xn, size_t n,
                        double mu_hi, double mu_lo, double rstd)
{
#define CASE(G, B) return xn ? normalize_body(x, y, g, b, xn, n, mu_hi, mu_lo, rstd, G, B, 1) \
                             : normalize_body(x, y, g, b, xn, n, mu_hi, mu_lo, rstd, G, B, 0)
    LN_SPECIALIZE_GB(g, b, CASE);
#undef CASE
}

/* gamma and beta widened to double once per call (NULL stays NULL), so no row converts them,
 * into a per-thread buffer that only grows: no allocation (and no page faults) per call. */
static void widen(const float *g, const float *b, size_t n, double **gd, double **bd)
{
    static _Thread_local double *buf;
    static _Thread_local size_t cap;
    if (2 * n > cap) {
        free(buf);
        cap = 2 * n;
        buf = malloc(cap * sizeof *buf);
        if (!buf) {
            fprintf(stderr, "f32-accurate: out of memory\n");
            exit(1);
        }
    }
    *gd = g ? buf : NULL;
    *bd = b ? buf + n : NULL;
    for (size_t i = 0; g && i < n; i++) buf[i] = g[i];
    for (size_t i = 0; b && i < n; i++) buf[n + i] = b[i];
}

static void forward(const ln_args *a)
{
    const size_t n = a->D;
    if (n == 0 || a->rows == 0) return;
    double *g, *b;
    widen(a->gamma, a->beta, n, &g, &b);
    double sum = row_sum((const float *)a->x, n);
    for (size_t r = 0; r < a->rows; r++) {
        const float *x = (const float *)a->x + r * n;
        const float *xn = r + 1 < a->rows ? x + n : NULL;
        float *y = (float *)a->y + r * n;
        double mu_hi = sum / (double)n, s1, s2;
        row_dev(x, n, mu_hi, xn, &s1, &s2);
        double mu_lo = s1 / (double)n;
        double var = s2 / (double)n - mu_lo * mu_lo;
        double rstd = 1.0 / sqrt((var > 0.0 ? var : 0.0) + a->eps);
        sum = normalize(x, y, g, b, xn, n, mu_hi, mu_lo, rstd);
        if (a->mean) a->mean[r] = mu_hi + mu_lo;
        if (a->rstd) a->rstd[r] = rstd;
    }
}

/* In units of the fp32 u: the final rounding (<= 1, as normwise error is relative to max|y|)
 * plus the double computation: sums of m = n/(2 VD_W) terms per lane, so the corrected mean is
 * off by ~(m + 3) u_d sigma and var by (m + 4) u_d relative, with u_d = 2^-29 u; the
 * subtraction of mu_hi adds u_d (|mean| + sigma) / sigma when mu_hi is itself off by
 * (m + 2) u_d (|mean| + sigma). */
static double bound(size_t n, double kappa)
{
    double m = ceil((double)n / (2.0 * VD_W)) + 1.0;
    return 1.0 + 0x1p-29 * (3.0 * m + 20.0) * (1.0 + 0x1p-53 * (m + 2.0) * (kappa + 1.0));
}

#define HOW                                                                                        \
    "fp32 storage, double statistics (corrected two-pass: mu_hi = sum/n, mu_lo = sum(x-mu_hi)/n) " \
    "and double epilogue rounded once; normwise <= 1 u + (3n/(2W)+20) 2^-29 u"
