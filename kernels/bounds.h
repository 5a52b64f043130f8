/* Building blocks of the kernels' claimed error bounds (see ln_kernel.bound in kernel.h).
 *
 * Notation: n = D, sigma = sqrt(var + eps), kappa = sqrt(1 + mean^2 / sigma^2), ua = unit
 * roundoff of the arithmetic the statistics are accumulated in, us = unit roundoff of the
 * storage format. Every bound is a first-order worst case (Higham, "Accuracy and Stability of
 * Numerical Algorithms", ch. 3-4; Chan, Golub & LeVeque 1983) with the constants rounded up,
 * returned in units of us. Writing xhat_i = (x_i - mean) / sigma, the error of y_i is at most
 *   |gamma_i| (|error of mean| / sigma + |xhat_i| r / 2 + epilogue roundings) + final rounding,
 * r the relative error of var + eps, and the normwise error divides that by max_i |y_exact_i|.
 *
 * Affine gain: gamma and beta turn an error in xhat into an error in y relative to max|y|.
 * For the harness's draws (gamma in [0.75, 1.25], |beta| <= 0.25) and a row with var >= eps
 * (the domain of every bound), X = max|xhat| >= 1/sqrt(2) (mean xhat^2 = var / (var + eps)), so
 * max|y| >= 0.75 X - 0.25 >= 0.28: an absolute error e in every xhat costs at most
 * 1.25 e / 0.28 <= LN_GAIN_ABS e relative to max|y|, and a relative error rho on every xhat
 * at most 1.25 X rho / (0.75 X - 0.25) <= LN_GAIN_REL rho (largest at the smallest X). Without
 * gamma and beta the gains are 1/X <= 1.42 and 1. (Under kernel.h's wider statement,
 * |beta_i| <= max|gamma xhat|, max|y| can be 0 and no normwise bound exists.)
 */
#ifndef LN_BOUNDS_H
#define LN_BOUNDS_H

#include <math.h>
#include <stddef.h>

#include "kernel.h"

#define LN_GAIN_ABS 4.5
#define LN_GAIN_REL 3.2

/* Epilogue rstd = 1 / sqrt(var + eps), y = (x - mean) * rstd * gamma + beta in ua, then one
 * rounding to us. rstd: the radicand's three roundings (var = S / n, eps rounded to ua, the
 * addition) halve through the square root, plus the sqrt and the division: 3.5 ua; then x - mean,
 * * rstd, * gamma: 6.5 ua relative on gamma xhat, times LN_GAIN_REL; + beta: ua |y_i| <= ua max|y|;
 * the final rounding to us: us |y_i| <= us max|y|, the 1 (with ua = us it is the + beta). */
static inline double ln_bound_epilogue(double ua, double us) { return 1.0 + (6.5 * LN_GAIN_REL + 1.0) * ua / us; }

/* A mean whose absolute error is at most c ua (|mean| + sigma) is off by c ua (kappa + 1) in
 * units of sigma (|mean| / sigma <= kappa), times LN_GAIN_ABS. */
static inline double ln_bound_mean(double c, double kappa, double ua, double us)
{
    return LN_GAIN_ABS * c * ua * (kappa + 1.0) / us;
}

/* A relative error r of var + eps moves every xhat by at most |xhat| (1 / sqrt(1 - r) - 1),
 * ~ |xhat| r / 2. r >= 1 means the variance may be lost entirely (zero or negative: Inf or
 * NaN), so no bound. */
static inline double ln_bound_var(double r, double us)
{
    if (r >= 1.0) return INFINITY;
    double q = sqrt(1.0 - r);
    return LN_GAIN_REL * r / (q * (1.0 + q)) / us; /* 1/q - 1 without cancellation */
}

