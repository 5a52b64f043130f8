#include "views.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "results.h"
#include "rows.h"
#include "stats.h"

double ln_median_where(const ln_table *t, const char *kernel, const char *regime, int threads, ln_column col)
{
    int ck = ln_table_column(t, LNC_BENCH_kernel), cr = ln_table_column(t, LNC_BENCH_regime),
        cv = ln_table_column(t, col);
    double *v = malloc((t->rows + 1) * sizeof *v);
    if (!v) ln_die("out of memory");
    size_t n = 0;
    for (size_t r = 0; r < t->rows; r++) {
        if (strcmp(ln_table_cell(t, r, ck), kernel) || strcmp(ln_table_cell(t, r, cr), regime) ||
            ln_row_threads(t, r) != threads)
            continue;
        double x = ln_table_num(t, r, cv);
        if (!isnan(x)) v[n++] = x;
    }
    double m = ln_median(v, n);
    free(v);
    return m;
}

static int is_16bit_probe(const char *probe)
{
    size_t n = strlen(probe);
    return n > 3 && !strcmp(probe + n - 3, "-16");
}

static int is_16bit_dtype(const char *dtype) { return !strcmp(dtype, "f16") || !strcmp(dtype, "bf16"); }

double ln_limit_at(const ln_table *bench, const char *regime, int threads, const char *dtype, const char **probe)
{
    int ck = ln_table_column(bench, LNC_BENCH_kernel), cr = ln_table_column(bench, LNC_BENCH_regime),
        cg = ln_table_column(bench, LNC_BENCH_gbps);
    double best = NAN;
    for (size_t r = 0; r < bench->rows; r++) {
        const char *k = ln_table_cell(bench, r, ck);
        if (!ln_is_probe(k) || strcmp(ln_table_cell(bench, r, cr), regime) || ln_row_threads(bench, r) != threads)
            continue;
        if (dtype && is_16bit_probe(k) != is_16bit_dtype(dtype)) continue;
        double g = ln_table_num(bench, r, cg);
        if (!(g <= best)) {
            best = g;
            if (probe) *probe = k;
        }
    }
    /* results written before the 16-bit probes existed: the fp32 probes' bytes */
    if (isnan(best) && dtype && is_16bit_dtype(dtype)) return ln_limit_at(bench, regime, threads, "f32", probe);
    return best;
}

/* Each op run's bench CSV, read once per folder (the report and summary ask many times). */
static const ln_table *op_bench(const char *dir, const char *op)
{
    static struct {
        char path[1200];
        ln_table t;
        int ok;
    } cache[16];
    static size_t n;
    char path[1200];
    if (!strcmp(op, "layernorm")) snprintf(path, sizeof path, "%s/bench.csv", dir);
    else snprintf(path, sizeof path, "%s/ops/bench-%s.csv", dir, op);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(cache[i].path, path)) return cache[i].ok ? &cache[i].t : NULL;
    if (n == 16) return NULL;
    snprintf(cache[n].path, sizeof cache[n].path, "%s", path);
    cache[n].ok = ln_table_read(path, &cache[n].t);
    return cache[n].ok ? &cache[n++].t : (n++, NULL);
}

static double limit_in(const ln_table *t, const char *regime, int threads, int want16, const char **probe,
                       double *bytes)
{
    int ck = ln_table_column(t, LNC_BENCH_kernel), cr = ln_table_column(t, LNC_BENCH_regime),
        cg = ln_table_column(t, LNC_BENCH_gbps), cb = ln_table_column(t, LNC_BENCH_bytes);
    double size = -1, best = NAN;
    for (int pass = 0; pass < 2; pass++) /* the largest size of the regime, then its best probe there */
        for (size_t r = 0; r < t->rows; r++) {
            const char *k = ln_table_cell(t, r, ck);
            if (!ln_is_probe(k) || strcmp(ln_table_cell(t, r, cr), regime) || ln_row_threads(t, r) != threads ||
                is_16bit_probe(k) != want16)
                continue;
            double b = cb >= 0 ? ln_table_num(t, r, cb) : 0, g = ln_table_num(t, r, cg);
            if (!pass && b > size) size = b;
            if (pass && b == size && !(g <= best)) {
                best = g;
                if (probe) *probe = k;
                if (bytes) *bytes = b;
            }
        }
    return best;
}

double ln_run_limit(const char *dir, const ln_table *fallback, const char *op, const char *regime, int threads,
                    const char *dtype, const char **probe, double *bytes)
{
    const ln_table *own = dir ? op_bench(dir, op) : NULL;
    int want16 = dtype && is_16bit_dtype(dtype);
    for (int f = 0; f < 2; f++) {
        const ln_table *t = f ? fallback : own;
        if (!t) continue;
        double g = limit_in(t, regime, threads, want16, probe, bytes);
        if (isnan(g) && want16) g = limit_in(t, regime, threads, 0, probe, bytes); /* before the 16-bit probes */
        if (!isnan(g)) return g;
    }
    return NAN;
}

