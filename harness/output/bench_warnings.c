#include "bench_rows.h"

#define CV_WARNING 0.05
#define CPU_SHARE_WARNING 0.8

static void warn_noisy(const ln_bench_results *r, size_t nrows)
{
    size_t noisy = 0, worst = 0;
    for (size_t i = 0; i < r->ncases; i++) {
        const ln_bench_stats *s = &r->stats[i];
        if (!r->ran[i] || !(s->cv > CV_WARNING)) continue;
        if (!noisy++ || s->cv > r->stats[worst].cv) worst = i;
        if (!r->quiet)
            fprintf(stderr, "lnbench: warning: %s: CV %.1f%% over %d repetitions (> %.0f%%): the machine is noisy\n",
                    r->cases[i].name, 100 * s->cv, s->reps, 100 * CV_WARNING);
    }
    if (noisy)
        fprintf(stderr,
                "lnbench: warning: %zu of %zu benchmarks have a CV above %.0f%% (worst %s: %.1f%%): "
                "the machine is noisy; compare medians within one run\n",
                noisy, nrows, 100 * CV_WARNING, r->cases[worst].name, 100 * r->stats[worst].cv);
}

/* On a shared machine the wall clock also counts other processes' turns on the CPU. */
static void warn_shared(const ln_bench_results *r, size_t nrows)
{
    size_t shared = 0, most = 0;
    for (size_t i = 0; i < r->ncases; i++) {
        const ln_bench_stats *s = &r->stats[i];
        if (!r->ran[i] || !(s->cpu_ns < CPU_SHARE_WARNING * s->real_ns)) continue;
        if (!shared++ || s->cpu_ns / s->real_ns < r->stats[most].cpu_ns / r->stats[most].real_ns) most = i;
    }
    if (shared)
        fprintf(stderr,
                "lnbench: warning: in %zu of %zu benchmarks the timed calls had the CPU less than %.0f%% of "
                "their wall time (least: %s, %.0f%%): other processes were running; gbps is low by that much, "
                "gbps_cpu (from CPU time) is not\n",
                shared, nrows, 100 * CPU_SHARE_WARNING, r->cases[most].name,
                100 * r->stats[most].cpu_ns / r->stats[most].real_ns);
}

/* Each skipped case, or with quiet one line per kernel at its first skipped case. */
static void list_skipped(const ln_bench_results *r)
{
    const ln_bench_case *cases = r->cases;
    for (size_t i = 0; i < r->ncases; i++) {
        if (!(cases[i].predicted_s > 0)) continue;
        if (!r->quiet) {
            printf("skipped %s: one call would take ~%.1f s (--max-call-seconds %g)\n", cases[i].name,
                   cases[i].predicted_s, r->max_call_seconds);
            continue;
        }
        size_t count = 0, first = i;
        double longest = 0;
        for (size_t j = 0; j < r->ncases; j++)
            if (cases[j].predicted_s > 0 && cases[j].k == cases[i].k) {
                if (!count++) first = j;
                longest = cases[j].predicted_s > longest ? cases[j].predicted_s : longest;
            }
        if (first == i)
            printf("skipped %zu case%s of %s: one call would take up to ~%.1f s (--max-call-seconds %g)\n", count,
                   count > 1 ? "s" : "", cases[i].label, longest, r->max_call_seconds);
    }
}

void ln_bench_warn(const ln_bench_results *r, size_t nrows)
{
    warn_noisy(r, nrows);
    warn_shared(r, nrows);
    list_skipped(r);
}
