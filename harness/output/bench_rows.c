#include "bench_rows.h"

#include <math.h>

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

size_t ln_bench_write_rows(FILE *f, const ln_bench_results *r)
{
    fputs("kernel,dtype,D,rows,bytes,regime,dist,eps,threads,repetitions,ns_per_row,gbps,gbps_min,gbps_max,cv,"
          "bw_fraction,affine_bytes,gbps_cpu,op,params\n",
          f);
    if (!r->quiet)
        printf("\n%-44s %-6s %8s %8s %8s %6s %8s\n", "benchmark", "regime", "GB/s", "min", "max", "cv%", "bw_frac");
    size_t rows_written = 0;
    for (size_t i = 0; i < r->ncases; i++) {
        const ln_bench_case *c = &r->cases[i];
        const ln_bench_stats *s = &r->stats[i];
        if (!r->ran[i]) continue;
        double fraction = bw_fraction(r, i);
        const ln_format *fmt = ln_fmt(c->dtype);
        ln_out_csv_field(f, c->label); /* a plugin's kernel name may hold a comma */
        fprintf(f, ",%s,%zu,%zu,%zu,%s,", fmt->name, c->D, c->rows, c->xbytes, ln_bench_regime(c->size));
        if (c->what == LN_BENCH_KERNEL) fprintf(f, "%s,%g,", c->dist.spec, c->eps);
        else fputs(",,", f);
        char params[512];
        fprintf(f, "%d,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%zu,%.6g,%s,%s\n", c->threads, s->reps,
                1e9 / s->rows_per_second, s->gbps, s->gbps_min, s->gbps_max, s->cv, fraction,
                c->what == LN_BENCH_KERNEL ? 2 * c->D * fmt->size : 0, s->gbps_cpu,
                c->what == LN_BENCH_KERNEL ? ln_op_name(c->k->op) : "",
                ln_params_format(c->k, c->params, params, sizeof params));
        if (!r->quiet)
            printf("%-44s %-6s %8.2f %8.2f %8.2f %6.1f %8.3f\n", c->name, ln_bench_regime(c->size), s->gbps,
                   s->gbps_min, s->gbps_max, 100 * s->cv, fraction);
        rows_written++;
    }
    return rows_written;
}