/* Two-pass: a mean off by at most c ua (|mean| + sigma), then S = sum (x_i - mean)^2 summed
 * with relative error s ua (s = n - 1 sequentially: all terms are >= 0). Each term carries three
 * more roundings (x_i - mean, twice through the square, and the square), and the mean's error
 * delta adds n delta^2 to S, (delta / sigma)^2 <= (c ua (kappa + 1))^2 relative: the two-pass
 * bound n u + n^2 kappa^2 u^2 of Chan, Golub & LeVeque with c = s = n. */
static inline double ln_bound_twopass(double c, double s, double kappa, double ua, double us)
{
    double dm = c * ua * (kappa + 1.0);
    return ln_bound_mean(c, kappa, ua, us) + ln_bound_var((s + 3.0) * ua + dm * dm, us) + ln_bound_epilogue(ua, us);
}

/* Welford's updating, m_k = m_{k-1} + d_k / k with d_k = x_k - m_{k-1}, and
 * M_k = M_{k-1} + d_k (x_k - m_k), over n elements.
 * Mean: step k's roundings, ua (|m_k| + 2 |d_k| / k), reach m_n scaled by k / n (each later
 * step keeps (k - 1) / k of m); with |m_k - mean| <= sigma sqrt(n / k) and
 * sum |d_k| <= sqrt(2 n S), the total is at most (2n/3 + 5) ua (|mean| + sigma). */
static inline double ln_bound_welford_mean_c(double n) { return 2.0 * n / 3.0 + 5.0; }

/* M_n: the terms d_k (x_k - m_k) >= 0 add with (n + 3) ua relative error, and the running means'
 * errors eps_k change M_n by at most sum (eps_{k-1} + eps_k) |d_k|, which with the bound on eps_k
 * above and Cauchy-Schwarz is n ua (0.83 kappa + 2.7 + 8 sqrt((1 + ln n) / n)) relative:
 * the n kappa u of Chan, Golub & LeVeque. Returned in units of ua. */
static inline double ln_bound_welford_var(double n, double kappa)
{
    return n * (kappa + 4.0) + 8.0 * sqrt(n * (1.0 + log(n > 1 ? n : 1))) + 3.0;
}

/* Welford over chunks of `chunk` elements, then the chunks' (count, mean, M2) merged with Chan's
 * formula, m = ma + delta nb / n and M2 = Ma + Mb + delta^2 na nb / n (delta = mb - ma), in a
 * tree of height at most `levels` (no element passes more merges) whose merges of a nonempty
 * part a have nb <= ratio na. First order; y_i = x_i - mean, P_j = y_1 + .. + y_j within a
 * chunk, Q_A = sum of y_i^2 over a part A (disjoint parts: at most S = n var <= n sigma^2),
 * k = |mean| / sigma = sqrt(kappa^2 - 1), H = levels, H_j the harmonic numbers.
 * Mean. Chunk step j >= 2 (step 1 is exact) rounds m_j = m_{j-1} + d_j / j by
 * rho_j <= ua (|m_j| + 3 |d_j| / j) (the sum; d_j and d_j / j, or d_j * (1/j): three), and the
 * later steps keep j / m of it; a merge rounds its mean by ua (|m| + 3 |delta| nb / n) and
 * averages its children's errors. With |m_j| <= |mean| + |P_j| / j, Welford's identity
 * sum_j d_j^2 (j - 1) / j = S_A <= Q_A, delta^2 na nb / n <= Q_A and Cauchy-Schwarz, a part of
 * height h (a chunk: 0) has its mean off by at most ua (a_h |mean| + b_h sqrt(Q_A / n_A)):
 * a_0 = (m + 1) / 2 - 1 / m, b_0 = (sqrt((m - 1)^2 + sum_{j<m} j^2) + 3 sqrt(m - 1 + H_{m-1}))
 * / sqrt(m), a_{h+1} = a_h + 1, b_{h+1} = b_h + 1 + 3 sqrt(ratio). The row's: ua sigma (a_H k + b_H).
 * M2, relative to n sigma^2, in ua. (1) The chunks' S_A and the merges' t = delta^2 na nb / n
 * are >= 0 and sum to S; a chunk's terms carry three roundings and at most m - 2 additions, a t
 * six and its addition, each two more additions per merge above: max(m + 1, 5) + 2H.
 * (2) The means' roundings reach M2 through d_j, x_j - m_j and delta. Since d_j / j = m_j - m_{j-1}
 * and delta nb / n = mb - m, their effects telescope along the path to the root: to first order
 * a merge's rounding rho moves M2 by 2 n_A (m_A - mean) rho (the root's: 0), a chunk step's by
 * (2 P_j - d_j) rho_j: 2 j (m_A - mean) rho_j through the merges above its chunk A (none
 * without merges), the rest through the chunk's own running means.
 * The |mean| parts: sum n_A |m_A - mean| <= sqrt(n S) over the merges of one height, and
 * sum_j |2 P_j - d_j| = sum_j |(2 + 1 / (j - 1)) P_{j-1} + y_j| <= T sqrt(m Q_A), T^2 the sum of
 * the squared column sums of those coefficients over m: k (T + 2 (H - 1)), where a sum over the
 * levels would grow with each level's depth. (A lone chunk: the own part alone,
 * sum_j (j - 2 / j) |d_j| <= T sqrt(m S_A), T^2 = sum_j (j - 2 / j)^2 j / (j - 1) / m.)
 * The rest: 2 (1 + 3 sqrt(ratio)) per merge height below the root (sum n_A (m_A - mean)^2 <= S,
 * sum t <= S), 2 b_0 for the chunk steps through the merges, and G for their own part,
 * sum_j |d_j| ((j - 1) / j |e_{j-1}| + |e_j|) <= ua G Q_A with
 * G^2 = sum_j j / (j - 1) (2 / j)^2 (sum_{i=2..j} sqrt(i) + 3 sqrt(j - 1 + H_{j-1}))^2.
 * (3) Second order: the squares of the parts' mean errors. */
