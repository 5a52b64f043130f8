/* Kernels ranked within one results folder (ln_results): the fastest of a dtype in a regime, the
 * most accurate of an op and dtype (ties named together, never broken by speed) and what that
 * accuracy costs, the machine limit a kernel's speed is measured against, the kernels' families. */
#ifndef LN_RANK_H
#define LN_RANK_H

#include <stddef.h>

#include "results.h"

/* The algorithm family of a kernel: its name less the dtype in front and the ISA behind
 * ("f32-twopass-avx512" -> "twopass"); a peer is a family of its own. buf has n bytes. */
const char *ln_family(const char *kernel, char *buf, size_t n);
/* The fastest kernel of a dtype in a regime by median GB/s; own = leave the peers out. */
ln_speed *ln_fastest(ln_results *R, const char *dtype, const char *regime, int own);
/* The same among the kernels of one op (NULL: any). */
ln_speed *ln_fastest_op(ln_results *R, const char *op, const char *dtype, const char *regime, int own);
/* Worst max_norm, infinite for a kernel with non-finite outputs or no finite case. */
double ln_accuracy_rank(const ln_accstat *a);
/* The machine limit of a regime for kernels storing dtype: the best GB/s of the probes
 * (probe-copy, probe-stream; probe-copy-16, probe-stream-16 for f16/bf16) in that regime of a
 * bench.csv, at its smallest thread count, traffic counted as for kernels (x read + y written).
 * NAN when the file has no probe row there; *probe (if not NULL) names the probe. */
double ln_regime_limit(const ln_table *bench, const char *regime, const char *dtype, const char **probe);
/* The regime the accuracy/speed trade-off is judged in: memory when timed, else the first. */
const char *ln_tradeoff_regime(const ln_results *R);

/* The worst (smallest) cr_frac of a kernel over accuracy.csv's cases whose input stayed ok; NAN
 * when the file has no such column or case. */
double ln_worst_cr(ln_results *R, const char *kernel);
/* The accuracy order: non-finite outputs last; then the worst max_ulp over well-formed inputs,
 * then the worst max_norm, then the larger worst cr_frac. Never speed: equal errors are a tie.
 * Returns <0, 0 (a tie), >0. */
int ln_acc_order(ln_results *R, const ln_accstat *a, const ln_accstat *b);
/* The most accurate kernels of an op and dtype (ln_acc_order), ties all named: fills out (at
 * most cap, file order) and returns how many; 0 when none has finite outputs. */
size_t ln_most_accurate_set(ln_results *R, const char *op, const char *dtype, ln_accstat **out, size_t cap);
/* A tie's names: "f32-accurate-{scalar,avx2}" when they differ only after the last '-', else
 * "a, b"; buf of n bytes. */
const char *ln_tie_names(ln_accstat **set, size_t k, char *buf, size_t n);
/* The fastest of a set in a regime (the cost of that accuracy), NULL when none was timed. */
ln_speed *ln_fastest_of(ln_results *R, ln_accstat **set, size_t k, const char *regime);

/* The most accurate of an op and dtype as the tables show it: the tie's names, the first of
 * them (for its errors, the same for all), and the fastest of them in regime (what that accuracy
 * costs). ln_pick_accurate returns 0 when no kernel has finite outputs. */
typedef struct {
    ln_accstat *first;
    char names[512];
    ln_speed *speed;
} ln_acc_pick;
int ln_pick_accurate(ln_results *R, const char *op, const char *dtype, const char *regime, ln_acc_pick *p);

/* The row lengths timed for an op's kernels of a dtype in a regime, ascending, into Ds (room for
 * LN_MAXD); returns how many. */
size_t ln_timed_Ds(ln_results *R, const char *op, const char *dt, const char *rg, double *Ds);

#endif
