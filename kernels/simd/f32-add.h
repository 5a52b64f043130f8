/* h = x + r in fp32 over the vector layer (one rounding per element: h correctly rounded), for
 * the fused residual-add kernels: the rows of f32-add-rmsnorm.h's pipeline, and the add that
 * kernels/add-norm.h's row-by-row fused kernels run before a plain SIMD kernel of the op. */
#ifndef LN_SIMD_F32_ADD_H
#define LN_SIMD_F32_ADD_H

#include "add-norm.h"
#include "vec.h"

/* Elements j..n-1 of h = x + r over one row, into h (non-temporal stores on its whole lines when
 * stream_h: h then vector-aligned) and into the scratch row s (plain stores; NULL: none). */
LN_INLINE void add_row_from(const float *x, const float *r, float *h, float *s, size_t j, size_t n, int stream_h)
{
    const vec_lines l = vec_stream_lines(h, n, sizeof *h);
    for (; j + VF_W <= n; j += VF_W) {
        vf v = vf_add(vf_load(x + j), vf_load(r + j));
        vf_put(h, j, v, l, stream_h);
        if (s) vf_store(s + j, v);
    }
    if (j < n) {
        vf v = vf_add(vf_load_part(x + j, n - j), vf_load_part(r + j, n - j));
        vf_store_part(h + j, v, n - j);
        if (s) vf_store_part(s + j, v, n - j);
    }
}

/* ln_add_fn over the layer: elements [lo, hi) of h = x + r (t is fp32). */
static inline void f32_add_elements(ln_dtype t, const ln_args *a, size_t lo, size_t hi)
{
    (void)t;
    add_row_from((const float *)a->x + lo, (const float *)a->r + lo, (float *)a->h + lo, NULL, 0, hi - lo, 0);
}

#endif