typedef struct {
    double mean; /* the row's mean is off by at most mean ua sigma */
    double var;  /* var + eps by at most var ua relative */
} ln_stats_bound;

static inline ln_stats_bound ln_bound_cascade_stats(double chunk, double levels, double ratio, double kappa, double ua)
{
    double m = chunk, k = sqrt(fmax(kappa * kappa - 1.0, 0.0)), grow = 1 + 3 * sqrt(ratio);
    double a = 0, harm = 0, sqrts = 0, c2 = (m - 1) * (m - 1), A2 = 0, G2 = 0;
    for (double j = 2; j <= m; j++) {
        harm += 1 / (j - 1); /* H_{j-1} */
        sqrts += sqrt(j);
        a += j / m;
        c2 += (m - j + 1) * (m - j + 1);
        A2 += (j - 2 / j) * (j - 2 / j) * j / (j - 1);
        double f = 2 / j * (sqrts + 3 * sqrt(j - 1 + harm));
        G2 += f * f * j / (j - 1);
    }
    double T2 = 0, harm_i = 0; /* column i of 2 P_j - d_j: 2 + 1 / (j - 1) for j > i, 1 for j = i */
    for (double i = 1; i <= m; harm_i += 1 / i, i++) {
        double c = (i == 1 ? 2 * (m - 1) : 1 + 2 * (m - i)) + harm - harm_i;
        T2 += c * c;
    }
    double b = m > 1 ? (sqrt(c2) + 3 * sqrt(m - 1 + harm)) / sqrt(m) : 0, T = sqrt(T2 / fmax(m, 1));
    if (levels == 0) T = sqrt(A2 / fmax(m, 1)); /* a lone chunk: its steps' own part only */
    double below = fmax(levels - 1, 0), second = 0;
    for (double h = 0; h < levels; h++) second += ((a + h) * k + b + h * grow) * ((a + h) * k + b + h * grow);
    ln_stats_bound e;
    e.mean = (a + levels) * k + b + levels * grow;
    e.var = fmax(m + 1, 5) + 2 * levels + k * (T + 2 * below) + 2 * below * grow + (levels > 0 ? 2 * b : 0) + sqrt(G2) +
            (second + e.mean * e.mean) * ua;
    return e;
}