const char *ln_size_label(double bytes, char *buf, size_t n)
{
    if (bytes >= 1073741824.0 && fmod(bytes, 1073741824.0) == 0) snprintf(buf, n, "%.0fG", bytes / 1073741824.0);
    else if (bytes >= 1048576.0 && fmod(bytes, 1048576.0) == 0) snprintf(buf, n, "%.0fM", bytes / 1048576.0);
    else if (bytes >= 1024.0 && fmod(bytes, 1024.0) == 0) snprintf(buf, n, "%.0fK", bytes / 1024.0);
    else snprintf(buf, n, "%.0f B", bytes);
    return buf;
}

int ln_hardest_dist(const ln_table *t, const char *kernel, ln_column by, ln_hardest *h)
{
    int ck = ln_table_column(t, LNC_ACC_kernel), cd = ln_table_column(t, LNC_ACC_dist), cby = ln_table_column(t, by),
        cn = ln_table_column(t, LNC_ACC_max_norm), cu = ln_table_column(t, LNC_ACC_max_ulp),
        cmean = ln_table_column(t, LNC_ACC_mean_ulp), cnf = ln_table_column(t, LNC_ACC_nonfinite),
        cv = ln_table_column(t, LNC_ACC_verdict), cin = ln_table_column(t, LNC_ACC_input),
        cdg = ln_table_column(t, LNC_ACC_dgamma_max_norm), cdb = ln_table_column(t, LNC_ACC_dbeta_max_norm),
        cdom = ln_table_column(t, LNC_ACC_domain), cb = ln_table_column(t, LNC_ACC_bound);
    *h = (ln_hardest){.dist = "", .fails = cv < 0 ? NAN : 0, .verdict = "", .domain = "", .bound = NAN};
    double hardest = NAN;
    int found = 0;
    for (size_t r = 0; r < t->rows; r++) {
        if (strcmp(ln_table_cell(t, r, ck), kernel) || !ln_input_ok(t, r, cin)) continue;
        double v = ln_table_num(t, r, cby), nf = ln_table_num(t, r, cnf);
        if (nf > 0) v = INFINITY, h->nonfinite += nf;
        if (cv >= 0) h->fails += !strcmp(ln_table_cell(t, r, cv), "fail");
        /* NaN (no finite output to measure) is passed over unless nothing else is there */
        if (!found || (!isnan(v) && !(v <= hardest))) h->dist = ln_table_cell(t, r, cd), hardest = v;
        found = 1;
    }
    if (!found) return 0;
    h->max_norm = h->max_ulp = h->mean_ulp = h->dgamma_norm = h->dbeta_norm = NAN;
    const int cols[5] = {cn, cu, cmean, cdg, cdb};
    double *worst[5] = {&h->max_norm, &h->max_ulp, &h->mean_ulp, &h->dgamma_norm, &h->dbeta_norm};
    for (size_t r = 0; r < t->rows; r++) {
        if (strcmp(ln_table_cell(t, r, ck), kernel) || strcmp(ln_table_cell(t, r, cd), h->dist) ||
            !ln_input_ok(t, r, cin))
            continue;
        int nonfinite = ln_table_num(t, r, cnf) > 0;
        for (int c = 0; c < 5; c++) {
            double v = nonfinite && c < 2 ? INFINITY : ln_table_num(t, r, cols[c]);
            if (isnan(v) || v <= *worst[c]) continue;
            *worst[c] = v;
            if (c == 0)
                h->verdict = ln_table_cell(t, r, cv), h->domain = ln_table_cell(t, r, cdom),
                h->bound = ln_table_num(t, r, cb);
        }
    }
    return 1;
}

size_t ln_scaling_rows(const ln_table *bench, ln_scaling *out, size_t cap)
{
    int threads[LN_MAX_THREAD_COUNTS];
    size_t nt = ln_table_threads(bench, threads, LN_MAX_THREAD_COUNTS), n = 0;
    if (nt < 2) return 0;
    int ck = ln_table_column(bench, LNC_BENCH_kernel), cr = ln_table_column(bench, LNC_BENCH_regime),
        cdt = ln_table_column(bench, LNC_BENCH_dtype);
    for (size_t r = 0; r < bench->rows && n < cap; r++) {
        const char *k = ln_table_cell(bench, r, ck), *rg = ln_table_cell(bench, r, cr);
        if (ln_is_probe(k)) continue;
        size_t i = 0;
        while (i < n && (strcmp(out[i].kernel, k) || strcmp(out[i].regime, rg))) i++;
        if (i < n) continue;
        ln_scaling *s = &out[n];
        *s = (ln_scaling){.kernel = k, .op = ln_row_op(bench, r), .regime = rg};
        double one = ln_median_where(bench, k, rg, 1, LNC_BENCH_gbps);
        for (size_t j = 0; j < nt; j++) {
            double g = ln_median_where(bench, k, rg, threads[j], LNC_BENCH_gbps);
            if (isnan(g)) continue;
            s->threads[s->n] = threads[j], s->gbps[s->n] = g, s->speedup[s->n] = g / one;
            s->of_limit[s->n] = g / ln_limit_at(bench, rg, threads[j], ln_table_cell(bench, r, cdt), NULL);
            s->n++;
        }
        n += s->n > 1;
    }
    return n;
}
