/* The ops' reference entry points of kernels/ops.def: one signature over the roles in table
 * order, so the harness calls any op's reference without naming it. */
#include "reference.h"

static void forward_rows(int centred, ln_dtype t, size_t rows, size_t D, double eps, const void *const *in,
                         const ln_ref_out *out, ln_ref_stats *st)
{
    size_t size = ln_fmt(t)->size;
    for (size_t r = 0; r < rows; r++)
        (centred ? ln_ref_row : ln_ref_rms_row)(
            t, D, (const char *)in[0] + r * D * size, in[1], in[2], eps, (char *)out[0].rounded + r * D * size,
            out[0].hi ? out[0].hi + r * D : NULL, out[0].lo ? out[0].lo + r * D : NULL, st ? &st[r] : NULL);
}

void ln_ref_layernorm(ln_dtype t, size_t rows, size_t D, double eps, const void *const *in, const ln_ref_out *out,
                      ln_ref_stats *st)
{
    forward_rows(1, t, rows, D, eps, in, out, st);
}

void ln_ref_rmsnorm(ln_dtype t, size_t rows, size_t D, double eps, const void *const *in, const ln_ref_out *out,
                    ln_ref_stats *st)
{
    forward_rows(0, t, rows, D, eps, in, out, st);
}

void ln_ref_layernorm_bwd(ln_dtype t, size_t rows, size_t D, double eps, const void *const *in, const ln_ref_out *out,
                          ln_ref_stats *st)
{
    ln_ref_bwd_rows(1, t, rows, D, in[0], in[2], in[1], eps, out[0].rounded, out[0].hi, out[0].lo, out[1].rounded,
                    out[1].hi, out[1].lo, out[2].rounded, out[2].hi, out[2].lo, st);
}

void ln_ref_rmsnorm_bwd(ln_dtype t, size_t rows, size_t D, double eps, const void *const *in, const ln_ref_out *out,
                        ln_ref_stats *st)
{
    ln_ref_bwd_rows(0, t, rows, D, in[0], in[2], in[1], eps, out[0].rounded, out[0].hi, out[0].lo, out[1].rounded,
                    out[1].hi, out[1].lo, out[2].rounded, out[2].hi, out[2].lo, st);
}

void ln_ref_layernorm_bwd_saved(ln_dtype t, size_t rows, size_t D, double eps, const void *const *in,
                                const ln_ref_out *out, ln_ref_stats *st)
{
    (void)eps, (void)st;
    ln_ref_bwd_saved_rows(1, t, rows, D, in[0], in[2], in[1], in[3], in[4], out[0].rounded, out[0].hi, out[0].lo);
}

void ln_ref_rmsnorm_bwd_saved(ln_dtype t, size_t rows, size_t D, double eps, const void *const *in,
                              const ln_ref_out *out, ln_ref_stats *st)
{
    (void)eps, (void)st;
    ln_ref_bwd_saved_rows(0, t, rows, D, in[0], in[2], in[1], in[3], in[4], out[0].rounded, out[0].hi, out[0].lo);
}
