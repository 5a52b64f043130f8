/* Times the cases of `lnbench bench` with Google Benchmark: registers each, runs them, and
 * hands back every run and aggregate (ln_gb_result). A case of T threads splits its rows (a
 * probe its floats) over a team of T pinned threads, each with its own buffers touched first
 * by itself; one barrier ends each timed iteration. */
#ifndef LN_BENCH_RUN_H
#define LN_BENCH_RUN_H

#include "bench_case.h"
#include "gbench.h"

typedef struct {
    double max_call_seconds; /* skip a case predicted to take longer per call; 0: no limit */
    int quiet;               /* no Google Benchmark report; a progress line on a terminal */
} ln_bench_run_options;

/* Sets c->run_name, the name Google Benchmark will report c's runs under (for the filter, and
 * to find its results): c->name plus the suffixes of how it is timed. */
void ln_bench_set_run_name(ln_bench_case *c);

/* Runs the cases (Google Benchmark's flags already given to ln_gb_init), setting the
 * predicted_s of those skipped by max_call_seconds. Returns the count of runs, *out malloc'ed. */
size_t ln_bench_run(ln_bench_case *cases, size_t ncases, const ln_bench_run_options *o, ln_gb_result **out);

#endif
