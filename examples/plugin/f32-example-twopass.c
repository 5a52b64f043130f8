/* A kernel from outside lnbench: a two-pass fp32 LayerNorm built as a shared library and loaded
 * with `lnbench --plugin build/plugin-example.so` (docs/plugins.md). It needs only kernels/kernel.h
 * (the ABI) and, for its bound, kernels/bounds.h; it calls nothing in lnbench.
 *
 *   cc -O2 -fPIC -shared -Ikernels -Icommon examples/plugin/f32-example-twopass.c -o plugin.so
 */
#include <math.h>

#include "bounds.h"
#include "kernel.h"

static void forward(const ln_args *a)
{
    const float *g = a->gamma, *b = a->beta;
    for (size_t r = 0; r < a->rows && a->D > 0; r++) {
        const float *x = (const float *)a->x + r * a->D;
        float *y = (float *)a->y + r * a->D;
        float sum = 0.0f;
        for (size_t i = 0; i < a->D; i++) sum += x[i];
        float mean = sum / (float)a->D, ss = 0.0f;
        for (size_t i = 0; i < a->D; i++) ss += (x[i] - mean) * (x[i] - mean);
        float rstd = 1.0f / sqrtf(ss / (float)a->D + (float)a->eps);
        for (size_t i = 0; i < a->D; i++) { /* y may alias x: read x[i] before writing y[i] */
            float v = (x[i] - mean) * rstd;
            y[i] = (g ? v * g[i] : v) + (b ? b[i] : 0.0f);
        }
        if (a->mean) a->mean[r] = mean;
        if (a->rstd) a->rstd[r] = rstd;
    }
}

/* Sequential fp32 sums: the two-pass bound of bounds.h with c = n, s = n - 1 (as the built-in
 * f32-twopass-scalar, whose arithmetic this is). */
static double bound(size_t n, double kappa)
{
    return ln_bound_twopass((double)n, (double)n - 1, kappa, 0x1p-24, 0x1p-24);
}

static const ln_kernel example = {
    .name = "f32-example-twopass-scalar",
    .dtype = LN_F32,
    .forward = forward,
    .how = "plugin example: fp32 sequential sum for the mean, then fp32 sum of squared deviations; "
           "the two-pass bound n u + n^2 kappa^2 u^2",
    .bound = bound,
    .domain = ln_domain_f32_sums, /* no fallback: fp32 sums must not overflow, squares not underflow */
};

static const ln_kernel *const kernels[] = {&example};

const ln_plugin ln_plugin_kernels = {LN_ABI_VERSION, sizeof kernels / sizeof kernels[0], kernels};
