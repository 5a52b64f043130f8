/* The fused residual-add ops (add-rmsnorm, add-layernorm; docs/ops.md): h = x + r rounded once to
 * the storage format and written (the new residual), then y = the plain op's norm of the stored h.
 * A fused kernel is a kernel of the plain op run on h: row by row, so the row of h it normalises
 * is still in L1/L2 when it is read back, and its bound, domain and non-finite promise are the
 * plain kernel's (the reference normalises the stored h too; the harness decides the domain on
 * h's row facts, ops.def's NORMED).
 *
 * h is correctly rounded in every format: fp32 adds once; 16-bit values are widened exactly and
 * added in fp32, whose 24 bits are at least 2p + 1 for p = 11 (f16) and 8 (bf16), so rounding
 * the fp32 sum to 16 bits is the one correct rounding of the exact sum (Figueroa's double-rounding
 * theorem); an fp32 sum beyond FLT_MAX is beyond either format's overflow threshold too.
 * In place is safe: h may alias r and y may alias x (element i of h is written after x_i and r_i
 * are read; the row of y after the row of h is complete). */
#ifndef LN_ADD_NORM_H
#define LN_ADD_NORM_H

#include "half.h"
#include "kernel.h"

/* Elements [lo, hi) of row-major h = x + r in format t, one rounding each: the scalar add and the
 * vector kernels' tails. */
static inline void ln_add_elements(ln_dtype t, const ln_args *a, size_t lo, size_t hi)
{
    for (size_t i = lo; i < hi; i++) {
        if (t == LN_F32) ((float *)a->h)[i] = ((const float *)a->x)[i] + ((const float *)a->r)[i];
        else ln_half_store(t, a->h, i, ln_half_load(t, a->x, i) + ln_half_load(t, a->r, i));
    }
}

/* Elements [lo, hi) of h = x + r (row-major offsets) in format t: ln_add_elements, or a vector
 * layer's loop (simd/f32-add.h, simd/half-add.h). */
typedef void ln_add_fn(ln_dtype t, const ln_args *a, size_t lo, size_t hi);

/* Rows [r0, r0 + cnt) of the call a as a call of the plain op on x (rows of h, or a cached copy of
 * them), its y and statistics at row r0 and no r or h: what a fused kernel hands its norm. */
static inline ln_args ln_add_norm_rows(ln_dtype t, const ln_args *a, const void *x, size_t r0, size_t cnt)
{
    const size_t es = ln_fmt(t)->size;
    ln_args rows = *a;
    rows.rows = cnt;
    rows.x = x;
    rows.y = (char *)a->y + r0 * a->D * es;
    rows.mean = a->mean ? a->mean + r0 : NULL;
    rows.rstd = a->rstd ? a->rstd + r0 : NULL;
    rows.r = NULL, rows.h = NULL;
    return rows;
}

/* A fused kernel's forward over the plain op's kernel k (format t): for each row, h = x + r by
 * add, then k on that row of h (one-row calls, so k's statistics land in row r). */
static inline void ln_add_norm_forward(ln_dtype t, ln_add_fn *add, const ln_kernel *k, const ln_args *a)
{
    const size_t D = a->D, es = ln_fmt(t)->size;
    for (size_t r = 0; r < a->rows && D; r++) {
        add(t, a, r * D, (r + 1) * D);
        ln_args row = ln_add_norm_rows(t, a, (const char *)a->h + r * D * es, r, 1);
        k->forward(&row);
    }
}

/* Defines the fused kernel ln_<id> over the plain op's kernel ln_<base> (same dtype and ISA), h by
 * add: its bound and domain are base's (the reference normalises the stored h), how says both. */
#define LN_ADD_NORM_KERNEL(id, name, dtype, isa, op, add, base, domain, agrees, how)               \
    extern const ln_kernel ln_##base;                                                              \
    static void id##_forward(const ln_args *a) { ln_add_norm_forward(dtype, add, &ln_##base, a); } \
    static double id##_bound(size_t n, double kappa) { return ln_##base.bound(n, kappa); }         \
    LN_KERNEL_DEFINE(ln_##id, name, dtype, isa, op, id##_forward, id##_bound, domain, agrees, LN_NO_TUNABLES, how)

#endif
