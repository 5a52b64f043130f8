#include "probe.h"

#include <stdint.h>

#include "cpu.h"
#include "half.h"
#include "kernel.h"

#define PROBE_A 0.5f
#define PROBE_B 1.0f

/* Plain C for heads, tails and machines without a vector path; the compiler may vectorize it
 * with the baseline ISA. */
static void axpb_plain(const float *x, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++) y[i] = PROBE_A * x[i] + PROBE_B;
}

/* The 16-bit probes' plain C: fp16 widened, y = a x + b in fp32, rounded back. */
static void axpb16_plain(const uint16_t *x, uint16_t *y, size_t n)
{
    for (size_t i = 0; i < n; i++) y[i] = ln_f32_to_f16(PROBE_A * ln_f16_to_f32(x[i]) + PROBE_B);
}

#if LN_X86
#include <immintrin.h>

/* Elements to process before y reaches a 64-byte boundary (the stream stores need it). */
static size_t head_to_align(const float *y, size_t n)
{
    size_t mis = ((uintptr_t)y & 63) / sizeof(float);
    size_t head = mis ? 16 - mis : 0;
    return head < n ? head : n;
}

/* One loop for each ISA from one body: W floats a vector of type V, P the intrinsics' prefix.
 * y is 64-byte aligned from the head on, as the aligned and non-temporal stores need. */
#define AXPB_ISA(name, isa, W, V, P)                                                              \
    __attribute__((target(isa))) static void name(const float *x, float *y, size_t n, int stream) \
    {                                                                                             \
        size_t i = head_to_align(y, n);                                                           \
        axpb_plain(x, y, i);                                                                      \
        const V a = P##_set1_ps(PROBE_A), b = P##_set1_ps(PROBE_B);                               \
        for (; i + W <= n; i += W) {                                                              \
            V v = P##_add_ps(P##_mul_ps(a, P##_loadu_ps(x + i)), b);                              \
            if (stream) P##_stream_ps(y + i, v);                                                  \
            else P##_store_ps(y + i, v);                                                          \
        }                                                                                         \
        axpb_plain(x + i, y + i, n - i);                                                          \
        if (stream) _mm_sfence(); /* order the weakly-ordered stores before what follows */       \
    }

AXPB_ISA(axpb_avx512, "avx512f", 16, __m512, _mm512)
AXPB_ISA(axpb_avx2, "avx2", 8, __m256, _mm256)
AXPB_ISA(axpb_sse2, "sse2", 4, __m128, _mm)

/* The 16-bit probes: the same y = a x + b per element on fp16 storage (widened with vcvtph2ps,
 * rounded back with vcvtps2ph): the least an fp32-computing 16-bit kernel does per element. One
 * 64-byte line (AVX-512) or 32 bytes (AVX2 + F16C) of y per step, y aligned to it from the head. */
static size_t head16_to_align(const uint16_t *y, size_t n, size_t line)
{
    size_t mis = ((uintptr_t)y & (line - 1)) / sizeof(uint16_t);
    size_t head = mis ? line / sizeof(uint16_t) - mis : 0;
    return head < n ? head : n;
}

/* One loop for each ISA from one body: S 16-bit values a step, widened in two halves (integer
 * vectors H, loaded with load) into fp32 vectors V of prefix P, rounded back and joined into one
 * integer vector I (join), stored by stream (non-temporal) or store (aligned). */
