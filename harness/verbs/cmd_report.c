/* lnbench report [DIR]: REPORT.md and report.html from a results folder (harness/report/). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "report.h"
#include "verbs.h"

static const char report_help[] =
    "usage: lnbench report [DIR]\n"
    "Writes DIR/REPORT.md and DIR/report.html (one page, figures inlined) from the results in DIR\n"
    "(default results): bench.csv, accuracy.csv, conditioning.csv, eps.csv, their .meta.json,\n"
    "bench.json, and the figures of scripts/plots.sh in DIR/plots/. Summary first: verdicts,\n"
    "the fastest kernel per dtype and regime against the machine limit and the peers, the most\n"
    "accurate kernel and its cost, the Pareto front, warnings; details and full tables after.\n";

int cmd_report(int argc, char **argv)
{
    const char *dir = "results";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return fputs(report_help, stdout), 0;
        if (argv[i][0] == '-') ln_die_usage("report: unknown option '%s' (see lnbench report --help)", argv[i]);
        if (i != argc - 1) ln_die_usage("report: one results folder at most");
        dir = argv[i];
    }
    return ln_report_write(dir);
}
