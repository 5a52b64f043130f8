/* RMSNorm forward and the backward ops, scalar, written once (docs/ops.md has the formulas and
 * the bounds). The including file defines
 *   NORM_KIND   NORM_RMSNORM, NORM_LNBWD or NORM_RMSBWD (norm-ops-common.h);
 *   NORM_ALGO   NORM_NAIVE (fp32 storage and arithmetic), NORM_ACCURATE (fp32 storage, double
 *               arithmetic, one rounding per output) or NORM_F32ACC (16-bit storage widened
 *               exactly, the naive kernel's fp32 arithmetic, one rounding per output);
 *   NORM_DTYPE  the storage format, LN_F32, LN_F16 or LN_BF16;
 * includes this header, and defines its ln_kernel with LN_KERNEL_DEFINE over norm_forward,
 * norm_bound and NORM_HOW.
 * In place is safe: y_i (dx_i) is written after x_i (dy_i) is read. */
#include <stdlib.h>

#include "bounds-ops.h"
#include "norm-ops-common.h"

#define NORM_NAIVE 0
#define NORM_ACCURATE 1
#define NORM_F32ACC 2

#if NORM_ALGO == NORM_ACCURATE
typedef double acc_t;
#define NORM_UA 0x1p-53
#else
typedef float acc_t;
#define NORM_UA 0x1p-24
#endif

/* the storage format's unit roundoff: 2^-24, 2^-11, 2^-8 */
static double unit_roundoff(void) { return ldexp(1.0, -ln_fmt(NORM_DTYPE)->p); }

#if NORM_KIND == NORM_RMSNORM

/* Row r in fp32: y = x rstd gamma + beta, rstd = 1 / sqrt(sum x^2 / D + eps), a sequential sum
 * of squares; 0 (nothing written) when the sum overflowed or the squares underflowed. */
static int rms_row_f32(const ln_args *a, size_t r, double *rstd_out)
{
    const size_t o = r * a->D;
    const void *g = a->gamma, *b = a->beta;
    float ss = 0;
    for (size_t i = 0; i < a->D; i++) ss += ops_load(NORM_DTYPE, a->x, o + i) * ops_load(NORM_DTYPE, a->x, o + i);
    float radicand = ss / (float)a->D + (float)a->eps;
    if (!ln_rms_radicand_ok(radicand)) return 0;
    float rstd = 1.0f / (float)sqrt(radicand);
    for (size_t i = 0; i < a->D; i++) {
        float v = ops_load(NORM_DTYPE, a->x, o + i) * rstd;
        if (g) v *= ops_load(NORM_DTYPE, g, i);
        if (b) v += ops_load(NORM_DTYPE, b, i);
        ops_store(NORM_DTYPE, a->y, o + i, v);
    }
    *rstd_out = rstd;
    return 1;
}

/* The accurate kernel: every row in double; the others: in fp32, the rows rms_row_f32 rejects in
 * double, so every row is claimed. */
static void norm_forward(const ln_args *a)
{
    for (size_t r = 0; r < a->rows && a->D; r++) {
        double rstd;
        if (NORM_ALGO == NORM_ACCURATE || !rms_row_f32(a, r, &rstd)) rstd = ln_rms_row_f64(NORM_DTYPE, a, r);
        if (a->mean) a->mean[r] = 0;
        if (a->rstd) a->rstd[r] = rstd;
    }
}

/* the squares are >= 0: the sequential sum's relative error is (n - 1) ua */
static double norm_bound(size_t n, double kappa)
{
    (void)kappa;
    return ln_bound_rmsnorm((double)n - 1, NORM_UA, unit_roundoff());
}

#if NORM_ALGO == NORM_NAIVE
#define NORM_HOW                                                                      \
    "fp32 sequential sum of squares, rstd and y = x rstd gamma + beta in fp32; rel. " \
    "error of mean(x^2) + eps (n + 2) u; rows whose sum overflows or squares underflow redone in double"
#elif NORM_ALGO == NORM_ACCURATE
#define NORM_HOW \
    "fp32 storage, sum of squares and y in double, one rounding to fp32: correctly rounded on almost every element"
