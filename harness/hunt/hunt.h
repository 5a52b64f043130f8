/* Worst-case input search (`lnbench hunt`): rows that maximise a kernel's normwise error
 * relative to its claimed bound, and, separately, its largest ulp error, for a kernel of any op
 * of kernels/ops.def. A row is every rows x D input of the op (x, and dy for a backward op), all
 * searched; gamma and beta are the harness's draws.
 *
 * The search starts from the built-in distributions (each row of `lnbench accuracy --rows 16`
 * at the same D and seed, at the run's eps and at eps 0: their worst is also the baseline hunt
 * is compared with; a search keeps the eps of the row it starts from), keeps
 * the best rows and improves them by local moves (elements nudged by ulps, ranges scaled by
 * powers of two or reflected about the mean, the mean offset, element order, rows scaled toward
 * the format's edges, cancelling pairs of large values, ranges copied between rows), by
 * constructing near-ties of the final rounding (an output steered to within 2^-34 ulp of a
 * rounding midpoint through the row's mean and variance; forward ops), from rows at a large mean offset
 * (every other start: every |y_i| the same, and the roundings of a model of the kernel's
 * accumulators lined up one way, the model the kernel's own errors pick), and by coordinate
 * sweeps that try each element at +-2^k ulps through the kernel itself (the last third of each
 * start's ratio search), which line up the rounding errors of any summation order. Candidates
 * are scored against the op's cheap reference (ln_op_screen: double-double where the op has one,
 * else its MPFR reference); the best rows are confirmed with the MPFR reference and judged as
 * `lnbench accuracy` judges (ln_row_contract, ln_judge), and only confirmed figures are reported.
 *
 * Deterministic for a given seed and --evals budget (a time budget stops wherever the clock
 * says); the search is split into independent starts, so shards (start s runs on shard
 * s mod N) together do exactly the single-machine work. */
#ifndef LN_HUNT_H
#define LN_HUNT_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "kernel.h"
#include "problem.h"

typedef struct {
    LN_PROBLEM_BASE; /* D, eps, seed; op and dtype are k's; one row, dist unused */
    const ln_kernel *k;
    double seconds;  /* time budget of the search, 0 = none */
    uint64_t evals;  /* evaluation budget of the search (deterministic), 0 = none */
    unsigned starts; /* independent searches, each from another of the best built-in rows */
    ln_shard shard;  /* run only the starts this shard takes (cli.h) */
    int progress;    /* a status line on stderr about once a second */
} ln_hunt_config;

/* One found row, measured with the MPFR reference. */
typedef struct {
    void *x; /* the op's rows x D inputs of one row, n_in x D elements of the kernel's dtype in
              * the order of in_name; NULL if no row was in the domain */
    double max_norm, max_ulp, kappa;
    size_t nonfinite;
    double bound;        /* the claimed bound at (D, kappa); NaN when the kernel claims none */
    double ratio;        /* max_norm / bound; NaN without a bound; Inf for non-finite outputs */
    const char *verdict; /* pass, fail (bound broken), outside (row outside the bound's domain),
                             none (no bound claimed) */
    double eps;          /* the eps the row is measured at: the run's, or 0 when it came from the
                             built-in rows scored at eps 0 */
    double found_after;  /* seconds from the start until the search first held this row */
} ln_hunt_find;

typedef struct {
    ln_hunt_find worst_ratio, worst_ulp;     /* the searched rows */
    ln_hunt_find builtin_ratio, builtin_ulp; /* the worst rows of the built-in distributions */
    char builtin_ratio_dist[256], builtin_ulp_dist[256];
    void *gamma, *beta;                /* the affine parameters every row was measured with (harness draws;
                         * NULL where the op has none) */
    unsigned n_in;                     /* the op's rows x D inputs, each row's x holds */
    const char *in_name[LN_MAX_ROLES]; /* their role names: "x", "dy", ... */
    double seconds;                    /* wall time */
    uint64_t evals;                    /* kernel runs scored */
} ln_hunt_result;

/* The built-in distributions the search starts from, comma-separated: every one `lnbench
 * accuracy` offers but file:, each scored at the run's eps and at eps 0. */
extern const char ln_hunt_start_dists[];

void ln_hunt_run(const ln_hunt_config *c, ln_hunt_result *r);
void ln_hunt_result_free(ln_hunt_result *r);

#endif
