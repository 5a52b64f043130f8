/* h = x + r on 16-bit storage over the 16-bit block layer (half-vec.h): blocks widened exactly,
 * added in fp32 and rounded once to the format, which is h correctly rounded (kernels/add-norm.h:
 * fp32's 24 bits are at least 2p + 1). The add of the 16-bit fused kernels, before a plain 16-bit
 * SIMD kernel of the op. */
#ifndef LN_SIMD_HALF_ADD_H
#define LN_SIMD_HALF_ADD_H

#include "add-norm.h"
#include "half-vec.h"

LN_INLINE vf_pair half_block_add(vf_pair u, vf_pair v) { return (vf_pair){vf_add(u.a, v.a), vf_add(u.b, v.b)}; }

/* ln_add_fn over the block layer: elements [lo, hi) of h = x + r, t f16 or bf16. */
static inline void half_add_elements(ln_dtype t, const ln_args *a, size_t lo, size_t hi)
{
    const uint16_t *x = (const uint16_t *)a->x + lo, *r = (const uint16_t *)a->r + lo;
    uint16_t *h = (uint16_t *)a->h + lo;
    const size_t n = hi - lo;
    size_t j = 0;
    for (; j + HB <= n; j += HB)
        half_block_store(t, h + j, half_block_add(half_block_load(t, x + j), half_block_load(t, r + j)), 0);
    if (j < n)
        half_block_store_part(
            t, h + j, half_block_add(half_block_load_part(t, x + j, n - j), half_block_load_part(t, r + j, n - j)),
            n - j);
}

#endif
