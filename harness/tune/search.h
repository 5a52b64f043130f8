/* The search of `lnbench tune` for one kernel at one D, size and thread count: every candidate
 * setting of the kernel's tunables is first checked to give the default's output bits (refused
 * loudly otherwise), then timed through the same Google Benchmark path as `lnbench bench`
 * (measure/bench_run.c), in repetitions alternated with the defaults. Exhaustive when the
 * combinations are few, coordinate descent otherwise; the best found is confirmed against the
 * defaults in a final alternated comparison (Mann-Whitney U). docs/tune.md. */
#ifndef LN_SEARCH_H
#define LN_SEARCH_H

#include <stdint.h>

#include "bench_run.h"
#include "dist.h"
#include "tuning.h"

typedef struct {
    int reps;           /* alternated repetitions of each candidate per round (>= 4 for a p < 0.05) */
    int final_reps;     /* of the best and the defaults in the final comparison */
    int exhaustive_max; /* search every combination when there are at most this many */
    int progress;       /* a progress line on stderr (a terminal) */
    double deadline;    /* ln_tune_now() by which the whole tune must end */
} ln_tune_options;

typedef struct {
    const ln_kernel *k;
    size_t D, bytes; /* x's size; rows = bytes / (D x element size) */
    int threads;
    const ln_dist *dist;
    double eps;
    uint64_t seed;
    double seconds;    /* this search's share of the budget */
    const char *label; /* for the progress line, e.g. "[3/20]" */
} ln_tune_task;

/* Seconds on a monotonic clock. */
double ln_tune_now(void);

/* Searches t's kernel's tunables and fills e (the key fields but D_min and D_max, the choice
 * and its statistics). Returns the count of candidates refused for changing the output bits. */
int ln_tune_search(ln_bench_pool *pool, const ln_tune_options *o, const ln_tune_task *t, ln_tuning_entry *e);

#endif
