/* The ops' reference entry points of kernels/ops.def: one signature over the roles in table
 * order, so the harness calls any op's reference without naming it. */
#include <math.h>
#include <stdlib.h>

#include "ref_mpfr.h"
#include "reference.h"

/* The forward ops' rows on x of format xt (t, or the fused ops' fp32 h), y in t. */
static void forward_rows(int centred, ln_dtype t, ln_dtype xt, size_t rows, size_t D, double eps, const void *const *in,
                         const ln_ref_out *out, ln_ref_stats *st)
{
    size_t size = ln_fmt(t)->size, xsize = ln_fmt(xt)->size;
    for (size_t r = 0; r < rows; r++)
        ln_ref_norm_row(centred, t, xt, D, (const char *)in[0] + r * D * xsize, in[1], in[2], eps,
                        (char *)out[0].rounded + r * D * size, out[0].hi ? out[0].hi + r * D : NULL,
                        out[0].lo ? out[0].lo + r * D : NULL, st ? &st[r] : NULL);
}

/* An entry point over one of the row loops, centring or not. */
/* The plain forward ops: x in t (rt is the fused ops' alone). */
static void plain_rows(int centred, ln_dtype t, ln_dtype rt, size_t rows, size_t D, double eps, const void *const *in,
                       const ln_ref_out *out, ln_ref_stats *st)
{
    (void)rt;
    forward_rows(centred, t, t, rows, D, eps, in, out, st);
}

#define LN_REF_ENTRY(name, rows_fn, centred)                                                     \
    void name(ln_dtype t, ln_dtype rt, size_t rows, size_t D, double eps, const void *const *in, \
              const ln_ref_out *out, ln_ref_stats *st)                                           \
    {                                                                                            \
        rows_fn(centred, t, rt, rows, D, eps, in, out, st);                                      \
    }

LN_REF_ENTRY(ln_ref_layernorm, plain_rows, 1)
LN_REF_ENTRY(ln_ref_rmsnorm, plain_rows, 0)

/* h = x + r over n elements, x of format t and r of format rt, the exact sum rounded once to rt
 * (h), and as hi + lo
 * (the sum of two floating-point numbers is exact in MPFR; hi + lo holds it whenever it is within
 * double's range). A non-finite operand gives IEEE's sum, taken as exact. */
static void add_elements(ln_dtype t, ln_dtype rt, size_t n, const void *x, const void *r, void *h, double *hi,
                         double *lo)
{
    mpfr_t a, b, s;
    mpfr_inits2(53, a, b, (mpfr_ptr)0);
    mpfr_init2(s, 53);
    for (size_t i = 0; i < n; i++) {
        double xv = ln_load(t, x, i), rv = ln_load(rt, r, i), v = xv + rv, l = 0;
        if (isfinite(xv) && isfinite(rv)) {
            mpfr_set_d(a, xv, MPFR_RNDN), mpfr_set_d(b, rv, MPFR_RNDN); /* exact: every format is in double */
            ln_mpfr_exact_add(s, a, b);
            ln_store(rt, h, i, ln_mpfr_round(s, rt));
            v = mpfr_get_d(s, MPFR_RNDN);
            if (isfinite(v)) {
                mpfr_sub_d(s, s, v, MPFR_RNDN); /* exact: the tail's bits are among s's */
                l = mpfr_get_d(s, MPFR_RNDN);
            }
        } else ln_store(rt, h, i, v);
        if (hi) hi[i] = v;
        if (lo) lo[i] = l;
    }
    mpfr_clears(a, b, s, (mpfr_ptr)0);
}

/* The fused residual-add ops: h = x + r rounded once to the residual format rt (out[1]), then
 * the forward op's row reference on the stored h (out[0]), y correctly rounded to t, so y is the
 * correctly rounded norm of what the kernel normalises; st are h's statistics. */
static void add_norm_rows(int centred, ln_dtype t, ln_dtype rt, size_t rows, size_t D, double eps,
                          const void *const *in, const ln_ref_out *out, ln_ref_stats *st)
{
    size_t n = rows * D;
    void *h = out[1].rounded ? out[1].rounded : malloc(n * ln_fmt(rt)->size + 1);
    if (!h) abort();
    add_elements(t, rt, n, in[0], in[1], h, out[1].hi, out[1].lo);
    const void *norm_in[] = {h, in[2], in[3]};
    forward_rows(centred, t, rt, rows, D, eps, norm_in, out, st);
    if (h != out[1].rounded) free(h);
}

LN_REF_ENTRY(ln_ref_add_rmsnorm, add_norm_rows, 0)
LN_REF_ENTRY(ln_ref_add_layernorm, add_norm_rows, 1)

void ln_ref_layernorm_bwd(ln_dtype t, ln_dtype rt, size_t rows, size_t D, double eps, const void *const *in,
                          const ln_ref_out *out, ln_ref_stats *st)
{
    (void)rt;
    ln_ref_bwd_rows(1, t, rows, D, in[0], in[2], in[1], eps, out[0].rounded, out[0].hi, out[0].lo, out[1].rounded,
                    out[1].hi, out[1].lo, out[2].rounded, out[2].hi, out[2].lo, st);
}

void ln_ref_rmsnorm_bwd(ln_dtype t, ln_dtype rt, size_t rows, size_t D, double eps, const void *const *in,
                        const ln_ref_out *out, ln_ref_stats *st)
{
    (void)rt;
    ln_ref_bwd_rows(0, t, rows, D, in[0], in[2], in[1], eps, out[0].rounded, out[0].hi, out[0].lo, out[1].rounded,
                    out[1].hi, out[1].lo, out[2].rounded, out[2].hi, out[2].lo, st);
}

void ln_ref_layernorm_bwd_saved(ln_dtype t, ln_dtype rt, size_t rows, size_t D, double eps, const void *const *in,
                                const ln_ref_out *out, ln_ref_stats *st)
{
    (void)rt, (void)eps, (void)st;
    ln_ref_bwd_saved_rows(1, t, rows, D, in[0], in[2], in[1], in[3], in[4], out[0].rounded, out[0].hi, out[0].lo);
}

void ln_ref_rmsnorm_bwd_saved(ln_dtype t, ln_dtype rt, size_t rows, size_t D, double eps, const void *const *in,
                              const ln_ref_out *out, ln_ref_stats *st)
{
    (void)rt, (void)eps, (void)st;
    ln_ref_bwd_saved_rows(0, t, rows, D, in[0], in[2], in[1], in[3], in[4], out[0].rounded, out[0].hi, out[0].lo);
}
