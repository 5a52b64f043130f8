/* fp32 shifted-data LayerNorm for SVE, vector-length agnostic: kernels/simd/f32-shifted.h's
 * statistics with W = svcntw() lanes at run time. Per row a shift K (the mean of the first
 * min(n, W) elements, rounded to float), then in one pass S1 = sum (x - K) and S2 =
 * sum (x - K)^2 (fma) in four vector accumulators each (sve_row_sums), lanes in double;
 * mean = K + S1/n, var = S2/n - (S1/n)^2; then the normalization (sve_normalize). So x is read
 * twice, not three times (no pipeline across rows: the fixed-width kernel's row pipeline keeps
 * vectors in arrays, which SVE forbids). A row whose shift is more than about one sigma off
 * ((S1/n)^2 > var), or whose sums are not finite, is redone by f32-twopass-sve's row code, its
 * double fallback included. */
#include "sve.h"

/* The mean of the first min(n, W) elements, in float. */
static float shift_of(const float *x, size_t n)
{
    const size_t m = n < svcntw() ? n : svcntw();
    const svbool_t pg = svwhilelt_b32_u64(0, m);
    return (float)(sve_sum(svld1_f32(pg, x)) / (double)m);
}

static void forward(const ln_args *a)
{
    const size_t n = a->D;
    const int stream = sve_streams(a, LN_F32);
    for (size_t r = 0; r < a->rows && n > 0; r++) {
        const float *x = (const float *)a->x + r * n;
        const float K = shift_of(x, n);
        double s1, s2;
        sve_row_sums(LN_F32, x, n, K, 1, 1, 1, &s1, &s2);
        const double d = s1 / (double)n, var = s2 / (double)n - d * d;
        if (!(d * d <= var) || !ln_f32_stats_usable(s1, var, a->eps)) { /* NaN included */
            sve_twopass_row(a, LN_F32, r, stream);
            continue;
        }
        sve_row_finish(a, LN_F32, r, 1, (float)(K + d), (float)(1.0 / sqrt(var + a->eps)), stream);
    }
    sve_stream_fence(stream);
}

/* f32-shifted's: the larger of the accepted rows' bound and the two-pass fallback's, with 4 W
 * lanes, taken at W = 4 (more lanes, fewer terms per lane: it holds at every W). */
static double bound(size_t n, double kappa)
{
    const size_t lanes = (size_t)(4 * sve_lanes());
    return fmax(ln_bound_shifted(n, kappa, lanes, 0x1p-24), ln_bound_f32_lanes(n, kappa, lanes, 0.0));
}

#define HOW                                                                                                        \
    "fp32 shifted data, one pass, vector-length agnostic (W = svcntw() lanes, predicated tail): K = mean of the "  \
    "first W x, S1 = sum(x-K), S2 = sum(x-K)^2 in 4 vector accumulators, lanes in double; var = S2/n - (S1/n)^2; " \
    "rows with (S1/n)^2 > var redone two-pass; var rel. error <= 10 (n/(4W)+3) u; overflow or underflow rows "     \
    "redone in double; bound taken at W = 4 (it holds at every W)"

LN_KERNEL_DEFINE(ln_f32_shifted_sve, "f32-shifted-sve", LN_F32, LN_SVE_ISA, LN_OP_LAYERNORM, forward, bound,
                 ln_domain_any_row, 0, LN_NO_TUNABLES, HOW "; bound(768, 1) = 1.39e+03, bound(4096, 1e3) = 1.17e+06");
