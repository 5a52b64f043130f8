/* The mixed-format fused kernels' add and narrow over the 16-bit block layer (half-vec.h), for
 * AVX2, AVX-512 and NEON alike: h = x + r with 16-bit x widened exactly and fp32 r (one fp32
 * rounding: h correctly rounded), and fp32 values rounded once to the 16-bit format (y). The
 * schedules are f32-add-pipeline.h's (from memory) and kernels/add-norm.h's ln_mixed_add_norm (in
 * cache, and the scalar kernels' add and narrow are add-norm.h's own). */
#ifndef LN_SIMD_MIXED_ADD_H
#define LN_SIMD_MIXED_ADD_H

#include "add-norm.h"
#include "half-vec.h"

/* ln_mixed_add_fn over the layer: one block of HB elements, put in memory order
 * (half_block_in_order), is two fp32 vectors of r and h. */
LN_INLINE void mixed_put(float *h, float *s, size_t j, vf v, vec_lines l, int stream)
{
    vf_put(h, j, v, l, stream);
    if (s) vf_store(s + j, v);
}

/* Elements j..n-1 of a run of n (h non-temporal on its whole lines when stream). */
LN_INLINE void mixed_add_from(ln_dtype t, const uint16_t *x, const float *r, float *h, float *s, size_t j, size_t n,
                              int stream)
{
    const vec_lines l = vec_stream_lines(h, n, sizeof *h);
    for (; j + HB <= n; j += HB) {
        const vf_pair v = half_block_in_order(t, half_block_load(t, x + j));
        mixed_put(h, s, j, vf_add(v.a, vf_load(r + j)), l, stream);
        mixed_put(h, s, j + VF_W, vf_add(v.b, vf_load(r + j + VF_W)), l, stream);
    }
    if (j < n) { /* the tail: the block's first m elements, its two halves in turn */
        const size_t m = n - j, ma = m < VF_W ? m : VF_W;
        const vf_pair v = half_block_in_order(t, half_block_load_part(t, x + j, m));
        const vf a = vf_add(v.a, vf_load_part(r + j, ma));
        vf_store_part(h + j, a, ma);
        if (s) vf_store_part(s + j, a, ma);
        if (m > VF_W) {
            const vf b = vf_add(v.b, vf_load_part(r + j + VF_W, m - VF_W));
            vf_store_part(h + j + VF_W, b, m - VF_W);
            if (s) vf_store_part(s + j + VF_W, b, m - VF_W);
        }
    }
}

static inline void mixed_add_run(ln_dtype t, const uint16_t *x, const float *r, float *h, float *s, size_t n,
                                 int stream)
{
    mixed_add_from(t, x, r, h, s, 0, n, stream);
}

/* ln_mixed_narrow_fn over the layer: y streams when asked and 64-byte aligned; asked, the fence
 * runs either way, so it also orders the block's streamed h (written before) for the caller. */
static inline void mixed_narrow_run(ln_dtype t, const float *s, uint16_t *y, size_t n, int stream)
{
    const int nt = stream && (uintptr_t)y % 64 == 0;
    size_t j = 0;
    for (; j + HB <= n; j += HB)
        half_block_store(t, y + j, half_block_of_order(t, (vf_pair){vf_load(s + j), vf_load(s + j + VF_W)}),
                         nt ? HALF_STREAM_LINE : 0);
    if (j < n) {
        const size_t m = n - j, ma = m < VF_W ? m : VF_W;
        const vf b = m > VF_W ? vf_load_part(s + j + VF_W, m - VF_W) : vf_set1(0.0f);
        half_block_store_part(t, y + j, half_block_of_order(t, (vf_pair){vf_load_part(s + j, ma), b}), m);
    }
    if (stream) vec_stream_fence();
}

#endif
