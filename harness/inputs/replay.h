/* The replay format of tests/regress/fuzz_kernels/: the bytes the kernel fuzzer decodes into a
 * problem (fuzz/fuzz_kernels.c), written by `lnbench hunt` for the rows it finds, so that a found
 * row becomes a regression test by moving one file into tests/regress/fuzz_kernels/ (make test
 * replays every file there against every kernel's bound; make fuzz starts from them).
 *
 * Layout: flags (bits 0-1 dtype, 2-3 affine: 0 none, 1 harness-like, 2 raw; 4 in place,
 * 5 misaligned, 6 statistics out, 7 values as offset + scale * int8 instead of raw bits), eps
 * selector (below 20: a table; else 8 little-endian bytes of eps follow the header), D (2 bytes,
 * little-endian), rows byte, then the values. The fuzzer keeps D <= 300 for speed; a rows byte
 * whose top six bits are LN_REPLAY_LONG_ROW takes the 16-bit D as it is (rows written by hunt at
 * transformer widths).
 *
 * The fuzzer's problem is the first op of kernels/ops.def (x, gamma, beta in, y out). A row of
 * another op carries an op record: rows byte LN_REPLAY_OP_ROW | 1, eps in full, then one byte, the
 * op's number (ln_op), then raw values of each of the op's inputs (LN_IN roles) in the table's
 * order, D elements each (one row of x and dy; gamma and beta). Such a file is replayed by
 * ln_replay_check (measure/replay_check.h), which the fuzzer's check hands it to; files without the record are read as
 * before. */
#ifndef LN_REPLAY_H
#define LN_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"
#include "kernel.h"

#define LN_REPLAY_MAX_SHORT_D 300
#define LN_REPLAY_MAX_ROWS 3
#define LN_REPLAY_LONG_ROW 0xb4 /* rows byte & 0xfc */
#define LN_REPLAY_OP_ROW 0xb8   /* rows byte & 0xfc: a long row with an op record */

/* Writes one row (D <= 65535 elements of format t, raw gamma and beta of D elements each, eps
 * exactly) of the first op as a replay file at path, atomically. */
void ln_replay_write_row(const char *path, ln_dtype t, size_t D, const void *x, const void *gamma, const void *beta,
                         double eps);

/* Writes one row of op: in[i] the D elements of the op's i-th input (LN_IN roles in the table's
 * order; none NULL). The first op's rows in the fuzzer's layout, the others' with an op record. */
void ln_replay_write_op_row(const char *path, ln_op op, ln_dtype t, size_t D, const void *const *in, double eps);

/* A replay file holding an op record. */
typedef struct {
    ln_op op;
    ln_dtype t;
    size_t D;
    double eps;
    double *in[LN_MAX_ROLES]; /* by role index: D values of each input, NULL for the other roles */
} ln_replay_row;

/* 1 when the bytes hold an op record (ln_replay_check replays them), else 0. */
int ln_replay_has_op(const uint8_t *data, size_t size);

/* Decodes a file with an op record into r (free with ln_replay_row_free). Returns 0, or -1 when
 * the bytes are not such a file (too short, an unknown op or dtype, D of 0). */
int ln_replay_read(const uint8_t *data, size_t size, ln_replay_row *r);
void ln_replay_row_free(ln_replay_row *r);

#endif
