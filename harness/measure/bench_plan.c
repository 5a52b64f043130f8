#include "bench_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "bench_run.h"
#include "cli.h"

/* "1M", "256M", "64K", or the plain number when no suffix divides it. */
static const char *size_name(size_t bytes, char *buf, size_t len)
{
    static const char suffix[] = "GMK";
    for (int i = 0; i < 3; i++) {
        size_t unit = (size_t)1 << (10 * (3 - i));
        if (bytes % unit == 0) return snprintf(buf, len, "%zu%c", bytes / unit, suffix[i]), buf;
    }
    snprintf(buf, len, "%zu", bytes);
    return buf;
}

/* "/threads:N" for more than one thread; nothing for one, so one-thread names stay as they were. */
static void add_threads_suffix(ln_bench_case *c)
{
    size_t n = strlen(c->name);
    if (c->threads > 1) snprintf(c->name + n, sizeof c->name - n, "/threads:%d", c->threads);
}

/* The two probes (copy, stream) of size `size` (x's bytes) at `threads` for elements of esize
 * bytes (fp32 or 16-bit), unless cases[first..n) has them. */
static void add_probes(ln_bench_case *cases, size_t *n, size_t first, size_t size, int threads, size_t esize)
{
    ln_bench_what copy = esize == 2 ? LN_BENCH_PROBE_COPY_16 : LN_BENCH_PROBE_COPY;
    static const char *const labels[] = {
        [LN_BENCH_PROBE_COPY] = "probe-copy",
        [LN_BENCH_PROBE_STREAM] = "probe-stream",
        [LN_BENCH_PROBE_COPY_16] = "probe-copy-16",
        [LN_BENCH_PROBE_STREAM_16] = "probe-stream-16",
    };
    for (size_t q = first; q < *n; q++)
        if (cases[q].what == copy && cases[q].size == size) return;
    for (ln_bench_what w = copy; w <= copy + 1; w++) {
        ln_bench_case *pc = &cases[(*n)++];
        char sz[32];
        *pc = (ln_bench_case){.what = w,
                              .label = labels[w],
                              .dtype = esize == 2 ? LN_F16 : LN_F32,
                              .D = size / esize,
                              .rows = 1,
                              .size = size,
                              .threads = threads};
        pc->xbytes = pc->D * esize;
        snprintf(pc->name, sizeof pc->name, "%s/bytes:%s", pc->label, size_name(size, sz, sizeof sz));
        add_threads_suffix(pc);
    }
}

static ln_bench_case kernel_case(const ln_bench_grid *g, const ln_kernel *k, size_t size, size_t D, const ln_dist *dist,
                                 double eps, size_t threads)
{
    size_t esize = ln_fmt(k->dtype)->size;
    ln_bench_case c = {.what = LN_BENCH_KERNEL,
                       .label = k->name,
                       .k = k,
                       .dtype = k->dtype,
                       .resid = k->resid,
                       .D = D,
                       .threads = (int)threads,
                       .dist = *dist,
                       .eps = eps,
                       .seed = g->seed,
                       .every_input = g->every_input};
    c.rows = g->sizes_are_bytes ? size / (D * esize) : size;
    if (c.rows == 0) c.rows = 1;
    c.xbytes = c.rows * D * esize;
    c.size = g->sizes_are_bytes ? size : c.xbytes;
    char *p = c.name, *end = c.name + sizeof c.name;
    p += snprintf(p, end - p, "%s/D:%zu/rows:%zu", c.label, c.D, c.rows);
    if (g->ndists > 1) p += snprintf(p, end - p, "/dist:%s", dist->spec);
    if (g->neps > 1) snprintf(p, end - p, "/eps:%g", eps);
    add_threads_suffix(&c);
    return c;
}

/* Each kernel case's `smaller`: the same kernel, D, dist, eps and threads at the next smaller x. */
static void link_smaller(ln_bench_case *cases, size_t ncases)
{
    for (size_t i = 0; i < ncases; i++)
        for (size_t j = 0; j < i; j++) {
            ln_bench_case *a = &cases[i], *b = &cases[j];
            if (a->what == LN_BENCH_KERNEL && b->k == a->k && b->D == a->D && !strcmp(b->dist.spec, a->dist.spec) &&
                b->eps == a->eps && b->threads == a->threads && b->xbytes < a->xbytes &&
                (!a->smaller || b->xbytes > a->smaller->xbytes))
                a->smaller = b;
        }
}

ln_bench_case *ln_bench_plan(const ln_bench_grid *g, size_t *ncases)
{
    for (size_t di = 0; di < g->ndists; di++)
        for (size_t d = 0; d < g->nD; d++)
            if (g->dists[di].kind == LN_DIST_FILE && g->dists[di].file_D != g->D[d])
                ln_die_usage("--D %zu: distribution '%s' has rows of %zu values", g->D[d], g->dists[di].spec,
                             g->dists[di].file_D);
    size_t nkernel_cases = g->nthreads * g->nsizes * g->nD * g->ndists * g->neps * g->nkernels;
    ln_bench_case *cases = calloc(5 * nkernel_cases, sizeof *cases); /* each with up to 4 probes */
    if (!cases) ln_die("out of memory");
    size_t n = 0;
    for (size_t t = 0; t < g->nthreads; t++)
        for (size_t s = 0; s < g->nsizes; s++) {
            size_t first_of_size = n;
            for (size_t d = 0; d < g->nD; d++)
                for (size_t di = 0; di < g->ndists; di++)
                    for (size_t e = 0; e < g->neps; e++)
                        for (size_t i = 0; i < g->nkernels; i++) {
                            ln_bench_case c = kernel_case(g, g->kernels[i], g->sizes[s], g->D[d], &g->dists[di],
                                                          g->eps[e], g->threads[t]);
                            add_probes(cases, &n, first_of_size, c.size, c.threads, sizeof(float));
                            if (ln_fmt(c.dtype)->size == 2)
                                add_probes(cases, &n, first_of_size, c.size, c.threads, sizeof(uint16_t));
                            cases[n++] = c;
                        }
        }
    link_smaller(cases, n);
    for (size_t i = 0; i < n; i++) {
        cases[i].index = i;
        ln_bench_set_run_name(&cases[i]);
    }
    *ncases = n;
    return cases;
}

size_t *ln_parse_sizes(const char *list, size_t *count)
{
    char **items = ln_split_list(list, "--bytes", count);
    size_t *v = malloc(*count * sizeof *v);
    if (!v) ln_die("out of memory");
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double memory = pages > 0 && page > 0 ? (double)pages * (double)page : 1e15;
    for (size_t i = 0; i < *count; i++) {
        v[i] = ln_parse_size(items[i], "--bytes");
        if (v[i] < 64) ln_die_usage("--bytes: '%s' is below 64 bytes", items[i]);
        if (2.0 * (double)v[i] > 0.75 * memory)
            ln_die_usage("--bytes: '%s' for x (and as much for y) does not fit in this machine's memory", items[i]);
    }
    free(items);
    return v;
}
