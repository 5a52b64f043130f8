/* Views of result tables that never mix rows of different operators or thread counts: the
 * operators and thread counts a table holds, medians over the rows of one kernel, regime and
 * thread count, a kernel's hardest input distribution, and the scaling of GB/s with threads.
 * Used by lnbench summary and the report. A file without an op column is LayerNorm forward, one
 * without a threads column ran on one thread. */
#ifndef LN_VIEWS_H
#define LN_VIEWS_H

#include <stddef.h>

#include "table.h"

#define LN_MAX_THREAD_COUNTS 16

/* Median of column col over the rows of kernel in regime at the thread count, NaN values
 * left out; NaN when there is no such row. */
double ln_median_where(const ln_table *bench, const char *kernel, const char *regime, int threads, ln_column col);

/* The machine limit of a regime at a thread count for kernels storing dtype: the best gbps of
 * the probe rows there that move the same element size (probe-*-16 for f16/bf16, when the file
 * has them; the fp32 probes otherwise). dtype NULL: any probe. */
double ln_limit_at(const ln_table *bench, const char *regime, int threads, const char *dtype, const char **probe);

/* The one machine limit of an op's kernels in a regime at a thread count, for kernels storing
 * dtype (NULL: fp32): the faster of probe-copy and probe-stream (probe-copy-16, probe-stream-16
 * for f16 and bf16 where the run has them) timed in the op's own run (DIR/bench.csv for
 * layernorm, DIR/ops/bench-OP.csv for the others; fallback, a merged table, where that file has
 * no probe) at the same thread count and, of the sizes of that regime, the largest. *probe and
 * *bytes (each may be NULL) name the probe and its size; NAN when no probe matches. */
double ln_run_limit(const char *dir, const ln_table *fallback, const char *op, const char *regime, int threads,
                    const char *dtype, const char **probe, double *bytes);
/* "64M", "1M", "256K": a size in bytes as lnbench bench's --bytes takes it. */
const char *ln_size_label(double bytes, char *buf, size_t n);

/* A kernel's hardest distribution: the one with the largest value of `by` (max_norm or
 * max_ulp; a row with non-finite outputs counts as Inf) over its accuracy rows whose input
 * stayed ok; on it the worst of each error over D and eps. nonfinite and fails (NaN without a
 * verdict column) count every input-ok row of the kernel. */
typedef struct {
    const char *dist;
    double max_norm, max_ulp, mean_ulp;
    double dgamma_norm, dbeta_norm; /* backward ops; NaN for the forward ones */
    double nonfinite, fails;
    /* the case with that max_norm: its verdict, domain and bound (u) ("" and NaN without the
     * verdict columns) */
    const char *verdict, *domain;
    double bound;
} ln_hardest;
int ln_hardest_dist(const ln_table *acc, const char *kernel, ln_column by, ln_hardest *h);

/* One kernel in one regime across thread counts: median GB/s over D at each count, its ratio to
 * the same kernel's 1-thread median, and its fraction of the limit at the same count. */
typedef struct {
    const char *kernel, *op, *regime;
    size_t n;
    int threads[LN_MAX_THREAD_COUNTS];
    double gbps[LN_MAX_THREAD_COUNTS], speedup[LN_MAX_THREAD_COUNTS], of_limit[LN_MAX_THREAD_COUNTS];
} ln_scaling;
/* The kernels of bench timed at more than one thread count, in file order, per regime; returns
 * how many (at most cap). */
size_t ln_scaling_rows(const ln_table *bench, ln_scaling *out, size_t cap);

#endif
