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

#endif
