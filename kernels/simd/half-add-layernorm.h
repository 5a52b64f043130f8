/* Residual add + LayerNorm on 16-bit storage (f16 or bf16) with fp32 arithmetic, written once
 * over the 16-bit block layer for AVX2, AVX-512 and NEON: h = x + r widened, added in fp32 and
 * rounded once to the format (half-add.h: correctly rounded), then half-shifted.h's one-pass
 * LayerNorm on the stored h in row blocks while they are in cache (half_add_norm), streaming h and
 * y from memory. y is half_shifted's output on h, bit for bit, so the bound, the domain and the
 * tunables are half-shifted.h's (the {f16,bf16}-f32acc-shifted kernels') (the reference normalises the stored h).
 * Included by the {f16,bf16}-addln-f32acc-<isa>.c files, which define HALF_ADDLN_DTYPE first. */
#ifndef LN_SIMD_HALF_ADD_LAYERNORM_H
#define LN_SIMD_HALF_ADD_LAYERNORM_H

#include "half-add.h"
#include "half-shifted.h"

static void half_addln_norm(const ln_args *a) { half_shifted(a, HALF_ADDLN_DTYPE, HALF_EPI_F32); }

static void half_add_layernorm_forward(const ln_args *a)
{
    half_add_norm(HALF_ADDLN_DTYPE, a, half_addln_norm, half_shifted_tunables,
                  sizeof half_shifted_tunables / sizeof *half_shifted_tunables);
}

/* half-shifted's: the shifted-data bound over 4 W lanes for the accepted rows, the two-pass one
 * for the rest, in the format's unit roundoff. */
static double half_add_layernorm_bound(size_t n, double kappa)
{
    return half_shifted_bound(n, kappa, HALF_ADDLN_DTYPE == LN_F16 ? 0x1p-11 : 0x1p-8);
}

#define HALF_ADD_LAYERNORM_HOW                                                                             \
    "x, r widened, h = x + r in fp32 rounded once to the format (correctly rounded), in row blocks while " \
    "in cache; one pass on h: K = mean of the first 2W h, S1 = sum(h-K), S2 = sum(h-K)^2 in fp32 "         \
    "(4 accumulators each), rows with (S1/n)^2 > var redone two-pass; fp32 epilogue, rounded once; from "  \
    "memory h and y streamed, h read back from a cached copy"

#endif