static inline double ln_bound_cascade(double chunk, double levels, double ratio, double kappa, double ua, double us)
{
    ln_stats_bound e = ln_bound_cascade_stats(chunk, levels, ratio, kappa, ua);
    return LN_GAIN_ABS * e.mean * ua / us + ln_bound_var(e.var * ua, us) + ln_bound_epilogue(ua, us);
}

/* ---- Vector kernels' statistics (the templates in kernels/simd/ state their bounds with these,
 * so a bound shared by two kernel families is derived once) ---- */

/* fp32 statistics accumulated in `lanes` independent partial sums, each a sequential sum of about
 * n / lanes terms, the partials then added in double: the mean is off by at most c u (|mean| +
 * sigma) with c = n / lanes + 2 (the division by n included); the sum of squared deviations about
 * that mean has relative error at most (n / lanes + 3) u plus the two-pass term (c u kappa')^2.
 * var_extra adds an algorithm's own relative error (in u). In units of u = 2^-24. */
static inline double ln_bound_f32_lanes(size_t n, double kappa, size_t lanes, double var_extra)
{
    const double u = 0x1p-24;
    double m = ceil((double)n / (double)lanes), c = m + 2.0, kp = kappa + 1.0;
    return ln_bound_mean(c, kappa, u, u) + ln_bound_var((m + 3.0 + var_extra) * u + (c * u * kp) * (c * u * kp), u) +
           ln_bound_epilogue(u, u);
}

/* The shifted-data one-pass statistics (f32-shifted, the 16-bit *-f32acc-shifted) on the rows the
 * kernel accepts, in units of us; fp32 arithmetic (ua = 2^-24) in `lanes` partial sums. Accepted
 * rows: m = n / lanes terms per lane, e = (m + 3) ua, t = |mean - K| / sigma <= sqrt 2 (the check
 * accepts (S1/n)^2 <= var on computed values; with e <= 0.05 that keeps t^2 < 2): S1/n is off by at
 * most e (t + 1) sigma (the roundings of x - K included), so the mean by that plus its rounding to
 * float, ua |mean|; S2/n = var + (mean - K)^2 <= (1 + t^2) sigma^2 with relative error e, and
 * (S1/n)^2 moves by 2 t e (t + 1) sigma^2: var relative error
 * e (1 + t^2 + 2 t (t + 1)) + (e (t + 1))^2 + 3 ua. INFINITY past e = 0.05. The kernels' bound is
 * the larger of this and their two-pass fallback's (rejected rows). */
static inline double ln_bound_shifted(size_t n, double kappa, size_t lanes, double us)
{
    const double ua = 0x1p-24, t = sqrt(2.0);
    double m = ceil((double)n / (double)lanes), e = (m + 3.0) * ua;
    if (e > 0.05) return INFINITY;
    return ln_bound_mean(1.0, kappa, ua, us) + ln_bound_mean(m + 3.0, t, ua, us) +
           ln_bound_var(e * (1.0 + t * t + 2.0 * t * (t + 1.0)) + e * (t + 1.0) * e * (t + 1.0) + 3.0 * ua, us) +
           ln_bound_epilogue(ua, us);
}

/* All arithmetic in f16 (u = 2^-11, the f16-native kernels) over `lanes` lanes in two
 * accumulators: <= n/lanes + 7 additions per lane (the tail and the tree included) and the
 * division give a mean error c u (|mean| + sigma); S has the two-pass relative error
 * c u + (c u kappa)^2, plus the f16 rounding of n (n > 2048), the sqrt and the division; the
 * epilogue is four f16 roundings. No overflow is assumed: sums beyond 65504 give Inf and no
 * bound holds (the kernels' domain keeps f16 sums in range); nor underflow: squares below 2^-24
 * lose their bits (tiny rows, eps = 0: 456 u, test_edge). */
