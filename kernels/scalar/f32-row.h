/* What every fp32 scalar kernel does once it has a row's mean and variance in fp32: rstd and the
 * normalization, in the order ln_bound_epilogue (bounds.h) counts, and the statistics out.
 * In place is safe: each x_i is read before y_i is written. */
#ifndef LN_SCALAR_F32_ROW_H
#define LN_SCALAR_F32_ROW_H

#include <math.h>

#include "kernel.h"

static inline void ln_f32_finish_row(const ln_args *a, size_t r, float mean, float var)
{
    const float *x = (const float *)a->x + r * a->D, *g = a->gamma, *b = a->beta;
    float *y = (float *)a->y + r * a->D;
    float rstd = 1.0f / sqrtf(var + (float)a->eps);
    for (size_t i = 0; i < a->D; i++) {
        float v = (x[i] - mean) * rstd;
        if (g) v *= g[i];
        if (b) v += b[i];
        y[i] = v;
    }
    if (a->mean) a->mean[r] = mean;
    if (a->rstd) a->rstd[r] = rstd;
}

#endif
