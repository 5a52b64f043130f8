/* The MPFR reference: LayerNorm of one row computed exactly, each output correctly rounded. */
#ifndef LN_REFERENCE_H
#define LN_REFERENCE_H

#include <stddef.h>

#include "dtype.h"

/* The row's exact statistics, each rounded once to double. */
typedef struct {
    double mean;  /* sum x / D */
    double var;   /* sum (x - mean)^2 / D, population variance */
    double rstd;  /* 1 / sqrt(var + eps) */
    double kappa; /* condition number sqrt(1 + mean^2 / (var + eps)); Inf when var + eps = 0 */
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
void ln_ref_row(ln_dtype t, size_t D, const void *x, const void *gamma, const void *beta, double eps, void *y,
                double *y_hi, double *y_lo, ln_ref_stats *st);

/* RMSNorm of one row, y_i = gamma_i x_i / sqrt(mean(x^2) + eps) + beta_i, with the same
 * guarantees and semantics (the same code with the row sum taken as 0). st->mean is 0,
 * st->var the mean square mean(x^2), st->kappa 1. */
void ln_ref_rms_row(ln_dtype t, size_t D, const void *x, const void *gamma, const void *beta, double eps, void *y,
                    double *y_hi, double *y_lo, ln_ref_stats *st);

/* LayerNorm (centred) or RMSNorm (not) of one row whose x is in format xt, gamma, beta and y in
 * format t: the same guarantees, y correctly rounded to t. The fused ops' reference on an fp32 h
 * with 16-bit outputs (xt = t: ln_ref_row, ln_ref_rms_row). */
void ln_ref_norm_row(int centred, ln_dtype t, ln_dtype xt, size_t D, const void *x, const void *gamma, const void *beta,
                     double eps, void *y, double *y_hi, double *y_lo, ln_ref_stats *st);

/* The backward ops over `rows` rows of D elements of format t (docs/reference.md, docs/ops.md):
 * centred = 1 for LayerNorm, 0 for RMSNorm. Exact arithmetic on the stored x, dy, gamma (NULL
 * means 1) and the exact statistics of each row (mean, rstd from x and eps), each output
 * correctly rounded to t:
 *   dx      rows x D; dx_hi, dx_lo (may be NULL) its exact value as hi + lo
 *   dgamma  D: sum over rows of dy xhat; dbeta D: sum over rows of dy (either may be NULL),
 *           with their exact values in *_hi, *_lo (may be NULL)
 *   st      (may be NULL) rows statistics as ln_ref_row gives them.
 * Rows holding a non-finite x or dy, or with mean(x^2)-or-var + eps <= 0, give NaN in dx and in
 * every dgamma (dbeta: NaN only for non-finite dy). eps must be finite. */
void ln_ref_bwd_rows(int centred, ln_dtype t, size_t rows, size_t D, const void *x, const void *dy, const void *gamma,
                     double eps, void *dx, double *dx_hi, double *dx_lo, void *dgamma, double *dg_hi, double *dg_lo,
                     void *dbeta, double *db_hi, double *db_lo, ln_ref_stats *st);

/* dx of the backward ops with the statistics taken as given (the second meaning of "exact" for
 * backward, docs/reference.md): mean[r] (read only when centred) and rstd[r] are exact inputs,
 * like x, dy and gamma, so xhat = (x - mean) rstd, every sum and the numerator of
 *   dx_i = rstd (D g_i - c sum g - xhat_i sum g xhat) / D
 * are exact and one correctly rounded division by D gives dx_i. Rows with a non-finite input
 * or statistic give NaN. */
void ln_ref_bwd_saved_rows(int centred, ln_dtype t, size_t rows, size_t D, const void *x, const void *dy,
                           const void *gamma, const double *mean, const double *rstd, void *dx, double *dx_hi,
                           double *dx_lo);

/* The ops' reference entry points (kernels/ops.def names one per op, and a second, "saved", per
 * backward op), all of one signature over `rows` rows of D elements of format t, the residual
 * roles of the fused ops (r, h: ops.def's RESID) in format rt (t itself, or fp32 beside a 16-bit
 * t; the other ops ignore rt):
 *   in   the op's inputs, in the order of its ops.def roles (LN_IN and LN_SAVED lines): element
 *        format t for x, gamma, beta, dy (gamma, beta NULL: 1 and 0); doubles for mean, rstd
 *   out  the op's outputs (LN_OUT lines, in order), each correctly rounded to t (rounded) and
 *        exact as hi + lo; a NULL member is not computed
 *   st   rows statistics (may be NULL), as ln_ref_row gives them
 * The saved entry points compute the first output (dx) only, from the statistics as given. */
typedef struct {
    void *rounded;
    double *hi, *lo;
} ln_ref_out;
typedef void ln_ref_op(ln_dtype t, ln_dtype rt, size_t rows, size_t D, double eps, const void *const *in,
                       const ln_ref_out *out, ln_ref_stats *st);
ln_ref_op ln_ref_layernorm;           /* in: x, gamma, beta; out: y */
ln_ref_op ln_ref_rmsnorm;             /* in: x, gamma, beta; out: y */
ln_ref_op ln_ref_layernorm_bwd;       /* in: x, gamma, dy; out: dx, dgamma, dbeta */
ln_ref_op ln_ref_rmsnorm_bwd;         /* in: x, gamma, dy; out: dx, dgamma, dbeta */
ln_ref_op ln_ref_add_rmsnorm;         /* in: x, r, gamma, beta; out: y, h = x + r rounded once to rt */
ln_ref_op ln_ref_add_layernorm;       /* in: x, r, gamma, beta; out: y, h */
ln_ref_op ln_ref_layernorm_bwd_saved; /* in: x, gamma, dy, mean, rstd; out: dx */
ln_ref_op ln_ref_rmsnorm_bwd_saved;   /* in: x, gamma, dy, mean (not read), rstd; out: dx */

/* A cheap stand-in for the reference entry point given, of the same signature, or NULL when it
 * has none (reference/screen.c, one line per entry point): double-double arithmetic, about 100
 * correct bits, not correctly rounded (a double rounding where an output is within 2^-100 of a
 * midpoint). For a search that scores thousands of candidates a second and confirms its best
 * with the reference itself (`lnbench hunt`). */
ln_ref_op *ln_ref_screen_of(ln_ref_op *reference);

#endif