static inline double ln_bound_f16_native(size_t n, double kappa, size_t lanes)
{
    const double u = 0x1p-11;
    double c = (double)n / (double)lanes + 7;
    double r = (c + 4) * u + (c * u * kappa) * (c * u * kappa);
    return ln_bound_mean(c + 1, kappa, u, u) + ln_bound_var(r, u) + ln_bound_epilogue(u, u);
}

/* f32-accurate (kernels/simd/f32-accurate.h and its SVE twin): fp32 storage, double statistics
 * about a shift K taken from the first W elements, in units of the fp32 u, with e = u_d = 2^-53.
 * The sums: no lane adds more than `depth` terms in sequence and tree levels, plus one
 * rounding in each x - K; sum |x - K| <= n sigma sqrt(1 + t^2) and sum (x - K)^2 <= n sigma^2
 * (1 + t^2). So the mean (K + S1/n, and c = -d rstd rounded) is off by
 * a = ((L' + 1) sqrt(1 + t^2) + 2 t) e sigma, L' the depth, and var by
 * r = (L' + 4)(1 + t^2) e + 2 t a + a^2 + e t^2 relative (S2 and its division, d^2, the
 * subtraction). Accepted rows have t <= sqrt 2 (the check d^2 <= var on computed values with
 * r small). Others are summed again about K' = K + d, off from the mean by t' <= a(t1) + e
 * (kappa + t1) with t1 <= sqrt(2n/W) + u (kappa + sqrt(2n/W)) (Cauchy-Schwarz on the first W
 * elements, K their mean or 0: acc_shift; then K's rounding): t' <= sqrt 2 unless kappa nears
 * 2^53, where no claim is made.
 * The epilogue (x - K, the two fma, rstd) is bounds.h's with ua = e, plus the final rounding. */
static inline double ln_bound_f32_accurate(size_t n, double kappa, double W, double depth)
{
    const double u = 0x1p-24, e = 0x1p-53, t = sqrt(2.0);
    const double t1 = sqrt(2.0 * n / W) + u * (kappa + sqrt(2.0 * n / W) + 1.0);
    const double a1 = ((depth + 1.0) * sqrt(1.0 + t1 * t1) + 2.0 * t1) * e;
    if (a1 + e * (kappa + t1) > t) return INFINITY;
    const double a = ((depth + 1.0) * sqrt(1.0 + t * t) + 2.0 * t) * e;
    const double r = (depth + 4.0) * (1.0 + t * t) * e + 2.0 * t * a + a * a + e * t * t;
    return ln_bound_mean(a / e, 0.0, e, u) + ln_bound_var(r, u) + ln_bound_epilogue(e, u);
}

/* ---- Any gamma and beta ----
 * Every term above is an error in xhat carried to y by gamma (absolute: gain
 * max|gamma| / max|y|; relative: gain max|gamma xhat| / max|y|) or a rounding of y itself
 * (gain 1), and the bounds use LN_GAIN_ABS and LN_GAIN_REL for the first two. A row with other
 * weights multiplies every term by at most its gain over the constant, so the bound times this
 * factor holds for any finite gamma and beta. When beta cancels gamma xhat, max|y| is small and
 * the factor large: the bound stays honest, relative to the small outputs the metric divides by
 * (docs/metrics.md). max|y| below the smallest normal counts as the smallest normal, as in the
 * metric. */
static inline double ln_affine_factor(const ln_row_facts *f)
{
    double ymax = fmax(f->max_abs_y, ldexp(1.0, ln_fmt(f->dtype)->emin));
    double abs_gain = f->max_abs_gamma / ymax, rel_gain = f->max_abs_gxhat / ymax;
    return fmax(1.0, fmax(abs_gain / LN_GAIN_ABS, rel_gain / LN_GAIN_REL));
}

