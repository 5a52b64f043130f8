/* What a result row says of itself beyond its cells: its operator (an op column, LayerNorm
 * forward when absent) and its thread count (a threads column, one when absent), and the ops and
 * thread counts a table holds, in reading order. */
#ifndef LN_ROWS_H
#define LN_ROWS_H

#include <stddef.h>

#include "table.h"

#define LN_MAX_OPS 8

/* The op of row r: its op column, "layernorm" when absent or empty; "" for a probe row. */
const char *ln_row_op(const ln_table *t, size_t r);
/* The op's title in kernels/ops.def: "LayerNorm", ..., "RMSNorm backward" (an unknown op: itself). */
const char *ln_op_title(const char *op);
/* 1 for a backward op (one that reads its forward's saved statistics: layernorm-bwd, rmsnorm-bwd
 * in kernels/ops.def): dx, dgamma, dbeta are judged apart. */
int ln_backward_op(const char *op);
/* Whether the bench rows of op in t were given the op's UNTIMED inputs (kernels/ops.def; RMSNorm's
 * beta), as their affine_bytes say: 1 all of them (or the op has none), 0 none, -1 some rows one
 * way and some the other, or no rows to tell. */
int ln_untimed_given(const ln_table *t, const char *op);
/* What the bench counts of op as its bytes, from kernels/ops.def ("x, r read + y, h written"),
 * and what it leaves out, given and not given as ln_untimed_given says (given) ("gamma; beta not
 * given, as models run the op"), each into a buffer of len bytes. */
void ln_op_bytes_text(const char *op, int given, char *counted, char *uncounted, size_t len);
/* Adds the ops of t's kernel rows to ops[0..*n), keeping the list in reading order (layernorm,
 * rmsnorm, layernorm-bwd, rmsnorm-bwd, then others as met). */
void ln_collect_ops(const ln_table *t, const char **ops, size_t *n);
/* Sorts ops[0..n) into that reading order. */
void ln_sort_ops(const char **ops, size_t n);

/* The thread count of row r: its threads column, 1 when absent or empty. */
int ln_row_threads(const ln_table *t, size_t r);
/* The thread counts of t, ascending, the smallest cap of them; returns how many (0 for an
 * empty table). */
size_t ln_table_threads(const ln_table *t, int *threads, size_t cap);

#endif
