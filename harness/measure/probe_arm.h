/* The bandwidth probes' loops on AArch64 (probe.c picks them there): NEON, with STNP pair stores
 * for the streaming variants. */
#ifndef LN_PROBE_ARM_H
#define LN_PROBE_ARM_H

#include <stddef.h>
#include <stdint.h>

/* y[i] = a x[i] + b over the first elements of n floats, whole steps only; returns how many;
 * stream: STNP (non-temporal) stores. */
size_t ln_probe_axpb_arm(const float *x, float *y, size_t n, float a, float b, int stream);
/* The same on fp16 storage: FCVTL widening, fp32 arithmetic, FCVTN rounding. */
size_t ln_probe_axpb16_arm(const uint16_t *x, uint16_t *y, size_t n, float a, float b, int stream);

#endif
