/* A cheap stand-in for the MPFR reference while searching: LayerNorm of one row in double-double
 * arithmetic (about 100 correct bits, Dekker's and Knuth's error-free transformations), with the
 * signature of ln_ref_row so that a search can score thousands of rows a second and confirm
 * only its best ones with MPFR. Not correctly rounded: y is the double-double value rounded
 * once to t (a double rounding only where the value is within 2^-100 of a midpoint), and the
 * variance comes from sum (x_i - mean)^2 about a double-double mean, so its error grows with
 * kappa^2 2^-106. */
#ifndef LN_SCREEN_H
#define LN_SCREEN_H

#include <stddef.h>

#include "reference.h"

void ln_screen_row(ln_dtype t, size_t D, const void *x, const void *gamma, const void *beta, double eps, void *y,
                   double *y_hi, double *y_lo, ln_ref_stats *st);

#endif
