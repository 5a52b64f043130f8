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

#include <stdlib.h>

#include "half.h"
#include "kernel.h"
#include "simd/tunables.h"

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

/* A fused kernel's forward over norm, the forward of a plain op's kernel (format t): for each row,
 * h = x + r by add, then norm on that row of h (one-row calls, so its statistics land in row r). */
static inline void ln_add_norm_forward(ln_dtype t, ln_add_fn *add, void (*norm)(const ln_args *), const ln_args *a)
{
    const size_t D = a->D, es = ln_fmt(t)->size;
    for (size_t r = 0; r < a->rows && D; r++) {
        add(t, a, r * D, (r + 1) * D);
        ln_args row = ln_add_norm_rows(t, a, (const char *)a->h + r * D * es, r, 1);
        norm(&row);
    }
}

/* Defines the fused kernel ln_<id> over the plain op's kernel ln_<base> (same dtype and ISA), h by
 * add: its bound and domain are base's (the reference normalises the stored h), how says both. */
#define LN_ADD_NORM_KERNEL(id, name, dtype, isa, op, add, base, domain, agrees, how)                      \
    extern const ln_kernel ln_##base;                                                                     \
    static void id##_forward(const ln_args *a) { ln_add_norm_forward(dtype, add, ln_##base.forward, a); } \
    static double id##_bound(size_t n, double kappa) { return ln_##base.bound(n, kappa); }                \
    LN_KERNEL_DEFINE(ln_##id, name, dtype, isa, op, id##_forward, id##_bound, domain, agrees, LN_NO_TUNABLES, how)

/* The mixed-format fused kernels (docs/lowp.md): 16-bit x, gamma, beta and y (format t), fp32 r
 * and h (ln_kernel.resid LN_F32), as engines that keep the residual stream in fp32 run it. x is
 * widened exactly and added to r in fp32, so h is the exact sum rounded once to fp32 (correctly
 * rounded); y is an fp32 kernel of the plain op on the stored h, its fp32 output rounded once to
 * t. So the bound of y is the fp32 kernel's, in fp32's u, plus the final rounding (ln_mixed_bound).
 *
 * add(t, x, r, h, s, n, stream): h = x + r over n elements (non-temporal stores when stream: h
 * then vector-aligned), and into the cached copy s unless NULL; narrow(t, s, y, n, stream): the
 * fp32 values s rounded to t into y (with stream: non-temporal stores where y is 64-byte aligned,
 * and a store fence, which orders the block's streamed h too). */
typedef void ln_mixed_add_fn(ln_dtype t, const uint16_t *x, const float *r, float *h, float *s, size_t n, int stream);
typedef void ln_mixed_narrow_fn(ln_dtype t, const float *s, uint16_t *y, size_t n, int stream);

/* The portable add and narrow (scalar kernels; each vector layer has its own). */
static inline void ln_mixed_add_elements(ln_dtype t, const uint16_t *x, const float *r, float *h, float *s, size_t n,
                                         int stream)
{
    (void)stream;
    for (size_t i = 0; i < n; i++) {
        float v = ln_half_load(t, x, i) + r[i];
        h[i] = v;
        if (s) s[i] = v;
    }
}
static inline void ln_mixed_narrow_elements(ln_dtype t, const float *s, uint16_t *y, size_t n, int stream)
{
    (void)stream;
    for (size_t i = 0; i < n; i++) ln_half_store(t, y, i, s[i]);
}

/* The bound of y in t's u from the fp32 kernel's b32 (in fp32's u), M = max |y_exact|: the fp32
 * y is within b32 u32 M, and rounding it to t adds u_t (|y| + b32 u32 M) at most. */
static inline double ln_mixed_bound(ln_dtype t, double b32)
{
    const double u32 = 0x1p-24, ut = t == LN_F16 ? 0x1p-11 : 0x1p-8;
    return 1 + b32 * u32 * (1 / ut + 1);
}

#define LN_MIXED_BLOCK_BYTES (16 << 10)
#define LN_MIXED_MAX_TUNABLES 16

static inline float *ln_mixed_scratch(size_t n)
{
    float *p = aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64);
    if (!p) abort(); /* a kernel has no way to report failure; a few KiB per call */
    return p;
}

/* gamma or beta (D elements of t, or NULL) widened exactly into a scratch row, or NULL. */
static inline float *ln_mixed_widen(ln_dtype t, const void *v, size_t D)
{
    if (!v) return NULL;
    float *w = ln_mixed_scratch(D);
    for (size_t i = 0; i < D; i++) w[i] = ln_half_load(t, v, i);
    return w;
}

