/* lnbench report [DIR | --out DIR SRC...]: REPORT.md and report.html from a results folder, or
 * from several merged into one (harness/report/). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "figures.h"
#include "merge.h"
#include "report.h"
#include "results.h"
#include "verbs.h"

static const char report_help[] =
    "usage: lnbench report [--figure-data [--history-kernel K]] [--machine-id] [DIR]\n"
    "       lnbench report [--allow-missing] [--figure-data ...] --out DIR SRC...\n"
    "Writes DIR/REPORT.md and DIR/report.html (one page, figures inlined) from the results in DIR\n"
    "(default results): bench.csv, accuracy.csv, conditioning.csv, eps.csv, their .meta.json,\n"
    "bench.json, the op runs of make bench-ops in DIR/ops/ (accuracy-OP.csv, bench-OP.csv and\n"
    "bench-OP.json, read with them), and the figures of scripts/plots.sh in DIR/plots/. Summary first: verdicts,\n"
    "the fastest kernel per dtype and regime against the machine limit and the peers, the most\n"
    "accurate kernel and its cost, the Pareto front, warnings; details and full tables after.\n"
    "  --figure-data   write instead the tables the figures are drawn from, in DIR/plots/data/\n"
    "                  (scripts/plots.sh runs this, then gnuplot); with the runs kept in\n"
    "                  DIR/history/<machine>/, the history of kernel K's GB/s (default: the\n"
    "                  fastest f32 kernel)\n"
    "  --machine-id    print instead the machine's folder name under DIR/history/ (from the CPU\n"
    "                  model and ISA in DIR's .meta.json files)\n"
    "  --out DIR       merge the results folders or files SRC... into DIR first (as lnbench merge\n"
    "                  --out DIR SRC... does: shards of a --shard K/N split, parts run apart;\n"
    "                  docs/shards.md), then work on DIR\n"
    "  --allow-missing with --out: merge the shards there are when some are missing\n";

int cmd_report(int argc, char **argv)
{
    const char *dir = "results", *out = NULL, *srcs[256];
    size_t nsrc = 0;
    int figure_data = 0, machine_id = 0, allow_missing = 0;
    const char *history_kernel = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return fputs(report_help, stdout), 0;
        if (!strcmp(argv[i], "--figure-data") || !strcmp(argv[i], "--machine-id")) {
            *(argv[i][2] == 'f' ? &figure_data : &machine_id) = 1;
            continue;
        }
        if (!strcmp(argv[i], "--allow-missing")) {
            allow_missing = 1;
            continue;
        }
        if ((!strcmp(argv[i], "--history-kernel") || !strcmp(argv[i], "--out")) && i + 1 < argc) {
            *(argv[i][2] == 'h' ? &history_kernel : &out) = argv[i + 1];
            i++;
            continue;
        }
        if (argv[i][0] == '-') ln_die_usage("report: unknown option '%s' (see lnbench report --help)", argv[i]);
        if (nsrc == sizeof srcs / sizeof *srcs) ln_die_usage("report: at most 256 results folders");
        srcs[nsrc++] = argv[i];
    }
    if (nsrc > 1 && !out)
        ln_die_usage("report: several results folders need --out DIR, the folder they are merged into (see lnbench "
                     "report --help)");
    if (out) {
        if (!nsrc) ln_die_usage("report: --out DIR needs the results folders or files to merge into it");
        ln_merge_results(out, srcs, nsrc, allow_missing);
        dir = out;
    } else if (nsrc) dir = srcs[0];
    if (allow_missing && !out) ln_die_usage("report: --allow-missing goes with --out DIR SRC...");
    if (machine_id) {
        ln_results R;
        if (!ln_results_load(&R, dir)) ln_die_usage("report: no results in %s/", dir);
        printf("%s\n", R.machine_id);
        ln_results_free(&R);
        return 0;
    }
    return figure_data ? ln_figures_write(dir, history_kernel) : ln_report_write(dir);
}
