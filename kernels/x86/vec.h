/* The x86 vector layer: the algorithm templates (kernels/simd/) are written once over these
 * names, and the file that includes it is compiled either with AVX2 + FMA (8 floats / 4 doubles a
 * vector) or with AVX-512 F/BW/VL/DQ (16 / 8), and these helpers map to that ISA's intrinsics.
 * Another architecture provides the same names in its own kernels/<arch>/vec.h (the list:
 * docs/adding-an-isa.md); the templates use nothing else of the hardware. Every load and store is unaligned
 * except vf_stream / vd_stream (non-temporal, vector-aligned address). "part" loads and stores
 * touch only the first n < width elements (masked, never past the end of the row); lanes
 * beyond n read as 0. */
#ifndef LN_X86_VEC_H
#define LN_X86_VEC_H

#include <immintrin.h>

#include "vec-common.h"

#if defined(__AVX512F__)

/* The ISA the including file is built for (its name's suffix, isa.def): AVX512-FP16 and
 * AVX512-BF16 files are AVX-512 files with one more instruction set. */
#if defined(__AVX512FP16__)
#define LN_VEC_ISA (LN_ISA_AVX2 | LN_ISA_AVX512 | LN_ISA_AVX512FP16)
#define LN_VEC_NAME "avx512fp16"
#elif defined(__AVX512BF16__)
#define LN_VEC_ISA (LN_ISA_AVX2 | LN_ISA_AVX512 | LN_ISA_AVX512BF16)
#define LN_VEC_NAME "avx512bf16"
#else
#define LN_VEC_ISA (LN_ISA_AVX2 | LN_ISA_AVX512)
#define LN_VEC_NAME "avx512"
#endif
#define VEC_REGS 32 /* vector registers: loops that keep more live values pick their form on it */
#define VF_W 16
#define VD_W 8
typedef __m512 vf;
typedef __m512d vd;

LN_INLINE __mmask16 mask16(size_t n) { return (__mmask16)((1u << n) - 1); }
LN_INLINE __mmask8 mask8(size_t n) { return (__mmask8)((1u << n) - 1); }

LN_INLINE vf vf_load(const float *p) { return _mm512_loadu_ps(p); }
/* A vector of a row streamed from memory, as two 32-byte loads: rows 32 bytes off a line (fp32 D
 * 1032) then split no load across two lines, where split loads of the fused pipeline's x and r
 * cost 10-20% from memory on Zen 5 (docs/simd.md). */
LN_INLINE vf vf_load_mem(const float *p)
{
    return _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_loadu_ps(p)), _mm256_loadu_ps(p + 8), 1);
}
#define LN_VEC_LOAD_MEM
LN_INLINE vf vf_load_part(const float *p, size_t n) { return _mm512_maskz_loadu_ps(mask16(n), p); }
LN_INLINE void vf_store(float *p, vf v) { _mm512_storeu_ps(p, v); }
LN_INLINE void vf_store_part(float *p, vf v, size_t n) { _mm512_mask_storeu_ps(p, mask16(n), v); }
LN_INLINE void vf_stream(float *p, vf v) { _mm512_stream_ps(p, v); }
LN_INLINE vf vf_keep(vf v, size_t n) { return _mm512_maskz_mov_ps(mask16(n), v); }
LN_INLINE vf vf_set1(float a) { return _mm512_set1_ps(a); }
LN_INLINE vf vf_add(vf a, vf b) { return _mm512_add_ps(a, b); }
LN_INLINE vf vf_sub(vf a, vf b) { return _mm512_sub_ps(a, b); }
LN_INLINE vf vf_mul(vf a, vf b) { return _mm512_mul_ps(a, b); }
LN_INLINE vf vf_div(vf a, vf b) { return _mm512_div_ps(a, b); }
LN_INLINE vf vf_max(vf a, vf b) { return _mm512_max_ps(a, b); }
LN_INLINE vf vf_fma(vf a, vf b, vf c) { return _mm512_fmadd_ps(a, b, c); }
/* lane i of the result is lane (i + k) mod W of v */
LN_INLINE vf vf_rotate(vf v, int k)
{
    return _mm512_permutexvar_ps(
        _mm512_and_si512(_mm512_add_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                          _mm512_set1_epi32(k)),
                         _mm512_set1_epi32(15)),
        v);
}
LN_INLINE float vf_first(vf v) { return _mm512_cvtss_f32(v); }
/* lanes of v in double: the low and high halves */
LN_INLINE vd vd_from_lo(vf v) { return _mm512_cvtps_pd(_mm512_castps512_ps256(v)); }
LN_INLINE vd vd_from_hi(vf v) { return _mm512_cvtps_pd(_mm512_extractf32x8_ps(v, 1)); }
/* lo, hi rounded once each to float and packed */
LN_INLINE vf vf_from_vd(vd lo, vd hi)
{
    return _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo)), _mm512_cvtpd_ps(hi), 1);
}

