/* fp32 residual add + RMSNorm (add-rmsnorm), written once over vec.h: h = x + r (one fp32
 * rounding, so h is correctly rounded), y = f32-rmsnorm-pipelined's output on the stored h, bit
 * for bit, and its bound (the reference normalises the stored h too).
 *
 * In cache: one pass adds every row into h, then f32-rmsnorm.h's forward (its pipeline or row
 * groups) normalises h, still in cache. From memory (stream_min_bytes, f32-rmsnorm.h's
 * tunables, which this kernel shares): f32-rmsnorm's two-row pipeline, one loop normalizing row
 * r and adding row r+1, whose h goes to memory with non-temporal stores and into a cached
 * scratch row (two of them, alternating) that the sums and the next normalization read. So
 * memory sees x and r read and h and y written once each: four element sizes, with no
 * read-for-ownership of h or y. In place (h over r, y over x) is safe: each row of x and r is
 * read before the row's h and y are written. Included by f32-add-rmsnorm-<isa>.c. */
#include "f32-add.h"
#include "f32-rmsnorm.h"

/* One loop over two rows, as f32-rmsnorm.h's pipeline_body: normalizes the scratch row s0 into y
 * (rstd, streamed) while adding the next row x1 + r1 into h1 and the scratch row s1 and summing
 * its squares into *ss (grouped as rms_sq, so the bits are the plain row's). Unlike
 * f32-rmsnorm's, no prefetch of the row after: measured, it made no difference here. */
LN_INLINE void add_pipeline_body(const float *s0, float *y, const float *g, const float *b, float rstd, const float *x1,
                                 const float *r1, float *h1, float *s1, size_t n, double *ss, int stream_h, int has_g,
                                 int has_b)
{
    const vf vr = vf_set1(rstd), z = vf_set1(0.0f);
    vf q[4] = {z, z, z, z};
    size_t i = rms_lead(s0, y, g, b, n, vr, has_g, has_b, 1), j = 0; /* i walks s0 and y, j row r+1 */
#define STAGE(c)                                                               \
    do {                                                                       \
        vf v = rms_vec(s0, g, b, i + c * VF_W, vr, has_g, has_b);              \
        vf d = vf_add(vf_load(x1 + j + c * VF_W), vf_load(r1 + j + c * VF_W)); \
        vf_store(s1 + j + c * VF_W, d);                                        \
        if (stream_h) vf_stream(h1 + j + c * VF_W, d);                         \
        else vf_store(h1 + j + c * VF_W, d);                                   \
        q[c] = vf_fma(d, d, q[c]);                                             \
        vf_stream(y + i + c * VF_W, v);                                        \
    } while (0)
    for (; i + 4 * VF_W <= n; i += 4 * VF_W, j += 4 * VF_W) {
        STAGE(0);
        STAGE(1);
        STAGE(2);
        STAGE(3);
    }
#undef STAGE
    rms_normalize_from(s0, y, g, b, i, n, vr, NULL, has_g, has_b, 1);
    add_row_from(x1, r1, h1, s1, j, n, stream_h);
    *ss = rms_sq_from(s1, n, j, q);
}

/* Row r's h streams when it starts on a vector boundary (every row, when h does and D is a
 * multiple of the width); else plain stores. */
LN_INLINE int h_streams(const float *h) { return (uintptr_t)h % (VF_W * sizeof(float)) == 0; }

/* From memory: the two-row pipeline over the scratch rows s[0], s[1] (n floats each), which hold
 * the rows of h the sums and the normalization read. */
static void add_rms_streaming(const ln_args *a, float *s[2])
{
    const size_t n = a->D, rows = a->rows;
    const float *X = a->x, *R = a->r, *g = a->gamma, *b = a->beta;
    float *H = a->h, *Y = a->y;
    add_row_from(X, R, H, s[0], 0, n, h_streams(H));
    double ss = rms_sq(s[0], n);
    for (size_t r = 0; r < rows; r++) {
        const float *x1 = X + (r + 1) * n, *r1 = R + (r + 1) * n;
        float *s0 = s[r % 2], *s1 = s[(r + 1) % 2], *h1 = H + (r + 1) * n, *y = Y + r * n, rstd;
        const int ok = rms_stats(ss, n, a->eps, &rstd);
        double rstd_out = rstd;
        if (!ok) { /* the double row of f32-rmsnorm.h, on the scratch copy of h */
            ln_args row = *a;
            row.x = s0, row.y = y, row.rows = 1;
            rstd_out = ln_rms_row_f64(LN_F32, &row, 0);
        }
        if (ok && r + 1 < rows) {
            const int sh = h_streams(h1);
#define CASE(G, B) add_pipeline_body(s0, y, g, b, rstd, x1, r1, h1, s1, n, &ss, sh, G, B)
            LN_SPECIALIZE_GB(g, b, CASE);
#undef CASE
        } else {
            if (ok) rms_normalize(s0, y, g, b, n, rstd, NULL, 1);
            if (r + 1 < rows) add_row_from(x1, r1, h1, s1, 0, n, h_streams(h1)), ss = rms_sq(s1, n);
        }
        rms_put_stats(a, r, rstd_out);
    }
    vec_stream_fence();
}

static void f32_add_rmsnorm_forward(const ln_args *a)
{
    if (a->D == 0 || a->rows == 0) return;
    const int stream =
        ln_tune_streams(a->rows, a->D, sizeof(float), ln_param(a, f32_rmsnorm_tunables, T_STREAM_MIN_BYTES));
    const size_t row_bytes = (a->D * sizeof(float) + 63) / 64 * 64;
    float *s = stream ? aligned_alloc(64, 2 * row_bytes) : NULL;
    if (s) {
        add_rms_streaming(a, (float *[2]){s, s + row_bytes / sizeof(float)});
        free(s);
        return;
    }
    /* in cache (or no scratch rows to be had) */
    add_row_from(a->x, a->r, a->h, NULL, 0, a->rows * a->D, 0);
    ln_args norm = *a;
    norm.x = a->h;
    f32_rmsnorm_forward(&norm);
}

#define F32_ADD_RMSNORM_HOW                                                                               \
    "h = x + r in fp32 (one rounding), then f32-rmsnorm-pipelined's sums and epilogue on h (4W-lane fma " \
    "sum of squares in double, y = h (rstd gamma) + beta); from memory a 2-row pipeline (normalize r, "   \
    "add r+1) streaming h and y, h kept in cached rows; rows whose sums overflow or squares underflow "   \
    "redone in double"
