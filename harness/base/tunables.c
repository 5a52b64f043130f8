/* The tunables a kernel declares (kernel.h's ln_tunable): checked when a kernel is registered or a
 * plugin loaded, and formatted for bench.csv's params column and tune's lines. */
#include "tunables.h"

#include <stdio.h>
#include <string.h>

int ln_tunable_allows(const ln_tunable *u, int v)
{
    for (size_t j = 0; j < u->n_values; j++)
        if (u->values[j] == v) return 1;
    return 0;
}

long ln_tunable_index(const ln_kernel *k, const char *name)
{
    for (size_t i = 0; i < k->n_tunables; i++)
        if (!strcmp(k->tunables[i].name, name)) return (long)i;
    return -1;
}

const char *ln_params_format(const ln_kernel *k, const int *params, char *buf, size_t n)
{
    snprintf(buf, n, "-");
    if (!params || !k || !k->n_tunables) return buf;
    size_t used = 0;
    for (size_t j = 0; j < k->n_tunables && used < n; j++) {
        int w = snprintf(buf + used, n - used, "%s%s=%d", j ? ";" : "", k->tunables[j].name, params[j]);
        if (w < 0) break;
        used += (size_t)w;
    }
    return buf;
}

const char *ln_tunables_check(const ln_kernel *k)
{
    static char msg[256];
    if (k->n_tunables && !k->tunables) return "n_tunables > 0 but tunables is NULL";
    if (k->n_tunables > LN_TUNABLES_MAX) {
        snprintf(msg, sizeof msg, "%zu tunables (at most %d)", k->n_tunables, LN_TUNABLES_MAX);
        return msg;
    }
    for (size_t j = 0; j < k->n_tunables; j++) {
        const ln_tunable *u = &k->tunables[j];
        if (!u->name || !*u->name) return snprintf(msg, sizeof msg, "tunable %zu has no name", j), msg;
        for (size_t i = 0; i < j; i++)
            if (!strcmp(k->tunables[i].name, u->name))
                return snprintf(msg, sizeof msg, "tunable '%s' is listed twice", u->name), msg;
        if (!u->values || !u->n_values) return snprintf(msg, sizeof msg, "tunable '%s' has no values", u->name), msg;
        for (size_t i = 1; i < u->n_values; i++)
            if (u->values[i] <= u->values[i - 1])
                return snprintf(msg, sizeof msg, "tunable '%s': values not ascending", u->name), msg;
        if (!ln_tunable_allows(u, u->def))
            return snprintf(msg, sizeof msg, "tunable '%s': default %d is not among its values", u->name, u->def), msg;
    }
    return NULL;
}
