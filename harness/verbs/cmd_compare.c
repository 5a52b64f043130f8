/* lnbench compare BASE NEW: two timing runs side by side (harness/report/compare.c). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "compare.h"
#include "verbs.h"

static const char compare_help[] =
    "usage: lnbench compare [--threshold PCT] [--cross-machine] [--out PATH] BASE NEW\n"
    "BASE, NEW: a results folder, a bench.json, or a folder of runs (sub-folders each with a\n"
    "bench.json, repetitions pooled). Per benchmark (kernel x D x rows; probes apart): median GB/s\n"
    "of each run's repetitions, ratio new / base, two-sided Mann-Whitney U p-value, and a verdict:\n"
    "slower / faster when the ratio is beyond the threshold with p < 0.05, else same. Then the\n"
    "geomean ratio over kernels and the accuracy changes (accuracy.csv beside each run).\n"
    "  --threshold PCT   default 5 (per cent)\n"
    "  --cross-machine   allow runs from different CPU models: compare fractions of each run's\n"
    "                    machine limit (its best probe in the regime) instead of GB/s\n"
    "  --out PATH        the table as CSV (default: compare.csv beside NEW)\n"
    "Exit status: 1 when a kernel is slower, 0 otherwise, 2 on bad input or different CPUs.\n";

int cmd_compare(int argc, char **argv)
{
    static const struct option opts[] = {{"threshold", required_argument, 0, 't'},
                                         {"cross-machine", no_argument, 0, 'x'},
                                         {"out", required_argument, 0, 'o'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    ln_compare_opts o = {.threshold = 0.05, .color = isatty(1)};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 't') o.threshold = ln_parse_double(optarg, "--threshold") / 100;
        else if (c == 'x') o.cross_machine = 1;
        else if (c == 'o') o.out_csv = optarg;
        else if (c == 'h') return fputs(compare_help, stdout), 0;
        else ln_die_usage("compare: see 'lnbench compare --help'");
    }
    if (argc - optind != 2) ln_die_usage("compare: needs BASE and NEW (see 'lnbench compare --help')");
    if (o.threshold < 0) ln_die_usage("--threshold: must not be negative");
    o.base = argv[optind], o.new_ = argv[optind + 1];
    return ln_compare(&o);
}
