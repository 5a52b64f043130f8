/* Near-correctly-rounded fp32 LayerNorm for SVE, vector-length agnostic: kernels/simd/
 * f32-accurate.h's contract on SVE f64 vectors. Per row a shift K (0 when the first min(n, W)
 * elements look centred, else their mean, in double), S1 = sum (x - K) and S2 = sum (x - K)^2 in
 * double (two accumulator pairs of svcntd() lanes, floats loaded into 64-bit containers and
 * widened exactly), mean = K + S1/n kept as that pair, var = S2/n - (S1/n)^2; a row whose shift is
 * more than about one sigma off ((S1/n)^2 > var) is summed once more about K + S1/n. Each output
 * is fma(fma(x - K, rstd, -(S1/n) rstd), gamma, beta) in double, rounded once to float. No row
 * pipeline (x is read twice) and no streaming stores (the outputs leave 64-bit containers with a
 * truncating store, which has no non-temporal form). */
#include "sve.h"

/* The shift: 0 if the first m = min(n, W) elements look centred (their mean mu has
 * mu^2 <= their variance about it), else mu, in double: |mean - K| <= sqrt(2 n/W) sigma. */
static double acc_shift(const float *x, size_t n)
{
    const size_t m = n < svcntw() ? n : svcntw();
    double mu = 0, var = 0;
    for (size_t i = 0; i < m; i++) mu += x[i];
    mu /= (double)m;
    for (size_t i = 0; i < m; i++) var = fma(x[i] - mu, x[i] - mu, var);
    var /= (double)m;
    return mu * mu <= var ? 0.0 : mu;
}

/* svcntd() floats at p under pg, widened to double (inactive lanes 0). */
SVE_INLINE svfloat64_t load_wide(svbool_t pg, const float *p)
{
    return svcvt_f64_f32_x(pg, svreinterpret_f32_u64(svld1uw_u64(pg, (const uint32_t *)p)));
}

/* sum (x - K) and sum (x - K)^2 over a row of n in double: vectors alternate between two
 * accumulator pairs (the tail's two at most, predicated, one in each). */
static void dev_row(const float *x, size_t n, double K, double *s1, double *s2)
{
    const uint64_t w = svcntd();
    const svbool_t all = svptrue_b64();
    const svfloat64_t k = svdup_n_f64(K);
    svfloat64_t s0 = svdup_n_f64(0), sh = s0, q0 = s0, qh = s0;
#define STEP(s, q, pg, j)                                            \
    do {                                                             \
        svfloat64_t d_ = svsub_f64_z(pg, load_wide(pg, x + (j)), k); \
        s = svadd_f64_m(pg, s, d_);                                  \
        q = svmla_f64_m(pg, q, d_, d_);                              \
    } while (0)
    size_t i = 0;
    for (; i + 2 * w <= n; i += 2 * w) {
        STEP(s0, q0, all, i);
        STEP(sh, qh, all, i + w);
    }
    if (i < n) STEP(s0, q0, svwhilelt_b64_u64(i, n), i);
    if (i + w < n) STEP(sh, qh, svwhilelt_b64_u64(i + w, n), i + w);
#undef STEP
    *s1 = svaddv_f64(all, svadd_f64_x(all, s0, sh));
    *s2 = svaddv_f64(all, svadd_f64_x(all, q0, qh));
}

/* d = S1/n and rstd from the shifted sums; 0 if the shift is more than about one sigma off
 * (d^2 > var; NaN sums included), unless `any` accepts every shift. */
static int dev_stats(double s1, double s2, size_t n, double eps, int any, double *d, double *rstd)
{
    double m = s1 / (double)n, var = s2 / (double)n - m * m;
    if (!any && !(m * m <= var)) return 0;
    *d = m;
    *rstd = 1.0 / sqrt((var > 0.0 ? var : 0.0) + eps);
    return 1;
}

/* y = fma(fma(x - K, rstd, c), gamma, beta) in double, rounded once to float. */
static void normalize(const float *x, float *y, const float *g, const float *b, size_t n, double K, double rstd,
                      double c)
{
    const svfloat64_t k = svdup_n_f64(K), r = svdup_n_f64(rstd), cc = svdup_n_f64(c), z = svdup_n_f64(0);
    for (size_t i = 0; i < n; i += svcntd()) {
        const svbool_t pg = svwhilelt_b64_u64(i, n);
        svfloat64_t t = svmla_f64_x(pg, cc, svsub_f64_x(pg, load_wide(pg, x + i), k), r);
        if (g) t = svmla_f64_x(pg, b ? load_wide(pg, b + i) : z, t, load_wide(pg, g + i));
        else if (b) t = svadd_f64_x(pg, t, load_wide(pg, b + i));
        svst1w_u64(pg, (uint32_t *)(y + i), svreinterpret_u64_f32(svcvt_f32_f64_x(pg, t)));
    }
}

static void forward(const ln_args *a)
{
    const size_t n = a->D;
    for (size_t r = 0; r < a->rows && n > 0; r++) {
        const float *x = (const float *)a->x + r * n;
        double K = acc_shift(x, n), s1, s2, d, rstd;
        dev_row(x, n, K, &s1, &s2);
        if (!dev_stats(s1, s2, n, a->eps, 0, &d, &rstd)) {
            K += s1 / (double)n;
            dev_row(x, n, K, &s1, &s2);
            dev_stats(s1, s2, n, a->eps, 1, &d, &rstd);
        }
        normalize(x, (float *)a->y + r * n, a->gamma, a->beta, n, K, rstd, -d * rstd);
        if (a->mean) a->mean[r] = K + d;
        if (a->rstd) a->rstd[r] = rstd;
    }
}

/* bounds.h's ln_bound_f32_accurate with the shift's W = 4 (the loosest) and the deepest lane
 * over the SVE widths of L = svcntd() doubles, 2 to 32: ceil(n / 2L) + 1 terms in sequence, the
 * two accumulators' addition and FADDV's ceil(log2 L) tree levels. */
static double bound(size_t n, double kappa)
{
    double depth = 0;
    for (double l = 2; l <= 32; l += 2) depth = fmax(depth, ceil((double)n / (2 * l)) + 2 + ceil(log2(l)));
    return ln_bound_f32_accurate(n, kappa, sve_lanes(), depth);
}

#define HOW                                                                                                        \
    "fp32 storage, SVE f64 arithmetic, vector-length agnostic: S1 = sum(x-K), S2 = sum(x-K)^2 about K = 0 or the " \
    "mean of the first W x (rows with (S1/n)^2 > var summed again about K + S1/n); double epilogue rounded once; " \
    "normwise <= 1 u + 25 (n/4 + 8) 2^-29 u at any W"

LN_KERNEL_DEFINE(ln_f32_accurate_sve, "f32-accurate-sve", LN_F32, LN_SVE_ISA, LN_OP_LAYERNORM, forward, bound,
                 ln_domain_any_row, 1, LN_NO_TUNABLES, HOW "; bound(768, 1) = 1, bound(4096, 1e3) = 1");
