/* lnbench report [DIR]: REPORT.md and report.html from a results folder (harness/report/). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "figures.h"
#include "report.h"
#include "results.h"
#include "verbs.h"

static const char report_help[] =
    "usage: lnbench report [--figure-data [--history-kernel K]] [--machine-id] [DIR]\n"
    "Writes DIR/REPORT.md and DIR/report.html (one page, figures inlined) from the results in DIR\n"
    "(default results): bench.csv, accuracy.csv, conditioning.csv, eps.csv, their .meta.json,\n"
    "bench.json, and the figures of scripts/plots.sh in DIR/plots/. Summary first: verdicts,\n"
    "the fastest kernel per dtype and regime against the machine limit and the peers, the most\n"
    "accurate kernel and its cost, the Pareto front, warnings; details and full tables after.\n"
    "  --figure-data   write instead the tables the figures are drawn from, in DIR/plots/data/\n"
    "                  (scripts/plots.sh runs this, then gnuplot); with the runs kept in\n"
    "                  DIR/history/<machine>/, the history of kernel K's GB/s (default: the\n"
    "                  fastest f32 kernel)\n"
    "  --machine-id    print instead the machine's folder name under DIR/history/ (from the CPU\n"
    "                  model and ISA in DIR's .meta.json files)\n";

int cmd_report(int argc, char **argv)
{
    const char *dir = "results";
    int figure_data = 0, machine_id = 0;
    const char *history_kernel = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return fputs(report_help, stdout), 0;
        if (!strcmp(argv[i], "--figure-data") || !strcmp(argv[i], "--machine-id")) {
            *(argv[i][2] == 'f' ? &figure_data : &machine_id) = 1;
            continue;
        }
        if (!strcmp(argv[i], "--history-kernel") && i + 1 < argc) {
            history_kernel = argv[++i];
            continue;
        }
        if (argv[i][0] == '-') ln_die_usage("report: unknown option '%s' (see lnbench report --help)", argv[i]);
        if (i != argc - 1) ln_die_usage("report: one results folder at most");
        dir = argv[i];
    }
    if (machine_id) {
        ln_results R;
        if (!ln_results_load(&R, dir)) ln_die_usage("report: no results in %s/", dir);
        printf("%s\n", R.machine_id);
        ln_results_free(&R);
        return 0;
    }
    return figure_data ? ln_figures_write(dir, history_kernel) : ln_report_write(dir);
}
