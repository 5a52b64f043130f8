/* lnbench merge --out DIR SRC...: the shards (or parts) of a run as one results folder
 * (harness/report/merge.c). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "merge.h"
#include "verbs.h"

static const char merge_help[] =
    "usage: lnbench merge [--allow-missing] --out DIR SRC...\n"
    "Writes into DIR the results of every SRC as one set: SRC is a results folder (with the op\n"
    "runs of make bench-ops in its ops/: accuracy-OP.csv, bench-OP.csv, bench-OP.json) or a CSV file\n"
    "(accuracy, conditioning, eps, bench or hunt; told by the start of its name, e.g.\n"
    "accuracy-3.csv, else by its columns). Per kind one CSV and its .meta.json (and bench.json);\n"
    "report, compare, summary and scripts/plots.sh then read DIR like any results folder.\n"
    "  --out DIR        the merged folder (created if missing)\n"
    "  --allow-missing  merge the shards that are there when some of a --shard K/N split are\n"
    "                   missing (the merge's .meta.json names them); default: exit 2\n"
    "Rules (docs/shards.md): a case given twice is kept once when its rows are identical (accuracy:\n"
    "all but ref_seconds), else exit 2 naming both files and the column; shards of one split are put\n"
    "back in the unsharded run's row order; accuracy from different CPU models merges with a note,\n"
    "timing (bench.csv) from different CPU models is refused; hunt.csv keeps per kernel and case the\n"
    "row with the largest ratio. Exit status 0, or 2 on bad input.\n";

int cmd_merge(int argc, char **argv)
{
    static const struct option opts[] = {{"out", required_argument, 0, 'o'},
                                         {"allow-missing", no_argument, 0, 'm'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *out = NULL;
    int allow_missing = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 'o') out = optarg;
        else if (c == 'm') allow_missing = 1;
        else if (c == 'h') return fputs(merge_help, stdout), 0;
        else ln_die_usage("merge: see 'lnbench merge --help'");
    }
    if (!out) ln_die_usage("merge: needs --out DIR (see 'lnbench merge --help')");
    if (optind == argc) ln_die_usage("merge: needs at least one results folder or file to merge");
    ln_merge_results(out, (const char *const *)argv + optind, (size_t)(argc - optind), allow_missing);
    return 0;
}
