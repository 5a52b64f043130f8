/* Residual add + RMSNorm on 16-bit storage (f16 or bf16) with fp32 arithmetic, written once over
 * the 16-bit block layer for AVX2, AVX-512 and NEON: h = x + r widened, added in fp32 and rounded
 * once to the format (half-add.h: correctly rounded), then half-rmsnorm.h's RMSNorm on the stored
 * h, so y is the {f16,bf16}-rmsnorm-f32acc kernels' output on h bit for bit and the bound, the
 * domain and the first tunables are theirs.
 *
 * Two schedules, by row length. One-row calls (the add of a row, then its norm while the row is
 * in L1): short rows from memory, where a row's add and norm are short enough for the memory
 * stream to carry over, and every call in cache. Row blocks (half_add_norm: h and y streamed, the
 * norm reading a cached copy of the block's h) from memory from D block_min_d, where one-row calls
 * write h and y through the cache (no call of one row streams) and stall on their
 * read-for-ownership: on the Zen 5 VM blocks were +12-38% from memory at D 8192-16384, even at
 * 4096 and -20 to -29% at D 768-1024 (docs/ops.md). Included by the {f16,bf16}-addrms-f32acc-<isa>.c
 * files, which define HALF_RMSNORM_DTYPE first. */
#ifndef LN_SIMD_HALF_ADD_RMSNORM_H
#define LN_SIMD_HALF_ADD_RMSNORM_H

#include "half-add.h"
#include "half-rmsnorm.h"

enum { HAR_BLOCK_MIN_D = HR_COUNT };
static const int har_block_min_d_values[] = {1024, 2048, 4096, 8192, 16384, LN_TUNE_OFF};
static const ln_tunable half_add_rmsnorm_tunables[] = {
    HALF_RMSNORM_TUNABLE_ENTRIES,
    {"block_min_d", "D from which streaming calls add and normalize in row blocks instead of one-row calls", 8192,
     har_block_min_d_values, 6},
};

static void half_add_rmsnorm_forward(const ln_args *a)
{
    const ln_tunable *tu = half_add_rmsnorm_tunables;
    const size_t n = a->D;
    if (ln_tune_streams(a->rows, n, sizeof(uint16_t), ln_param(a, tu, HR_STREAM_MIN_BYTES)) &&
        n >= (size_t)ln_param(a, tu, HAR_BLOCK_MIN_D))
        half_add_norm(HALF_RMSNORM_DTYPE, a, half_rmsnorm_forward, tu, HR_COUNT);
    else ln_add_norm_forward(HALF_RMSNORM_DTYPE, half_add_elements, half_rmsnorm_forward, a);
}

#define HALF_ADD_RMSNORM_HOW                                                                             \
    "x, r widened, h = x + r in fp32 rounded once to the format (correctly rounded), then the format's " \
    "rmsnorm-f32acc row on h: one-row calls while in cache, from memory from D block_min_d in row "      \
    "blocks with h and y streamed, h read back from a cached copy"

#endif
