/* The fp32 fused residual-add kernels' schedule, written once over vec.h for every norm: h = x + r
 * (one fp32 rounding, so h is correctly rounded), y = the plain op's pipelined kernel on the stored
 * h, bit for bit, and its bound (the reference normalises the stored h too).
 *
 * In cache: rows in blocks of 16 KiB of h, each block added and then normalised by the plain op's
 * forward while it is in L1. From memory (the plain op's stream_min_bytes): a two-row pipeline, one loop normalizing
 * row r and adding row r+1, whose h goes to memory with non-temporal stores and into a cached
 * scratch row that the sums and the next normalization read. So memory
 * sees x and r read and h and y written once each: four element sizes, with no read-for-ownership
 * of h or y. In place (h over r, y over x) is safe: each row of x and r is read before the row's
 * h and y are written.
 *
 * The norm (f32-add-rmsnorm.h, f32-add-layernorm.h) defines, before including this file:
 *   add_sums, add_coef        a row's sums and the coefficients its normalization uses;
 *   add_vcoef, add_acc        the coefficients as vectors, the pipeline's running sums;
 *   add_row_sums(s, n, q)     the sums of a cached row of h alone;
 *   add_acc_start(h0, m)      the running sums' start for the next row from its first m = min(n, W)
 *                             elements of h (its shift, say);
 *   add_acc_step(A, c, d)     d, the c-th of four vectors of h, into the running sums;
 *   add_acc_finish(A, s1, n, j, q)  the sums of s1[j..n) added and the row's sums out, grouped as
 *                             add_row_sums groups them (so the bits do not depend on the schedule);
 *   add_stats(q, n, eps, c)   the coefficients from the sums; 0: the row goes to add_fallback;
 *   add_fallback(a, q, s0, y, mean, rstd)  such a row (its sums q), y streamed, its statistics out;
 *   add_vcoef_of(c), add_out(s0, g, b, i, v, G, B), add_part(s0, g, b, i, m, v, G, B),
 *   add_normalize_from(s0, y, g, b, i, n, v, G, B)   one output vector, its first m elements,
 *                             outputs i..n-1 streamed (y + i vector-aligned);
 *   add_normalize(s0, y, g, b, n, c)  a whole row, streamed;
 *   add_coef_stats(c, mean, rstd)     the statistics the row reports;
 *   ADD_NORM_PLAIN, ADD_NORM_TUNABLES, ADD_NORM_BOUND the plain op's forward, tunables and bound.
 * With ADD_HALF_DTYPE defined first, the same schedule on 16-bit x and y (the element layer
 * below) defines the mixed-format kernels instead (LN_MIXED_PIPELINE_KERNEL). */
#ifndef LN_SIMD_F32_ADD_PIPELINE_H
#define LN_SIMD_F32_ADD_PIPELINE_H

#include <stdlib.h>

#include "f32-add.h"
#include "f32-passes.h"

/* The element layer of x and y. fp32; or, with ADD_HALF_DTYPE defined (LN_F16 or LN_BF16: the
 * mixed-format kernels, add-norm.h), 16-bit x widened exactly as it is loaded and 16-bit y rounded
 * once as it is stored, through the 16-bit block layer (half-vec.h), with gamma and beta rows the
 * caller widened to fp32: y is then the fp32 kernel's output rounded once, in one pass over
 * memory. add_x2 / add_y2: two vectors (one 16-bit block) of x at j, of y at i; add_h_first: the
 * first min(n, W) elements of h = x + r (the rest 0); add_y_rest: outputs i..n-1 of a row of n,
 * non-temporal on the row's whole lines (y + i vector-aligned); add_y_row: a whole
 * row (coefficients c; a 16-bit row goes through the fp32 scratch row sy); add_y_fallback: a
 * row the norm cannot take in fp32 (likewise); add_x_row_from: h = x + r from j. */
