/* A tuning file (docs/tune.md): for one machine (CPU model and ISA cap), per kernel, op, regime,
 * thread count and range of D, the values of the kernel's tunables that `lnbench tune` chose, with
 * the gain over the built-in defaults and its significance. Written by `lnbench tune`, read by
 * `lnbench bench --tuning`, the report and compare. */
#ifndef LN_TUNING_H
#define LN_TUNING_H

#include <stddef.h>

#include "kernel.h"
#include "tunables.h"

#define LN_TUNING_FORMAT 1
#define LN_TUNING_MAXP LN_TUNABLES_MAX
#define LN_TUNING_MAXT 64 /* settings timed in one search that a file keeps */

/* One setting timed in a search: its median rate over the defaults' in the same round(s). The
 * data the built-in defaults are chosen from, across machines (docs/tune.md). */
typedef struct {
    int v[LN_TUNING_MAXP];
    double vs_default;
} ln_tuning_timed;

typedef struct {
    char kernel[128];
    ln_op op;
    char regime[16]; /* cache, mixed, memory (bench.csv's regime of the size tuned at) */
    int threads;
    size_t D, D_min, D_max; /* tuned at D; applies from D_min to D_max (0: no upper end) */
    size_t bytes;           /* size of x tuned at */
    int nparams;
    char name[LN_TUNING_MAXP][48];
    int value[LN_TUNING_MAXP]; /* chosen (the defaults unless the gain was significant) */
    int def[LN_TUNING_MAXP];   /* the built-in defaults when tuned */
    int best[LN_TUNING_MAXP];  /* the fastest candidate found, significant or not */
    double gbps, gbps_default; /* medians of the final alternated repetitions: best, default */
    double gain;               /* gbps / gbps_default - 1 */
    double p_value;            /* two-sided Mann-Whitney U, best against default */
    int repetitions;           /* of each in that comparison */
    int significant;           /* p < 0.05 and gain > 0: value = best */
    int candidates, refused;   /* timed, and refused for changing the output bits */
    double seconds;            /* the search's wall time */
    char search[16];           /* exhaustive, coordinate */
    int ntimed;                /* settings timed (the first LN_TUNING_MAXT), the defaults not among them */
    ln_tuning_timed timed[LN_TUNING_MAXT];
} ln_tuning_entry;

typedef struct {
    char cpu_model[256], isa_cap[64], isa_features[256], machine_id[256];
    char date[32], git_commit[64];
    double seconds_budget, seconds_used;
    int complete; /* 0 while tune runs (or when it was interrupted): some tasks are missing */
    ln_tuning_entry *e;
    size_t n, cap;
} ln_tuning;

/* The running machine's key: CPU model (trailing blanks dropped), ISA cap (LNBENCH_ISA or
 * "native"), detected ISA features and the folder name made of them (as results/history/). */
void ln_tuning_machine(ln_tuning *t);
/* Appends an entry (copied); returns the stored one. */
ln_tuning_entry *ln_tuning_add(ln_tuning *t, const ln_tuning_entry *e);
void ln_tuning_free(ln_tuning *t);

/* Writes t as JSON to path, whole or not at all (temp file and rename). */
void ln_tuning_write(const char *path, const ln_tuning *t);
/* Reads path into t. Returns 0, or -1 with a message in err (a file that cannot be read, is not
 * JSON, or lacks or mistypes a field). */
int ln_tuning_read(const char *path, ln_tuning *t, char *err, size_t errlen);

/* Whether t was made on this machine (CPU model and ISA cap); when not, *why says which differs. */
int ln_tuning_for_this_machine(const ln_tuning *t, const char **why);
/* The entry for a case: same kernel, op, regime and threads, D in its range; NULL if none. */
const ln_tuning_entry *ln_tuning_find(const ln_tuning *t, const char *kernel, ln_op op, const char *regime, int threads,
                                      size_t D);
/* e's values in k's tunables order into out (k->n_tunables of them; a tunable e lacks keeps its
 * default). Returns 0, or -1 with a message in err when e names a tunable k does not have or a
 * value k does not allow. */
int ln_tuning_params(const ln_tuning_entry *e, const ln_kernel *k, int *out, char *err, size_t errlen);

/* The same from an entry's names: e's tunables with values v (in e's order of params). */
const char *ln_tuning_values_text(const ln_tuning_entry *e, const int *v, char *buf, size_t n);

#endif
