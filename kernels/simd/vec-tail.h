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

/* A vector of a row streamed from memory beside other streams: vf_load, unless the layer has a
 * form that splits fewer loads across lines (LN_VEC_LOAD_MEM: AVX-512). */
#ifndef LN_VEC_LOAD_MEM
LN_INLINE vf vf_load_mem(const float *p) { return vf_load(p); }
#endif

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

/* Non-temporal stores write whole 64-byte lines only. A line written by both kinds of store (a
 * row's first or last line, shared with its neighbour row, or a vector-aligned lead that is not
 * line-aligned) cost up to a third of the bandwidth on Zen 3 (docs/simd.md, "Lines written by two
 * kinds of store"). vec_lines: the elements [lo, hi) of a row y[0..n) that lie on its whole lines;
 * a vector of w elements at i streams when it lies inside (vec_on_lines, vf_put), else it is
 * stored plain. Loops where a test per store cost about a tenth (the fused pipeline's y) start at
 * lo and stop at hi instead. */
#define VEC_LINE_BYTES 64
typedef struct {
    size_t lo, hi;
} vec_lines;

LN_INLINE vec_lines vec_stream_lines(const void *y, size_t n, size_t size)
{
    const size_t lo = vec_lead_to(y, n, size, VEC_LINE_BYTES);
    const size_t tail = (uintptr_t)((const char *)y + n * size) % VEC_LINE_BYTES / size;
    return (vec_lines){lo, n - lo > tail ? n - tail : lo};
}

LN_INLINE int vec_on_lines(vec_lines l, size_t i, size_t w) { return i >= l.lo && i + w <= l.hi; }

/* The fp32 vector v stored at y + i: non-temporal when streaming and on a whole line of y. */
LN_INLINE void vf_put(float *y, size_t i, vf v, vec_lines l, int stream)
{
    if (stream && vec_on_lines(l, i, VF_W)) vf_stream(y + i, v);
    else vf_store(y + i, v);
}

#endif
