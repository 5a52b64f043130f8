/* The architecture-neutral close of a 16-bit block layer (kernels/<arch>/half-vec.h), written
 * once over the layer's hooks (HB, vf_pair, half_block_load, half_block_store) and vec.h. */
#ifndef LN_SIMD_HALF_VEC_TAIL_H
#define LN_SIMD_HALF_VEC_TAIL_H

/* 1 where the layer has f16 arithmetic (vh and its operations), else 0. */
#ifndef LN_VEC_F16_ARITH
#define LN_VEC_F16_ARITH 0
#endif

/* HB elements in memory order through half_block_load (widened) and half_block_store (rounded), for the tests'
 * bit-exact checks of the block layer (half-blocks-<isa>.c). */
static inline void half_block_load_in_order(ln_dtype t, const uint16_t *in, float *out)
{
    float a[VF_W], b[VF_W];
    vf_pair v = half_block_load(t, in);
    vf_store(a, v.a), vf_store(b, v.b);
    for (int i = 0; i < VF_W; i++) {
        if (t == LN_F16) out[i] = a[i], out[VF_W + i] = b[i];
        else out[2 * i] = a[i], out[2 * i + 1] = b[i];
    }
}

static inline void half_block_store_in_order(ln_dtype t, const float *in, uint16_t *out)
{
    float a[VF_W], b[VF_W];
    for (int i = 0; i < VF_W; i++) {
        a[i] = t == LN_F16 ? in[i] : in[2 * i];
        b[i] = t == LN_F16 ? in[VF_W + i] : in[2 * i + 1];
    }
    half_block_store(t, out, (vf_pair){vf_load(a), vf_load(b)}, 0);
}

/* Prefetches the 2 HB elements at p into L2: the next rows of the row loops. Into L1, as the
 * AVX-512 two-pass once did, its kernels were 6-26% behind their AVX2 siblings from memory at D
 * 4096 on Sapphire Rapids; into L2, 17% behind to 31% ahead (two alternated runs each, a noisy
 * VM). */
#define HB_PREFETCH2(p) vec_prefetch_l2_span(p, 2 * HB * sizeof(uint16_t))

#endif
