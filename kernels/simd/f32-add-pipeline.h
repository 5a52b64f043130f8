/* The fp32 fused residual-add kernels' schedule, written once over vec.h for every norm: h = x + r
 * (one fp32 rounding, so h is correctly rounded), y = the plain op's pipelined kernel on the stored
 * h, bit for bit, and its bound (the reference normalises the stored h too).
 *
 * In cache: rows in blocks of 16 KiB of h, each block added and then normalised by the plain op's
 * forward while it is in L1. From memory (the plain op's stream_min_bytes): a two-row pipeline, one loop normalizing
 * row r and adding row r+1, whose h goes to memory with non-temporal stores and into a cached
 * scratch row (two of them, alternating) that the sums and the next normalization read. So memory
 * sees x and r read and h and y written once each: four element sizes, with no read-for-ownership
 * of h or y. In place (h over r, y over x) is safe: each row of x and r is read before the row's
 * h and y are written.
 *
 * The norm (f32-add-rmsnorm.h, f32-add-layernorm.h) defines, before including this file:
 *   add_sums, add_coef        a row's sums and the coefficients its normalization uses;
 *   add_vcoef, add_acc        the coefficients as vectors, the pipeline's running sums;
 *   add_row_sums(s, n, q)     the sums of a cached row of h alone;
 *   add_acc_start(x1, r1, n)  the running sums' start for the next row (its shift, say);
 *   add_acc_step(A, c, d)     d, the c-th of four vectors of h, into the running sums;
 *   add_acc_finish(A, s1, n, j, q)  the sums of s1[j..n) added and the row's sums out, grouped as
 *                             add_row_sums groups them (so the bits do not depend on the schedule);
 *   add_stats(q, n, eps, c)   the coefficients from the sums; 0: the row goes to add_fallback;
 *   add_fallback(a, s0, y, mean, rstd)  such a row, y streamed, its statistics out;
 *   add_vcoef_of(c), add_out(s0, g, b, i, v, G, B), add_part(s0, g, b, i, m, v, G, B),
 *   add_normalize_from(s0, y, g, b, i, n, v, G, B)   one output vector, its first m elements,
 *                             outputs i..n-1 streamed (y + i vector-aligned);
 *   add_normalize(s0, y, g, b, n, c)  a whole row, streamed;
 *   add_coef_stats(c, mean, rstd)     the statistics the row reports;
 *   ADD_NORM_PLAIN, ADD_NORM_TUNABLES the plain op's forward and its tunables. */
#ifndef LN_SIMD_F32_ADD_PIPELINE_H
#define LN_SIMD_F32_ADD_PIPELINE_H

#include <stdlib.h>

#include "f32-add.h"
#include "f32-passes.h"

/* One loop over two rows: normalizes the scratch row s0 into y (streamed) while adding the next
 * row x1 + r1 into h1 and the scratch row s1 and taking its sums into *q. No prefetch of the row
 * after: measured on add-rmsnorm, it made no difference here. */
LN_INLINE void add_pipeline_body(const float *s0, float *y, const float *g, const float *b, add_coef cf,
                                 const float *x1, const float *r1, float *h1, float *s1, size_t n, add_sums *q,
                                 int stream_h, int has_g, int has_b)
{
    const add_vcoef vc = add_vcoef_of(cf);
    add_acc A = add_acc_start(x1, r1, n);
    size_t i = f32_stream_lead(y, n), j = 0; /* i walks s0 and y, j row r+1 */
    if (i) vf_store_part(y, add_part(s0, g, b, 0, i, vc, has_g, has_b), i);
#define STAGE(c)                                                               \
    do {                                                                       \
        vf v = add_out(s0, g, b, i + c * VF_W, vc, has_g, has_b);              \
        vf d = vf_add(vf_load(x1 + j + c * VF_W), vf_load(r1 + j + c * VF_W)); \
        vf_store(s1 + j + c * VF_W, d);                                        \
        if (stream_h) vf_stream(h1 + j + c * VF_W, d);                         \
        else vf_store(h1 + j + c * VF_W, d);                                   \
        add_acc_step(&A, c, d);                                                \
        vf_stream(y + i + c * VF_W, v);                                        \
    } while (0)
    for (; i + 4 * VF_W <= n; i += 4 * VF_W, j += 4 * VF_W) {
        STAGE(0);
        STAGE(1);
        STAGE(2);
        STAGE(3);
    }
#undef STAGE
    add_normalize_from(s0, y, g, b, i, n, vc, has_g, has_b);
    add_row_from(x1, r1, h1, s1, j, n, stream_h);
    add_acc_finish(&A, s1, n, j, q);
}

