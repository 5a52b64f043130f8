/* Welford's updating fp32 LayerNorm, vectorized: every lane of four vector accumulator sets
 * runs its own Welford recurrence (mean += d / k, M2 += d (x - mean)) over every 4W-th
 * element; all lanes of the main loop share the count k, so 1/k is one scalar per step. The
 * sets and then the lanes are merged with Chan's pairwise formula. Included by
 * f32-welford-avx2.c and f32-welford-avx512.c. */
#include "f32-passes.h"

#define ACC 4

typedef struct {
    vf count, mean, m2;
} welford;

/* One more element per active lane (active: 1 or 0 per lane, x already zero where inactive). */
LN_INLINE welford welford_add(welford w, vf x, vf active)
{
    vf one = vf_set1(1.0f);
    w.count = vf_add(w.count, active);
    vf d = vf_mul(vf_sub(x, w.mean), active);
    w.mean = vf_fma(d, vf_div(active, vf_max(w.count, one)), w.mean);
    w.m2 = vf_fma(d, vf_sub(x, w.mean), w.m2);
    return w;
}

/* Chan, Golub & LeVeque: the statistics of the union of two disjoint sets, lane by lane. */
LN_INLINE welford welford_merge(welford a, welford b)
{
    welford w;
    w.count = vf_add(a.count, b.count);
    vf d = vf_sub(b.mean, a.mean);
    vf wb = vf_div(b.count, vf_max(w.count, vf_set1(1.0f))); /* 0 when both sets are empty */
    w.mean = vf_fma(d, wb, a.mean);
    w.m2 = vf_fma(vf_mul(d, d), vf_mul(a.count, wb), vf_add(a.m2, b.m2));
    return w;
}

static void row_stats(const float *x, size_t n, float *mean, double *m2)
{
    vf zero = vf_set1(0.0f), one = vf_set1(1.0f);
    welford s[ACC];
    for (int j = 0; j < ACC; j++) s[j] = (welford){zero, zero, zero};
    size_t i = 0;
    float k = 0.0f;
    for (; i + ACC * VF_W <= n; i += ACC * VF_W) {
        k += 1.0f;
        const vf rk = vf_set1(1.0f / k);
        for (int j = 0; j < ACC; j++) {
            vf v = vf_load(x + i + j * VF_W);
            vf d = vf_sub(v, s[j].mean);
            s[j].mean = vf_fma(d, rk, s[j].mean);
            s[j].m2 = vf_fma(d, vf_sub(v, s[j].mean), s[j].m2);
        }
    }
    for (int j = 0; j < ACC; j++) s[j].count = vf_set1(k);
    for (int j = 0; i + VF_W <= n; i += VF_W, j++) s[j] = welford_add(s[j], vf_load(x + i), one);
    if (i < n) s[ACC - 1] = welford_add(s[ACC - 1], vf_load_part(x + i, n - i), vf_keep(one, n - i));
    welford w = welford_merge(welford_merge(s[0], s[1]), welford_merge(s[2], s[3]));
    for (int step = VF_W / 2; step >= 1; step /= 2) {
        welford hi = {vf_rotate(w.count, step), vf_rotate(w.mean, step), vf_rotate(w.m2, step)};
        w = welford_merge(w, hi);
    }
    *mean = vf_first(w.mean);
    *m2 = vf_first(w.m2);
}

static void f32_welford_forward(const ln_args *a)
{
    const size_t n = a->D;
    for (size_t r = 0; r < a->rows && n > 0; r++) {
        const float *x = (const float *)a->x + r * n;
        float *y = (float *)a->y + r * n;
        float mean;
        double m2, mean_out, rstd_out;
        row_stats(x, n, &mean, &m2);
        if (ln_f32_stats_usable(mean, m2 / (double)n, a->eps)) {
            const float rstd = (float)(1.0 / sqrt(m2 / (double)n + a->eps));
            f32_normalize(x, y, a->gamma, a->beta, n, mean, rstd, 0);
            mean_out = mean;
            rstd_out = rstd;
        } else {
            ln_f32_row_f64(x, y, a->gamma, a->beta, n, a->eps, &mean_out, &rstd_out);
        }
        if (a->mean) a->mean[r] = mean_out;
        if (a->rstd) a->rstd[r] = rstd_out;
    }
}

/* bounds.h's cascade: each lane is a Welford chunk of at most m = ceil(n / 4W) elements (1/k
 * rounded, then one fma: the three roundings it counts per step), and the 4 sets and W lanes
 * merge in a balanced tree of height log2(4W) whose parts' counts differ by at most one element
 * per lane: nb <= 2 na (rows shorter than 4W: lanes of 0 or 1 element, nb <= 4W na). */
static double f32_welford_bound(size_t n, double kappa)
{
    const double u = 0x1p-24, lanes = ACC * VF_W;
    double m = ceil((double)n / lanes);
    return ln_bound_cascade(m, log2(lanes), (double)n < lanes ? lanes : 2, kappa, u, u);
}

#define F32_WELFORD_HOW                                                                            \
    "fp32 Welford per lane (4 vector sets, shared 1/k), sets and lanes merged by Chan's formula; " \
    "mean error ~(n/(8W) + log2(4W)) kappa u sigma, M2 rel. error ~(n/(2W sqrt 3) + 2 log2(4W)) "  \
    "kappa u; overflow or underflow rows redone in double"
