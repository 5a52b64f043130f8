#include "bench_rows.h"

#include <math.h>

#include "columns.h"
#include "outfile.h"
#include "tunables.h"

/* Case i's rate over the limit results/README.md defines: the faster of probe-copy and
 * probe-stream (probe-copy-16 and probe-stream-16 for 16-bit storage) of this run at the same
 * size and thread count; NaN without one. */
static double bw_fraction(const ln_bench_results *r, size_t i)
{
    const ln_bench_case *c = &r->cases[i];
    int is16 = ln_fmt(c->dtype)->size == 2;
    ln_bench_what copy = is16 ? LN_BENCH_PROBE_COPY_16 : LN_BENCH_PROBE_COPY,
                  stream = is16 ? LN_BENCH_PROBE_STREAM_16 : LN_BENCH_PROBE_STREAM;
    double limit = NAN;
    for (size_t q = 0; q < r->ncases; q++) {
        const ln_bench_case *p = &r->cases[q];
        if ((p->what == copy || p->what == stream) && p->size == c->size && p->threads == c->threads && r->ran[q] &&
            !(r->stats[q].gbps <= limit))
            limit = r->stats[q].gbps;
    }
    return r->stats[i].gbps / limit;
}

/* The per-column inputs (gamma, beta) kernel case c gives its kernel: bytes a call reads beside
 * those counted. */
static size_t per_column_bytes(const ln_bench_case *c)
{
    const ln_op_info *op = &ln_ops[c->k->op];
    size_t n = 0;
    for (size_t k = 0; k < op->n_roles; k++)
        n += op->roles[k].kind == LN_ROLE_IN && op->roles[k].shape == LN_SHAPE_COLS && ln_bench_gives(c, &op->roles[k]);
    return n * c->D * ln_fmt(c->dtype)->size;
}

size_t ln_bench_write_rows(FILE *f, const ln_bench_results *r)
{
    ln_schema_write_header(f, LN_SCHEMA_BENCH);
    if (!r->quiet)
        printf("\n%-44s %-6s %8s %8s %8s %6s %8s\n", "benchmark", "regime", "GB/s", "min", "max", "cv%", "bw_frac");
    size_t rows_written = 0;
    for (size_t i = 0; i < r->ncases; i++) {
        const ln_bench_case *c = &r->cases[i];
        const ln_bench_stats *s = &r->stats[i];
        if (!r->ran[i]) continue;
        double fraction = bw_fraction(r, i);
        const ln_format *fmt = ln_fmt(c->dtype);
        int kernel = c->what == LN_BENCH_KERNEL;
        char params[512];
        ln_csv_row row;
        ln_row_start(&row, LN_SCHEMA_BENCH);
        ln_row_text(&row, LNC_BENCH_kernel, c->label);
        ln_row_text(&row, LNC_BENCH_dtype, fmt->name);
        ln_row_count(&row, LNC_BENCH_D, c->D);
        ln_row_count(&row, LNC_BENCH_rows, c->rows);
        ln_row_count(&row, LNC_BENCH_bytes, c->xbytes);
        ln_row_text(&row, LNC_BENCH_regime, ln_bench_regime(c->size));
        ln_row_text(&row, LNC_BENCH_dist, kernel ? c->dist.spec : "");
        if (kernel) ln_row_num(&row, LNC_BENCH_eps, c->eps);
        else ln_row_empty(&row, LNC_BENCH_eps); /* a probe has no eps */
        ln_row_count(&row, LNC_BENCH_threads, (unsigned long long)c->threads);
        ln_row_count(&row, LNC_BENCH_repetitions, (unsigned long long)s->reps);
        ln_row_num(&row, LNC_BENCH_ns_per_row, 1e9 / s->rows_per_second);
        ln_row_num(&row, LNC_BENCH_gbps, s->gbps);
        ln_row_num(&row, LNC_BENCH_gbps_min, s->gbps_min);
        ln_row_num(&row, LNC_BENCH_gbps_max, s->gbps_max);
        ln_row_num(&row, LNC_BENCH_cv, s->cv);
        ln_row_num(&row, LNC_BENCH_bw_fraction, fraction);
        ln_row_count(&row, LNC_BENCH_affine_bytes, kernel ? per_column_bytes(c) : 0);
        ln_row_num(&row, LNC_BENCH_gbps_cpu, s->gbps_cpu);
        ln_row_text(&row, LNC_BENCH_op, kernel ? ln_op_name(c->k->op) : "");
        ln_row_text(&row, LNC_BENCH_params, ln_params_format(c->k, c->params, params, sizeof params));
        ln_row_write(f, &row);
        if (!r->quiet)
            printf("%-44s %-6s %8.2f %8.2f %8.2f %6.1f %8.3f\n", c->name, ln_bench_regime(c->size), s->gbps,
                   s->gbps_min, s->gbps_max, 100 * s->cv, fraction);
        rows_written++;
    }
    return rows_written;
}
