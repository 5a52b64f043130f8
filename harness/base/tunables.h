/* The tunables a kernel declares (kernel.h's ln_tunable): their checks and their text. Below
 * bench (which passes them), tune (which searches them) and the plugin loader (which refuses a
 * malformed declaration). */
#ifndef LN_TUNABLES_H
#define LN_TUNABLES_H

#include <stddef.h>

#include "kernel.h"

#define LN_TUNABLES_MAX 16 /* tunables of one kernel */

/* Whether v is one of u's allowed values. */
int ln_tunable_allows(const ln_tunable *u, int v);
/* The index of k's tunable called name, or -1 when k has none of that name. */
long ln_tunable_index(const ln_kernel *k, const char *name);
/* "rowwise_min_d=4096;prefetch=512": k's tunables with params' values; "-" when params is NULL
 * or k has none. buf (n bytes) is returned. */
const char *ln_params_format(const ln_kernel *k, const int *params, char *buf, size_t n);
/* Whether k's tunables are well formed: at most LN_TUNABLES_MAX, names present and unique, values
 * ascending, default among them. Returns NULL, or a message (static buffer) saying what is wrong. */
const char *ln_tunables_check(const ln_kernel *k);

#endif
