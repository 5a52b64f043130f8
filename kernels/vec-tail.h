/* The architecture-neutral tail of a fixed-width vector layer (kernels/arm/vec.h; the same
 * definitions close kernels/x86/vec.h): included after the layer has defined vf, vd, VF_W, VD_W,
 * vd_sum, vd_from_lo/hi, LN_VEC_ISA and LN_VEC_NAME. */
#ifndef LN_VEC_TAIL_H
#define LN_VEC_TAIL_H

#include <stdint.h>

/* The float lanes of v summed in double (each lane exact in double, then a pairwise tree). */
LN_INLINE double vf_sum(vf v) { return vd_sum(vd_add(vd_from_lo(v), vd_from_hi(v))); }

/* The ln_kernel of this file's algorithm for the ISA it is compiled for: the file defines
 * forward(), bound() and HOW. */
#define LN_VEC_KERNEL(id, prefix, type)                   \
    const ln_kernel id = {.name = prefix "-" LN_VEC_NAME, \
                          .dtype = type,                  \
                          .isa = LN_VEC_ISA,              \
                          .forward = forward,             \
                          .how = HOW,                     \
                          .bound = bound,                 \
                          .domain = DOMAIN,               \
                          .agrees_nonfinite = AGREES_NONFINITE}

/* Elements of `size` bytes before the first vector-aligned address in y (at most n): the part
 * written with ordinary stores before the non-temporal ones. */
LN_INLINE size_t vec_stream_lead(const void *y, size_t n, size_t size)
{
    size_t v = VF_W * sizeof(float), lead = (v - (uintptr_t)y % v) % v / size;
    return lead < n ? lead : n;
}

/* Whether a non-temporal store is worth it: the output is far larger than the caches, so
 * writing around them saves the read-for-ownership of y and keeps x's lines cached. */
#ifndef LN_STREAM_MIN_BYTES
#define LN_STREAM_MIN_BYTES ((size_t)32 << 20)
#endif

#endif
