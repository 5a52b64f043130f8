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
} ln_compare_opts;

/* Prints the comparison and writes the CSV. Returns 0 (no kernel of any op slower beyond the threshold
 * with p < 0.05), 1 (at least one), 2 (bad input, or different CPU models without
 * cross_machine). */
int ln_compare(const ln_compare_opts *o);

#endif
