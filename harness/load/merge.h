/* Several result folders or files read as one set of rows: the N shards of a run split with
 * --shard K/N (docs/shards.md), or parts run apart (other kernels, dtypes, sizes). A case
 * given twice is kept once when its rows are identical and is an error when they differ;
 * accuracy from different CPU models merges (results are machine-independent by design, the
 * difference is stated), timing from different CPU models does not. */
#ifndef LN_MERGE_H
#define LN_MERGE_H

#include <stddef.h>

#include "table.h"

/* Writes into folder out the merge of srcs' result files, each src a results folder (with
 * the op runs in its ops/, ln_results_files) or a CSV file (accuracy, conditioning, eps, bench or hunt: told by the start of its name, else by its
 * columns): per kind one CSV with every case once and its .meta.json sidecar, and bench.json
 * when every bench.csv has one beside it. Bad input (a case described differently twice,
 * timing from different CPU models, missing shards unless allow_missing, nothing to merge)
 * exits 2 with a message. */
void ln_merge_results(const char *out, const char *const *srcs, size_t nsrc, int allow_missing);

/* The CSV files paths[0..n) of one kind (the first one's: accuracy unless its name or columns
 * say bench, ...) merged by the same rules into one table in memory. */
void ln_merge_read(ln_table *t, const char *const *paths, size_t n, int allow_missing);

/* One kind of a results folder as one table: DIR/NAME and the op runs' DIR/ops/STEM-*.csv
 * (ln_results_files) merged by the same rules; returns 0 (an empty table) when there is none. */
int ln_merge_folder(const char *dir, const char *name, ln_table *t);

#endif
