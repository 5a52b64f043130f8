/* Choosing the built-in defaults from the tuning files of every machine measured (docs/tune.md):
 * `lnbench tune --defaults-from FILE,...`. */
#ifndef LN_DEFAULTS_H
#define LN_DEFAULTS_H

#include <stdio.h>

#include "tuning.h"

/* Markdown on out: per file (one machine) a table of what tune chose where it beat the defaults;
 * then per kernel and op the setting whose worst loss against the best timed, over every tuned
 * case of every machine, is smallest (among the settings timed in all of them), beside the
 * current defaults' worst loss. A file that cannot be read is a usage error (exit 2). Returns 0. */
int ln_tune_defaults_report(char *const *paths, size_t n, FILE *out);

#endif
