/* What the timing runs' JSON files say beyond bench.csv: the cases lnbench bench skipped
 * (--max-call-seconds), frequency scaling, the load when each run started. One JSON per run:
 * bench.json beside bench.csv, ops/bench-OP.json beside each op run's CSV (make bench-ops). */
#ifndef LN_RUN_NOTES_H
#define LN_RUN_NOTES_H

#include <stddef.h>

#include "results.h"

typedef struct {
    char *name;             /* Google Benchmark's run name less "/process_time/real_time" */
    const char *op, *dtype; /* of its kernel */
    const char *file;       /* the JSON, as named under the results folder */
} ln_skipped_case;

typedef struct {
    char *file[64]; /* the JSON files read, relative to the folder */
    double load[64], cpus[64];
    int scaling[64];
    size_t nfile;
    ln_skipped_case *skip;
    size_t nskip;
} ln_run_notes;

/* Reads the notes of the results folder R->dir (a kernel's op and dtype from R's rows, else the
 * registry: every case of it skipped). */
void ln_run_notes_read(ln_results *R, ln_run_notes *T);
void ln_run_notes_free(ln_run_notes *T);
/* Skipped cases of one op (and dtype, unless NULL). */
size_t ln_skipped_count(const ln_run_notes *T, const char *op, const char *dtype);

#endif