LN_INLINE vd vd_load(const double *p) { return _mm512_loadu_pd(p); }
LN_INLINE vd vd_load_part(const double *p, size_t n) { return _mm512_maskz_loadu_pd(mask8(n), p); }
LN_INLINE void vd_store(double *p, vd v) { _mm512_storeu_pd(p, v); }
LN_INLINE void vd_store_part(double *p, vd v, size_t n) { _mm512_mask_storeu_pd(p, mask8(n), v); }
LN_INLINE void vd_stream(double *p, vd v) { _mm512_stream_pd(p, v); }
LN_INLINE vd vd_keep(vd v, size_t n) { return _mm512_maskz_mov_pd(mask8(n), v); }
LN_INLINE vd vd_set1(double a) { return _mm512_set1_pd(a); }
LN_INLINE vd vd_add(vd a, vd b) { return _mm512_add_pd(a, b); }
LN_INLINE vd vd_sub(vd a, vd b) { return _mm512_sub_pd(a, b); }
LN_INLINE vd vd_mul(vd a, vd b) { return _mm512_mul_pd(a, b); }
LN_INLINE vd vd_fma(vd a, vd b, vd c) { return _mm512_fmadd_pd(a, b, c); }
/* VD_W floats widened to double on the way in (the load folds into the conversion), and
 * doubles rounded to float on the way out: VD_W at a time, no lane shuffles. Streaming needs
 * p aligned to VD_W floats. */
LN_INLINE vd vd_load_f32(const float *p) { return _mm512_cvtps_pd(_mm256_loadu_ps(p)); }
LN_INLINE vd vd_load_f32_part(const float *p, size_t n) { return _mm512_cvtps_pd(_mm256_maskz_loadu_ps(mask8(n), p)); }
LN_INLINE void vd_store_f32(float *p, vd v) { _mm256_storeu_ps(p, _mm512_cvtpd_ps(v)); }
LN_INLINE void vd_store_f32_part(float *p, vd v, size_t n) { _mm256_mask_storeu_ps(p, mask8(n), _mm512_cvtpd_ps(v)); }
LN_INLINE void vd_stream_f32(float *p, vd v) { _mm256_stream_ps(p, _mm512_cvtpd_ps(v)); }
/* Sum of the lanes by a pairwise tree (error <= log2(width) u of the sum of |lanes|). */
LN_INLINE double vd_sum(vd v)
{
    __m256d h = _mm256_add_pd(_mm512_castpd512_pd256(v), _mm512_extractf64x4_pd(v, 1));
    __m128d q = _mm_add_pd(_mm256_castpd256_pd128(h), _mm256_extractf128_pd(h, 1));
    return _mm_cvtsd_f64(_mm_add_sd(q, _mm_unpackhi_pd(q, q)));
}

#elif defined(__AVX2__) && defined(__FMA__)

#define LN_VEC_ISA LN_ISA_AVX2
#define LN_VEC_NAME "avx2"
#define VEC_REGS 16
#define VF_W 8
#define VD_W 4
typedef __m256 vf;
typedef __m256d vd;

/* AVX2 masks are vectors whose lanes have the sign bit set where active. */
LN_INLINE __m256i mask32(size_t n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
LN_INLINE __m256i mask64(size_t n)
{
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)n), _mm256_setr_epi64x(0, 1, 2, 3));
}