/* Row r's h streams when it starts on a vector boundary (every row, when h does and D is a
 * multiple of the width); else plain stores. */
LN_INLINE int h_streams(const float *h) { return (uintptr_t)h % (VF_W * sizeof(float)) == 0; }

/* From memory: the two-row pipeline over the scratch rows s[0], s[1] (n floats each), which hold
 * the rows of h the sums and the normalization read. */
static void add_norm_streaming(const ln_args *a, float *s[2])
{
    const size_t n = a->D, rows = a->rows;
    const float *X = a->x, *R = a->r, *g = a->gamma, *b = a->beta;
    float *H = a->h, *Y = a->y;
    add_sums q;
    add_row_from(X, R, H, s[0], 0, n, h_streams(H));
    add_row_sums(s[0], n, &q);
    for (size_t r = 0; r < rows; r++) {
        const float *x1 = X + (r + 1) * n, *r1 = R + (r + 1) * n;
        float *s0 = s[r % 2], *s1 = s[(r + 1) % 2], *h1 = H + (r + 1) * n, *y = Y + r * n;
        double mean_out, rstd_out;
        add_coef cf;
        const int ok = add_stats(&q, n, a->eps, &cf);
        if (ok) add_coef_stats(cf, &mean_out, &rstd_out);
        else add_fallback(a, s0, y, &mean_out, &rstd_out); /* on the scratch copy of h */
        if (ok && r + 1 < rows) {
            const int sh = h_streams(h1);
#define CASE(G, B) add_pipeline_body(s0, y, g, b, cf, x1, r1, h1, s1, n, &q, sh, G, B)
            LN_SPECIALIZE_GB(g, b, CASE);
#undef CASE
        } else {
            if (ok) add_normalize(s0, y, g, b, n, cf);
            if (r + 1 < rows) add_row_from(x1, r1, h1, s1, 0, n, h_streams(h1)), add_row_sums(s1, n, &q);
        }
        if (a->mean) a->mean[r] = mean_out;
        if (a->rstd) a->rstd[r] = rstd_out;
    }
    vec_stream_fence();
}

/* The fused forward over the plain op's forward ADD_NORM_PLAIN, whose tunables ADD_NORM_TUNABLES
 * (the streaming threshold first) the fused kernel shares. */
#define ADD_BLOCK_BYTES (16 << 10)

static void add_norm_forward(const ln_args *a)
{
    if (a->D == 0 || a->rows == 0) return;
    const int stream = ln_tune_streams(a->rows, a->D, sizeof(float), ln_param(a, ADD_NORM_TUNABLES, 0));
    const size_t row_bytes = (a->D * sizeof(float) + 63) / 64 * 64;
    float *s = stream ? aligned_alloc(64, 2 * row_bytes) : NULL;
    if (s) {
        add_norm_streaming(a, (float *[2]){s, s + row_bytes / sizeof(float)});
        free(s);
        return;
    }
    /* in cache (or no scratch rows to be had): blocks of rows with ADD_BLOCK_BYTES of h (at least a
     * row), each added and then normalized while it is in L1, where adding every row first left h
     * to be read back from L2 or L3 (1 MiB of x: 0.7-0.85x the one-row calls before) */
    const size_t n = a->D, block = ADD_BLOCK_BYTES / (n * sizeof(float)) ? ADD_BLOCK_BYTES / (n * sizeof(float)) : 1;
    const float *X = a->x, *R = a->r;
    float *H = a->h;
    for (size_t r0 = 0; r0 < a->rows; r0 += block) {
        const size_t cnt = a->rows - r0 < block ? a->rows - r0 : block;
        add_row_from(X + r0 * n, R + r0 * n, H + r0 * n, NULL, 0, cnt * n, 0);
        ln_args h = ln_add_norm_rows(LN_F32, a, H + r0 * n, r0, cnt);
        ADD_NORM_PLAIN(&h);
    }
}

#endif
