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

#define LN_GAIN_ABS 4.5
#define LN_GAIN_REL 3.2

/* Epilogue rstd = 1 / sqrt(var + eps), y = (x - mean) * rstd * gamma + beta in ua, then one
 * rounding to us. rstd: the radicand's three roundings (var = S / n, eps rounded to ua, the
 * addition) halve through the square root, plus the sqrt and the division: 3.5 ua; then x - mean,
 * * rstd, * gamma: 6.5 ua relative on gamma xhat, times LN_GAIN_REL; + beta: ua |y_i| <= ua max|y|;
 * the final rounding to us: us |y_i| <= us max|y|, the 1 (with ua = us it is the + beta). */
static inline double ln_bound_epilogue(double ua, double us)
{
    return 1.0 + (6.5 * LN_GAIN_REL + 1.0) * ua / us;
}

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
    return ln_bound_mean(c, kappa, ua, us) + ln_bound_var((s + 3.0) * ua + dm * dm, us) +
           ln_bound_epilogue(ua, us);
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
 * formula, no element passing through more than `levels` merges. Chunks (Welford blocks above at
 * n = chunk): their mean errors average to at most 1.5 c_W ua (|mean| + sigma) (Cauchy-Schwarz
 * over the chunks' means and spreads), their M2 errors to the Welford relative error at
 * n = chunk with kappa the row's. Each merge level adds 4 ua (|mean| + sigma) to the mean (the
 * add, and three roundings on delta nb / n <= the children's spread) and to S 8 ua relative
 * (six roundings in delta^2 na nb / n, two additions) plus the children's mean errors through
 * delta: 2 |delta| nb |e_a - e_b| summed over a level is at most 4 c ua (kappa + 1) S, c the
 * children's mean constant. */
static inline double ln_bound_cascade(double chunk, double levels, double kappa, double ua, double us)
{
    double c = 1.5 * ln_bound_welford_mean_c(chunk);
    double r = ln_bound_welford_var(chunk, kappa);
    for (double l = 0; l < levels; l++, c += 4) r += 4 * c * (kappa + 1) + 8;
    double dm = c * ua * (kappa + 1);
    return ln_bound_mean(c, kappa, ua, us) + ln_bound_var(r * ua + dm * dm, us) + ln_bound_epilogue(ua, us);
}

#endif