#ifndef ADD_HALF_DTYPE
typedef float add_xy_t;
LN_INLINE void add_x2(const float *x, size_t j, vf *a, vf *b)
{
    *a = vf_load_mem(x + j), *b = vf_load_mem(x + j + VF_W);
}
LN_INLINE void add_y2(float *y, size_t i, vf a, vf b, int stream)
{
    if (stream) vf_stream(y + i, a), vf_stream(y + i + VF_W, b);
    else vf_store(y + i, a), vf_store(y + i + VF_W, b);
}
LN_INLINE vf add_h_first(const float *x, const float *r, size_t m)
{
    return vf_add(vf_load_part(x, m), vf_load_part(r, m));
}
LN_INLINE void add_y_rest(const float *s0, float *y, const float *g, const float *b, size_t i, size_t n, add_vcoef vc,
                          int has_g, int has_b)
{
    add_normalize_from(s0, y, g, b, i, n, vc, has_g, has_b);
}
static void add_y_row(const float *s0, float *y, const float *g, const float *b, size_t n, add_coef c, float *sy)
{
    (void)sy, add_normalize(s0, y, g, b, n, c);
}
static void add_y_fallback(const ln_args *a, const add_sums *q, const float *s0, float *y, float *sy, double *mean,
                           double *rstd)
{
    (void)sy, add_fallback(a, q, s0, y, mean, rstd);
}
LN_INLINE void add_x_row_from(const float *x, const float *r, float *h, float *s, size_t j, size_t n, int stream_h)
{
    add_row_from(x, r, h, s, j, n, stream_h);
}
#else
#include "mixed-add.h"

typedef uint16_t add_xy_t;
LN_INLINE void add_x2(const uint16_t *x, size_t j, vf *a, vf *b)
{
    const vf_pair v = half_block_in_order(ADD_HALF_DTYPE, half_block_load(ADD_HALF_DTYPE, x + j));
    *a = v.a, *b = v.b;
}
LN_INLINE void add_y2(uint16_t *y, size_t i, vf a, vf b, int stream)
{
    half_block_store(ADD_HALF_DTYPE, y + i, half_block_of_order(ADD_HALF_DTYPE, (vf_pair){a, b}),
                     stream ? HALF_STREAM_LINE : 0);
}
LN_INLINE vf add_h_first(const uint16_t *x, const float *r, size_t m)
{
    return vf_add(half_block_in_order(ADD_HALF_DTYPE, half_block_load_part(ADD_HALF_DTYPE, x, m)).a,
                  vf_load_part(r, m));
}
/* Outputs i..e-1 (e - i <= ADD_Y_PART: under a line or a block) through fp32 scratch, rounded once */
#define ADD_Y_PART (HB > 32 ? HB : 32)
LN_INLINE void add_y_part(const float *s0, uint16_t *y, const float *g, const float *b, size_t i, size_t e,
                          add_vcoef vc, int has_g, int has_b)
{
    float t[ADD_Y_PART] __attribute__((aligned(64)));
    for (size_t k = 0; i + k < e; k += VF_W)
        vf_store(t + k, add_part(s0, g, b, i + k, e - i - k < VF_W ? e - i - k : VF_W, vc, has_g, has_b));
    mixed_narrow_run(ADD_HALF_DTYPE, t, y + i, e - i, 0);
}
/* 16-bit rows stream the blocks of the whole 64-byte lines they cover (vec_stream_lines), and the
 * line the row ends in (shared with the next row's lead) takes plain stores. Rows that did not
 * start on a line once stored every block plain: 2000-byte bf16 rows ran at 0.7-0.85x the
 * 2048-byte ones from memory (Zen 3). */
LN_INLINE void add_y_rest(const float *s0, uint16_t *y, const float *g, const float *b, size_t i, size_t n,
                          add_vcoef vc, int has_g, int has_b)
{
    const vec_lines l = vec_stream_lines(y, n, sizeof *y);
    for (; i + HB <= n; i += HB)
        add_y2(y, i, add_out(s0, g, b, i, vc, has_g, has_b), add_out(s0, g, b, i + VF_W, vc, has_g, has_b),
               vec_on_lines(l, i, HB));
    if (i < n) add_y_part(s0, y, g, b, i, n, vc, has_g, has_b);
}
static void add_y_row(const float *s0, uint16_t *y, const float *g, const float *b, size_t n, add_coef c, float *sy)
{
    add_normalize(s0, sy, g, b, n, c);
    mixed_narrow_run(ADD_HALF_DTYPE, sy, y, n, 0);
}
static void add_y_fallback(const ln_args *a, const add_sums *q, const float *s0, uint16_t *y, float *sy, double *mean,
                           double *rstd)
{
    add_fallback(a, q, s0, sy, mean, rstd);
    mixed_narrow_run(ADD_HALF_DTYPE, sy, y, a->D, 0);
}
LN_INLINE void add_x_row_from(const uint16_t *x, const float *r, float *h, float *s, size_t j, size_t n, int stream_h)
{
    mixed_add_from(ADD_HALF_DTYPE, x, r, h, s, j, n, stream_h);
}
#endif

