/* One timed case of `lnbench bench`: a kernel on one shape, or a bandwidth probe of one size,
 * at one thread count. measure/bench_plan.c makes them, measure/bench_run.c times them,
 * measure/bench_stats.c reads their results, output/bench_rows.c writes them. */
#ifndef LN_BENCH_CASE_H
#define LN_BENCH_CASE_H

#include <stddef.h>
#include <stdint.h>

#include "kernel.h"
#include "problem.h"

/* The probes in pairs, copy then stream: fp32 ones for every case, 16-bit ones (fp16 storage)
 * beside 16-bit kernels. */
typedef enum {
    LN_BENCH_KERNEL,
    LN_BENCH_PROBE_COPY,
    LN_BENCH_PROBE_STREAM,
    LN_BENCH_PROBE_COPY_16,
    LN_BENCH_PROBE_STREAM_16
} ln_bench_what;

typedef struct ln_bench_case {
    /* for a probe: D = elements (of dtype: LN_F32, or LN_F16), rows = 1; the rows (a probe's
     * floats) are split over threads */
    LN_PROBLEM_BASE;
    ln_bench_what what;
    const char *label;  /* the kernel's name, or probe-copy, probe-stream, probe-copy-16, probe-stream-16 */
    const ln_kernel *k; /* NULL for a probe */
    size_t xbytes;      /* x's size */
    size_t size;        /* the size asked for (--bytes, or x's size with --rows) */
    char name[256];     /* as registered, e.g. f32-twopass-scalar/D:4096/rows:64 */
    char run_name[288]; /* as reported: Google Benchmark appends /real_time (ln_bench_set_run_name) */
    const struct ln_bench_case *smaller; /* same kernel, D, dist, eps, threads at the next smaller size */
    double predicted_s;                  /* > 0: skipped, one call predicted to take this long */
    size_t index;                        /* in run order, for the progress line */
    const int *params;                   /* the kernel's tunables (ln_args.params); NULL: its defaults */
    int every_input;                     /* the op's UNTIMED inputs given too (else NULL: kernels/ops.def) */
} ln_bench_case;

/* Whether kernel case c gives its kernel the tensor of role r (every role but the returned
 * statistics, and the UNTIMED inputs only with every_input). */
static inline int ln_bench_gives(const ln_bench_case *c, const ln_role *r)
{
    return r->kind != LN_ROLE_STAT && (c->every_input || !(r->flags & LN_ROLE_UNTIMED));
}

/* Inputs up to LN_CACHE_BYTES are called cache-resident, from LN_MEMORY_BYTES memory-resident (x
 * alone; y is as large again). Measured on the project's VMs: the copy probe holds its in-cache
 * rate to a few MiB, is halfway down at 16 MiB and at its memory rate from 64 MiB. */
#define LN_CACHE_BYTES (8u << 20)
#define LN_MEMORY_BYTES (64u << 20)

/* The regime of a case by the size asked for (x is rounded down to whole rows, a little under
 * it): "cache", "mixed" or "memory", as bench.csv and tuning files name them. */
static inline const char *ln_bench_regime(size_t size)
{
    return size <= LN_CACHE_BYTES ? "cache" : size >= LN_MEMORY_BYTES ? "memory" : "mixed";
}

/* Thread i's share of n items (rows, or a probe's floats) split over `threads`: the count, and
 * in *first where it starts. Shares differ by at most one. */
static inline size_t ln_bench_share(size_t n, int threads, int i, size_t *first)
{
    size_t lo = n * (size_t)i / (size_t)threads, hi = n * (size_t)(i + 1) / (size_t)threads;
    if (first) *first = lo;
    return hi - lo;
}

#endif
