/* Result files are written whole or not at all: to a temporary file beside the target, then
 * renamed over it. */
#ifndef LN_OUTFILE_H
#define LN_OUTFILE_H

#include <stdio.h>

typedef struct {
    FILE *f;
    char *path, *tmp;
} ln_outfile;

/* Opens a temporary file beside path (creating missing parent folders). A symbolic link is
 * written through (the file it points to is replaced, the link stays); a target that exists and
 * is not a regular file (a device, a pipe) is refused. An unwritable path is a usage error
 * (exit 2) naming it, detected here, before any work is done. */
void ln_out_open(ln_outfile *o, const char *path);
/* Flushes, syncs and renames the file into place; an I/O error exits 1 and removes the temp. */
void ln_out_commit(ln_outfile *o);
/* Removes the temporary file (nothing is written). */
void ln_out_abort(ln_outfile *o);
/* A handler for a fatal signal: removes every pending temporary file, then ends the process by
 * sig (installed by ln_out_open for signals that have no handler yet; a verb with a handler of
 * its own calls it when it gives up). */
void ln_out_remove_on_signal(int sig);
/* name (a kernel's, a distribution's) as one file-name component: every character but
 * [A-Za-z0-9.+-] becomes '_', and a leading '.' too, so that it can neither leave its folder
 * nor hide. */
void ln_out_safe_name(char *out, size_t len, const char *name);
/* s as one CSV field: quoted (quotes doubled) only when it holds a comma, a quote or a line
 * break, as a file: path or a plugin's kernel name may. */
void ln_out_csv_field(FILE *f, const char *s);

#endif
