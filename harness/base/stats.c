#include "stats.h"

#include <math.h>
#include <stdlib.h>

#include "cli.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double ln_median(double *v, size_t n)
{
    if (n == 0) return NAN;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Probability that U <= u for samples of m and n values without ties: the count of orderings
 * with U = k follows c(m, n, k) = c(m - 1, n, k - n) + c(m, n - 1, k), divided by C(m + n, m).
 * Counted as doubles (C(100, 50) ~ 1e29 is exact enough for a p-value). */
static double exact_cdf(size_t m, size_t n, size_t u)
{
    size_t kmax = m * n;
    /* c[i][j][k] for i <= m, j <= n, rolled over j: prev[i][k] = c(i, j - 1, k) */
    double *cur = calloc((m + 1) * (kmax + 1), sizeof *cur), *prev = calloc((m + 1) * (kmax + 1), sizeof *prev);
    if (!cur || !prev) ln_die("out of memory");
#define C(a, i, k) a[(i) * (kmax + 1) + (k)]
    for (size_t j = 0; j <= n; j++) {
        for (size_t i = 0; i <= m; i++)
            for (size_t k = 0; k <= kmax; k++) {
                double v;
                if (i == 0 || j == 0) v = k == 0;
                else v = (k >= j ? C(cur, i - 1, k - j) : 0) + C(prev, i, k);
                C(cur, i, k) = v;
            }
        double *t = prev;
        prev = cur, cur = t;
    }
    double below = 0, total = 0;
    for (size_t k = 0; k <= kmax; k++) {
        total += C(prev, m, k);
        if (k <= u) below += C(prev, m, k);
    }
#undef C
    free(cur), free(prev);
    return below / total;
}

double ln_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb)
{
    if (na == 0 || nb == 0) return 1;
    size_t n = na + nb;
    /* ranks of the pooled sample, ties given their mean rank */
    double *v = malloc(n * sizeof *v), *rank = malloc(n * sizeof *rank);
    size_t *order = malloc(n * sizeof *order);
    if (!v || !rank || !order) ln_die("out of memory");
    for (size_t i = 0; i < na; i++) v[i] = a[i];
    for (size_t i = 0; i < nb; i++) v[na + i] = b[i];
    for (size_t i = 0; i < n; i++) order[i] = i;
    for (size_t i = 1; i < n; i++) /* insertion sort of indices: samples are small */
        for (size_t j = i; j > 0 && v[order[j - 1]] > v[order[j]]; j--) {
            size_t t = order[j];
            order[j] = order[j - 1], order[j - 1] = t;
        }
    double tie_sum = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && v[order[j + 1]] == v[order[i]]) j++;
        double t = (double)(j - i + 1);
        tie_sum += t * t * t - t;
        for (size_t k = i; k <= j; k++) rank[order[k]] = 0.5 * (double)(i + j) + 1;
        i = j + 1;
    }
    double ra = 0;
    for (size_t i = 0; i < na; i++) ra += rank[i];
    free(v), free(rank), free(order);
    double u = ra - 0.5 * (double)na * (double)(na + 1); /* U of sample a */
    double mean = 0.5 * (double)na * (double)nb;
    double p;
    if (tie_sum == 0 && na <= 50 && nb <= 50) {
        double lo = u <= mean ? u : (double)na * (double)nb - u; /* the smaller tail, by symmetry */
        p = 2 * exact_cdf(na, nb, (size_t)lo);
    } else {
        double var = (double)na * (double)nb / 12.0 * ((double)n + 1 - tie_sum / ((double)n * (double)(n - 1)));
        if (var <= 0) return 1; /* every value tied */
        double z = (fabs(u - mean) - 0.5) / sqrt(var);
        if (z < 0) z = 0;
        p = erfc(z / sqrt(2.0));
    }
    return p > 1 ? 1 : p;
}

double ln_mann_whitney_min_p(size_t na, size_t nb)
{
    if (na == 0 || nb == 0) return 1;
    /* the most extreme ordering (every a below every b) is 1 of C(na + nb, na), on either side */
    double logc = lgamma((double)(na + nb + 1)) - lgamma((double)(na + 1)) - lgamma((double)(nb + 1));
    double p = 2 * exp(-logc);
    return p > 1 ? 1 : p;
}

void ln_holm(const double *p, size_t m, double *adjusted)
{
    size_t *order = malloc((m + 1) * sizeof *order);
    if (!order) ln_die("out of memory");
    for (size_t i = 0; i < m; i++) order[i] = i;
    for (size_t i = 1; i < m; i++) /* insertion sort by p: a few hundred tests at most */
        for (size_t j = i; j > 0 && p[order[j - 1]] > p[order[j]]; j--) {
            size_t t = order[j];
            order[j] = order[j - 1], order[j - 1] = t;
        }
    double running = 0;
    for (size_t k = 0; k < m; k++) {
        double v = (double)(m - k) * p[order[k]];
        if (v > running) running = v; /* adjusted p-values never decrease along the order */
        adjusted[order[k]] = running > 1 ? 1 : running;
    }
    free(order);
}
