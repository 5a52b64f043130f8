/* fp32 RMSNorm for SVE, vector-length agnostic (sve.h): the sum of squares in four W-lane fma
 * accumulators (W = svcntw()), the lanes added in double, then y = x rstd gamma + beta in fp32,
 * as f32-rmsnorm-vector (kernels/simd/f32-norm-ops-vec.h) does at a fixed width. */
#include "norm-ops-common.h"
#include "sve.h"

#include "bounds-ops.h"

static void forward(const ln_args *a)
{
    const size_t n = a->D;
    for (size_t r = 0; r < a->rows && n; r++) {
        const float *x = (const float *)a->x + r * n;
        float *y = (float *)a->y + r * n;
        double radicand = sve_row_reduce(LN_F32, x, n, 0.0f, 1) / (double)n + a->eps;
        double rstd_out;
        if (!ln_rms_radicand_ok(radicand)) { /* a lane overflowed or the squares underflowed */
            rstd_out = ln_rms_row_f64(LN_F32, a, r);
        } else {
            const float rstd = (float)(1.0 / sqrt(radicand));
            const float *g = a->gamma, *b = a->beta;
            for (size_t i = 0; i < n; i += svcntw()) {
                svbool_t pg = svwhilelt_b32_u64(i, n);
                svfloat32_t v = svmul_n_f32_x(pg, svld1_f32(pg, x + i), rstd);
                if (g) v = svmul_f32_x(pg, v, svld1_f32(pg, g + i));
                if (b) v = svadd_f32_x(pg, v, svld1_f32(pg, b + i));
                svst1_f32(pg, y + i, v);
            }
            rstd_out = rstd;
        }
        if (a->mean) a->mean[r] = 0;
        if (a->rstd) a->rstd[r] = rstd_out;
    }
}

static double bound(size_t n, double kappa)
{
    (void)kappa;
    return ln_bound_rmsnorm(sve_lane_terms(n), 0x1p-24, 0x1p-24);
}

#define HOW                                                                                                           \
    "fp32, vector-length agnostic: sum of squares in 4 W-lane FMA accumulators (W = svcntw(), "                       \
    "predicated tail), lanes in double; y = x rstd gamma + beta in fp32; rel. error of "                              \
    "mean(x^2) + eps (n/(4W) + 8) u; rows whose sum overflows or squares underflow redone in double; bound taken at " \
    "W = 4 (it holds at every W)"

LN_KERNEL_DEFINE(ln_f32_rmsnorm_vector_sve, "f32-rmsnorm-vector-sve", LN_F32, LN_SVE_ISA, LN_OP_RMSNORM, forward, bound,
                 ln_domain_any_row, 0, LN_NO_TUNABLES, HOW "; bound(768, 1) = 112, bound(4096, 1e3) = 445");