/* The outputs before y's first whole line, with plain stores (add_y_rest over them alone: no
 * whole line to stream); returns their count. */
LN_INLINE size_t add_y_lead(const float *s0, add_xy_t *y, const float *g, const float *b, size_t n, add_vcoef vc,
                            int has_g, int has_b)
{
    const size_t i = vec_stream_lines(y, n, sizeof *y).lo;
    add_y_rest(s0, y, g, b, 0, i, vc, has_g, has_b);
    return i;
}

/* The columns of y that go before the loop: from its stream lead i, whole 64-byte lines of y
 * until no load of row r+1 (x1, and r1 when of y's size: streams of another element size drift
 * apart) falls in page offset within VEC_ALIAS_BYTES after a store to y just made (4K aliasing,
 * vec-tail.h): where rows are a little short of a multiple of 4 KiB (fp32 D 1000, 1008), each
 * load fell 96 or 64 bytes behind the y stores and the pipeline ran at a third of its speed
 * (docs/simd.md). Each jump clears one stream's window, so a few passes settle it; i if they do
 * not, or past the row. */
static size_t add_y_ahead(const add_xy_t *y, const add_xy_t *x1, const float *r1, size_t i, size_t n)
{
    const size_t size = sizeof(add_xy_t), line = VEC_LINE_BYTES, unit = line / size, page = VEC_PAGE_BYTES;
    const uintptr_t loads[2] = {(uintptr_t)x1, (uintptr_t)r1};
    const size_t nl = size == sizeof(float) ? 2 : 1;
    size_t l = i;
    for (int pass = 0; pass < 4; pass++) {
        int moved = 0;
        for (size_t k = 0; k < nl; k++) {
            const size_t back = ((uintptr_t)y + l * size - loads[k]) % page; /* the store a load meets */
            if (back && back < VEC_ALIAS_BYTES) l += (VEC_ALIAS_BYTES - back + line - 1) / line * unit, moved = 1;
        }
        if (!moved) return l <= n ? l : i;
    }
    return i;
}

/* One loop over two rows: normalizes row r of h from the scratch row s into y (streamed) while
 * adding the next row x1 + r1 into h1 and over s, and taking its sums into *q. Element j of row
 * r+1 is stored after element j of row r is read (i >= j: i is ahead by y's stream lead and
 * add_y_ahead's lines), and the rest of row r (add_y_rest) is read before the rest of row r+1 is
 * written. No prefetch of the row after: measured on add-rmsnorm, it made no difference here. */
