#include "probe.h"

#include <stdint.h>

#include "cpu.h"
#include "kernel.h"

#define PROBE_A 0.5f
#define PROBE_B 1.0f

/* Plain C for heads, tails and machines without a vector path; the compiler may vectorize it
 * with the baseline ISA. */
static void axpb_plain(const float *x, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++) y[i] = PROBE_A * x[i] + PROBE_B;
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

static void axpb(const float *x, float *y, size_t n, int stream)
{
    /* cpuid traps to the hypervisor on a VM (microseconds): ask once, not per timed call */
    static int isa = -1;
    if (isa < 0) isa = (int)ln_cpu_features();
    if (isa & LN_ISA_AVX512) axpb_avx512(x, y, n, stream);
    else if (isa & LN_ISA_AVX2) axpb_avx2(x, y, n, stream);
    else axpb_sse2(x, y, n, stream);
}

int ln_probe_has_stream(void) { return 1; }
#else
static void axpb(const float *x, float *y, size_t n, int stream)
{
    (void)stream;
    axpb_plain(x, y, n);
}

int ln_probe_has_stream(void) { return 0; }
#endif

void ln_probe_copy(const float *x, float *y, size_t n) { axpb(x, y, n, 0); }
void ln_probe_stream(const float *x, float *y, size_t n) { axpb(x, y, n, 1); }
