/* Two timing runs side by side: per op (bench.json and the op runs' ops/bench-OP.json of a results
 * folder) and benchmark (kernel x D x rows, probes apart) the median GB/s of each run's repetitions, their ratio, the Mann-Whitney U p-value and a verdict against a
 * threshold; the geomean over kernels; accuracy changes between the runs. */
#ifndef LN_COMPARE_H
#define LN_COMPARE_H

#include <stddef.h>

typedef struct {
    /* each a results folder (bench.json, ops/bench-OP.json), a bench JSON file, or a folder of
     * runs (each a results folder); several on a side are pooled (one CPU model) and their
     * accuracy files merged */
    const char *const *base, *const *new_;
    size_t nbase, nnew;
    double threshold;    /* fraction, e.g. 0.05 */
    int cross_machine;   /* compare fractions of each machine's limit */
    int allow_missing;   /* merge accuracy shards with some of the split missing */
    const char *out_csv; /* NULL: compare.csv beside NEW */
    int color;           /* ANSI colours in the table */
    int only_changed;    /* the detail lists only benchmarks whose verdict is not "same" */
    const char *kernels; /* "A,B": two kernels of the one run in new_[0], case by case */
} ln_compare_opts;

/* compare's exit status when a change beyond the threshold could not be tested (too few
 * repetitions for any p-value to be significant after the correction for the number of tests) */
#define LN_EXIT_INCONCLUSIVE 3

/* Prints the comparison (a per-kernel roll-up, then each benchmark) and writes the CSV. p-values
 * are Holm-adjusted over the kernel benchmarks. Returns 0 (no kernel of any op slower beyond the
 * threshold), 1 (at least one slower), 3 (none slower, but a change beyond the threshold that the
 * repetitions cannot test), 2 (bad input, different CPU models without cross_machine, or NEW
 * lacking kernel benchmarks of BASE without allow_missing). With kernels: the two kernels of one
 * run side by side, 0 or 2. */
int ln_compare(const ln_compare_opts *o);

#endif
