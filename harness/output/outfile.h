/* Result files are written whole or not at all: to a temporary file beside the target, then
 * renamed over it. */
#ifndef LN_OUTFILE_H
#define LN_OUTFILE_H

#include <stdio.h>

typedef struct {
    FILE *f;
    char *path, *tmp;
} ln_outfile;

/* Opens a temporary file beside path (creating missing parent folders). An unwritable path is
 * a usage error (exit 2) naming it, detected here, before any work is done. */
void ln_out_open(ln_outfile *o, const char *path);
/* Flushes, syncs and renames the file into place; an I/O error exits 1 and removes the temp. */
void ln_out_commit(ln_outfile *o);
/* Removes the temporary file (nothing is written). */
void ln_out_abort(ln_outfile *o);

#endif