#else
#define NORM_HOW                                                                                             \
    "16-bit storage widened to fp32; fp32 sequential sum of squares and epilogue, one rounding per output; " \
    "rows whose sum overflows or squares underflow redone in double"
#endif

#else /* the backward ops */

#define CENTRED (NORM_KIND == NORM_LNBWD)

/* From the saved statistics (mean read only when CENTRED): one pass for sum g and sum g xhat
 * (g = gamma dy, xhat = (x - mean) rstd); a second pass for dx = rstd (g - mean(g) - xhat
 * mean(g xhat)) (without mean(g) when not CENTRED) that also adds dy xhat and dy into the dgamma,
 * dbeta accumulators. The fp32 kernels send a row whose fp32 quantities cannot be used
 * (ln_bwd_f32_usable: rstd beyond fp32's range, an overflowed x - mean) to the double path. */
static void norm_forward(const ln_args *a)
{
    const size_t D = a->D;
    const void *gam = a->gamma;
    acc_t *acc = calloc(2 * D + 1, sizeof *acc); /* dgamma, dbeta sums */
    if (!acc) abort();
    for (size_t r = 0; r < a->rows && D; r++) {
        const size_t o = r * D;
        acc_t mean = CENTRED ? (acc_t)a->mean[r] : 0, rstd = (acc_t)a->rstd[r], sg = 0, sgx = 0;
        for (size_t i = 0; i < D; i++) {
            acc_t xhat = ((acc_t)ops_load(NORM_DTYPE, a->x, o + i) - mean) * rstd;
            acc_t dy = ops_load(NORM_DTYPE, a->dy, o + i);
            acc_t g = dy * (gam ? (acc_t)ops_load(NORM_DTYPE, gam, i) : 1);
            sg += g;
            sgx += g * xhat;
        }
#if NORM_ALGO != NORM_ACCURATE
        if (!ln_bwd_f32_usable(CENTRED ? a->mean[r] : 0, a->rstd[r], sg, sgx)) {
            ln_bwd_row_f64(NORM_DTYPE, a, r, CENTRED, acc, acc + D);
            continue;
        }
#endif
        acc_t mg = CENTRED ? sg / (acc_t)D : 0, mgx = sgx / (acc_t)D;
        for (size_t i = 0; i < D; i++) {
            acc_t xhat = ((acc_t)ops_load(NORM_DTYPE, a->x, o + i) - mean) * rstd;
            acc_t dy = ops_load(NORM_DTYPE, a->dy, o + i);
            acc_t g = dy * (gam ? (acc_t)ops_load(NORM_DTYPE, gam, i) : 1);
            acc[i] += dy * xhat;
            acc[D + i] += dy;
            ops_store(NORM_DTYPE, a->dx, o + i, rstd * (g - mg - xhat * mgx));
        }
    }
    for (size_t i = 0; i < D; i++) {
        if (a->dgamma) ops_store(NORM_DTYPE, a->dgamma, i, acc[i]);
        if (a->dbeta) ops_store(NORM_DTYPE, a->dbeta, i, acc[D + i]);
    }
    free(acc);
}

static double norm_bound(size_t n, double kappa)
{
    return ln_bound_norm_bwd((double)n, kappa, NORM_UA, unit_roundoff());
}

#if NORM_ALGO == NORM_NAIVE
#define NORM_HOW                                                                                   \
    "fp32: one pass for sum g, sum g xhat, one for dx (and dgamma, dbeta over rows); rows beyond " \
    "fp32's range redone in double; dx normwise error 2 (n + 8) kappa u"
#elif NORM_ALGO == NORM_ACCURATE
#define NORM_HOW                                                                              \
    "fp32 storage, double sums and products (dgamma, dbeta summed over rows in double), one " \
    "rounding: 1 + 2 (n + 8) kappa 2^-29 u"
#else
#define NORM_HOW                                                                                  \
    "16-bit storage widened to fp32; the fp32 sums of the naive kernel (dgamma, dbeta over rows " \
    "in fp32), one rounding per output"
#endif

#endif
