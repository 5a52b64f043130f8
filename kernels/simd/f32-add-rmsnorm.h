/* fp32 residual add + RMSNorm (add-rmsnorm), written once over vec.h: f32-add-pipeline.h's
 * schedule (h = x + r, one fp32 rounding; in cache row blocks added then normalised by f32-rmsnorm.h; from
 * memory its two-row pipeline streaming h and y) with f32-rmsnorm-pipelined's sums and epilogue,
 * so y is that kernel's output on the stored h, bit for bit, and its bound. In the pipeline the
 * sum of squares of row r+1 is taken as its h is added (grouped as rms_sq). Included by
 * f32-addrms-pipelined-<isa>.c and shares f32-rmsnorm.h's tunables. */
#include "f32-rmsnorm.h"

/* The norm's pieces for f32-add-pipeline.h: the sum of squares grouped as rms_sq, rstd as
 * f32-rmsnorm's, rows outside fp32's range in double. */
typedef struct {
    double ss;
} add_sums;
typedef struct {
    float rstd;
} add_coef;
typedef vf add_vcoef;
typedef struct {
    vf q[4];
} add_acc;

LN_INLINE void add_row_sums(const float *s, size_t n, add_sums *q) { q->ss = rms_sq(s, n); }
LN_INLINE add_acc add_acc_start(vf h0, size_t m)
{
    (void)h0, (void)m;
    const vf z = vf_set1(0.0f);
    return (add_acc){{z, z, z, z}};
}
LN_INLINE void add_acc_step(add_acc *A, int c, vf d) { A->q[c] = vf_fma(d, d, A->q[c]); }
LN_INLINE void add_acc_finish(add_acc *A, const float *s1, size_t n, size_t j, add_sums *q)
{
    q->ss = rms_sq_from(s1, n, j, A->q[0], A->q[1], A->q[2], A->q[3]);
}
LN_INLINE int add_stats(const add_sums *q, size_t n, double eps, add_coef *c)
{
    return rms_stats(q->ss, n, eps, &c->rstd);
}
static void add_fallback(const ln_args *a, const add_sums *q, const float *s0, float *y, double *mean, double *rstd)
{
    (void)q;          /* out of fp32's range: the row again, in double */
    ln_args row = *a; /* the double row of f32-rmsnorm.h */
    row.x = s0, row.y = y, row.rows = 1;
    *mean = 0, *rstd = ln_rms_row_f64(LN_F32, &row, 0);
}
LN_INLINE add_vcoef add_vcoef_of(add_coef c) { return vf_set1(c.rstd); }
LN_INLINE vf add_out(const float *s0, const float *g, const float *b, size_t i, add_vcoef v, int has_g, int has_b)
{
    return rms_vec(s0, g, b, i, v, has_g, has_b);
}
LN_INLINE vf add_part(const float *s0, const float *g, const float *b, size_t i, size_t m, add_vcoef v, int has_g,
                      int has_b)
{
    return rms_part(s0, g, b, i, m, v, has_g, has_b);
}
LN_INLINE void add_normalize_from(const float *s0, float *y, const float *g, const float *b, size_t i, size_t n,
                                  add_vcoef v, int has_g, int has_b)
{
    rms_normalize_from(s0, y, g, b, i, n, v, NULL, has_g, has_b, 1);
}
static void add_normalize(const float *s0, float *y, const float *g, const float *b, size_t n, add_coef c)
{
    rms_normalize(s0, y, g, b, n, c.rstd, NULL, 1);
}
LN_INLINE void add_coef_stats(add_coef c, double *mean, double *rstd) { *mean = 0, *rstd = c.rstd; }

#define ADD_NORM_PLAIN f32_rmsnorm_forward
#define ADD_NORM_TUNABLES f32_rmsnorm_tunables
#define ADD_NORM_BOUND f32_rmsnorm_bound
#include "f32-add-pipeline.h"

#define F32_ADD_RMSNORM_HOW                                                                               \
    "h = x + r in fp32 (one rounding), then f32-rmsnorm-pipelined's sums and epilogue on h (4W-lane fma " \
    "sum of squares in double, y = h (rstd gamma) + beta); from memory a 2-row pipeline (normalize r, "   \
    "add r+1) streaming h and y, h kept in cached rows; rows whose sums overflow or squares underflow "   \
    "redone in double"
