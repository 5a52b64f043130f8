/* RMSNorm forward and the backward ops for fp32 storage, written once for the accumulation
 * type T: float for the naive kernels, double for the accurate ones (docs/ops.md has the
 * formulas and the bounds). In place is safe: y_i (dx_i) is written after x_i (dy_i) is read. */
#ifndef LN_SCALAR_F32_NORM_OPS_H
#define LN_SCALAR_F32_NORM_OPS_H

#include <math.h>
#include <stdlib.h>

#include "kernel.h"

/* y = x rstd gamma + beta, rstd = 1 / sqrt(sum x^2 / D + eps): a sequential sum of squares. */
#define LN_F32_RMSNORM(fn, T)                                                                   \
    static void fn(const ln_args *a)                                                          \
    {                                                                                         \
        const float *g = a->gamma, *b = a->beta;                                              \
        for (size_t r = 0; r < a->rows && a->D; r++) {                                        \
            const float *x = (const float *)a->x + r * a->D;                                  \
            float *y = (float *)a->y + r * a->D;                                              \
            T ss = 0;                                                                         \
            for (size_t i = 0; i < a->D; i++) ss += (T)x[i] * (T)x[i];                        \
            T rstd = (T)1 / (T)sqrt(ss / (T)a->D + (T)a->eps);                                \
            for (size_t i = 0; i < a->D; i++) {                                               \
                T v = (T)x[i] * rstd;                                                         \
                if (g) v *= (T)g[i];                                                          \
                if (b) v += (T)b[i];                                                          \
                y[i] = (float)v;                                                              \
            }                                                                                 \
            if (a->mean) a->mean[r] = 0;                                                      \
            if (a->rstd) a->rstd[r] = (double)rstd;                                           \
        }                                                                                     \
    }

/* Backward from the saved statistics (mean read only when CENTRED): one pass for
 * sum g and sum g xhat (g = gamma dy, xhat = (x - mean) rstd) that also adds dy xhat and dy
 * into the dgamma, dbeta accumulators; a second pass for
 * dx = rstd (g - mean(g) - xhat mean(g xhat)) (without mean(g) when not CENTRED). */
#define LN_F32_NORM_BWD(fn, T, CENTRED)                                                         \
    static void fn(const ln_args *a)                                                          \
    {                                                                                         \
        const size_t D = a->D;                                                                \
        const float *gam = a->gamma;                                                          \
        T *acc = calloc(2 * D + 1, sizeof *acc); /* dgamma, dbeta sums */                      \
        if (!acc) abort();                                                                    \
        for (size_t r = 0; r < a->rows && D; r++) {                                           \
            const float *x = (const float *)a->x + r * D, *dy = (const float *)a->dy + r * D; \
            float *dx = (float *)a->dx + r * D;                                               \
            T mean = CENTRED ? (T)a->mean[r] : 0, rstd = (T)a->rstd[r], sg = 0, sgx = 0;      \
            for (size_t i = 0; i < D; i++) {                                                  \
                T xhat = ((T)x[i] - mean) * rstd, g = (T)dy[i] * (gam ? (T)gam[i] : 1);       \
                sg += g;                                                                      \
                sgx += g * xhat;                                                              \
                acc[i] += (T)dy[i] * xhat;                                                    \
                acc[D + i] += (T)dy[i];                                                       \
            }                                                                                 \
            T mg = CENTRED ? sg / (T)D : 0, mgx = sgx / (T)D;                                 \
            for (size_t i = 0; i < D; i++) {                                                  \
                T xhat = ((T)x[i] - mean) * rstd, g = (T)dy[i] * (gam ? (T)gam[i] : 1);       \
                dx[i] = (float)(rstd * (g - mg - xhat * mgx));                                \
            }                                                                                 \
        }                                                                                     \
        for (size_t i = 0; i < D; i++) {                                                      \
            if (a->dgamma) ((float *)a->dgamma)[i] = (float)acc[i];                           \
            if (a->dbeta) ((float *)a->dbeta)[i] = (float)acc[D + i];                         \
        }                                                                                     \
        free(acc);                                                                            \
    }

#endif
