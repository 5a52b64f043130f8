/* The attainable-bandwidth probes timed beside the kernels: y[i] = a*x[i] + b over n floats,
 * the same memory traffic as a LayerNorm pass (read x once, write y once) with no arithmetic
 * worth the name, so a kernel's rate over the probe's is its fraction of what the machine
 * can stream at that size. */
#ifndef LN_PROBE_H
#define LN_PROBE_H

#include <stddef.h>
#include <stdint.h>

/* Ordinary (write-allocate) stores, the widest vectors this CPU has. */
void ln_probe_copy(const float *x, float *y, size_t n);
/* Non-temporal stores (x86: vmovntps/movntps, which bypass the caches and skip the read for
 * ownership; AArch64: STNP, a hint the core may honour); plain stores on other machines, where
 * ln_probe_has_stream() is 0. */
void ln_probe_stream(const float *x, float *y, size_t n);
int ln_probe_has_stream(void);

/* The same on n fp16 values (probe-copy-16, probe-stream-16): widened to fp32, y = a x + b,
 * rounded back, the least an fp32-computing 16-bit kernel does per element, so the limit of
 * the 16-bit kernels (same bytes as the fp32 probes, twice the elements). */
void ln_probe_copy16(const uint16_t *x, uint16_t *y, size_t n);
void ln_probe_stream16(const uint16_t *x, uint16_t *y, size_t n);

#endif
