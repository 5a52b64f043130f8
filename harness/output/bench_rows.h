/* What `lnbench bench` writes once the runs are in: bench.csv's rows (and the same as a table
 * on stdout), and its warnings (noisy benchmarks, a shared CPU, skipped cases). */
#ifndef LN_BENCH_ROWS_H
#define LN_BENCH_ROWS_H

#include <stdio.h>

#include "bench_case.h"
#include "bench_stats.h"

typedef struct {
    const ln_bench_case *cases;
    size_t ncases;
    const ln_bench_stats *stats; /* per case */
    const int *ran;              /* per case: whether stats holds its results */
    int quiet;                   /* no table, and the warnings summed up */
    double max_call_seconds;     /* as given, for the skipped-case lines */
} ln_bench_results;

/* The CSV header and one row per case that ran (results/README.md), and unless quiet the same
 * as a table on stdout; returns the count of rows. */
size_t ln_bench_write_rows(FILE *f, const ln_bench_results *r);

/* The warnings on stderr (CV above 5%, the CPU shared with other processes) and the skipped
 * cases on stdout, over the nrows rows written. */
void ln_bench_warn(const ln_bench_results *r, size_t nrows);

#endif
