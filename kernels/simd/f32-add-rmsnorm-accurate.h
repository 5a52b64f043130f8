/* Near-correctly-rounded fp32 residual add + RMSNorm (add-rmsnorm), written once over vec.h:
 * f32-add-pipeline.h's schedule (h = x + r, one fp32 rounding; in cache row blocks added then
 * normalised by f32-rmsnorm-accurate's forward; from memory the two-row pipeline streaming h and
 * y) with f32-rmsnorm-accurate's double sums and outputs, so y is that kernel's output on the
 * stored h, bit for bit, and its bound. In the pipeline each fp32 vector of h is widened in two
 * halves, squared exactly in double and added to the accumulators racc_sq_from would give those
 * elements (element block k of VD_W to accumulator k mod 4, in the same order), so the sums do not
 * depend on the schedule. No row needs a fallback (f32-rmsnorm-accurate.h). Included by
 * f32-addrms-accurate-<isa>.c and shares f32-rmsnorm-accurate.h's tunables. */
#include "f32-rmsnorm-accurate.h"

/* The norm's pieces for f32-add-pipeline.h. */
typedef struct {
    double ss;
} add_sums;
typedef struct {
    double rstd;
} add_coef;
typedef vd add_vcoef;
typedef struct {
    vd a[4];
} add_acc;

LN_INLINE void add_row_sums(const float *s, size_t n, add_sums *q) { q->ss = racc_sq(s, n); }
LN_INLINE add_acc add_acc_start(vf h0, size_t m)
{
    (void)h0, (void)m;
    const vd z = vd_set1(0.0);
    return (add_acc){{z, z, z, z}};
}
/* d holds the element blocks 2c and 2c+1 (VD_W each) of a group of 4 VF_W = 8 VD_W elements */
LN_INLINE void add_acc_step(add_acc *A, int c, vf d)
{
    const vd lo = vd_from_lo(d), hi = vd_from_hi(d);
    A->a[(2 * c) % 4] = vd_fma(lo, lo, A->a[(2 * c) % 4]);
    A->a[(2 * c + 1) % 4] = vd_fma(hi, hi, A->a[(2 * c + 1) % 4]);
}
LN_INLINE void add_acc_finish(add_acc *A, const float *s1, size_t n, size_t j, add_sums *q)
{
    q->ss = racc_sq_from(s1, n, j, A->a[0], A->a[1], A->a[2], A->a[3]);
}
/* rstd as f32_rmsnorm_accurate_forward computes it; every fp32 row is taken in double */
LN_INLINE int add_stats(const add_sums *q, size_t n, double eps, add_coef *c)
{
    c->rstd = 1.0 / sqrt(q->ss / (double)n + eps);
    return 1;
}
static void add_fallback(const ln_args *a, const add_sums *q, const float *s0, float *y, double *mean, double *rstd)
{
    (void)a, (void)q, (void)s0, (void)y, (void)mean, (void)rstd; /* add_stats takes every row */
}
LN_INLINE add_vcoef add_vcoef_of(add_coef c) { return vd_set1(c.rstd); }
/* One fp32 output vector (two double halves, each rounded once) at i; its first m < VF_W. */
LN_INLINE vf add_out(const float *s0, const float *g, const float *b, size_t i, add_vcoef v, int has_g, int has_b)
{
    return vf_from_vd(racc_vec(s0, g, b, i, v, has_g, has_b), racc_vec(s0, g, b, i + VD_W, v, has_g, has_b));
}
LN_INLINE vf add_part(const float *s0, const float *g, const float *b, size_t i, size_t m, add_vcoef v, int has_g,
                      int has_b)
{
    const vd lo = racc_part(s0, g, b, i, m < VD_W ? m : VD_W, v, has_g, has_b);
    const vd hi = m > VD_W ? racc_part(s0, g, b, i + VD_W, m - VD_W, v, has_g, has_b) : vd_set1(0.0);
    return vf_from_vd(lo, hi);
}
LN_INLINE void add_normalize_from(const float *s0, float *y, const float *g, const float *b, size_t i, size_t n,
                                  add_vcoef v, int has_g, int has_b)
{
    racc_normalize_from(s0, y, g, b, i, n, v, NULL, has_g, has_b, 1);
}
static void add_normalize(const float *s0, float *y, const float *g, const float *b, size_t n, add_coef c)
{
#define CASE(G, B) racc_normalize_body(s0, y, g, b, n, c.rstd, NULL, G, B, 1)
    LN_SPECIALIZE_GB(g, b, CASE);
#undef CASE
}
LN_INLINE void add_coef_stats(add_coef c, double *mean, double *rstd) { *mean = 0, *rstd = c.rstd; }

#define ADD_NORM_PLAIN f32_rmsnorm_accurate_forward
#define ADD_NORM_TUNABLES f32_rmsnorm_accurate_tunables
#define ADD_NORM_BOUND f32_rmsnorm_accurate_bound
#include "f32-add-pipeline.h"

#define F32_ADD_RMSNORM_ACCURATE_HOW                                                                         \
    "h = x + r in fp32 (one rounding), then f32-rmsnorm-accurate's sums and outputs on h (x^2 exact in "     \
    "double, fma-summed in 4 double vectors; y = fma(h rstd, gamma, beta) in double rounded once to fp32); " \
    "from memory a 2-row pipeline (normalize r, add r+1) streaming h and y, h kept in cached rows"
