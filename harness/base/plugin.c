#include "plugin.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tunables.h"

static const ln_kernel **loaded; /* plugin kernels, copied (see below) */
static const char **loaded_from; /* the library each came from */
static size_t nloaded;

size_t ln_kernel_count(void) { return ln_num_kernels + ln_num_op_kernels + nloaded; }

const ln_kernel *ln_kernel_at(size_t i)
{
    if (i < ln_num_kernels) return ln_all_kernels[i];
    i -= ln_num_kernels;
    return i < ln_num_op_kernels ? ln_op_kernels[i] : loaded[i - ln_num_op_kernels];
}

static const char *owner(const char *name)
{
    if (ln_kernel_find(name)) return "a built-in kernel";
    for (size_t i = 0; i < nloaded; i++)
        if (!strcmp(loaded[i]->name, name)) return loaded_from[i];
    return NULL;
}

void ln_plugin_load(const char *path)
{
    /* A bare name is a file here, not a library to look for in the system's paths. RTLD_NOW: an
     * unresolved symbol is found now, not in the middle of a sweep. The library stays loaded. */
    char local[4200];
    snprintf(local, sizeof local, "%s%s", strchr(path, '/') ? "" : "./", path);
    void *lib = dlopen(local, RTLD_NOW | RTLD_LOCAL);
    if (!lib) ln_die_usage("--plugin: cannot load '%s': %s", path, dlerror());
    const ln_plugin *p = dlsym(lib, "ln_plugin_kernels");
    if (!p)
        ln_die_usage("--plugin: '%s' exports no ln_plugin_kernels (an ln_plugin, kernels/kernel.h; docs/plugins.md)",
                     path);
    if (p->abi_version != LN_ABI_VERSION)
        ln_die_usage("--plugin: '%s' was built for kernel ABI version %d; this lnbench has version %d: rebuild it "
                     "against this kernels/kernel.h",
                     path, p->abi_version, LN_ABI_VERSION);
    if (p->count == 0 || !p->kernels) ln_die_usage("--plugin: '%s' holds no kernels (count 0 or kernels NULL)", path);
    const ln_kernel **grown = realloc(loaded, (nloaded + p->count) * sizeof *grown);
    const char **from = realloc(loaded_from, (nloaded + p->count) * sizeof *from);
    if (!grown || !from) ln_die("out of memory");
    loaded = grown, loaded_from = from;
    for (size_t i = 0; i < p->count; i++) {
        const ln_kernel *k = p->kernels[i];
        if (!k || !k->name || !*k->name) ln_die_usage("--plugin: '%s': kernel %zu has no name", path, i);
        if (!k->forward) ln_die_usage("--plugin: '%s': kernel '%s' has no forward function", path, k->name);
        if ((unsigned)k->dtype >= LN_NDTYPES)
            ln_die_usage("--plugin: '%s': kernel '%s' has dtype %d, not one of ln_dtype's", path, k->name,
                         (int)k->dtype);
        if ((unsigned)k->op >= LN_NOPS)
            ln_die_usage("--plugin: '%s': kernel '%s' has op %d, not one of ln_op's (0 layernorm .. %d)", path, k->name,
                         (int)k->op, LN_NOPS - 1);
        const char *bad_tunables = ln_tunables_check(k);
        if (bad_tunables) ln_die_usage("--plugin: '%s': kernel '%s': %s", path, k->name, bad_tunables);
        const char *taken = owner(k->name);
        if (taken) ln_die_usage("--plugin: '%s': kernel name '%s' is already taken by %s", path, k->name, taken);
        /* A copy whose `how` is never NULL, so every verb can print it. */
        ln_kernel *copy = malloc(sizeof *copy);
        if (!copy) ln_die("out of memory");
        *copy = *k;
        if (!copy->how) copy->how = "(plugin kernel; no description)";
        loaded[nloaded] = copy;
        loaded_from[nloaded++] = path;
    }
}

int ln_plugin_take_args(int argc, char **argv, int first)
{
    int out = first;
    for (int i = first; i < argc; i++) {
        if (!strcmp(argv[i], "--plugin")) {
            if (i + 1 >= argc) ln_die_usage("--plugin: a path to a shared library is needed");
            ln_plugin_load(argv[++i]);
        } else if (!strncmp(argv[i], "--plugin=", 9)) {
            ln_plugin_load(argv[i] + 9);
        } else {
            argv[out++] = argv[i];
        }
    }
    argv[out] = NULL;
    return out;
}
