/* The cases of `lnbench bench` from its flags: kernels x D x sizes x dists x eps x threads,
 * and the two probes of every (size, threads). */
#ifndef LN_BENCH_PLAN_H
#define LN_BENCH_PLAN_H

#include "bench_case.h"

typedef struct {
    const ln_kernel **kernels;
    size_t nkernels;
    const size_t *D;
    size_t nD;
    const size_t *sizes; /* bytes of x (sizes_are_bytes), else rows */
    size_t nsizes;
    int sizes_are_bytes;
    const ln_dist *dists;
    size_t ndists;
    const double *eps;
    size_t neps;
    const size_t *threads;
    size_t nthreads;
    uint64_t seed;
    int every_input; /* the UNTIMED optional inputs given too (bench --every-input) */
} ln_bench_grid;

/* The cases in run order (malloc'ed, *ncases of them): for each thread count, for each size
 * its probes, then each D, dist, eps and kernel (kernels.inc order keeps each dtype's kernels
 * together: one fill of the inputs each). Names as documented in docs/timing.md. */
ln_bench_case *ln_bench_plan(const ln_bench_grid *g, size_t *ncases);

/* --bytes of bench and tune (the other flags of the grid: problem.h): malloc'ed, *count sizes
 * (K/M/G, at least 64 bytes, x and y fitting in memory); a bad one is a usage error. */
size_t *ln_parse_sizes(const char *list, size_t *count);

#endif
