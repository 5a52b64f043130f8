#include "dtype.h"

#include <math.h>
#include <string.h>

int ln_dtype_parse(const char *s)
{
    for (int t = 0; t < LN_NDTYPES; t++)
        if (strcmp(s, ln_fmt((ln_dtype)t)->name) == 0) return t;
    return -1;
}

double ln_ulp(ln_dtype t, double v)
{
    const ln_format *f = ln_fmt(t);
    int e = f->emin;
    if (v != 0 && isfinite(v)) {
        int ev = ilogb(v);
        if (ev > e) e = ev;
    }
    return ldexp(1.0, e - f->p + 1);
}

double ln_unit_roundoff(ln_dtype t) { return ldexp(1.0, -ln_fmt(t)->p); }

/* Round finite v to format f by scaling its ulp to 1 and using rint (round to nearest even in
 * the default rounding mode): exact for every 16-bit format, whose range lies well inside
 * double's. Returns the rounded value, +-Inf on overflow. */
static double round_to_format(const ln_format *f, double v)
{
    if (v == 0 || !isfinite(v)) return v;
    int e = ilogb(v);
    if (e < f->emin) e = f->emin;
    double r = ldexp(rint(ldexp(v, f->p - 1 - e)), e - f->p + 1);
    double max = ldexp(2.0 - ldexp(1.0, 1 - f->p), f->emax);
    if (fabs(r) > max) r = copysign(INFINITY, v);
    return r;
}

/* Encode a value already representable in the 16-bit format f (1 sign, ebits, p-1 fraction). */
static uint16_t encode16(const ln_format *f, double r)
{
    int ebits = 15 - (f->p - 1);
    int bias = (1 << (ebits - 1)) - 1;
    uint16_t sign = signbit(r) ? 0x8000 : 0;
    uint16_t emask = (uint16_t)(((1 << ebits) - 1) << (f->p - 1));
    if (isnan(r)) return sign | emask | (uint16_t)(1u << (f->p - 2)); /* quiet NaN */
    if (isinf(r)) return sign | emask;
    r = fabs(r);
    if (r == 0) return sign;
    int e = ilogb(r);
    if (e < f->emin) /* subnormal: fraction counts units of the smallest subnormal */
        return sign | (uint16_t)ldexp(r, f->p - 1 - f->emin);
    uint16_t frac = (uint16_t)(ldexp(r, f->p - 1 - e) - ldexp(1.0, f->p - 1));
    return sign | (uint16_t)((e + bias) << (f->p - 1)) | frac;
}

static double decode16(const ln_format *f, uint16_t h)
{
    int ebits = 15 - (f->p - 1);
    int bias = (1 << (ebits - 1)) - 1;
    int ef = (h >> (f->p - 1)) & ((1 << ebits) - 1);
    unsigned frac = h & ((1u << (f->p - 1)) - 1);
    double s = (h & 0x8000) ? -1.0 : 1.0;
    if (ef == (1 << ebits) - 1) return frac ? NAN : s * INFINITY;
    if (ef == 0) return s * ldexp(frac, f->emin - (f->p - 1));
    return s * ldexp(frac + ldexp(1.0, f->p - 1), ef - bias - (f->p - 1));
}

uint16_t ln_f64_to_f16(double v) { return encode16(ln_fmt(LN_F16), round_to_format(ln_fmt(LN_F16), v)); }
uint16_t ln_f64_to_bf16(double v) { return encode16(ln_fmt(LN_BF16), round_to_format(ln_fmt(LN_BF16), v)); }
double ln_f16_to_f64(uint16_t h) { return decode16(ln_fmt(LN_F16), h); }
double ln_bf16_to_f64(uint16_t h) { return decode16(ln_fmt(LN_BF16), h); }

double ln_load(ln_dtype t, const void *p, size_t i)
{
    switch (t) {
    case LN_F64: return ((const double *)p)[i];
    case LN_F32: return ((const float *)p)[i];
    case LN_F16: return ln_f16_to_f64(((const uint16_t *)p)[i]);
    case LN_BF16: return ln_bf16_to_f64(((const uint16_t *)p)[i]);
    default: return NAN;
    }
}

void ln_store(ln_dtype t, void *p, size_t i, double v)
{
    switch (t) {
    case LN_F64: ((double *)p)[i] = v; break;
    case LN_F32: ((float *)p)[i] = (float)v; break;
    case LN_F16: ((uint16_t *)p)[i] = ln_f64_to_f16(v); break;
    case LN_BF16: ((uint16_t *)p)[i] = ln_f64_to_bf16(v); break;
    default: break;
    }
}
