/* lnbench compare BASE NEW (or --base PATH... --new PATH...): two timing runs side by side
 * (harness/report/compare.c). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "compare.h"
#include "verbs.h"

static const char compare_help[] =
    "usage: lnbench compare [--threshold PCT] [--cross-machine] [--only-changed] [--out PATH] BASE NEW\n"
    "       lnbench compare --kernels A,B RUN\n"
    "       lnbench compare [options] --base PATH [--base PATH...] --new PATH [--new PATH...]\n"
    "BASE, NEW: a results folder (bench.json and the op runs' ops/bench-OP.json), a bench JSON\n"
    "file, or a folder of runs (sub-folders each a results folder, repetitions pooled). Several\n"
    "--base (or --new) make one side: repetitions pooled (one CPU model, else exit 2), accuracy\n"
    "files merged as lnbench merge does (the shards of a split run; docs/shards.md). Per op and\n"
    "benchmark (kernel x D x rows; probes apart): median GB/s of each side's repetitions, ratio\n"
    "new / base, two-sided Mann-Whitney U p-value, Holm-adjusted over all kernel benchmarks, and a\n"
    "verdict: slower / faster when the ratio is beyond the threshold with adjusted p < 0.05;\n"
    "inconclusive when it is beyond but the repetitions are too few for any p to get there; else\n"
    "same. First one line per kernel (geomean ratio, verdict counts), then each benchmark, the\n"
    "geomean per op and the accuracy changes (the accuracy files beside each run).\n"
    "--kernels A,B RUN: kernels A and B of one run, case by case (D, regime, threads): their GB/s,\n"
    "the adjusted p of the difference, which is faster or whether the repetitions can tell.\n"
    "  --threshold PCT   default 5 (per cent)\n"
    "  --cross-machine   allow runs from different CPU models: compare fractions of each run's\n"
    "                    machine limit (its best probe in the regime) instead of GB/s\n"
    "  --out PATH        the table as CSV (default: compare.csv beside the first NEW)\n"
    "  --base PATH       a path of the base side; repeat for several (then no positional paths)\n"
    "  --new PATH        a path of the new side; likewise\n"
    "  --only-changed    list only the kernels and benchmarks whose verdict is not same\n"
    "  --allow-missing   compare when NEW lacks kernel benchmarks of BASE (else refused), and\n"
    "                    merge the accuracy shards there are when some of a split are missing\n"
    "  --kernels A,B     two kernels of the one run given\n"
    "Exit status: 1 when a kernel of any op is slower (each named on a 'slower:' line); 3 when none\n"
    "is slower but a change beyond the threshold is inconclusive; 0 otherwise; 2 on bad input,\n"
    "different CPUs, or NEW lacking kernel benchmarks of BASE (without --allow-missing).\n";

int cmd_compare(int argc, char **argv)
{
    static const struct option opts[] = {{"threshold", required_argument, 0, 't'},
                                         {"cross-machine", no_argument, 0, 'x'},
                                         {"out", required_argument, 0, 'o'},
                                         {"base", required_argument, 0, 'b'},
                                         {"new", required_argument, 0, 'n'},
                                         {"allow-missing", no_argument, 0, 'm'},
                                         {"only-changed", no_argument, 0, 'c'},
                                         {"kernels", required_argument, 0, 'k'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    ln_compare_opts o = {.threshold = 0.05, .color = isatty(1)};
    const char *base[64], *new_[64];
    size_t nbase = 0, nnew = 0;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 't') o.threshold = ln_parse_double(optarg, "--threshold") / 100;
        else if (c == 'x') o.cross_machine = 1;
        else if (c == 'o') o.out_csv = optarg;
        else if (c == 'm') o.allow_missing = 1;
        else if (c == 'c') o.only_changed = 1;
        else if (c == 'k') o.kernels = optarg;
        else if (c == 'b' || c == 'n') {
            if ((c == 'b' ? nbase : nnew) == 64) ln_die_usage("compare: at most 64 --base and 64 --new");
            if (c == 'b') base[nbase++] = optarg;
            else new_[nnew++] = optarg;
        } else if (c == 'h') return fputs(compare_help, stdout), 0;
        else ln_die_usage("compare: see 'lnbench compare --help'");
    }
    if (o.kernels) {
        if (nbase || nnew || argc - optind != 1)
            ln_die_usage("compare: --kernels A,B takes one run (see 'lnbench compare --help')");
        new_[nnew++] = argv[optind];
    } else if (nbase || nnew) {
        if (argc > optind)
            ln_die_usage("compare: '%s': with --base and --new every path goes after one of them", argv[optind]);
        if (!nbase || !nnew) ln_die_usage("compare: needs --base PATH and --new PATH (see 'lnbench compare --help')");
    } else {
        if (argc - optind != 2) ln_die_usage("compare: needs BASE and NEW (see 'lnbench compare --help')");
        base[nbase++] = argv[optind], new_[nnew++] = argv[optind + 1];
    }
    if (o.threshold < 0) ln_die_usage("--threshold: must not be negative");
    o.base = base, o.new_ = new_, o.nbase = nbase, o.nnew = nnew;
    return ln_compare(&o);
}
