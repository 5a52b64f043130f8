#include "bench_stats.h"

#include <math.h>

int ln_bench_stats_of(const ln_gb_result *r, size_t n, const ln_bench_case *c, ln_bench_stats *s)
{
    const ln_gb_result *med = ln_gb_find(r, n, c->run_name, "median");
    int single = !med;
    if (single) med = ln_gb_find(r, n, c->run_name, "");
    if (!med) return 0;
    s->reps = (int)med->repetitions;
    s->gbps = ln_gb_counter_value(med, "bytes_per_second") * 1e-9;
    s->rows_per_second = ln_gb_counter_value(med, "rows_per_second");
    s->gbps_min = single ? s->gbps : ln_gb_lookup(r, n, c->run_name, "min", "bytes_per_second") * 1e-9;
    s->gbps_max = single ? s->gbps : ln_gb_lookup(r, n, c->run_name, "max", "bytes_per_second") * 1e-9;
    s->cv = single ? NAN : ln_gb_lookup(r, n, c->run_name, "cv", "bytes_per_second");
    s->real_ns = med->real_ns;
    s->cpu_ns = med->cpu_ns / c->threads;
    s->gbps_cpu = 2.0 * (double)c->xbytes / s->cpu_ns;
    return 1;
}
