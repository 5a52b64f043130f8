/* What every fixed-width vector layer (kernels/<arch>/vec.h) opens with: the inlining the
 * templates rely on and the gamma/beta specialisation; kernels/simd/vec-tail.h closes it. */
#ifndef LN_SIMD_VEC_COMMON_H
#define LN_SIMD_VEC_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "kernel.h"

#define LN_INLINE static inline __attribute__((always_inline))

/* CALL(G, B) with G = (g != NULL) and B = (b != NULL) as compile-time constants: an
 * always-inlined body then compiles to four variants with no gamma/beta branch inside. */
#define LN_SPECIALIZE_GB(g, b, CALL) \
    do {                             \
        if ((g) && (b)) CALL(1, 1);  \
        else if (g) CALL(1, 0);      \
        else if (b) CALL(0, 1);      \
        else CALL(0, 0);             \
    } while (0)

/* The layer's prefetch of the 64-byte line at p into L2 (defined by each vec.h after this file),
 * and every line of the `bytes` bytes at p: the span of a row ahead that one loop step reaches. */
LN_INLINE void vec_prefetch_l2(const void *p);
LN_INLINE void vec_prefetch_l2_span(const void *p, size_t bytes)
{
    for (size_t o = 0; o < bytes; o += 64) vec_prefetch_l2((const char *)p + o);
}

#endif
