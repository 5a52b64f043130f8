/* Times the cases of `lnbench bench` with Google Benchmark: registers each, runs them, and
 * hands back every run and aggregate (ln_gb_result). A case of T threads splits its rows (a
 * probe its floats) over a team of T pinned threads, each with its own buffers touched first
 * by itself; one barrier ends each timed iteration. */
#ifndef LN_BENCH_RUN_H
#define LN_BENCH_RUN_H

#include "bench_case.h"
#include "gbench.h"

/* The pinned threads and the inputs, kept from one ln_bench_run to the next: `lnbench tune` times
 * many short runs on the same inputs, whose allocation and fill (256 MiB) would cost more than
 * their timing. Buffers are reused while they are large enough, inputs while they are the same. */
typedef struct ln_bench_pool ln_bench_pool;
ln_bench_pool *ln_bench_pool_create(void);
void ln_bench_pool_free(ln_bench_pool *p);

typedef struct {
    double max_call_seconds; /* skip a case predicted to take longer per call; 0: no limit */
    int quiet;               /* no Google Benchmark report; a progress line on a terminal */
    ln_bench_pool *pool;     /* NULL: threads and buffers for this run only */
    int silent;              /* no progress line either (the caller shows its own) */
    int repetitions;         /* > 0: each case's repetitions, whatever --benchmark_repetitions says */
    double min_time;         /* > 0: each case's min time in seconds, likewise (both add suffixes to
                              * the names runs are reported under: "/min_time:0.010/repeats:1") */
} ln_bench_run_options;

/* Sets c->run_name, the name Google Benchmark will report c's runs under (for the filter, and
 * to find its results): c->name plus the suffixes of how it is timed. */
void ln_bench_set_run_name(ln_bench_case *c);

/* Runs the cases (Google Benchmark's flags already given to ln_gb_init), setting the
 * predicted_s of those skipped by max_call_seconds. Returns the count of runs, *out malloc'ed. */
size_t ln_bench_run(ln_bench_case *cases, size_t ncases, const ln_bench_run_options *o, ln_gb_result **out);

/* A hash of every output of one call of kernel case c (with c->params), made on the inputs the
 * timing uses, split over c's threads as timed: once as timed (no per-row statistics asked) and,
 * for a forward op, once more with mean and rstd asked for. Two tunings of one kernel are the same
 * in output bits when their hashes agree. */
uint64_t ln_bench_output_hash(ln_bench_pool *pool, const ln_bench_case *c);

#endif
