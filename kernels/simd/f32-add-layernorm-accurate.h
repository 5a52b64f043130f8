/* Near-correctly-rounded fp32 residual add + LayerNorm (add-layernorm), written once over vec.h:
 * f32-add-pipeline.h's schedule (h = x + r, one fp32 rounding; in cache row blocks added then
 * normalised by f32-accurate's forward; from memory the two-row pipeline streaming h and y) with
 * f32-accurate's pieces: the shift K of h's first W elements (acc_shift_of, on the vector of h
 * before it is stored), S1 = sum (h - K), S2 = sum (h - K)^2 in double, the outputs in double
 * rounded once. In the pipeline each fp32 vector of h is widened in two halves, the low half
 * into the first pair of double sums and the high half into the second, as dev_from groups a
 * row, so y is f32-accurate's output on the stored h, bit for bit, and its bound. A row whose
 * shift is more than about one sigma off goes to add_fallback, which sums it once more, about
 * K + S1/n, as f32-accurate does. Included by f32-addln-accurate-<isa>.c and shares
 * f32-accurate.h's tunables. */
#include "f32-accurate.h"

/* The norm's pieces for f32-add-pipeline.h. */
typedef struct {
    double K, s1, s2;
} add_sums;
typedef struct {
    double K, d, rstd; /* the mean is K + d */
} add_coef;
typedef struct {
    vd k, rstd, c; /* c = -d rstd */
} add_vcoef;
typedef struct {
    double K;
    vd k, s[2], q[2];
} add_acc;

LN_INLINE void add_row_sums(const float *s, size_t n, add_sums *q)
{
    q->K = acc_shift(s, n);
    dev_row(s, n, q->K, &q->s1, &q->s2);
}
LN_INLINE add_acc add_acc_start(vf h0, size_t m)
{
    const double K = acc_shift_of(h0, m);
    const vd z = vd_set1(0.0);
    return (add_acc){K, vd_set1(K), {z, z}, {z, z}};
}
LN_INLINE void add_acc_step(add_acc *A, int c, vf d)
{
    (void)c; /* every W block alike: its low half into s[0], q[0], its high half into s[1], q[1] */
    dev_add(vd_from_lo(d), A->k, 0, &A->s[0], &A->q[0]);
    dev_add(vd_from_hi(d), A->k, 0, &A->s[1], &A->q[1]);
}
LN_INLINE void add_acc_finish(add_acc *A, const float *s1, size_t n, size_t j, add_sums *q)
{
    q->K = A->K;
    dev_from(s1, n, j, A->K, A->s, A->q, &q->s1, &q->s2);
}
/* 0 when the shift is off: the row goes to add_fallback with these sums, which sums it about K + S1/n */
LN_INLINE int add_stats(const add_sums *q, size_t n, double eps, add_coef *c)
{
    c->K = q->K;
    return dev_stats(q->s1, q->s2, n, eps, 0, &c->d, &c->rstd);
}
/* a whole row normalised, streamed: f32-accurate's pipeline with no next row to sum */
static void add_normalize(const float *s0, float *y, const float *g, const float *b, size_t n, add_coef c)
{
    double s1, s2;
    pipeline(s0, y, g, b, c.K, c.d, c.rstd, NULL, 0.0, NULL, n, &s1, &s2, 1, 0);
}
static void add_fallback(const ln_args *a, const add_sums *q, const float *s0, float *y, double *mean, double *rstd)
{
    add_coef c;
    c.K = q->K;
    row_stats(s0, a->D, a->eps, &c.K, q->s1, q->s2, &c.d, &c.rstd);
    add_normalize(s0, y, a->gamma, a->beta, a->D, c);
    *mean = c.K + c.d, *rstd = c.rstd;
}
LN_INLINE add_vcoef add_vcoef_of(add_coef c)
{
    return (add_vcoef){vd_set1(c.K), vd_set1(c.rstd), vd_set1(-c.d * c.rstd)};
}
/* One fp32 output vector (two double halves, each rounded once) at i; its first m < VF_W. */
LN_INLINE vf add_out(const float *s0, const float *g, const float *b, size_t i, add_vcoef v, int has_g, int has_b)
{
    const vd lo = out_half(vd_load_f32(s0 + i), g, b, i, VD_W, v.k, v.rstd, v.c, has_g, has_b, 0, 0);
    return vf_from_vd(lo,
                      out_half(vd_load_f32(s0 + i + VD_W), g, b, i + VD_W, VD_W, v.k, v.rstd, v.c, has_g, has_b, 0, 0));
}
LN_INLINE vf add_part(const float *s0, const float *g, const float *b, size_t i, size_t m, add_vcoef v, int has_g,
                      int has_b)
{
    const size_t m0 = m < VD_W ? m : VD_W, m1 = m - m0;
    const vd lo = out_half(vd_load_f32_part(s0 + i, m0), g, b, i, m0, v.k, v.rstd, v.c, has_g, has_b, 0, 0);
    const vd hi =
        m1 ? out_half(vd_load_f32_part(s0 + i + VD_W, m1), g, b, i + VD_W, m1, v.k, v.rstd, v.c, has_g, has_b, 0, 0)
           : vd_set1(0.0);
    return vf_from_vd(lo, hi);
}
LN_INLINE void add_normalize_from(const float *s0, float *y, const float *g, const float *b, size_t i, size_t n,
                                  add_vcoef v, int has_g, int has_b)
{
    const vec_lines l = vec_stream_lines(y, n, sizeof *y);
    for (; i + VF_W <= n; i += VF_W) vf_put(y, i, add_out(s0, g, b, i, v, has_g, has_b), l, 1);
    if (i < n) vf_store_part(y + i, add_part(s0, g, b, i, n - i, v, has_g, has_b), n - i);
}
LN_INLINE void add_coef_stats(add_coef c, double *mean, double *rstd) { *mean = c.K + c.d, *rstd = c.rstd; }

/* f32_accurate_forward widens gamma and beta to double on every call below gb_float_min_d: in
 * blocks of one or two rows (16 KiB of h at D 2048-3072) that was 2 D conversions a row, and the
 * kernels ran at 14-25 GB/s in cache against 30-38 with 8-row blocks (Zen 5, docs/simd.md). */
#define ADD_MIN_BLOCK_ROWS 8
#define ADD_NORM_PLAIN f32_accurate_forward
#define ADD_NORM_TUNABLES f32_accurate_tunables
#define ADD_NORM_BOUND f32_accurate_bound
#include "f32-add-pipeline.h"

#define F32_ADD_LAYERNORM_ACCURATE_HOW                                                                          \
    "h = x + r in fp32 (one rounding), then f32-accurate's one pass on h in double (S1 = sum(h-K), S2 = "       \
    "sum(h-K)^2 about K = 0 or the mean of the first W h; rows with (S1/n)^2 > var summed again about K + "     \
    "S1/n) and double epilogue rounded once; from memory a 2-row pipeline (normalize r, add r+1 and its sums) " \
    "streaming h and y, h kept in cached rows"
