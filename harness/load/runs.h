/* Timing runs read back for comparison: the repetitions of each benchmark in Google Benchmark's
 * JSON (bench.json and the op runs' ops/bench-OP.json of a results folder, a bench JSON file, or a
 * folder of runs), each with its op and regime from the bench CSV beside it, and the accuracy
 * files beside them. */
#ifndef LN_RUNS_H
#define LN_RUNS_H

#include <stddef.h>

#include "table.h"

#define LN_MAXREP 256
#define LN_MAXPATHS 64

/* A benchmark is one (op, name) pair: the op of the run it came from is part of the key, so
 * that rows of different ops (each op run's own probes, above all) never pair up or pool. */
typedef struct {
    char op[32];
    char name[256]; /* Google Benchmark's run name without "/real_time" */
    char kernel[96];
    char regime[16];
    int probe;
    int bench; /* index of the bench CSV beside its JSON in run.bench, -1 for none */
    size_t n;
    double gbps[LN_MAXREP];
} ln_series;

typedef struct {
    char where[1024]; /* what was loaded, for messages */
    char cpu[256], commit[64], cpu_from[1024];
    ln_series *s;
    size_t ns, cap, reps;
    ln_table *bench; /* the bench CSV beside each JSON read (bench.csv, ops/bench-OP.csv) */
    size_t nbench, bench_cap;
    ln_table acc;
    int have_acc;
    char *acc_path[4 * LN_MAXPATHS]; /* the accuracy files beside each path given, merged into acc */
    size_t nacc;
    int acc_read[LN_MAXPATHS]; /* path i's folder's accuracy files are in acc_path */
} ln_timing_run;

/* One side of a comparison: every path's repetitions pooled (one CPU model), their accuracy.csv
 * files merged (lnbench merge's rules). Each path is a bench JSON (that file alone), a results
 * folder, or a folder of runs (each sub-folder a results folder), whose repetitions are pooled
 * (scripts/compare-commits.sh writes one run per alternation). Returns 0 with a message on
 * stderr when a path is bad or holds no timed repetition; ln_timing_free frees r either way. */
int ln_timing_load(ln_timing_run *r, const char *const *paths, size_t n, int allow_missing);
void ln_timing_free(ln_timing_run *r);
/* One results folder or bench JSON as ln_timing_load reads it, but a folder without any bench
 * JSON is quietly 0 (a run that timed nothing); r is then left empty (ln_timing_free is safe). */
int ln_timing_load_one(ln_timing_run *r, const char *path);
/* The benchmark named name of op in r, NULL when r has none. */
ln_series *ln_find_series(ln_timing_run *r, const char *op, const char *name);

#endif