LN_INLINE void add_pipeline_body(float *s, add_xy_t *y, const float *g, const float *b, add_coef cf, const add_xy_t *x1,
                                 const float *r1, float *h1, size_t n, add_sums *q, int stream_h, int has_g, int has_b)
{
    const add_vcoef vc = add_vcoef_of(cf);
    add_acc A = add_acc_start(add_h_first(x1, r1, n < VF_W ? n : VF_W), n < VF_W ? n : VF_W);
    const size_t lead = add_y_lead(s, y, g, b, n, vc, has_g, has_b);
    size_t i = add_y_ahead(y, x1, r1, lead, n), j = 0; /* i walks row r and y, j row r+1 */
    /* y + i is on a line: the loop streams y up to the row's last whole line, add_y_rest the rest */
    const size_t end = vec_stream_lines(y, n, sizeof *y).hi;
    const vec_lines lh = vec_stream_lines(h1, n, sizeof *h1);
    if (i > lead) add_y_rest(s, y, g, b, lead, i, vc, has_g, has_b);
#define H(c, d)                                    \
    do {                                           \
        vf_store(s + j + (c)*VF_W, d);             \
        vf_put(h1, j + (c)*VF_W, d, lh, stream_h); \
        add_acc_step(&A, c, d);                    \
    } while (0)
#define STAGE2(c)                                                               \
    do {                                                                        \
        vf v0 = add_out(s, g, b, i + c * VF_W, vc, has_g, has_b);               \
        vf v1 = add_out(s, g, b, i + (c + 1) * VF_W, vc, has_g, has_b), xa, xb; \
        add_x2(x1, j + c * VF_W, &xa, &xb);                                     \
        H(c, vf_add(xa, vf_load_mem(r1 + j + c * VF_W)));                       \
        H(c + 1, vf_add(xb, vf_load_mem(r1 + j + (c + 1) * VF_W)));             \
        add_y2(y, i + c * VF_W, v0, v1, 1);                                     \
    } while (0)
    for (; i + 4 * VF_W <= end; i += 4 * VF_W, j += 4 * VF_W) {
        STAGE2(0);
        STAGE2(2);
    }
#undef STAGE2
#undef H
    add_y_rest(s, y, g, b, i, n, vc, has_g, has_b);
    add_x_row_from(x1, r1, h1, s, j, n, stream_h);
    add_acc_finish(&A, s, n, j, q);
}

/* h streams when every row of it starts on a vector boundary (h does and D is a multiple of the
 * width); else every row takes plain stores. Streaming only the rows that start on one (fp32 D
 * 1032 under AVX-512: every other row) ran at 0.71-0.77 of D 1024 from memory on Zen 5, every
 * row plain at 0.82-0.93 (docs/simd.md). */
LN_INLINE int h_streams(const float *h, size_t n)
{
    return (uintptr_t)h % (VF_W * sizeof(float)) == 0 && n % VF_W == 0;
}

/* From memory: the two-row pipeline over the scratch row s (n floats: row r of h until row r+1
 * is stored over it), which the sums and the normalization read; sy the fp32 outputs of a 16-bit
 * row that leaves the pipeline (unused for fp32 y). */
static void add_norm_streaming(const ln_args *a, float *s, float *sy)
{
    const size_t n = a->D, rows = a->rows;
    const add_xy_t *X = a->x;
    const float *R = a->r, *g = a->gamma, *b = a->beta;
    float *H = a->h;
    add_xy_t *Y = a->y;
    add_sums q;
    const int sh = h_streams(H, n);
    add_x_row_from(X, R, H, s, 0, n, sh);
    add_row_sums(s, n, &q);
    for (size_t r = 0; r < rows; r++) {
        const add_xy_t *x1 = X + (r + 1) * n;
        const float *r1 = R + (r + 1) * n;
        float *h1 = H + (r + 1) * n;
        add_xy_t *y = Y + r * n;
        double mean_out, rstd_out;
        add_coef cf;
        const int ok = add_stats(&q, n, a->eps, &cf);
        if (ok) add_coef_stats(cf, &mean_out, &rstd_out);
        else add_y_fallback(a, &q, s, y, sy, &mean_out, &rstd_out); /* on the scratch copy of h */
        if (ok && r + 1 < rows) {
#define CASE(G, B) add_pipeline_body(s, y, g, b, cf, x1, r1, h1, n, &q, sh, G, B)
            LN_SPECIALIZE_GB(g, b, CASE);
#undef CASE
        } else {
            if (ok) add_y_row(s, y, g, b, n, cf, sy);
            if (r + 1 < rows) add_x_row_from(x1, r1, h1, s, 0, n, sh), add_row_sums(s, n, &q);
        }
        if (a->mean) a->mean[r] = mean_out;
        if (a->rstd) a->rstd[r] = rstd_out;
    }
    vec_stream_fence();
}

/* The fused forward over the plain op's forward ADD_NORM_PLAIN, whose tunables ADD_NORM_TUNABLES
 * (the streaming threshold first) the fused kernel shares. In cache a block holds ADD_BLOCK_BYTES
 * of h, but at least ADD_MIN_BLOCK_ROWS rows: a norm whose plain forward has a cost per call
 * (f32-accurate widens gamma and beta) sets it, so that the cost is not paid row by row. */
