/* RMSNorm forward and the backward ops, written once for the storage format DT (LN_F32, LN_F16,
 * LN_BF16: 16-bit elements widened exactly, each output rounded once) and the accumulation
 * type T: float for the naive and f32acc kernels, double for the accurate ones (docs/ops.md has
 * the formulas and the bounds). In place is safe: y_i (dx_i) is written after x_i (dy_i) is read. */
#ifndef LN_SCALAR_NORM_OPS_H
#define LN_SCALAR_NORM_OPS_H

#include <math.h>
#include <stdlib.h>

#include "half.h"
#include "kernel.h"

/* Element i of an array of format t, and a store to it; t is a constant in each kernel. */
static inline float ops_load(ln_dtype t, const void *p, size_t i)
{
    return t == LN_F32 ? ((const float *)p)[i] : ln_half_load(t, p, i);
}
static inline void ops_store(ln_dtype t, void *p, size_t i, double v)
{
    if (t == LN_F32) ((float *)p)[i] = (float)v;
    else ln_half_store(t, p, i, (float)v); /* v is an fp32 value in the f32acc kernels */
}

/* y = x rstd gamma + beta, rstd = 1 / sqrt(sum x^2 / D + eps): a sequential sum of squares. */
#define LN_NORM_RMSNORM(fn, T, DT)                                                                            \
    static void fn(const ln_args *a)                                                                          \
    {                                                                                                         \
        const void *g = a->gamma, *b = a->beta;                                                               \
        for (size_t r = 0; r < a->rows && a->D; r++) {                                                        \
            const size_t o = r * a->D;                                                                        \
            T ss = 0;                                                                                         \
            for (size_t i = 0; i < a->D; i++) ss += (T)ops_load(DT, a->x, o + i) * ops_load(DT, a->x, o + i); \
            T rstd = (T)1 / (T)sqrt(ss / (T)a->D + (T)a->eps);                                                \
            for (size_t i = 0; i < a->D; i++) {                                                               \
                T v = (T)ops_load(DT, a->x, o + i) * rstd;                                                    \
                if (g) v *= (T)ops_load(DT, g, i);                                                            \
                if (b) v += (T)ops_load(DT, b, i);                                                            \
                ops_store(DT, a->y, o + i, v);                                                                \
            }                                                                                                 \
            if (a->mean) a->mean[r] = 0;                                                                      \
            if (a->rstd) a->rstd[r] = (double)rstd;                                                           \
        }                                                                                                     \
    }

/* Backward from the saved statistics (mean read only when CENTRED): one pass for
 * sum g and sum g xhat (g = gamma dy, xhat = (x - mean) rstd) that also adds dy xhat and dy
 * into the dgamma, dbeta accumulators; a second pass for
 * dx = rstd (g - mean(g) - xhat mean(g xhat)) (without mean(g) when not CENTRED). */
#define LN_NORM_BWD(fn, T, CENTRED, DT)                                                                 \
    static void fn(const ln_args *a)                                                                    \
    {                                                                                                   \
        const size_t D = a->D;                                                                          \
        const void *gam = a->gamma;                                                                     \
        T *acc = calloc(2 * D + 1, sizeof *acc); /* dgamma, dbeta sums */                               \
        if (!acc) abort();                                                                              \
        for (size_t r = 0; r < a->rows && D; r++) {                                                     \
            const size_t o = r * D;                                                                     \
            T mean = CENTRED ? (T)a->mean[r] : 0, rstd = (T)a->rstd[r], sg = 0, sgx = 0;                \
            for (size_t i = 0; i < D; i++) {                                                            \
                T xhat = ((T)ops_load(DT, a->x, o + i) - mean) * rstd, dy = ops_load(DT, a->dy, o + i); \
                T g = dy * (gam ? (T)ops_load(DT, gam, i) : 1);                                         \
                sg += g;                                                                                \
                sgx += g * xhat;                                                                        \
                acc[i] += dy * xhat;                                                                    \
                acc[D + i] += dy;                                                                       \
            }                                                                                           \
            T mg = CENTRED ? sg / (T)D : 0, mgx = sgx / (T)D;                                           \
            for (size_t i = 0; i < D; i++) {                                                            \
                T xhat = ((T)ops_load(DT, a->x, o + i) - mean) * rstd;                                  \
                T g = (T)ops_load(DT, a->dy, o + i) * (gam ? (T)ops_load(DT, gam, i) : 1);              \
                ops_store(DT, a->dx, o + i, rstd * (g - mg - xhat * mgx));                              \
            }                                                                                           \
        }                                                                                               \
        for (size_t i = 0; i < D; i++) {                                                                \
            if (a->dgamma) ops_store(DT, a->dgamma, i, acc[i]);                                         \
            if (a->dbeta) ops_store(DT, a->dbeta, i, acc[D + i]);                                       \
        }                                                                                               \
        free(acc);                                                                                      \
    }

#endif
