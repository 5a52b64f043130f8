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

__attribute__((target("avx512f"))) static void axpb_avx512(const float *x, float *y, size_t n, int stream)
{
    size_t i = head_to_align(y, n);
    axpb_plain(x, y, i);
    const __m512 a = _mm512_set1_ps(PROBE_A), b = _mm512_set1_ps(PROBE_B);
    for (; i + 16 <= n; i += 16) {
        __m512 v = _mm512_add_ps(_mm512_mul_ps(a, _mm512_loadu_ps(x + i)), b);
        if (stream) _mm512_stream_ps(y + i, v);
        else _mm512_store_ps(y + i, v);
    }
    axpb_plain(x + i, y + i, n - i);
    if (stream) _mm_sfence(); /* order the weakly-ordered stores before what follows */
}

static void axpb_sse2(const float *x, float *y, size_t n, int stream)
{
    size_t i = head_to_align(y, n);
    axpb_plain(x, y, i);
    const __m128 a = _mm_set1_ps(PROBE_A), b = _mm_set1_ps(PROBE_B);
    for (; i + 4 <= n; i += 4) {
        __m128 v = _mm_add_ps(_mm_mul_ps(a, _mm_loadu_ps(x + i)), b);
        if (stream) _mm_stream_ps(y + i, v);
        else _mm_store_ps(y + i, v);
    }
    axpb_plain(x + i, y + i, n - i);
    if (stream) _mm_sfence();
}

static void axpb(const float *x, float *y, size_t n, int stream)
{
    /* cpuid traps to the hypervisor on a VM (microseconds): ask once, not per timed call */
    static int has_avx512 = -1;
    if (has_avx512 < 0) has_avx512 = (ln_cpu_features() & LN_ISA_AVX512) != 0;
    if (has_avx512) axpb_avx512(x, y, n, stream);
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
