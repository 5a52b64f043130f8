/* Two timing runs compared, benchmark by benchmark: each side's median, their ratio, the
 * two-sided Mann-Whitney U p-value Holm-adjusted over the benchmarks judged together, and a
 * verdict against a threshold (slower, faster, inconclusive when the repetitions cannot test a
 * change beyond it, same); tallies per kernel and op with the geomean ratio; and two kernels of one
 * run side by side, case by case. */
#ifndef LN_COMPARISON_H
#define LN_COMPARISON_H

#include <stddef.h>

#include "runs.h"

#define LN_P_SIGNIFICANT 0.05

/* One benchmark in both runs: medians, ratio, the raw and Holm-adjusted p, the verdict. */
typedef struct {
    const ln_series *a, *b;
    double ma, mb, ratio, p, p_adj, min_p;
    const char *verdict;
} ln_cmp_row;

/* Per op (or all ops) and per kernel: the verdict counts and the geomean ratio. */
typedef struct {
    const char *op, *kernel;
    int slower, faster, inconclusive, same, nlog;
    double log_sum;
} ln_tally;

/* Fills row c from two series (each side's values over la, lb: 1, or the machine limits). */
void ln_cmp_pair(ln_cmp_row *c, const ln_series *sa, const ln_series *sb, double la, double lb);
/* Holm over the rows' p-values, then each row's verdict: beyond the threshold and significant
 * after the correction for the number of tests: slower or faster; beyond it but with too few
 * repetitions for any p to be significant: inconclusive (a check that cannot fail says nothing);
 * else same. */
void ln_cmp_judge(ln_cmp_row *rows, size_t n, double threshold);
/* The same for the kernel rows of rows[0..n) together and the probe rows apart (probes are
 * yardsticks: never gated with the kernels); rows keep their order. */
void ln_cmp_judge_apart(ln_cmp_row *rows, size_t n, double threshold);

void ln_tally_count(ln_tally *t, const ln_cmp_row *c);
/* slower when any benchmark is, else faster, inconclusive, same in that order. */
const char *ln_tally_verdict(const ln_tally *t);
/* Tallies the kernel rows of rows[0..n): per kernel (and op) into per_k (room for n), slowest
 * geomean first; all of them into *all; per op of ops[0..nops) into per_op. Each tally starts
 * zeroed. Returns how many kernels. */
size_t ln_cmp_rollup(const ln_cmp_row *rows, size_t n, const char *const *ops, size_t nops, ln_tally *per_k,
                     ln_tally *all, ln_tally *per_op);
/* The fewest repetitions a side at which the exact test can reach alpha / m. */
int ln_reps_needed(double alpha, size_t m);

/* The machine limit per regime from a run's own probe repetitions: the best probe median of the
 * op's run (each op run times its own probes), of any run when that one has none (a merged
 * bench.json). */
double ln_timing_limit(ln_timing_run *r, const char *regime, const char *op);

/* Two kernels of one run (a results folder or bench JSON), case by case: the cases timed for
 * both at the same regime, D and thread count, with each one's median GB/s, the p-value of the
 * difference (raw and Holm-adjusted over the cases) and whether the repetitions can test it. */
typedef struct {
    char regime[16];
    double D;
    int threads;
    double ma, mb, p, p_adj;
    size_t na, nb;
    int tested; /* enough repetitions for the adjusted p to reach 0.05 */
} ln_duel;
size_t ln_duel_rows(const char *path, const char *ka, const char *kb, ln_duel *out, size_t cap);
/* The same of a run already loaded (the report asks it once per op, dtype, regime and D). */
size_t ln_duel_rows_of(const ln_timing_run *r, const char *ka, const char *kb, ln_duel *out, size_t cap);

#endif
