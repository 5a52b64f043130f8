/* Storage formats shared by kernels, reference and harness. */
#ifndef LN_DTYPE_H
#define LN_DTYPE_H

#include <stddef.h>
#include <stdint.h>

typedef enum { LN_F64, LN_F32, LN_F16, LN_BF16, LN_NDTYPES } ln_dtype;

/* An IEEE-style binary format: p significand bits (hidden bit included), smallest normal
 * exponent emin and largest exponent emax, so a normal value is 1.f * 2^e, emin <= e <= emax,
 * and subnormals reach down to 2^(emin - p + 1). */
typedef struct {
    const char *name; /* "f64", "f32", "f16", "bf16" */
    int p, emin, emax;
    size_t size; /* bytes per element */
} ln_format;

/* The formats' table lives here, header-only, so that code linked against nothing of lnbench
 * (a plugin kernel using kernels/bounds.h's domains) can read it too. */
static inline const ln_format *ln_fmt(ln_dtype t)
{
    static const ln_format formats[LN_NDTYPES] = {
        [LN_F64] = {"f64", 53, -1022, 1023, 8},
        [LN_F32] = {"f32", 24, -126, 127, 4},
        [LN_F16] = {"f16", 11, -14, 15, 2},
        [LN_BF16] = {"bf16", 8, -126, 127, 2},
    };
    return &formats[t];
}

/* "f32" -> LN_F32; -1 if unknown. */
int ln_dtype_parse(const char *s);

/* Element i of an array of dtype t, converted exactly to double. */
double ln_load(ln_dtype t, const void *p, size_t i);
/* Store v rounded to nearest-even into element i (overflow to Inf, subnormals kept, NaN stays
 * a quiet NaN): a single rounding from double, never double rounding through float. */
void ln_store(ln_dtype t, void *p, size_t i, double v);

/* Round-to-nearest-even conversions for the 16-bit formats, from double (one rounding). */
uint16_t ln_f64_to_f16(double v);
uint16_t ln_f64_to_bf16(double v);
double ln_f16_to_f64(uint16_t h);
double ln_bf16_to_f64(uint16_t h);

/* ulp of v in format t: 2^(max(floor(log2|v|), emin) - p + 1); the subnormal ulp for v = 0. */
double ln_ulp(ln_dtype t, double v);
/* Unit roundoff u = 2^-p of format t. */
double ln_unit_roundoff(ln_dtype t);

#endif
