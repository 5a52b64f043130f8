/* What every fp32 scalar kernel does once it has a row's mean and variance in fp32: rstd and the
 * normalization, in the order ln_bound_epilogue (bounds.h) counts, and the statistics out; or,
 * for statistics that overflowed or underflowed, the row again in double.
 * In place is safe: each x_i is read before y_i is written. */
#ifndef LN_SCALAR_F32_NORMALIZE_ROW_H
#define LN_SCALAR_F32_NORMALIZE_ROW_H

#include <math.h>

#include "f32-fallback.h"
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

/* As ln_f32_finish_row, but a row whose fp32 statistics overflowed or whose squares underflowed
 * (f32-fallback.h) is redone in double: what every scalar fp32 kernel but the naive one does. */
static inline void ln_f32_finish_row_or_redo(const ln_args *a, size_t r, float mean, float var)
{
    if (ln_f32_stats_usable(mean, var, a->eps)) {
        ln_f32_finish_row(a, r, mean, var);
        return;
    }
    double mean_out, rstd_out;
    ln_f32_row_f64((const float *)a->x + r * a->D, (float *)a->y + r * a->D, a->gamma, a->beta, a->D, a->eps, &mean_out,
                   &rstd_out);
    if (a->mean) a->mean[r] = mean_out;
    if (a->rstd) a->rstd[r] = rstd_out;
}

#endif