#define ADD_BLOCK_BYTES (16 << 10)
#ifndef ADD_MIN_BLOCK_ROWS
#define ADD_MIN_BLOCK_ROWS 1
#endif

/* The scratch rows of add_norm_streaming (64-byte aligned), or NULL: s, returned, and *sy. One
 * row of h, each element of row r+1 stored over row r's once it is read: a second row doubled the
 * cached footprint beside gamma's (48 KiB at D 4096, past a 32 KiB L1) and cost 10-25% from memory
 * at D 1024-16384 in a stand-alone loop on Zen 4 (docs/simd.md). */
static float *add_scratch_rows(size_t n, float **sy)
{
    const size_t row = (n * sizeof(float) + 63) / 64 * 64 / sizeof(float);
    float *p = aligned_alloc(64, 2 * row * sizeof(float));
    *sy = p ? p + row : NULL;
    return p;
}

#ifndef ADD_HALF_DTYPE
static void add_norm_forward(const ln_args *a)
{
    if (a->D == 0 || a->rows == 0) return;
    const int stream = ln_tune_streams(a->rows, a->D, sizeof(float), ln_param(a, ADD_NORM_TUNABLES, 0));
    float *sy, *p = stream ? add_scratch_rows(a->D, &sy) : NULL;
    if (p) {
        add_norm_streaming(a, p, sy);
        free(p);
        return;
    }
    /* in cache (or no scratch rows to be had): blocks of rows with ADD_BLOCK_BYTES of h (at least a
     * row), each added and then normalized while it is in L1, where adding every row first left h
     * to be read back from L2 or L3 (1 MiB of x: 0.7-0.85x the one-row calls before) */
    const size_t n = a->D, fit = ADD_BLOCK_BYTES / (n * sizeof(float));
    const size_t block = fit > ADD_MIN_BLOCK_ROWS ? fit : ADD_MIN_BLOCK_ROWS;
    const float *X = a->x, *R = a->r;
    float *H = a->h;
    for (size_t r0 = 0; r0 < a->rows; r0 += block) {
        const size_t cnt = a->rows - r0 < block ? a->rows - r0 : block;
        add_row_from(X + r0 * n, R + r0 * n, H + r0 * n, NULL, 0, cnt * n, 0);
        ln_args h = ln_add_norm_rows(LN_F32, a, H + r0 * n, r0, cnt);
        ADD_NORM_PLAIN(&h);
    }
}
#else
/* The mixed-format kernel's forward: from memory the pipeline above on 16-bit x and y (gamma and
 * beta widened once), in cache ln_mixed_add_norm's blocks over the plain fp32 forward. The same
 * bits either way: each y is the plain fp32 kernel's output on the stored h, rounded once. */
static void add_norm_mixed_forward(const ln_args *a)
{
    const size_t nt = sizeof ADD_NORM_TUNABLES / sizeof *ADD_NORM_TUNABLES;
    float *sy, *p = NULL;
    if (a->D && a->rows && ln_mixed_streams(a, ADD_NORM_TUNABLES, nt)) p = add_scratch_rows(a->D, &sy);
    if (!p) {
        ln_mixed_add_norm(ADD_HALF_DTYPE, a, mixed_add_run, mixed_narrow_run, ADD_NORM_PLAIN, ADD_NORM_TUNABLES, nt);
        return;
    }
    ln_args w = *a;
    float *gw = ln_mixed_widen(ADD_HALF_DTYPE, a->gamma, a->D), *bw = ln_mixed_widen(ADD_HALF_DTYPE, a->beta, a->D);
    w.gamma = gw, w.beta = bw;
    add_norm_streaming(&w, p, sy);
    free(p), free(gw), free(bw);
}

/* The mixed-format kernel ln_<id> of this file's op on ADD_HALF_DTYPE rows, its bound the plain
 * fp32 kernel's plus the final rounding (ln_mixed_bound). */
#define LN_MIXED_PIPELINE_KERNEL(id, name, isa, op, domain, agrees, how)                                              \
    LN_MIXED_KERNEL_DEFINE(id, name, ADD_HALF_DTYPE, isa, op, add_norm_mixed_forward, ADD_NORM_BOUND, domain, agrees, \
                           how)
#endif

#endif
