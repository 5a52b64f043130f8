/* Two-pass LayerNorm in fp32 with compensated sums: both the sum for the mean and the sum of
 * squared deviations carry Neumaier's running correction (Kahan-Babuska), the rounding error
 * of each addition recovered exactly and added back at the end. The sums' errors no longer
 * grow with n to first order: what is left is the mean's own rounding to fp32. */
#include <math.h>

#include "bounds.h"
#include "f32-normalize-row.h"

typedef struct {
    float sum, carry; /* the value is sum + carry */
} compensated;

/* Neumaier: the addition's exact rounding error, (big - t) + small, goes into carry. */
static void add(compensated *s, float v)
{
    float t = s->sum + v;
    if (fabsf(s->sum) >= fabsf(v)) s->carry += (s->sum - t) + v;
    else s->carry += (v - t) + s->sum;
    s->sum = t;
}

static void forward(const ln_args *a)
{
    if (a->D == 0) return;
    for (size_t r = 0; r < a->rows; r++) {
        const float *x = (const float *)a->x + r * a->D;
        compensated s = {0.0f, 0.0f};
        for (size_t i = 0; i < a->D; i++) add(&s, x[i]);
        float mean = (s.sum + s.carry) / (float)a->D;
        compensated ss = {0.0f, 0.0f};
        for (size_t i = 0; i < a->D; i++) {
            float d = x[i] - mean;
            add(&ss, d * d);
        }
        ln_f32_finish_row_or_redo(a, r, mean, (ss.sum + ss.carry) / (float)a->D);
    }
}

/* A Neumaier sum is off by at most u |sum| + gamma_{n-1}^2 sum |x_i| (Ogita, Rump & Oishi 2005,
 * whose Sum2 it matches), gamma_{n-1} ~ (n - 1) u. Mean: that plus the division, at most
 * (2 + n^2 u) u (|mean| + sigma); S (terms >= 0): (1 + n^2 u) u relative. So ~2 u kappa + 3.5 u
 * plus n^2 u^2 terms: the error left is the fp32 mean's rounding, not the sums. */
static double bound(size_t n, double kappa)
{
    const double u = 0x1p-24;
    double n2u = (double)n * (double)n * u;
    return ln_bound_twopass(2 + n2u, 1 + n2u, kappa, u, u);
}

LN_KERNEL_DEFINE(ln_f32_kahan_scalar, "f32-kahan-scalar", LN_F32, 0, LN_OP_LAYERNORM, forward, bound, ln_domain_any_row,
                 0, LN_NO_TUNABLES,
                 "two-pass with Neumaier-compensated fp32 sums for the mean and the squared deviations; "
                 "mean error (2 + n^2 u) u (|mean| + sigma), var rel. error (4 + n^2 u) u; rows whose sums "
                 "overflow or squares underflow redone in double"
                 "; bound(768, 1) = 47.6, bound(4096, 1e3) = 1.35e+04");
