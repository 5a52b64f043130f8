/* A bench case's statistics from Google Benchmark's runs, as the shim hands them back. */
#ifndef LN_BENCH_STATS_H
#define LN_BENCH_STATS_H

#include "bench_case.h"
#include "gbench.h"

typedef struct {
    double gbps, gbps_min, gbps_max, cv; /* real time: medians (or the one run), extremes, CV */
    double gbps_cpu;                     /* median rate from CPU time per thread */
    double real_ns, cpu_ns;              /* median per call (CPU: per thread, the process's over threads) */
    double rows_per_second;
    int reps;
} ln_bench_stats;

/* Medians, extremes and CV over the repetitions, or the single run's values (CV NaN); returns
 * 0 (s untouched) when c has no run that ended without an error. */
int ln_bench_stats_of(const ln_gb_result *r, size_t n, const ln_bench_case *c, ln_bench_stats *s);

#endif
