/* The MPFR reference: LayerNorm of one row computed exactly, each output correctly rounded. */
#ifndef LN_REFERENCE_H
#define LN_REFERENCE_H

#include <stddef.h>

#include "dtype.h"

/* The row's exact statistics, each rounded once to double. */
typedef struct {
    double mean;   /* sum x / D */
    double var;    /* sum (x - mean)^2 / D, population variance */
    double rstd;   /* 1 / sqrt(var + eps) */
    double kappa;  /* condition number sqrt(1 + mean^2 / (var + eps)); Inf when var + eps = 0 */
} ln_ref_stats;

/* LayerNorm of one row of D elements of format t, on the values exactly as stored: x, gamma and
 * beta (NULL means 1 and 0) in format t, eps the double given (not rounded to t).
 *   y      D elements of format t: each the exact y_i correctly rounded to nearest-even in t,
 *          with t's precision, exponent range and subnormals (overflow gives +-Inf).
 *   y_hi, y_lo  (may be NULL) the exact y_i as an unevaluated sum hi + lo of doubles (at least
 *          p_t + 64 correct bits where the double range allows), for measuring errors.
 *   st     (may be NULL) the row's statistics.
 * Defined semantics for non-finite cases: a NaN or +-Inf anywhere in x, or var + eps = 0 with some
 * x_i - mean = 0 (0/0), gives NaN for the affected outputs, as IEEE arithmetic on the exact
 * formula would; see docs/reference.md. */
void ln_ref_row(ln_dtype t, size_t D, const void *x, const void *gamma, const void *beta, double eps,
                void *y, double *y_hi, double *y_lo, ln_ref_stats *st);

#endif
