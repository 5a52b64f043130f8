/* The NEON vector layer: the API of kernels/x86/vec.h (4 floats / 2 doubles a vector; the list:
 * docs/adding-an-isa.md), so the fixed-width algorithm templates (kernels/simd/) compile for
 * AArch64 unchanged. NEON has no masked loads
 * or stores: "part" loads and stores go through a zeroed 16-byte buffer, so they never touch
 * memory past the n < width elements asked for. vf_stream / vd_stream are STNP (a non-temporal
 * pair store: the write-around hint; any alignment). */
#ifndef LN_ARM_VEC_H
#define LN_ARM_VEC_H

#include <arm_neon.h>
#include <string.h>

#include "vec-common.h"

#define LN_VEC_ISA LN_ISA_NEON
#define LN_VEC_NAME "neon"
#define VEC_REGS 32 /* V0-V31 */
#define VF_W 4
#define VD_W 2
typedef float32x4_t vf;
typedef float64x2_t vd;

LN_INLINE vf vf_load(const float *p) { return vld1q_f32(p); }
LN_INLINE vf vf_load_part(const float *p, size_t n)
{
    float t[4] = {0, 0, 0, 0};
    memcpy(t, p, n * sizeof(float));
    return vld1q_f32(t);
}
LN_INLINE void vf_store(float *p, vf v) { vst1q_f32(p, v); }
LN_INLINE void vf_store_part(float *p, vf v, size_t n)
{
    float t[4];
    vst1q_f32(t, v);
    memcpy(p, t, n * sizeof(float));
}
LN_INLINE void vf_stream(float *p, vf v)
{
    __asm__ volatile("stnp %d0, %d1, [%2]" : : "w"(vget_low_f32(v)), "w"(vget_high_f32(v)), "r"(p) : "memory");
}
/* lanes i < n of v, the rest 0 (n <= W, as every "part" function here takes) */
LN_INLINE vf vf_keep(vf v, size_t n)
{
    const uint32x4_t iota = {0, 1, 2, 3};
    return vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(v), vcltq_u32(iota, vdupq_n_u32((uint32_t)n))));
}
LN_INLINE vf vf_set1(float a) { return vdupq_n_f32(a); }
LN_INLINE vf vf_add(vf a, vf b) { return vaddq_f32(a, b); }
LN_INLINE vf vf_sub(vf a, vf b) { return vsubq_f32(a, b); }
LN_INLINE vf vf_mul(vf a, vf b) { return vmulq_f32(a, b); }
LN_INLINE vf vf_div(vf a, vf b) { return vdivq_f32(a, b); }
LN_INLINE vf vf_max(vf a, vf b) { return vmaxq_f32(a, b); }
LN_INLINE vf vf_fma(vf a, vf b, vf c) { return vfmaq_f32(c, a, b); }
/* lane i of the result is lane (i + k) mod W of v (EXT takes an immediate: one case each) */
LN_INLINE vf vf_rotate(vf v, int k)
{
    switch (k & 3) {
    case 1: return vextq_f32(v, v, 1);
    case 2: return vextq_f32(v, v, 2);
    case 3: return vextq_f32(v, v, 3);
    default: return v;
    }
}
LN_INLINE float vf_first(vf v) { return vgetq_lane_f32(v, 0); }
LN_INLINE vd vd_from_lo(vf v) { return vcvt_f64_f32(vget_low_f32(v)); }
LN_INLINE vd vd_from_hi(vf v) { return vcvt_high_f64_f32(v); }
LN_INLINE vf vf_from_vd(vd lo, vd hi) { return vcvt_high_f32_f64(vcvt_f32_f64(lo), hi); }

LN_INLINE vd vd_load(const double *p) { return vld1q_f64(p); }
LN_INLINE vd vd_load_part(const double *p, size_t n)
{
    double t[2] = {0, 0};
    memcpy(t, p, n * sizeof(double));
    return vld1q_f64(t);
}
LN_INLINE void vd_store(double *p, vd v) { vst1q_f64(p, v); }
LN_INLINE void vd_store_part(double *p, vd v, size_t n)
{
    double t[2];
    vst1q_f64(t, v);
    memcpy(p, t, n * sizeof(double));
}
LN_INLINE void vd_stream(double *p, vd v)
{
    __asm__ volatile("stnp %d0, %d1, [%2]" : : "w"(vget_low_f64(v)), "w"(vget_high_f64(v)), "r"(p) : "memory");
}
LN_INLINE vd vd_keep(vd v, size_t n)
{
    const uint64x2_t iota = {0, 1};
    return vreinterpretq_f64_u64(vandq_u64(vreinterpretq_u64_f64(v), vcltq_u64(iota, vdupq_n_u64(n))));
}
LN_INLINE vd vd_set1(double a) { return vdupq_n_f64(a); }
LN_INLINE vd vd_add(vd a, vd b) { return vaddq_f64(a, b); }
LN_INLINE vd vd_sub(vd a, vd b) { return vsubq_f64(a, b); }
LN_INLINE vd vd_mul(vd a, vd b) { return vmulq_f64(a, b); }
LN_INLINE vd vd_fma(vd a, vd b, vd c) { return vfmaq_f64(c, a, b); }
/* VD_W floats widened to double on the way in, doubles rounded to float on the way out. */
LN_INLINE vd vd_load_f32(const float *p) { return vcvt_f64_f32(vld1_f32(p)); }
LN_INLINE vd vd_load_f32_part(const float *p, size_t n)
{
    float t[2] = {0, 0};
    memcpy(t, p, n * sizeof(float));
    return vcvt_f64_f32(vld1_f32(t));
}
LN_INLINE void vd_store_f32(float *p, vd v) { vst1_f32(p, vcvt_f32_f64(v)); }
LN_INLINE void vd_store_f32_part(float *p, vd v, size_t n)
{
    float t[2];
    vst1_f32(t, vcvt_f32_f64(v));
    memcpy(p, t, n * sizeof(float));
}
LN_INLINE void vd_stream_f32(float *p, vd v)
{
    float32x2_t f = vcvt_f32_f64(v);
    __asm__ volatile("stnp %s0, %s1, [%2]" : : "w"(vget_lane_f32(f, 0)), "w"(vget_lane_f32(f, 1)), "r"(p) : "memory");
}
/* the two lanes added: one rounding */
LN_INLINE double vd_sum(vd v) { return vaddvq_f64(v); }

/* The line at p into L2 (PRFM PLDL2KEEP, GCC's and clang's locality 2: the rows ahead, as on
 * x86). */
LN_INLINE void vec_prefetch_l2(const void *p) { __builtin_prefetch(p, 0, 2); }

/* Orders the STNP stores before whatever the caller does next (a store barrier: the caller or
 * another thread may read y). */
LN_INLINE void vec_stream_fence(void) { __asm__ volatile("dmb ishst" ::: "memory"); }

#include "vec-tail.h"

#endif
