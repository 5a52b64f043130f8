/* The AArch64 vector layer: the API of kernels/x86/vec.h (the list: docs/adding-an-isa.md), so
 * the algorithm templates (kernels/simd/) compile for AArch64 unchanged. A file built for SVE
 * gets the SVE section (below), every other one NEON (4 floats / 2 doubles a vector). NEON has no
 * masked loads or stores: "part" loads and stores go through a zeroed 16-byte buffer, so they
 * never touch memory past the n < width elements asked for. vf_stream / vd_stream are STNP (a non-temporal
 * pair store: the write-around hint; any alignment). */
#ifndef LN_ARM_VEC_H
#define LN_ARM_VEC_H

#include <arm_neon.h>
#if defined(__ARM_FEATURE_SVE)
#include <arm_sve.h>
#endif
#include <string.h>

#include "vec-common.h"

#if defined(__ARM_FEATURE_SVE)

/* SVE, vector-length agnostic: VF_W and VD_W are run-time values (svcntw(), svcntd()), so only
 * templates that keep vectors in named variables take it (SVE vectors are sizeless: no arrays of
 * them, no struct members, no `#if` on the width); f32-norm-bwd-accurate.h, f32-rmsnorm.h and
 * f32-rmsnorm-accurate.h are three. "part" loads and stores are predicated (svwhilelt): nothing
 * past the n elements is touched. */
#define LN_VEC_ISA (LN_ISA_NEON | LN_ISA_FP16 | LN_ISA_SVE)
#define LN_VEC_NAME "sve"
#define VEC_REGS 32 /* Z0-Z31 */
#define VF_W ((size_t)svcntw())
#define VD_W ((size_t)svcntd())
#define VF_W_MIN 4 /* 128-bit vectors */
#define VD_W_MIN 2
#define VD_W_MAX 32 /* 2048-bit vectors */
typedef svfloat32_t vf;
typedef svfloat64_t vd;

/* the first n lanes of 32 / 64 bits */
LN_INLINE svbool_t pw_first(size_t n) { return svwhilelt_b32_u64(0, n); }
LN_INLINE svbool_t pd_first(size_t n) { return svwhilelt_b64_u64(0, n); }

LN_INLINE vf vf_load(const float *p) { return svld1_f32(svptrue_b32(), p); }
LN_INLINE vf vf_load_part(const float *p, size_t n) { return svld1_f32(pw_first(n), p); }
LN_INLINE void vf_store(float *p, vf v) { svst1_f32(svptrue_b32(), p, v); }
LN_INLINE void vf_store_part(float *p, vf v, size_t n) { svst1_f32(pw_first(n), p, v); }
LN_INLINE void vf_stream(float *p, vf v) { svstnt1_f32(svptrue_b32(), p, v); }
LN_INLINE vf vf_keep(vf v, size_t n) { return svsel_f32(pw_first(n), v, svdup_n_f32(0)); }
LN_INLINE vf vf_set1(float a) { return svdup_n_f32(a); }
LN_INLINE vf vf_add(vf a, vf b) { return svadd_f32_x(svptrue_b32(), a, b); }
LN_INLINE vf vf_sub(vf a, vf b) { return svsub_f32_x(svptrue_b32(), a, b); }
LN_INLINE vf vf_mul(vf a, vf b) { return svmul_f32_x(svptrue_b32(), a, b); }
LN_INLINE vf vf_div(vf a, vf b) { return svdiv_f32_x(svptrue_b32(), a, b); }
LN_INLINE vf vf_max(vf a, vf b) { return svmax_f32_x(svptrue_b32(), a, b); }
LN_INLINE vf vf_fma(vf a, vf b, vf c) { return svmla_f32_x(svptrue_b32(), c, a, b); }
/* lane i of the result is lane (i + k) mod W of v (EXT wants an immediate: a table lookup) */
LN_INLINE vf vf_rotate(vf v, int k)
{
    const svbool_t all = svptrue_b32();
    svuint32_t idx = svindex_u32((uint32_t)((size_t)k % VF_W), 1);
    idx = svsub_n_u32_m(svcmpge_n_u32(all, idx, (uint32_t)VF_W), idx, (uint32_t)VF_W);
    return svtbl_f32(v, idx);
}
LN_INLINE float vf_first(vf v) { return svlastb_f32(svptrue_pat_b32(SV_VL1), v); }
/* the low / high W/2 floats widened: ZIP puts float i in the even half of 64-bit lane i, which
 * FCVT reads */