/* Whether a mixed-format call streams: the fp32 kernel's default streaming threshold (the first of
 * its nt tunables tun) on the bytes of y. */
static inline int ln_mixed_streams(const ln_args *a, const ln_tunable *tun, size_t nt)
{
    return nt && ln_tune_streams(a->rows, a->D, sizeof(uint16_t), tun[0].def);
}

/* A mixed-format kernel's forward over the plain op's fp32 forward (its nt tunables tun): rows in
 * blocks of LN_MIXED_BLOCK_BYTES of h, each added, normalised by forward into an fp32 scratch
 * block while h is in L1/L2, and narrowed into y. forward runs with its default tunables but
 * never streams (its y is the scratch); from memory (ln_mixed_streams) h and y stream instead,
 * and forward reads a cached copy of h. The SIMD kernels take this path in cache only: from
 * memory they run f32-add-pipeline.h's pipeline on 16-bit x and y. In place (h over r, y over x)
 * is safe: a block's x and r are read before its h and y are written. */
static inline void ln_mixed_add_norm(ln_dtype t, const ln_args *a, ln_mixed_add_fn *add, ln_mixed_narrow_fn *narrow,
                                     void (*forward)(const ln_args *), const ln_tunable *tun, size_t n_tun)
{
    const size_t n = a->D, rows = a->rows;
    if (n == 0 || rows == 0) return;
    int p[LN_MIXED_MAX_TUNABLES];
    const size_t nt = n_tun < LN_MIXED_MAX_TUNABLES ? n_tun : LN_MIXED_MAX_TUNABLES;
    for (size_t i = 0; i < nt; i++) p[i] = tun[i].def;
    const int stream = ln_mixed_streams(a, tun, nt);
    if (nt) p[0] = LN_TUNE_OFF; /* the tunables begin with the streaming threshold */
    size_t block = LN_MIXED_BLOCK_BYTES / (n * sizeof(float));
    block = block ? block : 1;
    float *ys = ln_mixed_scratch(block * n), *hs = stream ? ln_mixed_scratch(block * n) : NULL;
    float *gw = ln_mixed_widen(t, a->gamma, n), *bw = ln_mixed_widen(t, a->beta, n);
    const uint16_t *X = a->x;
    const float *R = a->r;
    float *H = a->h;
    uint16_t *Y = a->y;
    for (size_t r0 = 0; r0 < rows; r0 += block) {
        const size_t cnt = rows - r0 < block ? rows - r0 : block, o = r0 * n;
        add(t, X + o, R + o, H + o, hs, cnt * n, stream && (uintptr_t)(H + o) % 64 == 0);
        ln_args b = *a;
        b.rows = cnt, b.x = hs ? hs : H + o, b.y = ys, b.gamma = gw, b.beta = bw, b.r = NULL, b.h = NULL;
        b.mean = a->mean ? a->mean + r0 : NULL, b.rstd = a->rstd ? a->rstd + r0 : NULL;
        b.params = nt ? p : NULL;
        forward(&b);
        narrow(t, ys, Y + o, cnt * n, stream);
    }
    free(ys), free(hs), free(gw), free(bw);
}

/* The mixed-format kernel ln_<id> (16-bit dtype, fp32 residual), its forward and bound. */
#define LN_MIXED_KERNEL_DEFINE(id, name, dtype, isa, op, forward, b32, domain, agrees, how)               \
    static double id##_bound(size_t n, double kappa) { return ln_mixed_bound(dtype, b32(n, kappa)); }     \
    const ln_kernel ln_##id = {                                                                           \
        LN_KERNEL_FIELDS(name, dtype, isa, op, forward, id##_bound, domain, agrees, LN_NO_TUNABLES, how), \
        .resid = LN_F32}

/* ln_<id> over the fp32 kernel ln_<base> of the plain op, with the portable add and narrow (the
 * scalar kernels; the SIMD ones are f32-add-pipeline.h's, LN_MIXED_PIPELINE_KERNEL). */
#define LN_MIXED_ADD_NORM_KERNEL(id, name, dtype, isa, op, base, domain, agrees, how)                   \
    extern const ln_kernel ln_##base;                                                                   \
    static void id##_forward(const ln_args *a)                                                          \
    {                                                                                                   \
        ln_mixed_add_norm(dtype, a, ln_mixed_add_elements, ln_mixed_narrow_elements, ln_##base.forward, \
                          ln_##base.tunables, ln_##base.n_tunables);                                    \
    }                                                                                                   \
    static double id##_b32(size_t n, double kappa) { return ln_##base.bound(n, kappa); }                \
    LN_MIXED_KERNEL_DEFINE(id, name, dtype, isa, op, id##_forward, id##_b32, domain, agrees, how)

#endif
