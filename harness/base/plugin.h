/* The kernel set of a run: the built-in kernels of every op (kernels.inc) followed by those of the plugins
 * loaded with --plugin (kernel.h's ln_plugin, docs/plugins.md). Every verb selects from it. */
#ifndef LN_PLUGIN_H
#define LN_PLUGIN_H

#include <stddef.h>

#include "kernel.h"

size_t ln_kernel_count(void);
const ln_kernel *ln_kernel_at(size_t i);

/* Loads the shared library at path and appends its kernels. A library that cannot be loaded,
 * lacks ln_plugin_kernels, was built for another LN_ABI_VERSION, or holds a kernel without a
 * name or forward function, with an unknown dtype, or with a name already taken, is a usage
 * error (one message, exit status 2). */
void ln_plugin_load(const char *path);

/* Removes every "--plugin PATH" and "--plugin=PATH" from argv[first..argc), loading each
 * library in order; returns the new argc. */
int ln_plugin_take_args(int argc, char **argv, int first);

#endif
