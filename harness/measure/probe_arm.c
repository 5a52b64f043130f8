/* The probes' NEON loops: 32 bytes of y a step, as one STNP of two q registers when streaming
 * (the write-around hint: no read for ownership where the core honours it), two STRs otherwise;
 * then a DMB so the weakly ordered pair stores land before what follows. Each returns the
 * elements done: the tail is probe.c's plain C, the same arithmetic (a x then + b, no fma). */
#include "probe_arm.h"

#include "kernel.h"

#if LN_ARM64
#include <arm_neon.h>

size_t ln_probe_axpb_arm(const float *x, float *y, size_t n, float a, float b, int stream)
{
    const float32x4_t va = vdupq_n_f32(a), vb = vdupq_n_f32(b);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        float32x4_t v0 = vaddq_f32(vmulq_f32(va, vld1q_f32(x + i)), vb);
        float32x4_t v1 = vaddq_f32(vmulq_f32(va, vld1q_f32(x + i + 4)), vb);
        if (stream) __asm__ volatile("stnp %q0, %q1, [%2]" : : "w"(v0), "w"(v1), "r"(y + i) : "memory");
        else vst1q_f32(y + i, v0), vst1q_f32(y + i + 4, v1);
    }
    if (stream) __asm__ volatile("dmb ishst" ::: "memory");
    return i;
}

size_t ln_probe_axpb16_arm(const uint16_t *x, uint16_t *y, size_t n, float a, float b, int stream)
{
    const float32x4_t va = vdupq_n_f32(a), vb = vdupq_n_f32(b);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        float16x8_t h[2];
        for (int k = 0; k < 2; k++) {
            float16x8_t in = vreinterpretq_f16_u16(vld1q_u16(x + i + 8 * k));
            float32x4_t lo = vaddq_f32(vmulq_f32(va, vcvt_f32_f16(vget_low_f16(in))), vb);
            float32x4_t hi = vaddq_f32(vmulq_f32(va, vcvt_high_f32_f16(in)), vb);
            h[k] = vcvt_high_f16_f32(vcvt_f16_f32(lo), hi);
        }
        if (stream) __asm__ volatile("stnp %q0, %q1, [%2]" : : "w"(h[0]), "w"(h[1]), "r"(y + i) : "memory");
        else vst1q_u16(y + i, vreinterpretq_u16_f16(h[0])), vst1q_u16(y + i + 8, vreinterpretq_u16_f16(h[1]));
    }
    if (stream) __asm__ volatile("dmb ishst" ::: "memory");
    return i;
}
#endif
