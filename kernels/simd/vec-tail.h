/* The architecture-neutral close of a fixed-width vector layer (kernels/<arch>/vec.h), written
 * once over what the layer has defined: vf, vd, VF_W, vd_sum, vd_add and vd_from_lo/hi. */
#ifndef LN_SIMD_VEC_TAIL_H
#define LN_SIMD_VEC_TAIL_H

/* The widths a kernel's bound must hold at: VD_W (VF_W) itself, unless the layer's width is a
 * run-time value (SVE), where it names the narrowest and the widest. */
#ifndef VD_W_MIN
#define VD_W_MIN VD_W
#define VD_W_MAX VD_W
#endif
#ifndef VF_W_MIN
#define VF_W_MIN VF_W
#endif

/* The float lanes of v summed in double (each lane exact in double, then a pairwise tree). */
LN_INLINE double vf_sum(vf v) { return vd_sum(vd_add(vd_from_lo(v), vd_from_hi(v))); }

/* Elements of `size` bytes before the first address in y aligned to `align` bytes (at most n). */
LN_INLINE size_t vec_lead_to(const void *y, size_t n, size_t size, size_t align)
{
    const size_t lead = (align - (uintptr_t)y % align) % align / size;
    return lead < n ? lead : n;
}

/* 4K aliasing: a load whose address matches an older in-flight store's in its low 12 bits waits
 * for it. The streaming pipelines place their stores so that each load is at least
 * VEC_ALIAS_BYTES in page offset from the stores just made (norm-bwd.h's bwd_place,
 * f32-add-pipeline.h's add_y_ahead); Zen 3: 256 bytes ran at full speed, 64-128 at a third. */
#define VEC_PAGE_BYTES 4096
#define VEC_ALIAS_BYTES 512

/* Elements before the first vector-aligned address in y: the part written with ordinary stores
 * before the non-temporal ones. */
LN_INLINE size_t vec_stream_lead(const void *y, size_t n, size_t size)
{
    return vec_lead_to(y, n, size, VF_W * sizeof(float));
}

#endif
