/* Input distributions: seeded, reproducible across runs and machines (own PRNG, no libc rand). */
#ifndef LN_DIST_H
#define LN_DIST_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"

typedef enum {
    LN_DIST_NORMAL,
    LN_DIST_UNIFORM,
    LN_DIST_OFFSET,
    LN_DIST_SHIFTED,
    LN_DIST_OUTLIER,
    LN_DIST_HEAVY,
    LN_DIST_CONST,
    LN_DIST_ZERO,
    LN_DIST_TINY,
    LN_DIST_HUGE,
    LN_DIST_EXACT,
    LN_DIST_FILE
} ln_dist_kind;

typedef struct {
    ln_dist_kind kind;
    double param;     /* offset:M -> M, outlier:S -> S */
    char spec[256];   /* as written on the command line, e.g. "offset:1e4" */
    const char *path; /* file:PATH */
    /* file:PATH only: the array, read and checked by ln_dist_parse; its shape fixes D and rows
     * (a 1-D file is one row). */
    double *data;
    size_t file_rows, file_D;
} ln_dist;

/* The valid names, for messages and --help: "normal, uniform, offset:M, ...". */
extern const char ln_dist_names[];

/* Parses one spec ("normal", "offset:1e4", "file:acts.npy"); a bad spec, or a file that cannot
 * be read as a 1-D/2-D float32/float64 .npy, is a usage error (exit 2) naming it and the valid
 * names. */
void ln_dist_parse(const char *spec, ln_dist *d);
/* Releases what ln_dist_parse allocated (a file's path and data). */
void ln_dist_free(ln_dist *d);

/* Fills x (rows x D elements of format t) from distribution d, deterministically from
 * (seed, d, D, rows). The values are drawn in double and rounded once to t, so kernels of
 * different dtypes see the same data up to that rounding (tiny and huge scale with t's exponent
 * range). file: D must be the file's row length; rows beyond the file's repeat them cyclically. */
void ln_dist_fill(const ln_dist *d, ln_dtype t, size_t rows, size_t D, uint64_t seed, void *x);
/* The same values before that rounding (rows x D doubles): what storing them in t did to a row
 * (overflow, underflow, a row collapsed to one value) is a finding about the input format. */
void ln_dist_draw(const ln_dist *d, ln_dtype t, size_t rows, size_t D, uint64_t seed, double *x);

/* gamma ~ 1 + 0.25 U(-1,1) and beta ~ 0.25 U(-1,1) (D elements each), from (seed, D). */
void ln_affine_fill(ln_dtype t, size_t D, uint64_t seed, void *gamma, void *beta);

#endif