#define AXPB16_ISA(name, isa, S, V, P, H, I, load, join, stream_store, store)                                   \
    __attribute__((target(isa))) static void name(const uint16_t *x, uint16_t *y, size_t n, int stream)         \
    {                                                                                                           \
        size_t i = head16_to_align(y, n, S * sizeof(uint16_t));                                                 \
        axpb16_plain(x, y, i);                                                                                  \
        const V a = P##_set1_ps(PROBE_A), b = P##_set1_ps(PROBE_B);                                             \
        for (; i + S <= n; i += S) {                                                                            \
            V lo = P##_cvtph_ps(load((const H *)(x + i))), hi = P##_cvtph_ps(load((const H *)(x + i + S / 2))); \
            H rlo = P##_cvtps_ph(P##_add_ps(P##_mul_ps(a, lo), b), _MM_FROUND_TO_NEAREST_INT);                  \
            H rhi = P##_cvtps_ph(P##_add_ps(P##_mul_ps(a, hi), b), _MM_FROUND_TO_NEAREST_INT);                  \
            I v = join(rlo, rhi);                                                                               \
            if (stream) stream_store((I *)(y + i), v);                                                          \
            else store((I *)(y + i), v);                                                                        \
        }                                                                                                       \
        axpb16_plain(x + i, y + i, n - i);                                                                      \
        if (stream) _mm_sfence();                                                                               \
    }

#define JOIN512(lo, hi) _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1)
#define JOIN256(lo, hi) _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1)
AXPB16_ISA(axpb16_avx512, "avx512f,avx2,f16c", 32, __m512, _mm512, __m256i, __m512i, _mm256_loadu_si256, JOIN512,
           _mm512_stream_si512, _mm512_store_si512)
AXPB16_ISA(axpb16_avx2, "avx2,f16c", 16, __m256, _mm256, __m128i, __m256i, _mm_loadu_si128, JOIN256,
           _mm256_stream_si256, _mm256_store_si256)

/* cpuid traps to the hypervisor on a VM (microseconds): ask once, not per timed call */
static unsigned features(void)
{
    static int isa = -1;
    if (isa < 0) isa = (int)ln_cpu_features();
    return (unsigned)isa;
}

static void axpb(const float *x, float *y, size_t n, int stream)
{
    unsigned isa = features();
    if (isa & LN_ISA_AVX512) axpb_avx512(x, y, n, stream);
    else if (isa & LN_ISA_AVX2) axpb_avx2(x, y, n, stream);
    else axpb_sse2(x, y, n, stream);
}

/* Without AVX2 (and so without a known F16C) the plain C, which times software conversion. */
static void axpb16(const uint16_t *x, uint16_t *y, size_t n, int stream)
{
    unsigned isa = features();
    if (isa & LN_ISA_AVX512) axpb16_avx512(x, y, n, stream);
    else if (isa & LN_ISA_AVX2) axpb16_avx2(x, y, n, stream);
    else axpb16_plain(x, y, n);
}

int ln_probe_has_stream(void) { return 1; }
#elif LN_ARM64
#include "probe_arm.h"

static void axpb(const float *x, float *y, size_t n, int stream)
{
    size_t i = ln_probe_axpb_arm(x, y, n, PROBE_A, PROBE_B, stream);
    axpb_plain(x + i, y + i, n - i);
}

static void axpb16(const uint16_t *x, uint16_t *y, size_t n, int stream)
{
    size_t i = ln_probe_axpb16_arm(x, y, n, PROBE_A, PROBE_B, stream);
    axpb16_plain(x + i, y + i, n - i);
}

int ln_probe_has_stream(void) { return 1; }
#else
static void axpb(const float *x, float *y, size_t n, int stream)
{
    (void)stream;
    axpb_plain(x, y, n);
}

static void axpb16(const uint16_t *x, uint16_t *y, size_t n, int stream)
{
    (void)stream;
    axpb16_plain(x, y, n);
}

int ln_probe_has_stream(void) { return 0; }
#endif

void ln_probe_copy(const float *x, float *y, size_t n) { axpb(x, y, n, 0); }
void ln_probe_stream(const float *x, float *y, size_t n) { axpb(x, y, n, 1); }
void ln_probe_copy16(const uint16_t *x, uint16_t *y, size_t n) { axpb16(x, y, n, 0); }
void ln_probe_stream16(const uint16_t *x, uint16_t *y, size_t n) { axpb16(x, y, n, 1); }
