/* Cascaded Welford LayerNorm in fp32, as PyTorch's CPU kernel does it: Welford's updates over
 * chunks of CHUNK elements, then the chunks' (count, mean, M2) merged pairwise with Chan's
 * formula in a binary-counter cascade, so no element passes through more than
 * ceil(log2(n / CHUNK)) merges and the error grows like kappa u log2 n instead of n kappa u
 * (bounds.h ln_bound_cascade: a chunk's share is (CHUNK + 1) / 2 kappa u on the mean, and the
 * merges' effects on M2 telescope, so each level adds a constant, not its depth). */
#include <math.h>

#include "bounds.h"
#include "f32-normalize-row.h"

enum { CHUNK = 16 };

typedef struct {
    float n, mean, m2; /* count (exact in fp32 below 2^24), mean, sum of squared deviations */
} moments;

static moments welford(const float *x, size_t len)
{
    moments m = {0.0f, 0.0f, 0.0f};
    for (size_t i = 0; i < len; i++) {
        m.n += 1.0f;
        float d = x[i] - m.mean;
        m.mean += d / m.n;
        m.m2 += d * (x[i] - m.mean);
    }
    return m;
}

/* Chan, Golub & LeVeque's pairwise update; b is the newer and never the larger part, so the
 * correction delta * nb / n is the smaller of the two possible. */
static moments merge(moments a, moments b)
{
    moments m;
    m.n = a.n + b.n;
    float delta = b.mean - a.mean, wb = b.n / m.n;
    m.mean = a.mean + delta * wb;
    m.m2 = a.m2 + b.m2 + delta * delta * (a.n * wb);
    return m;
}

static void forward(const ln_args *a)
{
    if (a->D == 0) return;
    for (size_t r = 0; r < a->rows; r++) {
        const float *x = (const float *)a->x + r * a->D;
        /* The binary counter: stack[k] holds 2^level[k] chunks, levels strictly decreasing. */
        moments stack[64];
        int level[64], top = 0;
        for (size_t start = 0; start < a->D; start += CHUNK) {
            moments m = welford(x + start, a->D - start < CHUNK ? a->D - start : CHUNK);
            int lv = 0;
            for (; top > 0 && level[top - 1] == lv; lv++) m = merge(stack[--top], m);
            stack[top] = m;
            level[top++] = lv;
        }
        for (; top > 1; top--) stack[top - 2] = merge(stack[top - 2], stack[top - 1]);
        ln_f32_finish_row_or_redo(a, r, stack[0].mean, stack[0].m2 / (float)a->D);
    }
}

/* bounds.h's cascade: chunks of CHUNK; the binary counter's tree has height ceil(log2(chunks))
 * and merges the newer part into the older, never the larger (ratio 1). */
static double bound(size_t n, double kappa)
{
    double chunks = ceil((double)n / CHUNK), levels = chunks > 1 ? ceil(log2(chunks)) : 0;
    return ln_bound_cascade(n < CHUNK ? (double)n : CHUNK, levels, 1, kappa, 0x1p-24, 0x1p-24);
}

LN_KERNEL_DEFINE(ln_f32_cascade_scalar, "f32-cascade-scalar", LN_F32, 0, LN_OP_LAYERNORM, forward, bound,
                 ln_domain_any_row, 0, LN_NO_TUNABLES,
                 "fp32 Welford over chunks of 16, chunks merged pairwise (Chan) in a binary-counter "
                 "cascade, PyTorch-CPU-like; mean error ~(8.4 + L) kappa u sigma, var rel. error "
                 "~(18 + 2 L) kappa u over L = log2(n/16) merge levels; rows whose sums overflow or squares "
                 "underflow redone in double"
                 "; bound(768, 1) = 382, bound(4096, 1e3) = 1.28e+05");
