/* A results folder loaded once for the report and the figures: per (kernel, regime) the GB/s at
 * each D, per kernel the accuracy over the cases whose input stayed ok and the verdict counts.
 * Columns are found by name; a file or column that is absent leaves its part empty. */
#ifndef LN_RESULTS_H
#define LN_RESULTS_H

#include <stddef.h>

#include "runs.h"
#include "table.h"

#define LN_NOISY_CV 0.05
#define LN_MAXD 64

typedef struct {
    const char *kernel, *dtype, *regime;
    const char *op; /* "" for a probe */
    int probe, peer;
    size_t n;
    double D[LN_MAXD], gbps[LN_MAXD], gmin[LN_MAXD], gmax[LN_MAXD], cv[LN_MAXD];
    double median, cvmax; /* median over D; largest CV */
} ln_speed;

typedef struct {
    const char *kernel, *dtype, *op;
    double worst_norm, worst_ulp; /* over accuracy.csv cases whose input stayed ok; NAN: none */
    double nonfinite;             /* non-finite outputs where the reference is finite, same cases */
    int verdict[4];               /* pass fail outside none, every accuracy CSV, input ok */
    int degenerate;               /* cases whose input degenerated in the dtype */
} ln_accstat;

extern const char *const ln_verdict_names[4];

enum { LN_ACC_DEFAULT, LN_ACC_CONDITIONING, LN_ACC_EPS, LN_ACC_FILES };

typedef struct {
    const char *dir;
    ln_table bench, acc[LN_ACC_FILES];
    const char *acc_name[LN_ACC_FILES];
    int have_bench, have_acc[LN_ACC_FILES], have_verdicts;
    int threads; /* the thread count of bench.csv's rows in sp (its smallest): counts never mix */
    ln_speed *sp;
    size_t nsp;
    ln_accstat *ac;
    size_t nac;
    const char *dtypes[16], *regimes[8]; /* widest dtype first; regimes by size */
    size_t ndtypes, nregimes;
    char cpu[256], isa[256]; /* from the .meta.json sidecars */
    char machine_id[256];    /* CPU model and ISA as a folder name */
    ln_timing_run *timing;   /* the bench JSONs' repetitions: ln_results_timing loads them once */
    int timing_tried;
} ln_results;

/* Reads dir's result files, each kind with the op runs' files of dir/ops/ (ln_merge_folder);
 * returns 0 when there is none of them. */
int ln_results_load(ln_results *R, const char *dir);
void ln_results_free(ln_results *R);
/* The folder's timing repetitions (ln_timing_load_one), read on the first call and kept until
 * ln_results_free; NULL when it has none. */
ln_timing_run *ln_results_timing(ln_results *R);

int ln_is_peer(const char *kernel);  /* ext-<library>-<dtype> */
int ln_is_probe(const char *kernel); /* probe-copy, probe-stream */
/* A result row's input stayed what was drawn (the input column is ok, or absent). */
int ln_input_ok(const ln_table *t, size_t r, int col_input);

ln_speed *ln_find_speed(ln_results *R, const char *kernel, const char *regime);
ln_accstat *ln_find_acc(ln_results *R, const char *kernel);
char *ln_path_in(const char *dir, const char *name);
/* The files of one kind in a results folder: DIR/NAME (e.g. accuracy.csv, the LayerNorm run)
 * and the op runs of `make bench-ops` beside it, DIR/ops/STEM-*.EXT (ops/accuracy-rmsnorm.csv),
 * each written whole by one run, so a rerun replaces its own file. Fills paths (malloc'ed, at
 * most cap) and returns how many exist. */
size_t ln_results_files(const char *dir, const char *name, char **paths, size_t cap);
/* The JSON a bench CSV has beside it: results/ops/bench-rmsnorm.csv -> .../bench-rmsnorm.json
 * (malloc'ed), as lnbench bench names it. */
char *ln_json_beside(const char *csv_path);
/* The other way: .../bench-rmsnorm.json -> .../bench-rmsnorm.csv (malloc'ed). */
char *ln_csv_beside(const char *json_path);
/* Whether path names anything / a directory. */
int ln_path_exists(const char *path);
int ln_path_is_dir(const char *path);
/* Appends s to list[0..*n) unless it is there already (or the list holds cap). */
void ln_add_unique(const char **list, size_t *n, size_t cap, const char *s);

/* The results files of folder dir (bench, accuracy, conditioning, eps and the op runs') whose
 * metadata says they ran under an emulator: their names, comma-separated, into files; returns
 * how many. Timings of those mean nothing; their accuracy stands. */
size_t ln_run_emulated(const char *dir, char *files, size_t n, char *emulator, size_t en);

#endif
