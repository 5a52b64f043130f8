#include "probe.h"

#include <limits.h>
#include <stdint.h>

#include "cpu.h"
#include "kernel.h"

/* The probes are the copy op's kernels (kernels.inc's LN_PROBE_KERNEL lines, kernels/simd/copy.h):
 * the last one of the dtype that this CPU runs (the list goes from portable C to the widest ISA),
 * picked once (cpuid traps to the hypervisor on a VM: microseconds, not per timed call). Ordinary
 * or non-temporal stores are the kernel's streaming threshold, set through its tunable. */
static const ln_kernel *probe_kernel(ln_dtype t)
{
    static const ln_kernel *chosen[LN_NDTYPES];
    static int picked[LN_NDTYPES];
    if (!picked[t]) {
        for (size_t i = 0; i < ln_num_probe_kernels; i++)
            if (ln_probe_kernels[i]->dtype == t && ln_kernel_available(ln_probe_kernels[i]))
                chosen[t] = ln_probe_kernels[i];
        picked[t] = 1;
    }
    return chosen[t];
}

static void run(ln_dtype t, const void *x, void *y, size_t n, int stream)
{
    const ln_kernel *k = probe_kernel(t);
    const int params[1] = {stream ? 0 : INT_MAX}; /* stream_min_bytes: every call, or never */
    ln_args a = {.rows = 1, .D = n, .x = x, .y = y, .params = k->n_tunables ? params : NULL};
    if (n) k->forward(&a);
}

int ln_probe_has_stream(void) { return probe_kernel(LN_F32)->n_tunables > 0; }

void ln_probe_copy(const float *x, float *y, size_t n) { run(LN_F32, x, y, n, 0); }
void ln_probe_stream(const float *x, float *y, size_t n) { run(LN_F32, x, y, n, 1); }
void ln_probe_copy16(const uint16_t *x, uint16_t *y, size_t n) { run(LN_F16, x, y, n, 0); }
void ln_probe_stream16(const uint16_t *x, uint16_t *y, size_t n) { run(LN_F16, x, y, n, 1); }
