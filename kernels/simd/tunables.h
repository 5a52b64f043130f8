/* What the templates' tunables tables (kernel.h's ln_tunable) share: the streaming threshold
 * every kernel that writes with non-temporal stores has, and the value that turns a threshold
 * off. Each template lists its own tunables, with their defaults and allowed values, beside the
 * code that reads them; tests/test_tunables.c runs every value of each and requires the
 * defaults' bits. */
#ifndef LN_SIMD_TUNABLES_H
#define LN_SIMD_TUNABLES_H

#include <limits.h>

#include "kernel.h"

/* A threshold past any row length or call size: the form it selects is never taken. */
#define LN_TUNE_OFF INT_MAX

/* Whether a non-temporal store is worth it: the output is far larger than the caches, so
 * writing around them saves the read-for-ownership of y and keeps x's lines cached (32 MiB on
 * Sapphire Rapids, docs/simd.md). 0 streams every call (the tests' way to reach the streaming
 * code with small inputs), LN_TUNE_OFF never. */
static const int ln_stream_min_bytes_values[]
    __attribute__((unused)) = {0, 1 << 20, 8 << 20, 32 << 20, 128 << 20, LN_TUNE_OFF};
#define LN_TUNABLE_STREAM_MIN_BYTES                                                                            \
    {                                                                                                          \
        "stream_min_bytes", "bytes of y from which y is written with non-temporal stores (2147483647: never)", \
            32 << 20, ln_stream_min_bytes_values, 6                                                            \
    }

/* Whether a call of rows x n elements of `size` bytes streams its output, for threshold t. */
static inline int ln_tune_streams(size_t rows, size_t n, size_t size, int t)
{
    return t != LN_TUNE_OFF && rows * n * size >= (size_t)t;
}

#endif
