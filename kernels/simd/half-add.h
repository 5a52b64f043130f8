/* h = x + r on 16-bit storage over the 16-bit block layer (half-vec.h): blocks widened exactly,
 * added in fp32 and rounded once to the format, which is h correctly rounded (kernels/add-norm.h:
 * fp32's 24 bits are at least 2p + 1). The add of the 16-bit fused kernels, and the row blocks
 * (half_add_norm) in which they hand h to a plain 16-bit SIMD kernel of the op. */
#ifndef LN_SIMD_HALF_ADD_H
#define LN_SIMD_HALF_ADD_H

#include <stdlib.h>

#include "add-norm.h"
#include "half-vec.h"
#include "tunables.h"

LN_INLINE vf_pair half_block_add(vf_pair u, vf_pair v) { return (vf_pair){vf_add(u.a, v.a), vf_add(u.b, v.b)}; }

/* h = x + r over n elements into h (non-temporal stores when stream: h then HB-aligned) and,
 * when s, into the cached copy s (ordinary stores), one rounding per element either way. */
LN_INLINE void half_add_run(ln_dtype t, const uint16_t *x, const uint16_t *r, uint16_t *h, uint16_t *s, size_t n,
                            int stream)
{
    size_t j = 0;
    for (; j + HB <= n; j += HB) {
        const vf_pair v = half_block_add(half_block_load(t, x + j), half_block_load(t, r + j));
        half_block_store(t, h + j, v, stream ? HALF_STREAM_LINE : 0);
        if (s) half_block_store(t, s + j, v, 0);
    }
    if (j < n) {
        const vf_pair v = half_block_add(half_block_load_part(t, x + j, n - j), half_block_load_part(t, r + j, n - j));
        half_block_store_part(t, h + j, v, n - j);
        if (s) half_block_store_part(t, s + j, v, n - j);
    }
}

/* ln_add_fn over the block layer: elements [lo, hi) of h = x + r, t f16 or bf16. */
static inline void half_add_elements(ln_dtype t, const ln_args *a, size_t lo, size_t hi)
{
    half_add_run(t, (const uint16_t *)a->x + lo, (const uint16_t *)a->r + lo, (uint16_t *)a->h + lo, NULL, hi - lo, 0);
}

/* A fused 16-bit kernel's forward over norm, the plain op's forward built in the same file, whose
 * tunables tu (nt of them, the streaming threshold first; the fused kernel shares them) it is
 * called with. The rows go in blocks of at least HALF_ADD_MIN_ROWS rows and HALF_ADD_BLOCK_BYTES
 * of h: the block's h = x + r, then norm on the block while it is in L1/L2, so norm keeps its row
 * pipeline within the block (one-row calls have none). From memory (the whole call past the
 * threshold) the block's h goes out with non-temporal stores and into a cached scratch block that
 * norm reads, and norm streams y (its threshold set to 0): memory sees x and r read and h and y
 * written, four element sizes, no read-for-ownership. In cache, norm reads h itself. In place
 * (h over r, y over x) is safe: a block's x and r are read before its h and y are written. */
#define HALF_ADD_MIN_ROWS 4
#define HALF_ADD_BLOCK_BYTES (16 << 10)
#define HALF_ADD_MAX_TUNABLES 16

static inline void half_add_norm(ln_dtype t, const ln_args *a, void (*norm)(const ln_args *), const ln_tunable *tu,
                                 size_t nt)
{
    const size_t n = a->D, rows = a->rows;
    if (n == 0 || rows == 0) return;
    int p[HALF_ADD_MAX_TUNABLES];
    for (size_t i = 0; i < nt && i < HALF_ADD_MAX_TUNABLES; i++) p[i] = ln_param(a, tu, i);
    const int stream = ln_tune_streams(rows, n, sizeof(uint16_t), p[0]);
    p[0] = stream ? 0 : LN_TUNE_OFF; /* each block streams y exactly when the whole call would */
    size_t block = HALF_ADD_BLOCK_BYTES / (n * sizeof(uint16_t));
    block = block < HALF_ADD_MIN_ROWS ? HALF_ADD_MIN_ROWS : block;
    uint16_t *s = stream ? aligned_alloc(64, (block * n * sizeof(uint16_t) + 63) / 64 * 64) : NULL;
    const uint16_t *X = a->x, *R = a->r;
    uint16_t *H = a->h;
    for (size_t r0 = 0; r0 < rows; r0 += block) {
        const size_t cnt = rows - r0 < block ? rows - r0 : block, o = r0 * n;
        const int sh = s && (uintptr_t)(H + o) % (HB * sizeof(uint16_t)) == 0;
        half_add_run(t, X + o, R + o, H + o, s, cnt * n, sh);
        ln_args b = ln_add_norm_rows(t, a, s ? (const void *)s : (const void *)(H + o), r0, cnt);
        b.params = p;
        norm(&b);
    }
    if (stream) vec_stream_fence(); /* order h's non-temporal stores before the caller reads it */
    free(s);
}

#endif
