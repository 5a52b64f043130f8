/* MPFR helpers shared by the reference and `lnbench stats`: exact sums and products of exact
 * values, and rounding to a storage format with its precision, exponent range and subnormals. */
#ifndef LN_REF_MPFR_H
#define LN_REF_MPFR_H

#include <stddef.h>

#include <mpfr.h>

#include "dtype.h"

/* The precision at which the sum of n exact values is exactly representable: every term is a
 * multiple of 2^lo (lo = its exponent minus its minimal precision) and below 2^hi in magnitude,
 * so the sum is a multiple of 2^lo below n 2^hi <= 2^(hi + ceil(log2 n)): hi - lo + ceil(log2 n)
 * bits hold it. Adaptive: it costs what the operands' exponent spread costs, no more. */
mpfr_prec_t ln_mpfr_exact_sum_prec(mpfr_ptr const *terms, size_t n);

/* out = sum of terms, exactly (out's precision is set; it must not be one of the terms).
 * Aborts if MPFR reports the result inexact, which the precision above rules out. */
void ln_mpfr_exact_sum(mpfr_ptr out, mpfr_ptr const *terms, size_t n);
/* out = a + b or a - b, exactly (out must not alias a or b). */
void ln_mpfr_exact_add(mpfr_ptr out, mpfr_srcptr a, mpfr_srcptr b);
void ln_mpfr_exact_sub(mpfr_ptr out, mpfr_srcptr a, mpfr_srcptr b);
/* out = a * b, exactly (out must not alias a or b). */
void ln_mpfr_exact_mul(mpfr_ptr out, mpfr_srcptr a, mpfr_srcptr b);

/* y holds a value already rounded to nearest at format t's precision in a wide exponent range,
 * `ternary` the sign of (y - exact). Applies t's exponent range: overflow to +-Inf, gradual
 * underflow with subnormals, rounding once (the ternary value prevents double rounding).
 * Restores the caller's exponent range; returns the new ternary value. */
int ln_mpfr_fit(mpfr_ptr y, int ternary, ln_dtype t);

/* Exact values correctly rounded (nearest-even) to format t, returned as a double (exactly). */
double ln_mpfr_round(mpfr_srcptr v, ln_dtype t);
double ln_mpfr_round_div(mpfr_srcptr a, mpfr_srcptr b, ln_dtype t);      /* a / b, b != 0 */
double ln_mpfr_round_sqrt_div(mpfr_srcptr a, mpfr_srcptr b, ln_dtype t); /* sqrt(a) / b, a >= 0, b != 0 */

/* Ziv's test: b approximates an exact value with |b - exact| <= 2^(EXP(b) - err). True when
 * that pins down the nearest-even rounding to p bits, and (for a value never exactly on a
 * (p+1)-bit number) its ternary value: the interval holds no (p+1)-bit number, hence neither a
 * p-bit number nor a midpoint, nor a subnormal grid point or the overflow threshold of any
 * format of precision p. */
int ln_mpfr_decided(mpfr_srcptr b, mpfr_exp_t err, mpfr_prec_t p);

#endif
