/* fp32 residual add + LayerNorm (add-layernorm), written once over vec.h: f32-add-pipeline.h's
 * schedule (h = x + r, one fp32 rounding; in cache row blocks added then normalised by f32-shifted.h; from
 * memory its two-row pipeline streaming h and y) with f32-shifted's one-pass sums about a shift
 * and its epilogue, so y is f32-shifted's output on the stored h, bit for bit, and its bound. In
 * the pipeline the shifted sums of row r+1 are taken as its h is added (grouped as shifted_sums),
 * its shift K from the sum of its first W elements of x and r (the first W of h). Rows whose shift
 * is too far from the mean, or whose sums leave fp32's range, go to f32-twopass's row code and its
 * double fallback, as in f32-shifted. Included by f32-addln-shifted-<isa>.c and shares
 * f32-shifted.h's tunables. */
#include "f32-shifted.h"

/* The norm's pieces for f32-add-pipeline.h. */
typedef struct {
    float K;
    double s1, s2;
} add_sums;
typedef struct {
    float mean, rstd;
} add_coef;
typedef struct {
    vf mean, rstd;
} add_vcoef;
typedef struct {
    vf k, s[4], q[4];
} add_acc;

LN_INLINE void add_row_sums(const float *s, size_t n, add_sums *q)
{
    q->K = shift_of(s, n);
    shifted_sums(s, n, q->K, &q->s1, &q->s2);
}
/* shift_of on the row of h before it is stored, from h0, its first m = min(n, W) elements (the
 * lanes past m 0 + 0). */
LN_INLINE add_acc add_acc_start(vf h0, size_t m)
{
    const float K = (float)(vf_sum(h0) / (double)m);
    const vf z = vf_set1(0.0f);
    return (add_acc){vf_set1(K), {z, z, z, z}, {z, z, z, z}};
}
LN_INLINE void add_acc_step(add_acc *A, int c, vf d)
{
    const vf e = vf_sub(d, A->k);
    A->s[c] = vf_add(A->s[c], e);
    A->q[c] = vf_fma(e, e, A->q[c]);
}
LN_INLINE void add_acc_finish(add_acc *A, const float *s1, size_t n, size_t j, add_sums *q)
{
    q->K = vf_first(A->k);
    shifted_sums_from(s1, n, j, q->K, A->s, A->q, &q->s1, &q->s2);
}
LN_INLINE int add_stats(const add_sums *q, size_t n, double eps, add_coef *c)
{
    return shifted_stats(q->s1, q->s2, q->K, n, eps, &c->mean, &c->rstd);
}
static void add_fallback(const ln_args *a, const add_sums *q, const float *s0, float *y, double *mean, double *rstd)
{
    (void)q;
    f32_row_twopass(s0, y, a->gamma, a->beta, a->D, a->eps, NULL, 1, mean, rstd);
}
LN_INLINE add_vcoef add_vcoef_of(add_coef c) { return (add_vcoef){vf_set1(c.mean), vf_set1(c.rstd)}; }
LN_INLINE vf add_out(const float *s0, const float *g, const float *b, size_t i, add_vcoef v, int has_g, int has_b)
{
    return f32_norm_vec(s0, g, b, i, v.mean, v.rstd, has_g, has_b);
}
LN_INLINE vf add_part(const float *s0, const float *g, const float *b, size_t i, size_t m, add_vcoef v, int has_g,
                      int has_b)
{
    return f32_norm_part(s0, g, b, i, m, v.mean, v.rstd, has_g, has_b);
}
LN_INLINE void add_normalize_from(const float *s0, float *y, const float *g, const float *b, size_t i, size_t n,
                                  add_vcoef v, int has_g, int has_b)
{
    f32_normalize_from(s0, y, g, b, i, n, v.mean, v.rstd, has_g, has_b, 1);
}
static void add_normalize(const float *s0, float *y, const float *g, const float *b, size_t n, add_coef c)
{
    f32_normalize(s0, y, g, b, n, c.mean, c.rstd, 1);
}
LN_INLINE void add_coef_stats(add_coef c, double *mean, double *rstd) { *mean = c.mean, *rstd = c.rstd; }

#define ADD_NORM_PLAIN f32_shifted_forward
#define ADD_NORM_TUNABLES f32_shifted_tunables
#define ADD_NORM_BOUND f32_shifted_bound
#include "f32-add-pipeline.h"

#define F32_ADD_LAYERNORM_HOW                                                                              \
    "h = x + r in fp32 (one rounding), then f32-shifted's one pass on h (K = mean of the first W h, "      \
    "S1 = sum(h-K), S2 = sum(h-K)^2 in 4 vector accumulators, rows with (S1/n)^2 > var redone two-pass) "  \
    "and fp32 epilogue; from memory a 2-row pipeline (normalize r, add r+1 and its sums) streaming h and " \
    "y, h kept in cached rows; var rel. error <= 10 (n/(4W)+3) u; overflow or underflow rows in double"
