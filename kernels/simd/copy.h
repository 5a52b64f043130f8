/* The copy op's kernels, the bandwidth probes (harness/measure/probe.c): y = a x + b with a = 0.5,
 * b = 1 over rows * D elements, the same memory traffic as a LayerNorm pass (read x once, write y
 * once) with no arithmetic worth the name, written once over the vector layers. f32, and f16
 * widened to fp32 and rounded back once (the least an fp32-computing 16-bit kernel does per
 * element); ordinary stores, or non-temporal ones from the first vector-aligned y on (then the
 * stream fence). Included by the <dtype>-copy-<isa>.c files. */
#ifndef LN_SIMD_COPY_H
#define LN_SIMD_COPY_H

#include "half-vec.h"
#include "tunables.h"

LN_INLINE vf copy_axpb(vf v) { return vf_add(vf_mul(vf_set1(0.5f), v), vf_set1(1.0f)); }
LN_INLINE vf_pair copy_axpb2(vf_pair v) { return (vf_pair){copy_axpb(v.a), copy_axpb(v.b)}; }

LN_INLINE void copy_f32(const ln_args *a, int stream)
{
    const float *x = a->x;
    float *y = a->y;
    const size_t n = a->rows * a->D;
    size_t i = stream ? vec_stream_lead(y, n, sizeof(float)) : 0;
    if (i) vf_store_part(y, copy_axpb(vf_load_part(x, i)), i);
    for (; i + VF_W <= n; i += VF_W) {
        vf v = copy_axpb(vf_load(x + i));
        if (stream) vf_stream(y + i, v);
        else vf_store(y + i, v);
    }
    if (i < n) vf_store_part(y + i, copy_axpb(vf_load_part(x + i, n - i)), n - i);
    if (stream) vec_stream_fence();
}

LN_INLINE void copy_f16(const ln_args *a, int stream)
{
    const uint16_t *x = a->x;
    uint16_t *y = a->y;
    const size_t n = a->rows * a->D;
    size_t i = stream ? vec_stream_lead(y, n, sizeof(uint16_t)) : 0; /* < HB */
    if (i) half_block_store_part(LN_F16, y, copy_axpb2(half_block_load_part(LN_F16, x, i)), i);
    for (; i + HB <= n; i += HB)
        half_block_store(LN_F16, y + i, copy_axpb2(half_block_load(LN_F16, x + i)), stream ? HALF_STREAM_LINE : 0);
    if (i < n) half_block_store_part(LN_F16, y + i, copy_axpb2(half_block_load_part(LN_F16, x + i, n - i)), n - i);
    if (stream) vec_stream_fence();
}

/* The streaming threshold (tunables.h) is the copy kernels' one tunable: the probes set it to 0
 * (probe-stream) or off (probe-copy). */
static const ln_tunable copy_tunables[] = {LN_TUNABLE_STREAM_MIN_BYTES};

static inline void copy_f32_forward(const ln_args *a)
{
    copy_f32(a, ln_tune_streams(a->rows, a->D, sizeof(float), ln_param(a, copy_tunables, 0)));
}

static inline void copy_f16_forward(const ln_args *a)
{
    copy_f16(a, ln_tune_streams(a->rows, a->D, sizeof(uint16_t), ln_param(a, copy_tunables, 0)));
}

#define LN_COPY_HOW "y = 0.5 x + 1 (the bandwidth probe)"

#endif