LN_INLINE vd vd_from_lo(vf v) { return svcvt_f64_f32_x(svptrue_b64(), svzip1_f32(v, v)); }
LN_INLINE vd vd_from_hi(vf v) { return svcvt_f64_f32_x(svptrue_b64(), svzip2_f32(v, v)); }
/* FCVT leaves each float in the even half of its 64-bit lane; UZP1 packs lo's, then hi's */
LN_INLINE vf vf_from_vd(vd lo, vd hi)
{
    return svuzp1_f32(svcvt_f32_f64_x(svptrue_b64(), lo), svcvt_f32_f64_x(svptrue_b64(), hi));
}

LN_INLINE vd vd_load(const double *p) { return svld1_f64(svptrue_b64(), p); }
LN_INLINE vd vd_load_part(const double *p, size_t n) { return svld1_f64(pd_first(n), p); }
LN_INLINE void vd_store(double *p, vd v) { svst1_f64(svptrue_b64(), p, v); }
LN_INLINE void vd_store_part(double *p, vd v, size_t n) { svst1_f64(pd_first(n), p, v); }
LN_INLINE void vd_stream(double *p, vd v) { svstnt1_f64(svptrue_b64(), p, v); }
LN_INLINE vd vd_keep(vd v, size_t n) { return svsel_f64(pd_first(n), v, svdup_n_f64(0)); }
LN_INLINE vd vd_set1(double a) { return svdup_n_f64(a); }
LN_INLINE vd vd_add(vd a, vd b) { return svadd_f64_x(svptrue_b64(), a, b); }
LN_INLINE vd vd_sub(vd a, vd b) { return svsub_f64_x(svptrue_b64(), a, b); }
LN_INLINE vd vd_mul(vd a, vd b) { return svmul_f64_x(svptrue_b64(), a, b); }
LN_INLINE vd vd_fma(vd a, vd b, vd c) { return svmla_f64_x(svptrue_b64(), c, a, b); }
/* VD_W floats in 64-bit containers (LD1W, ST1W), widened exactly / rounded once; inactive lanes
 * of a part load read 0 */
LN_INLINE vd vd_load_f32_pg(svbool_t pg, const float *p)
{
    return svcvt_f64_f32_z(pg, svreinterpret_f32_u64(svld1uw_u64(pg, (const uint32_t *)p)));
}
LN_INLINE vd vd_load_f32(const float *p) { return vd_load_f32_pg(svptrue_b64(), p); }
LN_INLINE vd vd_load_f32_part(const float *p, size_t n) { return vd_load_f32_pg(pd_first(n), p); }
LN_INLINE void vd_store_f32_pg(svbool_t pg, float *p, vd v)
{
    svst1w_u64(pg, (uint32_t *)p, svreinterpret_u64_f32(svcvt_f32_f64_x(pg, v)));
}
LN_INLINE void vd_store_f32(float *p, vd v) { vd_store_f32_pg(svptrue_b64(), p, v); }
LN_INLINE void vd_store_f32_part(float *p, vd v, size_t n) { vd_store_f32_pg(pd_first(n), p, v); }
/* ST1W from 64-bit containers has no non-temporal form: an ordinary store */
LN_INLINE void vd_stream_f32(float *p, vd v) { vd_store_f32(p, v); }
/* FADDV: the lanes added in a pairwise tree, ceil(log2 VD_W) roundings deep */
LN_INLINE double vd_sum(vd v) { return svaddv_f64(svptrue_b64(), v); }

#else

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

#endif

/* The line at p into L2 (PRFM PLDL2KEEP, GCC's and clang's locality 2: the rows ahead, as on
 * x86). */
LN_INLINE void vec_prefetch_l2(const void *p) { __builtin_prefetch(p, 0, 2); }

/* Orders the STNP / STNT1 stores before whatever the caller does next (a store barrier: the caller or
 * another thread may read y). */
LN_INLINE void vec_stream_fence(void) { __asm__ volatile("dmb ishst" ::: "memory"); }

#include "vec-tail.h"

#endif
