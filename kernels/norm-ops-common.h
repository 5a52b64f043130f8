/* What the RMSNorm and backward kernels share, scalar and x86 alike: the numbers of the three
 * ops (NORM_KIND in the instance files), the storage formats' loads, and RMSNorm's one row in
 * double (docs/ops.md). */
#ifndef LN_NORM_OPS_COMMON_H
#define LN_NORM_OPS_COMMON_H

#include <float.h>
#include <math.h>

#include "f32-fallback.h"
#include "half.h"
#include "kernel.h"

/* NORM_KIND: numbers the preprocessor can test. */
#define NORM_RMSNORM 0
#define NORM_LNBWD 1
#define NORM_RMSBWD 2
#define NORM_OP(kind) \
    ((kind) == NORM_RMSNORM ? LN_OP_RMSNORM : (kind) == NORM_LNBWD ? LN_OP_LAYERNORM_BWD : LN_OP_RMSNORM_BWD)

/* The contract every op kernel states (kernel.h): each claims every row (ln_domain_any_row), the
 * RMSNorm kernels that sum in fp32 through their fallback (ln_rms_radicand_ok below). An fp32
 * epilogue may overflow in x rstd gamma where beta brings the exact output back into range, so
 * the RMSNorm kernels with fp32 outputs do not promise to agree on non-finite outputs
 * (agrees_nonfinite 0); double arithmetic and the backward passes do (1). */

/* Element i of an array of format t (f32, or 16 bits widened exactly); t is a constant in each
 * kernel, so the test folds away. */
static inline float ops_load(ln_dtype t, const void *p, size_t i)
{
    return t == LN_F32 ? ((const float *)p)[i] : ln_half_load(t, p, i);
}

/* A store of v, an fp32 value in the fp32-arithmetic kernels, or a double rounded once. */
static inline void ops_store(ln_dtype t, void *p, size_t i, double v)
{
    if (t == LN_F32) ((float *)p)[i] = (float)v;
    else ln_half_store(t, p, i, (float)v);
}

/* Whether an RMSNorm row's fp32 statistics can be used: the radicand mean(x^2) + eps at most
 * FLT_MAX (the fp32 sum of squares did not overflow, eps is an fp32 number, rstd is a normal fp32
 * number) and at least LN_F32_SQUARES_MIN (f32-fallback.h: squares lost to underflow cost under
 * 2^-52 of it). NaN fails. One test per row, on the final sum: ordinary rows never pay more. */
static inline int ln_rms_radicand_ok(double radicand) { return radicand >= LN_F32_SQUARES_MIN && radicand <= FLT_MAX; }

/* RMSNorm of row r of a (format t) in double, one rounding per output: the squares of any fp32
 * or 16-bit values, [2^-298, 2^256], and D of them summed lie far inside double's range.
 * Returns rstd. The accurate kernel's arithmetic, and the fallback of the fp32-summing ones for
 * the rows ln_rms_radicand_ok rejects (huge rows whose sum of squares overflows fp32, tiny ones
 * whose squares underflow). */
static inline double ln_rms_row_f64(ln_dtype t, const ln_args *a, size_t r)
{
    const size_t n = a->D, o = r * n;
    double ss = 0;
    for (size_t i = 0; i < n; i++) ss += (double)ops_load(t, a->x, o + i) * ops_load(t, a->x, o + i);
    double rstd = 1.0 / sqrt(ss / (double)n + a->eps);
    for (size_t i = 0; i < n; i++) {
        double v = (double)ops_load(t, a->x, o + i) * rstd;
        if (a->gamma) v *= (double)ops_load(t, a->gamma, i);
        if (a->beta) v += (double)ops_load(t, a->beta, i);
        if (t == LN_F32) ((float *)a->y)[o + i] = (float)v;
        else ln_store(t, a->y, o + i, v);
    }
    return rstd;
}

/* Whether a backward row's fp32 quantities can be used: the saved mean and rstd as fp32 numbers
 * (rstd a normal one: beyond FLT_MAX it is Inf and every xhat Inf or NaN), and the row's sums of
 * g and g xhat finite (an x - mean or an xhat that overflowed fp32 makes them Inf or NaN). Tested
 * on the first pass's results, before dx, dgamma or dbeta use them: one test per row. */
static inline int ln_bwd_f32_usable(double mean, double rstd, double sg, double sgx)
{
    float m = (float)mean, rs = (float)rstd;
    return isfinite(m) && isfinite(rs) && rs >= FLT_MIN && isfinite(sg) && isfinite(sgx);
}

/* Row r of a backward op (centred: LayerNorm's) in double from the saved statistics, each dx
 * rounded once, dy xhat and dy added to the fp32 dgamma, dbeta sums dga, dba: the fallback of the
 * fp32 kernels for the rows ln_bwd_f32_usable rejects. x - mean of any two fp32 values, times
 * any rstd a double holds, is far inside double's range. In place is safe (dy_i read first). */
static inline void ln_bwd_row_f64(ln_dtype t, const ln_args *a, size_t r, int centred, float *dga, float *dba)
{
    const size_t n = a->D, o = r * n;
    const double mean = centred ? a->mean[r] : 0.0, rstd = a->rstd[r];
    double sg = 0, sgx = 0;
    for (size_t i = 0; i < n; i++) {
        double xhat = ((double)ops_load(t, a->x, o + i) - mean) * rstd, dy = ops_load(t, a->dy, o + i);
        double g = dy * (a->gamma ? (double)ops_load(t, a->gamma, i) : 1.0);
        sg += g, sgx += g * xhat;
        dga[i] += (float)(dy * xhat);
        dba[i] += (float)dy;
    }
    const double mg = centred ? sg / (double)n : 0.0, mgx = sgx / (double)n;
    for (size_t i = 0; i < n; i++) {
        double xhat = ((double)ops_load(t, a->x, o + i) - mean) * rstd, dy = ops_load(t, a->dy, o + i);
        double g = dy * (a->gamma ? (double)ops_load(t, a->gamma, i) : 1.0), v = rstd * (g - mg - xhat * mgx);
        if (t == LN_F32) ((float *)a->dx)[o + i] = (float)v;
        else ln_store(t, a->dx, o + i, v);
    }
}

#endif
