/* The replay format of tests/regress/fuzz_kernels/: the bytes the kernel fuzzer decodes into a
 * LayerNorm problem (fuzz/fuzz_kernels.c), written by `lnbench hunt` for the rows it finds, so
 * that a found row becomes a regression test by moving one file into tests/regress/fuzz_kernels/
 * (make test replays every file there against every kernel's bound; make fuzz starts from them).
 *
 * Layout: flags (bits 0-1 dtype, 2-3 affine: 0 none, 1 harness-like, 2 raw; 4 in place,
 * 5 misaligned, 6 statistics out, 7 values as offset + scale * int8 instead of raw bits), eps
 * selector (below 20: a table; else 8 little-endian bytes of eps follow the header), D (2 bytes,
 * little-endian), rows byte, then the values. The fuzzer keeps D <= 300 for speed; a rows byte
 * whose top six bits are LN_REPLAY_LONG_ROW takes the 16-bit D as it is (rows written by hunt at
 * transformer widths). */
#ifndef LN_REPLAY_H
#define LN_REPLAY_H

#include <stddef.h>

#include "dtype.h"

#define LN_REPLAY_MAX_SHORT_D 300
#define LN_REPLAY_MAX_ROWS 3
#define LN_REPLAY_LONG_ROW 0xb4 /* rows byte & 0xfc */

/* Writes one row (D <= 65535 elements of format t, raw gamma and beta of D elements each, eps
 * exactly) as a replay file at path, atomically. */
void ln_replay_write_row(const char *path, ln_dtype t, size_t D, const void *x, const void *gamma, const void *beta,
                         double eps);

#endif