LN_INLINE vf vf_load(const float *p) { return _mm256_loadu_ps(p); }
LN_INLINE vf vf_load_part(const float *p, size_t n) { return _mm256_maskload_ps(p, mask32(n)); }
LN_INLINE void vf_store(float *p, vf v) { _mm256_storeu_ps(p, v); }
LN_INLINE void vf_store_part(float *p, vf v, size_t n) { _mm256_maskstore_ps(p, mask32(n), v); }
LN_INLINE void vf_stream(float *p, vf v) { _mm256_stream_ps(p, v); }
LN_INLINE vf vf_keep(vf v, size_t n) { return _mm256_and_ps(v, _mm256_castsi256_ps(mask32(n))); }
LN_INLINE vf vf_set1(float a) { return _mm256_set1_ps(a); }
LN_INLINE vf vf_add(vf a, vf b) { return _mm256_add_ps(a, b); }
LN_INLINE vf vf_sub(vf a, vf b) { return _mm256_sub_ps(a, b); }
LN_INLINE vf vf_mul(vf a, vf b) { return _mm256_mul_ps(a, b); }
LN_INLINE vf vf_div(vf a, vf b) { return _mm256_div_ps(a, b); }
LN_INLINE vf vf_max(vf a, vf b) { return _mm256_max_ps(a, b); }
LN_INLINE vf vf_fma(vf a, vf b, vf c) { return _mm256_fmadd_ps(a, b, c); }
LN_INLINE vf vf_rotate(vf v, int k)
{
    return _mm256_permutevar8x32_ps(
        v, _mm256_and_si256(_mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(k)),
                            _mm256_set1_epi32(7)));
}
LN_INLINE float vf_first(vf v) { return _mm256_cvtss_f32(v); }
LN_INLINE vd vd_from_lo(vf v) { return _mm256_cvtps_pd(_mm256_castps256_ps128(v)); }
LN_INLINE vd vd_from_hi(vf v) { return _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)); }
LN_INLINE vf vf_from_vd(vd lo, vd hi)
{
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(lo)), _mm256_cvtpd_ps(hi), 1);
}

LN_INLINE vd vd_load(const double *p) { return _mm256_loadu_pd(p); }
LN_INLINE vd vd_load_part(const double *p, size_t n) { return _mm256_maskload_pd(p, mask64(n)); }
LN_INLINE void vd_store(double *p, vd v) { _mm256_storeu_pd(p, v); }
LN_INLINE void vd_store_part(double *p, vd v, size_t n) { _mm256_maskstore_pd(p, mask64(n), v); }
LN_INLINE void vd_stream(double *p, vd v) { _mm256_stream_pd(p, v); }
LN_INLINE vd vd_keep(vd v, size_t n) { return _mm256_and_pd(v, _mm256_castsi256_pd(mask64(n))); }
LN_INLINE vd vd_set1(double a) { return _mm256_set1_pd(a); }
LN_INLINE vd vd_add(vd a, vd b) { return _mm256_add_pd(a, b); }
LN_INLINE vd vd_sub(vd a, vd b) { return _mm256_sub_pd(a, b); }
LN_INLINE vd vd_mul(vd a, vd b) { return _mm256_mul_pd(a, b); }
LN_INLINE vd vd_fma(vd a, vd b, vd c) { return _mm256_fmadd_pd(a, b, c); }
LN_INLINE __m128i mask32x4(size_t n) { return _mm_cmpgt_epi32(_mm_set1_epi32((int)n), _mm_setr_epi32(0, 1, 2, 3)); }
LN_INLINE vd vd_load_f32(const float *p) { return _mm256_cvtps_pd(_mm_loadu_ps(p)); }
LN_INLINE vd vd_load_f32_part(const float *p, size_t n) { return _mm256_cvtps_pd(_mm_maskload_ps(p, mask32x4(n))); }
LN_INLINE void vd_store_f32(float *p, vd v) { _mm_storeu_ps(p, _mm256_cvtpd_ps(v)); }
LN_INLINE void vd_store_f32_part(float *p, vd v, size_t n) { _mm_maskstore_ps(p, mask32x4(n), _mm256_cvtpd_ps(v)); }
LN_INLINE void vd_stream_f32(float *p, vd v) { _mm_stream_ps(p, _mm256_cvtpd_ps(v)); }
LN_INLINE double vd_sum(vd v)
{
    __m128d q = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_add_sd(q, _mm_unpackhi_pd(q, q)));
}

#else
#error "kernels/x86/vec.h needs -mavx2 -mfma or -mavx512f (the flags of its ISA line in kernels/isa.def)"
#endif

/* The line at p into L2 (not L1: the rows ahead, which the loop reaches only after the current
 * row's work; docs/simd.md). */
LN_INLINE void vec_prefetch_l2(const void *p) { _mm_prefetch((const char *)p, _MM_HINT_T1); }

/* Orders the non-temporal stores (vf_stream, vd_stream, ...) before whatever the caller does
 * next: every kernel that streamed calls it once before returning. */
LN_INLINE void vec_stream_fence(void) { _mm_sfence(); }

#include "vec-tail.h"

#endif