/* ---- Domains (ln_kernel.domain) ----
 * Conditions every bound needs, whatever the arithmetic: finite inputs; var + eps > 0 (else
 * 0/0) and var finite in double; rstd * gamma neither underflowing (a kernel may fold rstd into gamma: that product must
 * keep its bits) nor overflowing; outputs finite and well above the smallest normal.
 * Subnormals: where a kernel may flush them to zero (bf16: the AVX512-BF16 instructions; f32 and
 * f64 pay nothing for the same caution), a flushed value costs a whole 2^emin, so gamma and beta
 * must be normal or zero and the margin above 2^emin is 2^(p+4), keeping the loss under u/16.
 * f16 kernels never flush (F16C and integer conversions keep subnormals, whose rounding costs
 * half a subnormal ulp), so for f16 a margin of 2^4 does the same and subnormal weights are fine. */
static inline int ln_domain_margin(ln_dtype t) { return t == LN_F16 ? 4 : ln_fmt(t)->p + 4; }

static inline const char *ln_domain_common(const ln_row_facts *f)
{
    const ln_format *t = ln_fmt(f->dtype);
    double smallest = ldexp(1.0, t->emin), largest = ldexp(1.0, t->emax);
    int margin = ln_domain_margin(f->dtype), flushes = f->dtype != LN_F16;
    if (!f->finite) return "nonfinite-input";
    if (!(f->var + f->eps > 0)) return "zero-variance";
    if (!isfinite(f->var)) return "var-overflow"; /* beyond double: f64 rows near its top */
    if (flushes &&
        ((f->min_abs_gamma > 0 && f->min_abs_gamma < smallest) || (f->min_abs_beta > 0 && f->min_abs_beta < smallest)))
        return "subnormal-affine";
    double rstd = 1.0 / sqrt(f->var + f->eps);
    if (f->min_abs_gamma > 0 && rstd * f->min_abs_gamma < ldexp(smallest, margin)) return "rstd-gamma-underflow";
    if (rstd * f->max_abs_gamma >= largest || f->max_abs_gxhat + f->max_abs_y >= largest) return "output-overflow";
    if (f->max_abs_y < ldexp(smallest, f->subnormal_y ? margin : 4)) return "output-underflow";
    return NULL;
}

/* Conditions of statistics accumulated in format acc without a fallback: the sum of x and the
 * sum of squares (of x or of deviations, |x - mean| <= max|x| + |mean|) must stay below acc's
 * overflow threshold, eps must be an acc number (not rounded to Inf), and var + eps far enough
 * above acc's smallest normal that squares lost to underflow (or flushed) cost under u/16. */
static inline const char *ln_domain_sums(const ln_row_facts *f, ln_dtype acc)
{
    const ln_format *a = ln_fmt(acc);
    double n = (double)f->D, dev = f->max_abs_x + fabs(f->mean), top = ldexp(1.0, a->emax);
    if (!(f->eps < top * (1 - ldexp(1.0, -a->p - 1)))) return "eps-overflow"; /* eps rounds to Inf in acc */
    if (n * f->max_abs_x >= top) return "sum-overflow";
    if (n * dev * dev >= top) return "sumsq-overflow";
    if (f->var + f->eps < ldexp(1.0, a->emin + ln_domain_margin(acc))) return "squares-underflow";
    return NULL;
}

/* The two domains most kernels state: everything the common conditions allow (a kernel whose
 * sums overflow or whose squares underflow redoes the row another way), or only rows whose
 * statistics fit its accumulation format. */
static inline const char *ln_domain_any_row(const ln_row_facts *f) { return ln_domain_common(f); }

static inline const char *ln_domain_f32_sums(const ln_row_facts *f)
{
    const char *c = ln_domain_common(f);
    return c ? c : ln_domain_sums(f, LN_F32);
}

static inline const char *ln_domain_f64_sums(const ln_row_facts *f)
{
    const char *c = ln_domain_common(f);
    return c ? c : ln_domain_sums(f, LN_F64);
}

static inline const char *ln_domain_f16_sums(const ln_row_facts *f)
{
    const char *c = ln_domain_common(f);
    return c ? c : ln_domain_sums(f, LN_F16);
}

#endif
