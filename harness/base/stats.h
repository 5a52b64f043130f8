/* Small statistics for comparing runs: medians and the Mann-Whitney U test. */
#ifndef LN_STATS_H
#define LN_STATS_H

#include <stddef.h>

/* Median of v[0..n) (v is sorted in place); NAN when n == 0. NaN entries are not allowed. */
double ln_median(double *v, size_t n);

/* Two-sided p-value of the Mann-Whitney U test that samples a and b come from the same
 * distribution. Exact (the U distribution counted by recursion) when both samples have at most
 * 50 values and no value is tied; otherwise the normal approximation with tie correction and
 * continuity correction. 1 when either sample is empty. */
double ln_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb);

/* The smallest two-sided p-value the test can give for samples of na and nb distinct values:
 * 2 / C(na + nb, na) (0.1 for 3 against 3, 0.0079 for 5 against 5, 1.1e-5 for 10 against 10).
 * A change the samples cannot test at the level asked is inconclusive, not "same". */
double ln_mann_whitney_min_p(size_t na, size_t nb);

/* Holm's step-down adjustment of m p-values for the number of tests: adjusted[i] < alpha
 * rejects test i with a family-wise error rate of at most alpha over the m tests. */
void ln_holm(const double *p, size_t m, double *adjusted);

#endif
