/* lnbench: measures LayerNorm kernels for speed and for accuracy against an MPFR reference. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cpu.h"
#include "meta.h"
#include "plugin.h"
#include "verbs.h"

static const struct {
    const char *name;
    int (*run)(int, char **);
    const char *what;
} verbs[] = {
    {"list", cmd_list, "list every kernel, whether this CPU can run it, and how it computes"},
    {"accuracy", cmd_accuracy, "measure kernels against the MPFR reference: results/accuracy.csv"},
    {"stats", cmd_stats, "exact count, mean and variances of a file of decimal numbers"},
    {"bench", cmd_bench, "time kernels with Google Benchmark beside bandwidth probes: results/bench.{csv,json}"},
    {"tune", cmd_tune, "search each kernel's tunables on this machine: results/tuning/<machine>.json"},
    {"hunt", cmd_hunt, "search each kernel's worst rows, confirmed by MPFR: results/hunt/, results/hunt/hunt.csv"},
    {"summary", cmd_summary, "one line per kernel from results/bench.csv and results/accuracy.csv"},
    {"report", cmd_report, "REPORT.md and report.html from a results folder, summary first"},
    {"compare", cmd_compare, "two runs' speed (Mann-Whitney U test) and accuracy side by side: exit 1 on a slowdown"},
    {"merge", cmd_merge, "the shards or parts of a run (folders, CSV files) as one results folder"},
};
#define NVERBS (sizeof verbs / sizeof verbs[0])

static void usage(FILE *f)
{
    fputs("usage: lnbench VERB [options]     (lnbench VERB --help for a verb's options; lnbench --version)\n\nverbs:\n",
          f);
    for (size_t i = 0; i < NVERBS; i++) fprintf(f, "  %-10s %s\n", verbs[i].name, verbs[i].what);
    char caps[256];
    fprintf(f,
            "\noptions of every verb:\n"
            "  --op OP        the operator: %s; default %s\n"
            "                 (docs/ops.md); selects the kernels and the reference\n"
            "  --plugin PATH  also load the kernels of the shared library PATH (repeatable;\n"
            "                 docs/plugins.md): listed, measured and timed beside the built-in ones\n"
            "\nenvironment:\n"
            "  LNBENCH_ISA   cap the instruction sets kernels may use, each word allowing the ones\n"
            "                before it: %s (default)\n",
            ln_op_list(), ln_op_name((ln_op)0), ln_cpu_cap_names(caps, sizeof caps));
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return LN_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        ln_meta_print_version(stdout);
        return 0;
    }
    const char *cap = getenv("LNBENCH_ISA");
    unsigned mask;
    if (cap && *cap) {
        char caps[256];
        if (ln_cpu_cap_from_name(cap, &mask) != 0)
            ln_die_usage("LNBENCH_ISA='%s' is not a valid ISA cap; valid: %s", cap,
                         ln_cpu_cap_names(caps, sizeof caps));
        ln_cpu_set_cap(mask);
    }
    for (size_t i = 0; i < NVERBS; i++)
        if (!strcmp(argv[1], verbs[i].name)) {
            argc = ln_plugin_take_args(argc, argv, 2);
            argc = ln_op_take_args(argc, argv, 2);
            return verbs[i].run(argc - 1, argv + 1);
        }
    const char *names[NVERBS];
    for (size_t i = 0; i < NVERBS; i++) names[i] = verbs[i].name;
    const char *near = ln_did_you_mean(argv[1], names, NVERBS);
    if (near) {
        fprintf(stderr, "lnbench: unknown verb '%s'; did you mean '%s'?\n", argv[1], near);
        return LN_EXIT_USAGE;
    }
    fprintf(stderr, "lnbench: unknown verb '%s'; verbs:", argv[1]);
    for (size_t i = 0; i < NVERBS; i++) fprintf(stderr, " %s", verbs[i].name);
    fputc('\n', stderr);
    return LN_EXIT_USAGE;
}
